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
  The element is copied as it is. Where an axis's sizes are static, its
  positions are computed once per output position into a table the
  generic reads (`Body.tabulate`).
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

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import f64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.errors import UnsupportedError
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
from onnxc.lowering.convert_onnx_to_linalg.interpolation import (
    Body,
    Real,
    ResizedAxis,
    add,
    binary,
    compare,
    div,
    mul,
    of_index,
    to_index,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, index
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.index_arith import Size, is_static, static

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
        body.tabulate(here)
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
            if count != len(axes):  # before a load each (a count of 2^31 would never end)
                raise unsupported(op, f"{count} scales for {len(axes)} axes")
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
                scale = binary(here, cls, scale, r)
        found: list[ResizedAxis] = []
        for a, s in zip(axes, inputs, strict=True):
            found.append(ResizedAxis(a, s, self._scaled(here, scale, s, 0.5), scale))
        return found

    def _scaled(self, here: Builder, scale: Real, size: Size, offset: float) -> Size:
        """floor(scale * size + offset): an output size (the reference's
        int() of a positive double)."""
        if isinstance(scale, float) and isinstance(size, int):
            value = np.float64(scale) * size + offset
            if not np.isfinite(value) or value < 0:
                raise UnsupportedError(f"Resize: a scale of {scale} gives no size")
            return int(value)
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
        return binary(here, arith.MinimumfOp, scale, 1.0)

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
