"""Interpolation in double for Resize: the arithmetic on values that are a
constant or an f64 computed at run time (`Real`), and `Body`, which builds
the body of Resize's generic (the coordinate of each resized axis, then the
element it rounds to or the weighted sum over the filter's taps).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerType, f64, i32
from xdsl.ir import Attribute, SSAValue

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import for_range, index
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

Real = float | SSAValue
"""A double known at compile time, or an f64 value computed at run time."""


def real(b: Builder, value: Real) -> SSAValue:
    """`value` as an f64 value built at `b`."""
    if isinstance(value, SSAValue):
        return value
    return b.insert(arith.ConstantOp(FloatAttr(value, f64))).result


def binary(b: Builder, cls: type, x: Real, y: Real) -> SSAValue:
    return b.insert(cls(real(b, x), real(b, y))).result


def add(b: Builder, x: Real, y: Real) -> SSAValue:
    return binary(b, arith.AddfOp, x, y)


def sub(b: Builder, x: Real, y: Real) -> SSAValue:
    return binary(b, arith.SubfOp, x, y)


def mul(b: Builder, x: Real, y: Real) -> SSAValue:
    return binary(b, arith.MulfOp, x, y)


def div(b: Builder, x: Real, y: Real) -> SSAValue:
    return binary(b, arith.DivfOp, x, y)


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
        self.tables: dict[int, SSAValue] = {}
        """Resized axis k -> its input positions by output position (nearest)."""

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

    def tabulate(self, here: Builder) -> None:
        """Nearest, along each resized axis of static sizes: the input position
        of every output position, computed once before the generic into a
        table of int32 (the same formulas, so the same positions) that the
        generic reads instead of converting, dividing, rounding and
        clamping for every element. Not for tf_crop_and_resize, whose
        coordinates outside the region also select the extrapolation value."""
        if self.mode != "nearest" or self.coordinates == "tf_crop_and_resize":
            return
        for k, a in enumerate(self.axes):
            if not isinstance(a.out, int) or not isinstance(a.size, int) or a.out == 0:
                continue
            if a.size > 2**31 - 1:
                continue
            self.tables[k] = here.insert(memref.AllocOp.get(i32, shape=[a.out])).memref
            for_range(here, 0, a.out, [], functools.partial(self._tabulated, k))

    def _tabulated(self, k: int, b: Builder, o: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        """One entry of axis k's table: the input position of output o."""
        position = self.nearest(b, k, self.coordinate(b, k, o))
        narrow = b.insert(arith.IndexCastOp(position, i32)).result
        b.insert(memref.StoreOp.get(narrow, self.tables[k], [o]))
        return []

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
        return filter_weight(b, self.mode, t, self.cubic_a)

    def build(self, b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
        reads: list[SSAValue] = list(position)
        outside: SSAValue | None = None
        anchors: list[tuple[int, SSAValue, SSAValue]] = []
        for k, a in enumerate(self.axes):
            if k in self.tables:
                read = b.insert(memref.LoadOp.get(self.tables[k], [position[a.axis]])).res
                reads[a.axis] = b.insert(arith.IndexCastOp(read, IndexType())).result
                continue
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
        return rounded(b, value, self.element)


def filter_weight(b: Builder, mode: str, t: SSAValue, a: float) -> SSAValue:
    """The weight at distance t (of any sign) of the linear filter, or
    (mode "cubic") of Keys' cubic filter with coefficient a."""
    t = b.insert(math_dialect.AbsFOp(t)).result
    if mode == "linear":
        return binary(b, arith.MaximumfOp, sub(b, 1.0, t), 0.0)
    square = mul(b, t, t)
    cube = mul(b, square, t)
    near = add(b, sub(b, mul(b, a + 2, cube), mul(b, a + 3, square)), 1.0)
    far = sub(b, add(b, sub(b, mul(b, a, cube), mul(b, 5 * a, square)), mul(b, 8 * a, t)), 4 * a)
    far = select(b, compare(b, "olt", t, 2.0), far, 0.0)
    return select(b, compare(b, "ole", t, 1.0), near, far)


def rounded(b: Builder, value: SSAValue, element: Attribute) -> SSAValue:
    """A double result in `element`: integers round half to even and
    saturate."""
    if scalar.kind(element) is not Kind.FLOAT:
        value = b.insert(math_dialect.RoundEvenOp(value)).result
    return scalar.convert(b, value, element)


def _flag(value: Real | SSAValue) -> SSAValue:
    assert isinstance(value, SSAValue)
    return value
