"""Resize (and Upsample, which the importer's opset upgrade turns into
Resize): every output element is computed from the input positions its
coordinate maps to, in one generic over the output.

Along each resized axis, output position x maps to the input coordinate
x_original of the `coordinate_transformation_mode` (half_pixel,
half_pixel_symmetric, pytorch_half_pixel, align_corners, asymmetric,
tf_crop_and_resize with `roi` and `extrapolation_value`), computed in double
with the spec reference's formulas and operation order (so rounding ties
fall as they do there), from a scale that is a constant or known only at
run time (`scales`, or `sizes` with `keep_aspect_ratio_policy`, over the
`axes` given). As in the reference, "output_width" in those formulas is
scale * input size (not the rounded output size); onnxruntime uses the
rounded size, which differs only for scales that do not give a whole size.

- nearest: one input position, x_original rounded by `nearest_mode`
  (round_prefer_floor, round_prefer_ceil, floor, ceil), clamped to the axis.
  The element is copied as it is.
- linear and cubic: taps j around floor(x_original) (2 and 4, or with
  `antialias` and a scale below 1, as many as the stretched kernel covers:
  a count computed at run time), weighted by the triangle or the cubic
  kernel (`cubic_coeff_a`) at (j - ratio) * scale; positions clamp to the
  axis, or with `exclude_outside` weigh nothing outside it. Weights are
  normalised to sum 1 where the spec does (antialias, exclude_outside).
  The N-linear (N-cubic) result is the sum over every combination of taps
  of the product of the axes' weights times the element, accumulated in
  double; integer results round half to even and saturate (the
  reference's cast).

Axes not resized (outside `axes`, or with a constant scale of 1 and the
same size) are read as they are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerType, f64
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    check,
    constant_value,
    element_type,
    indexed_generic,
    is_none,
    normalize_axis,
    shape_of,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.loops import builder_before, for_range, index
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size, is_static, static

Real = float | SSAValue
"""A double known at compile time, or an f64 value computed at run time."""

MODES = ("nearest", "linear", "cubic")
COORDINATES = (
    "half_pixel",
    "half_pixel_symmetric",
    "pytorch_half_pixel",
    "align_corners",
    "asymmetric",
    "tf_crop_and_resize",
)
ROUNDING = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def real(b: Builder, value: Real) -> SSAValue:
    """`value` as an f64 value built at `b`."""
    if isinstance(value, SSAValue):
        return value
    return b.insert(arith.ConstantOp(FloatAttr(value, f64))).result


def _binary(b: Builder, cls: type, x: Real, y: Real) -> SSAValue:
    return b.insert(cls(real(b, x), real(b, y))).result


def add(b: Builder, x: Real, y: Real) -> SSAValue:
    return _binary(b, arith.AddfOp, x, y)


def sub(b: Builder, x: Real, y: Real) -> SSAValue:
    return _binary(b, arith.SubfOp, x, y)


def mul(b: Builder, x: Real, y: Real) -> SSAValue:
    return _binary(b, arith.MulfOp, x, y)


def div(b: Builder, x: Real, y: Real) -> SSAValue:
    return _binary(b, arith.DivfOp, x, y)


def select(b: Builder, condition: SSAValue, x: Real, y: Real) -> SSAValue:
    return b.insert(arith.SelectOp(condition, real(b, x), real(b, y))).result


def compare(b: Builder, predicate: str, x: Real, y: Real) -> SSAValue:
    return b.insert(arith.CmpfOp(real(b, x), real(b, y), predicate)).result


def of_index(b: Builder, value: SSAValue) -> SSAValue:
    """An index value as a double."""
    wide = b.insert(arith.IndexCastOp(value, IntegerType(64))).result
    return b.insert(arith.SIToFPOp(wide, f64)).result


def to_index(b: Builder, value: SSAValue) -> SSAValue:
    """A whole double as an index value (saturating, as the C does)."""
    return b.insert(
        arith.IndexCastOp(scalar.convert(b, value, IntegerType(64)), IndexType())
    ).result


@dataclass
class ResizedAxis:
    """One resized axis: its sizes and scale, what its coordinate mapping
    needs, and (linear, cubic) its taps."""

    axis: int
    size: Size
    out: Size
    scale: Real
    roi: tuple[Real, Real] = (0.0, 1.0)
    start: Size = 0
    """The first tap offset (1 - the number of taps / 2)."""
    stretch: Real = 1.0
    """The kernel's scale: min(scale, 1) with antialias, else 1."""


class ResizeOpLowering(OnnxLowering[onnx.ResizeOp]):
    """`onnx.Resize` (see the module docstring)."""

    def rewrite(self, op: onnx.ResizeOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        mode = op.attr("mode") or "nearest"
        coordinates = op.attr("coordinate_transformation_mode") or "half_pixel"
        rounding = op.attr("nearest_mode") or "round_prefer_floor"
        if mode not in MODES:
            raise unsupported(op, f"mode '{mode}'")
        if coordinates not in COORDINATES:
            raise unsupported(op, f"coordinate_transformation_mode '{coordinates}'")
        if rounding not in ROUNDING:
            raise unsupported(op, f"nearest_mode '{rounding}'")
        antialias = bool(op.attr("antialias")) and mode != "nearest"
        sizes = shapes.sizes(op.X)
        rank = len(sizes)
        axes_attr = op.attr("axes")
        axes = (
            list(range(rank))
            if axes_attr is None
            else [normalize_axis(op, int(a), rank) for a in axes_attr]
        )
        if len(set(axes)) != len(axes):
            raise unsupported(op, f"repeated axes {axes}")
        here = builder_before(op)
        resized = self._axes(op, rewriter, here, sizes, axes)
        if coordinates == "tf_crop_and_resize":
            self._roi(op, rewriter, here, resized)
        out_sizes = list(sizes)
        for a in resized:
            out_sizes[a.axis] = a.out
        output = self.result_buffer(rewriter, op.Y, out_sizes)
        resized = [a for a in resized if not self._identity(a, coordinates)]
        radius = {"linear": 1.0, "cubic": 2.0}.get(mode)
        for a in resized:
            if radius is not None and antialias:
                a.stretch = self._min1(here, a.scale)
                a.start = self._first_tap(here, a.stretch, radius)
            elif radius is not None:
                a.start = 1 - int(radius)
        source = buffer_of(rewriter, op.X)
        element = element_type(output)
        body = Body(op, source, element, resized, mode, coordinates, rounding)
        body.exclude_outside = bool(op.attr("exclude_outside"))
        body.normalize = antialias or body.exclude_outside
        body.cubic_a = float(op.attr("cubic_coeff_a"))
        body.extrapolation = float(op.attr("extrapolation_value"))
        body.prepare(here, shapes)
        if not any(isinstance(s, int) and s == 0 for s in shapes.sizes(output)):
            indexed_generic(rewriter, op, output, body.build)
        self.replace(rewriter, op, [output])

    # --- scales and sizes -----------------------------------------------------------

    def _axes(
        self,
        op: onnx.ResizeOp,
        rewriter: PatternRewriter,
        here: Builder,
        sizes: Sequence[Size],
        axes: list[int],
    ) -> list[ResizedAxis]:
        shapes = self.shapes
        if _given(op.sizes):
            wanted = shape_elements(op, rewriter, shapes, op.sizes)
            if len(wanted) != len(axes):
                raise unsupported(op, f"{len(wanted)} sizes for {len(axes)} axes")
            for k, size in enumerate(wanted):
                if isinstance(size, int) and size < 0:
                    raise unsupported(op, f"sizes[{k}] is negative")
                if not isinstance(size, int):
                    check(rewriter, op, shapes.equal(shapes.max(size, 0), size), "sizes >= 0")
            return self._from_sizes(op, here, sizes, axes, wanted)
        if not _given(op.scales):
            raise unsupported(op, "neither scales nor sizes is given")
        known = constant_value(op.scales)
        if known is not None:
            scales: list[Real] = [float(s) for s in known.reshape(-1)]
        else:
            buffer = buffer_of(rewriter, op.scales)
            count = shape_of(op.scales)[0]
            scales = [
                scalar.convert(
                    here, here.insert(memref.LoadOp.get(buffer, [index(here, k)])).res, f64
                )
                for k in range(count)
            ]
        if len(scales) != len(axes):
            raise unsupported(op, f"{len(scales)} scales for {len(axes)} axes")
        found: list[ResizedAxis] = []
        for axis, scale in zip(axes, scales, strict=True):
            size = sizes[axis]
            if isinstance(scale, float) and scale <= 0:
                raise unsupported(op, f"scale {scale} is not positive")
            if isinstance(scale, SSAValue):
                check(rewriter, op, compare(here, "ogt", scale, 0.0), "scales > 0")
            found.append(ResizedAxis(axis, size, self._scaled(here, scale, size, 0.0), scale))
        return found

    def _from_sizes(
        self,
        op: onnx.ResizeOp,
        here: Builder,
        sizes: Sequence[Size],
        axes: list[int],
        wanted: list[Size],
    ) -> list[ResizedAxis]:
        """Scales from sizes: out / in per axis, or with keep_aspect_ratio_policy
        not_larger (not_smaller) the least (greatest) of them for every axis,
        the sizes then int(scale * in + 0.5)."""
        shapes = self.shapes
        policy = op.attr("keep_aspect_ratio_policy") or "stretch"
        if policy not in ("stretch", "not_larger", "not_smaller"):
            raise unsupported(op, f"keep_aspect_ratio_policy '{policy}'")
        inputs = [sizes[a] for a in axes]
        if is_static(inputs) and is_static(wanted):
            ratios: list[Real] = [
                w / s for w, s in zip(static(wanted), static(inputs), strict=True)
            ]
        else:
            ratios = [
                div(here, of_index(here, shapes.index(w)), of_index(here, shapes.index(s)))
                for w, s in zip(wanted, inputs, strict=True)
            ]
        if policy == "stretch":
            return [
                ResizedAxis(a, s, w, r)
                for a, s, w, r in zip(axes, inputs, wanted, ratios, strict=True)
            ]
        pick = min if policy == "not_larger" else max
        if all(isinstance(r, float) for r in ratios):
            scale: Real = pick(float(r) for r in ratios if isinstance(r, float))
        else:
            scale = ratios[0]
            for r in ratios[1:]:
                cls = arith.MinimumfOp if policy == "not_larger" else arith.MaximumfOp
                scale = _binary(here, cls, scale, r)
        found: list[ResizedAxis] = []
        for a, s in zip(axes, inputs, strict=True):
            found.append(ResizedAxis(a, s, self._scaled(here, scale, s, 0.5), scale))
        return found

    def _scaled(self, here: Builder, scale: Real, size: Size, offset: float) -> Size:
        """floor(scale * size + offset): an output size (the reference's
        int() of a positive double)."""
        if isinstance(scale, float) and isinstance(size, int):
            return int(np.float64(scale) * size + offset)
        grown = add(here, mul(here, scale, of_index(here, self.shapes.index(size))), offset)
        return to_index(here, here.insert(math_dialect.FloorOp(grown)).result)

    def _roi(
        self,
        op: onnx.ResizeOp,
        rewriter: PatternRewriter,
        here: Builder,
        resized: list[ResizedAxis],
    ) -> None:
        """The region of tf_crop_and_resize: starts then ends, one per axis."""
        if not _given(op.roi):
            raise unsupported(op, "tf_crop_and_resize needs roi")
        count = len(resized)
        known = constant_value(op.roi)
        if known is not None:
            values: list[Real] = [float(v) for v in known.reshape(-1)]
        else:
            buffer = buffer_of(rewriter, op.roi)
            values = [
                scalar.convert(
                    here, here.insert(memref.LoadOp.get(buffer, [index(here, k)])).res, f64
                )
                for k in range(shape_of(op.roi)[0])
            ]
        if len(values) != 2 * count:
            raise unsupported(op, f"roi has {len(values)} values for {count} axes")
        for k, a in enumerate(resized):
            a.roi = (values[k], values[count + k])

    def _identity(self, a: ResizedAxis, coordinates: str) -> bool:
        return (
            coordinates != "tf_crop_and_resize"
            and isinstance(a.scale, float)
            and math.isclose(a.scale, 1.0)
            and self.shapes.same(a.out, a.size)
        )

    def _min1(self, here: Builder, scale: Real) -> Real:
        if isinstance(scale, float):
            return min(scale, 1.0)
        return _binary(here, arith.MinimumfOp, scale, 1.0)

    def _first_tap(self, here: Builder, stretch: Real, radius: float) -> Size:
        """floor(-radius / stretch) + 1, the reference's first tap offset."""
        if isinstance(stretch, float):
            return int(math.floor(-radius / stretch)) + 1
        reach = here.insert(math_dialect.FloorOp(div(here, -radius, stretch))).result
        return self.shapes.add(to_index(here, reach), 1)


def _given(value: SSAValue) -> bool:
    """An optional input that is present and not empty (old exporters give
    an empty scales beside sizes)."""
    return not is_none(value) and shape_of(value) != (0,)


class Body:
    """Builds the generic's body of a Resize: the input coordinate of each
    resized axis, then the element (nearest) or the weighted sum over taps."""

    def __init__(
        self,
        op: onnx.ResizeOp,
        source: SSAValue,
        element: Attribute,
        axes: list[ResizedAxis],
        mode: str,
        coordinates: str,
        rounding: str,
    ) -> None:
        self.op = op
        self.source = source
        self.element = element
        self.axes = axes
        self.mode = mode
        self.coordinates = coordinates
        self.rounding = rounding
        self.exclude_outside = False
        self.normalize = False
        self.cubic_a = -0.75
        self.extrapolation = 0.0
        self.values: list[dict[str, Real | SSAValue]] = []

    def prepare(self, here: Builder, shapes: Shapes) -> None:
        """What each axis's coordinate needs, built once before the generic:
        the sizes as doubles, output_width = scale * size and whether it is 1,
        half_pixel_symmetric's offset, the region's extent."""
        mode = self.coordinates
        for a in self.axes:
            values: dict[str, Real | SSAValue] = {"top": shapes.index(shapes.sub(a.size, 1))}
            size: Real = float(a.size) if isinstance(a.size, int) else of_index(here, a.size)
            if isinstance(a.scale, float) and isinstance(size, float):
                width: Real = a.scale * size
            else:
                width = mul(here, a.scale, size)
            if mode in ("align_corners", "tf_crop_and_resize", "pytorch_half_pixel"):
                values["width"] = width
                values["single"] = compare(here, "oeq", width, 1.0)
            if mode in ("align_corners", "tf_crop_and_resize"):
                values["last"] = sub(here, size, 1.0) if isinstance(size, SSAValue) else size - 1.0
            if mode == "half_pixel_symmetric":
                adjustment = div(here, of_index(here, shapes.index(a.out)), width)
                values["offset"] = mul(here, div(here, size, 2.0), sub(here, 1.0, adjustment))
            if mode == "tf_crop_and_resize":
                start, end = a.roi
                values["extent"] = sub(here, end, start)
                values["origin"] = mul(here, start, values["last"])
            if self.mode != "nearest":
                values["taps_start"] = shapes.index(a.start)
                values["taps_end"] = shapes.index(shapes.sub(2, a.start))
            if self.exclude_outside:
                values["size_index"] = shapes.index(a.size)
            self.values.append(values)

    def coordinate(self, b: Builder, k: int, position: SSAValue) -> SSAValue:
        """x_original of output `position` along resized axis k."""
        a, v = self.axes[k], self.values[k]
        y = of_index(b, position)
        mode = self.coordinates
        if mode == "asymmetric":
            return div(b, y, a.scale)
        if mode == "align_corners":
            ramp = div(b, mul(b, y, v["last"]), sub(b, v["width"], 1.0))
            return select(b, _flag(v["single"]), 0.0, ramp)
        if mode == "tf_crop_and_resize":
            ramp = div(b, mul(b, mul(b, y, v["extent"]), v["last"]), sub(b, v["width"], 1.0))
            middle = div(b, mul(b, v["extent"], v["last"]), 2.0)
            return add(b, select(b, _flag(v["single"]), middle, ramp), v["origin"])
        centre = div(b, add(b, y, 0.5), a.scale)
        if mode == "half_pixel_symmetric":
            return sub(b, add(b, v["offset"], centre), 0.5)
        x = sub(b, centre, 0.5)
        if mode == "pytorch_half_pixel":
            return select(b, _flag(v["single"]), -0.5, x)
        return x

    def nearest(self, b: Builder, k: int, x: SSAValue) -> SSAValue:
        """The input position nearest x, by nearest_mode, clamped."""
        if self.rounding == "round_prefer_floor":
            x = b.insert(math_dialect.CeilOp(sub(b, x, 0.5))).result
        elif self.rounding == "round_prefer_ceil":
            x = b.insert(math_dialect.FloorOp(add(b, x, 0.5))).result
        elif self.rounding == "floor":
            x = b.insert(math_dialect.FloorOp(x)).result
        else:
            x = b.insert(math_dialect.CeilOp(x)).result
        return self.clamp(b, k, to_index(b, x))

    def clamp(self, b: Builder, k: int, position: SSAValue) -> SSAValue:
        position = b.insert(arith.MaxSIOp(position, index(b, 0))).result
        return b.insert(arith.MinSIOp(position, _flag(self.values[k]["top"]))).result

    def kernel(self, b: Builder, t: SSAValue) -> SSAValue:
        """The filter's weight at distance t (of any sign)."""
        t = b.insert(math_dialect.AbsFOp(t)).result
        if self.mode == "linear":
            return _binary(b, arith.MaximumfOp, sub(b, 1.0, t), 0.0)
        a = self.cubic_a
        square = mul(b, t, t)
        cube = mul(b, square, t)
        near = add(b, sub(b, mul(b, a + 2, cube), mul(b, a + 3, square)), 1.0)
        far = sub(
            b, add(b, sub(b, mul(b, a, cube), mul(b, 5 * a, square)), mul(b, 8 * a, t)), 4 * a
        )
        far = select(b, compare(b, "olt", t, 2.0), far, 0.0)
        return select(b, compare(b, "ole", t, 1.0), near, far)

    def build(self, b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
        reads: list[SSAValue] = list(position)
        outside: SSAValue | None = None
        anchors: list[tuple[int, SSAValue, SSAValue]] = []
        for k, a in enumerate(self.axes):
            x = self.coordinate(b, k, position[a.axis])
            if self.coordinates == "tf_crop_and_resize":
                beyond = b.insert(
                    arith.OrIOp(
                        compare(b, "olt", x, 0.0), compare(b, "ogt", x, self.values[k]["last"])
                    )
                ).result
                outside = (
                    beyond if outside is None else b.insert(arith.OrIOp(outside, beyond)).result
                )
            if self.mode == "nearest":
                reads[a.axis] = self.nearest(b, k, x)
                continue
            # The reference prefers the taps left of x: a whole x is ratio 1.
            floor = b.insert(math_dialect.FloorOp(x)).result
            whole = compare(b, "oeq", floor, x)
            base = select(b, whole, sub(b, floor, 1.0), floor)
            ratio = select(b, whole, 1.0, sub(b, x, floor))
            anchors.append((k, to_index(b, base), ratio))
        if not anchors:
            value = b.insert(memref.LoadOp.get(self.source, reads)).res
            if outside is None:
                return value
            filler = scalar.constant(b, self.extrapolation, self.element)
            return b.insert(arith.SelectOp(outside, filler, value)).result
        total = self.taps(b, reads, anchors)
        if outside is not None:
            total = select(b, outside, self.extrapolation, total)
        return self.rounded(b, total)

    def taps(
        self, b: Builder, reads: list[SSAValue], anchors: list[tuple[int, SSAValue, SSAValue]]
    ) -> SSAValue:
        """The weighted sum over every combination of the anchors' taps."""
        zero = real(b, 0.0)

        def level(
            b: Builder, depth: int, chosen: list[SSAValue], sums: list[SSAValue]
        ) -> list[SSAValue]:
            if depth == len(anchors):
                return self.tap(b, reads, anchors, chosen, sums)
            k = anchors[depth][0]

            def trip(inner: Builder, j: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
                return level(inner, depth + 1, [*chosen, j], carried)

            v = self.values[k]
            return for_range(b, _flag(v["taps_start"]), _flag(v["taps_end"]), sums, trip)

        total, weights = level(b, 0, [], [zero, zero])
        return div(b, total, weights) if self.normalize else total

    def tap(
        self,
        b: Builder,
        reads: list[SSAValue],
        anchors: list[tuple[int, SSAValue, SSAValue]],
        chosen: list[SSAValue],
        sums: list[SSAValue],
    ) -> list[SSAValue]:
        weight: SSAValue | None = None
        at = list(reads)
        for (k, base, ratio), j in zip(anchors, chosen, strict=True):
            a = self.axes[k]
            position = b.insert(arith.AddiOp(base, j)).result
            distance = sub(b, of_index(b, j), ratio)
            if not (isinstance(a.stretch, float) and a.stretch == 1.0):
                distance = mul(b, distance, a.stretch)
            w = self.kernel(b, distance)
            if self.exclude_outside:
                size = _flag(self.values[k]["size_index"])
                inside = b.insert(arith.CmpiOp(position, size, "ult")).result
                w = select(b, inside, w, 0.0)
            weight = w if weight is None else mul(b, weight, w)
            at[a.axis] = self.clamp(b, k, position)
        assert weight is not None
        value = scalar.convert(b, b.insert(memref.LoadOp.get(self.source, at)).res, f64)
        return [add(b, sums[0], mul(b, weight, value)), add(b, sums[1], weight)]

    def rounded(self, b: Builder, value: SSAValue) -> SSAValue:
        """The double result in the output's type: integers round half to
        even and saturate."""
        if scalar.kind(self.element) is not Kind.FLOAT:
            value = b.insert(math_dialect.RoundEvenOp(value)).result
        return scalar.convert(b, value, self.element)


def _flag(value: Real | SSAValue) -> SSAValue:
    assert isinstance(value, SSAValue)
    return value
