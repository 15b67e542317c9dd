"""Sampling grids: GridSample, AffineGrid, and the sampling of an input at
real-valued positions that GridSample and DeformConv share.

GridSample computes each output element from the grid's coordinates (the
last one for the last spatial axis), in double as Resize does, following
onnx.reference (PyTorch's grid_sampler): a coordinate in [-1, 1] is mapped
to a position along its axis (align_corners: -1 and 1 are the centres of the
first and last elements; else their outer edges); `nearest` rounds it half
to even; a position outside [-0.5, size - 0.5] (align_corners: [0, size -
1]) is clamped to [0, size - 1] (padding_mode border) or reflected at those
bounds (reflection). Then `nearest` reads the element there, `linear` sums
the 2 taps along each axis around the position with weights 1 - t and t,
`cubic` the 4 taps with Keys' weights (a = -0.75); a tap outside the input
reads 0 (zeros), the nearest element (border) or its reflection. Integer
outputs round half to even and saturate.

onnxruntime differs for cubic with border padding: it clamps each tap, not
the position (PyTorch's way); the spec's "border values for out-of-bound
grid locations" reads as the reference does.

AffineGrid is a parallel generic: the grid point of each output position
is theta [N, r, r + 1] times the homogeneous position (x, y[, z], 1) of its
element's centre in [-1, 1] (align_corners: of the element itself; a size
of 1 gives 0, as PyTorch; onnx.reference divides by zero there and
onnxruntime gives 1 with align_corners).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import f64
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    accumulator_type,
    buffer_of,
    element_type,
    indexed_generic,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.interpolation import (
    Real,
    add,
    compare,
    div,
    filter_weight,
    mul,
    of_index,
    real,
    rounded,
    select,
    sub,
    to_index,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, index
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

MODES = {"linear": "linear", "bilinear": "linear", "nearest": "nearest", "cubic": "cubic"}
MODES["bicubic"] = "cubic"
PADDINGS = ("zeros", "border", "reflection")
OFFSETS = {"linear": (0, 1), "cubic": (-1, 0, 1, 2)}
"""The taps of each filter, relative to the position's floor."""


def _floor(b: Builder, x: SSAValue) -> SSAValue:
    return b.insert(math_dialect.FloorOp(x)).result


def _both(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith.AndIOp(x, y)).result


@dataclass
class SampledAxis:
    """One spatial axis of a sampled input: its size (an index value built
    before the body) and, as a double, its extent and the bounds positions
    are clamped or reflected into."""

    size: SSAValue
    extent: Real
    low: float
    high: Real

    @staticmethod
    def of(here: Builder, shapes: Shapes, size: Size, align_corners: bool) -> SampledAxis:
        extent: Real = float(size) if isinstance(size, int) else of_index(here, size)
        if align_corners:
            high = extent - 1.0 if isinstance(extent, float) else sub(here, extent, 1.0)
            return SampledAxis(shapes.index(size), extent, 0.0, high)
        high = extent - 0.5 if isinstance(extent, float) else sub(here, extent, 0.5)
        return SampledAxis(shapes.index(size), extent, -0.5, high)

    def outside(self, b: Builder, x: SSAValue) -> SSAValue:
        below = compare(b, "olt", x, self.low)
        return b.insert(arith.OrIOp(below, compare(b, "ogt", x, self.high))).result

    def reflect(self, b: Builder, x: SSAValue) -> SSAValue:
        """x folded into [low, high] by reflection at the bounds (low when
        they meet); x itself inside them."""
        span = sub(b, self.high, self.low)
        below = compare(b, "olt", x, self.low)
        beyond = select(b, below, sub(b, self.low, x), sub(b, x, self.high))
        turns = _floor(b, div(b, beyond, span))
        rest = sub(b, beyond, mul(b, turns, span))
        even = compare(b, "oeq", scalar.REM(b, turns, real(b, 2.0)), 0.0)
        up, down = add(b, self.low, rest), sub(b, self.high, rest)
        folded = select(b, even, select(b, below, up, down), select(b, below, down, up))
        folded = select(b, compare(b, "ogt", span, 0.0), folded, self.low)
        return select(b, self.outside(b, x), folded, x)

    def clamp(self, b: Builder, x: SSAValue) -> SSAValue:
        last = sub(b, self.extent, 1.0)
        clamped = b.insert(
            arith.MinimumfOp(b.insert(arith.MaximumfOp(x, real(b, 0.0))).result, real(b, last))
        ).result
        return select(b, self.outside(b, x), clamped, x)

    def tap(self, b: Builder, x: SSAValue, padding: str) -> tuple[SSAValue, SSAValue | None]:
        """The index to read for the whole position x, and with zeros
        padding whether x is inside the input (else the tap reads 0)."""
        inside = None
        if padding == "zeros":
            inside = _both(b, compare(b, "oge", x, 0.0), compare(b, "olt", x, self.extent))
        elif padding == "reflection":
            x = self.reflect(b, x)
        position = to_index(b, x)
        position = b.insert(arith.MaxSIOp(position, index(b, 0))).result
        last = b.insert(arith.SubiOp(self.size, index(b, 1))).result
        return b.insert(arith.MinSIOp(position, last)).result, inside


Tap = tuple[SSAValue, SSAValue | None, SSAValue]
"""A tap along one axis: the index read, whether it is inside the input
(None: always), its weight."""


def filter_taps(b: Builder, axis: SampledAxis, x: SSAValue, mode: str, padding: str) -> list[Tap]:
    """The taps of the `mode` filter ("linear" or "cubic") around the
    position x along `axis`."""
    base = _floor(b, x)
    t = sub(b, x, base)
    taps: list[Tap] = []
    for offset in OFFSETS[mode]:
        position = base if offset == 0 else add(b, base, float(offset))
        at, inside = axis.tap(b, position, padding)
        distance = t if offset == 0 else sub(b, t, float(offset))
        taps.append((at, inside, filter_weight(b, mode, distance, -0.75)))
    return taps


def weighted_sum(
    b: Builder, source: SSAValue, prefix: Sequence[SSAValue], taps: Sequence[Sequence[Tap]]
) -> SSAValue:
    """The sum over every combination of one tap per axis of the product of
    their weights times the element of `source` at `prefix` + their
    indices (0 where a tap is outside), in double."""
    total = real(b, 0.0)
    for combination in itertools.product(*taps):
        weight: SSAValue | None = None
        inside: SSAValue | None = None
        for _, flag, w in combination:
            weight = w if weight is None else mul(b, weight, w)
            if flag is not None:
                inside = flag if inside is None else _both(b, inside, flag)
        at = [*prefix, *(position for position, _, _ in combination)]
        value = scalar.convert(b, b.insert(memref.LoadOp.get(source, at)).res, f64)
        if inside is not None:
            value = select(b, inside, value, 0.0)
        assert weight is not None
        total = add(b, total, mul(b, weight, value))
    return total


class GridSampleOpLowering(OnnxLowering[onnx.GridSampleOp]):
    """`onnx.GridSample` over any spatial rank (see the module docstring):
    one parallel generic over Y [N, C, O...] whose body reads the grid at
    [n, O..., k] and samples X[n, c]."""

    def rewrite(self, op: onnx.GridSampleOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes, grid_sizes = shapes.sizes(op.X), shapes.sizes(op.grid)
        rank = len(sizes) - 2
        if rank < 1 or len(grid_sizes) != rank + 2 or grid_sizes[-1] != rank:
            raise unsupported(op, f"X {sizes} and grid {grid_sizes} do not fit")
        mode = MODES.get(op.attr("mode"))
        padding = op.attr("padding_mode")
        if mode is None or padding not in PADDINGS:
            raise unsupported(op, f"mode '{op.attr('mode')}' with padding_mode '{padding}'")
        align = bool(op.attr("align_corners"))
        output = self.result_buffer(rewriter, op.Y, [*sizes[:2], *grid_sizes[1:-1]])
        x, grid = buffer_of(rewriter, op.X), buffer_of(rewriter, op.grid)
        here = builder_before(op)
        axes = [SampledAxis.of(here, shapes, size, align) for size in sizes[2:]]
        element = element_type(output)

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            n, c, *outs = position
            coordinates: list[SSAValue] = []
            for k, axis in enumerate(axes):
                at = [n, *outs, index(b, rank - 1 - k)]
                g = scalar.convert(b, b.insert(memref.LoadOp.get(grid, at)).res, f64)
                if align:
                    unit = mul(b, div(b, add(b, g, 1.0), 2.0), sub(b, axis.extent, 1.0))
                else:
                    unit = div(b, sub(b, mul(b, add(b, g, 1.0), axis.extent), 1.0), 2.0)
                if mode == "nearest":
                    unit = b.insert(math_dialect.RoundEvenOp(unit)).result
                if padding == "border":
                    unit = axis.clamp(b, unit)
                elif padding == "reflection":
                    unit = axis.reflect(b, unit)
                coordinates.append(unit)
            if mode == "nearest":
                reads, inside = [n, c], None
                for axis, unit in zip(axes, coordinates, strict=True):
                    whole = b.insert(math_dialect.TruncOp(unit)).result
                    at, flag = axis.tap(b, whole, padding)
                    reads.append(at)
                    if flag is not None:
                        inside = flag if inside is None else _both(b, inside, flag)
                value = b.insert(memref.LoadOp.get(x, reads)).res
                if inside is None:
                    return value
                zero = scalar.constant(b, 0, element)
                return b.insert(arith.SelectOp(inside, value, zero)).result
            taps = [
                filter_taps(b, axis, unit, mode, padding)
                for axis, unit in zip(axes, coordinates, strict=True)
            ]
            return rounded(b, weighted_sum(b, x, [n, c], taps), element)

        indexed_generic(rewriter, op, output, body)
        self.replace(rewriter, op, [output])


class AffineGridOpLowering(OnnxLowering[onnx.AffineGridOp]):
    """`onnx.AffineGrid` (2-D and 3-D, see the module docstring): one
    parallel generic over the grid [N, spatial..., r], computed in float
    for 16-bit floats; `size` may be computed at run time."""

    def rewrite(self, op: onnx.AffineGridOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        theta_sizes = shapes.sizes(op.theta)
        size = shape_elements(op, rewriter, shapes, op.size)
        rank = len(size) - 2
        if rank not in (2, 3) or theta_sizes[1:] != [rank, rank + 1]:
            raise unsupported(op, f"theta {theta_sizes} and size of {len(size)} do not fit")
        spatial = size[2:]
        output = self.result_buffer(rewriter, op.grid, [theta_sizes[0], *spatial, rank])
        theta = buffer_of(rewriter, op.theta)
        element = element_type(output)
        wide = accumulator_type(element)
        align = bool(op.attr("align_corners"))

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            n, *points, k = position
            total = scalar.constant(b, 0.0, wide)
            # x is the last spatial axis: column j of theta multiplies axis rank - 1 - j.
            for j in range(rank + 1):
                (weight,) = widened(
                    b, [b.insert(memref.LoadOp.get(theta, [n, k, index(b, j)])).res], wide
                )
                if j < rank:
                    axis = rank - 1 - j
                    weight = scalar.MUL(
                        b, weight, _centre(b, points[axis], spatial[axis], wide, align)
                    )
                total = scalar.ADD(b, total, weight)
            return scalar.convert(b, total, element)

        indexed_generic(rewriter, op, output, body)
        self.replace(rewriter, op, [output])


def _centre(b: Builder, i: SSAValue, size: Size, t: Attribute, align: bool) -> SSAValue:
    """The coordinate in [-1, 1] of element i of `size`: (2 i + 1) / size - 1,
    or with align_corners 2 i / (size - 1) - 1 (0 for a size of 1)."""
    one = scalar.constant(b, 1.0, t)
    point = scalar.number(b, i, t)
    count = scalar.number(b, size if isinstance(size, SSAValue) else float(size), t)
    if align:
        last = scalar.SUB(b, count, one)
        ratio = scalar.DIV(b, scalar.ADD(b, point, point), last)
        single = scalar.EQUAL(b, last, scalar.constant(b, 0.0, t))
        return b.insert(
            arith.SelectOp(single, scalar.constant(b, 0.0, t), scalar.SUB(b, ratio, one))
        ).result
    twice = scalar.ADD(b, point, point)
    return scalar.SUB(b, scalar.DIV(b, scalar.ADD(b, twice, one), count), one)
