"""Pooling: MaxPool, AveragePool, LpPool and their global forms
(GlobalMaxPool, GlobalAveragePool, GlobalLpPool).

Each is a parallel `linalg.generic` over the output whose body combines the
window taps inside X (see `window.py`). Average divisors that differ by
position are computed with numpy at compile time and stored as a weight.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerType, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    accumulator,
    accumulator_type,
    alloc,
    buffer_of,
    element_type,
    fill,
    generic,
    identity_map,
    shape_of,
    unsupported,
    weight,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.nn.window import (
    Tap,
    TapRange,
    Window,
    output_indices,
    over_window,
    reduce_window,
    require_spatial,
    tap_index,
    window_of,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, number
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

# --------------------------------------------------------------------------
# Pooling


Combine = Callable[[Builder, SSAValue, SSAValue], SSAValue]
"""How a pool folds a tap into its accumulator: (builder, acc, value) -> acc."""

COUNT_TAPS = "taps"
"""`_pool`'s divisor for averages over the taps inside X, counted at run time."""


def _pool(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    window: Window,
    init: float,
    combine: Combine,
    divisors: SSAValue | float | str | None = None,
    finish: Callable[[Builder, SSAValue], SSAValue] | None = None,
    read: Callable[[Builder, SSAValue], SSAValue] | None = None,
    accumulate: Attribute | None = None,
) -> SSAValue:
    """A new buffer holding, for each output, `init` combined with the window
    taps of X inside X, divided by `divisors` when given (one count for every
    window, a weight of the spatial shape, or `COUNT_TAPS`: the taps combined),
    then passed through `finish` when given: a parallel generic over
    (n, c, o...) whose body loops over those taps and loads X (so padding taps
    count as `init`, and no window-shaped operand is needed for the tap loop
    bounds). 16-bit floats are combined in float and rounded once. `read`,
    when given, makes each loaded tap the value combined, of type
    `accumulate` (a quantized pool's dequantization)."""
    x = buffer_of(rewriter, op.operands[0])
    x_shape = shapes.sizes(op.operands[0])
    y_shape = shapes.result_sizes(op.results[0], [*x_shape[:2], *window.output_shape])
    y = alloc(rewriter, op.results[0].type, y_shape)
    element = element_type(y)
    wide = accumulate or accumulator_type(element)
    inputs = [divisors] if isinstance(divisors, SSAValue) else []

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        n, c, *outs = output_indices(b, 2 + window.rank)

        def combine_window(wb: Builder, ranges: Sequence[TapRange]) -> SSAValue:
            def tap(tb: Builder, at: Tap, acc: SSAValue) -> SSAValue:
                value = tb.insert(memref.LoadOp.get(x, [n, c, *at.input_indices])).res
                value = read(tb, value) if read else widened(tb, [value], wide)[0]
                return combine(tb, acc, value)

            total = reduce_window(wb, window, ranges, constant(wb, init, wide), tap)
            if divisors != COUNT_TAPS:
                return total
            count = tap_index(wb, 1)
            for r in ranges:
                taps = wb.insert(arith.SubiOp(r.hi, r.lo)).result
                count = wb.insert(arith.MuliOp(count, taps)).result
            return scalar.DIV(wb, total, number(wb, count, wide))

        total = over_window(b, shapes, window, outs, combine_window)
        if isinstance(divisors, float):
            total = scalar.DIV(b, total, constant(b, divisors, wide))
        elif isinstance(divisors, SSAValue):
            total = scalar.DIV(b, total, *widened(b, args[:1], wide))
        if finish is not None:
            total = finish(b, total)
        return scalar.convert(b, total, element)

    y_rank = 2 + window.rank
    maps = [identity_map(y_rank)]
    if inputs:
        maps.insert(0, AffineMap(y_rank, 0, tuple(AffineDimExpr(i) for i in range(2, y_rank))))
    generic(rewriter, op, inputs, [y], maps, [PARALLEL] * y_rank, body)
    return y


def _pool_window(op: onnx.OnnxOp, shapes: Shapes) -> Window:
    x_shape = shapes.sizes(op.operands[0])
    require_spatial(op, x_shape, "X")
    kernel_shape = op.attr("kernel_shape")
    if not kernel_shape or len(kernel_shape) != len(x_shape) - 2:
        raise unsupported(op, f"kernel_shape {kernel_shape} does not fit X {list(x_shape)}")
    ceil_mode = bool(op.attr("ceil_mode"))
    return window_of(op, shapes, x_shape[2:], kernel_shape, op.results[0], ceil_mode)


class MaxPoolOpLowering(OnnxLowering[onnx.MaxPoolOp]):
    """`onnx.MaxPool` -> one parallel generic over the output (n, c, o...)
    whose body takes the maximum of the lowest value and the window taps inside
    X (taps in the pads, and past the input in the windows ceil_mode adds, are
    skipped, as if they read the lowest value). Supports 1-D to 3-D (any rank),
    kernel_shape, strides, dilations, pads, auto_pad and ceil_mode. A used
    Indices output is a second generic (`_argmax`)."""

    def rewrite(self, op: onnx.MaxPoolOp, rewriter: PatternRewriter) -> None:
        element = element_type(op.operands[0])
        window = _pool_window(op, self.shapes)
        y = _pool(rewriter, self.shapes, op, window, scalar.lowest(element), scalar.MAX)
        indices = None
        if isinstance(op.Indices.type, TensorType) and op.Indices.uses:
            indices = self.result_buffer(rewriter, op.Indices, self.shapes.sizes(y))
            _argmax(rewriter, self.shapes, op, window, y, indices)
        self.replace(rewriter, op, [y, indices])


def _argmax(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.MaxPoolOp,
    window: Window,
    y: SSAValue,
    indices: SSAValue,
) -> None:
    """Indices[n, c, o...] = the position in X, flattened, of the first tap
    of the window (in row-major tap order) equal to the maximum Y[n, c,
    o...]: (n * C + c) * (D1 * ... * Dk) plus the tap's spatial position,
    row-major, or with storage_order=1 column-major (the first spatial axis
    fastest), as onnx.reference and onnxruntime compute it; -1 where no tap
    equals it (a NaN maximum)."""
    x = buffer_of(rewriter, op.X)
    sizes = shapes.sizes(op.X)
    spatial = sizes[2:]
    channels = shapes.index(sizes[1])
    plane = shapes.index(shapes.product(spatial))
    order = list(range(window.rank))
    if op.attr("storage_order"):
        order.reverse()
    strides: dict[int, SSAValue] = {}
    stride: Size = 1
    for axis in reversed(order):
        strides[axis] = shapes.index(stride)
        stride = shapes.mul(stride, spatial[axis])
    rank = 2 + window.rank

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        n, c, *outs = output_indices(b, rank)
        base = b.insert(arith.AddiOp(b.insert(arith.MuliOp(n, channels)).result, c)).result
        base = b.insert(arith.MuliOp(base, plane)).result

        def first_maximum(wb: Builder, ranges: Sequence[TapRange]) -> SSAValue:
            def tap(tb: Builder, at: Tap, found: SSAValue) -> SSAValue:
                value = tb.insert(memref.LoadOp.get(x, [n, c, *at.input_indices])).res
                unset = tb.insert(arith.CmpiOp(found, constant(tb, 0, found.type), "slt")).result
                hit = scalar.AND(tb, unset, scalar.EQUAL(tb, value, args[0]))
                position = base
                for axis, coordinate in enumerate(at.input_indices):
                    term = tb.insert(arith.MuliOp(coordinate, strides[axis])).result
                    position = tb.insert(arith.AddiOp(position, term)).result
                wide = tb.insert(arith.IndexCastOp(position, IntegerType(64))).result
                return tb.insert(arith.SelectOp(hit, wide, found)).result

            return reduce_window(wb, window, ranges, constant(wb, -1, IntegerType(64)), tap)

        return over_window(b, shapes, window, outs, first_maximum)

    maps = [identity_map(rank)] * 2
    generic(rewriter, op, [y], [indices], maps, [PARALLEL] * rank, body)


def average_divisors(window: Window, count_include_pad: bool) -> np.ndarray:
    """How many taps each output's window averages (shape: the output's
    spatial shape; a static window): taps inside the input, or with
    count_include_pad also taps in the explicit padding, but never taps of the
    extra end padding that ceil_mode adds (as onnxruntime and onnx.reference
    count)."""
    per_dim: list[np.ndarray] = []
    for dim in range(window.rank):
        begin, end = cast(int, window.pads_begin[dim]), cast(int, window.pads_end[dim])
        low = -begin if count_include_pad else 0
        high = cast(int, window.input_shape[dim]) + (end if count_include_pad else 0)
        per_dim.append(
            np.array(
                [
                    sum(1 for t in window.taps(dim, o) if low <= t < high)
                    for o in range(cast(int, window.output_shape[dim]))
                ],
                dtype=np.int64,
            )
        )
    divisors = np.ones((), dtype=np.int64)
    for counts in per_dim:
        divisors = np.multiply.outer(divisors, counts)
    return divisors


def _divide(rewriter: PatternRewriter, op: onnx.OnnxOp, y: SSAValue, count: Size) -> None:
    """y /= count, in place."""
    rank = len(shape_of(y))

    def divide(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return scalar.DIV(b, args[0], number(b, count, args[0].type))

    generic(rewriter, op, [], [y], [identity_map(rank)], [PARALLEL] * rank, divide)


class AveragePoolOpLowering(OnnxLowering[onnx.AveragePoolOp]):
    """`onnx.AveragePool` -> one parallel generic over the output (n, c, o...)
    whose body sums the window taps inside X, and a division by the number of
    counted taps: a constant when all windows count the same, else a
    per-position divisor computed with numpy and stored as a weight
    (count_include_pad=0 near the border, ceil_mode windows running past the
    end). Supports any spatial rank, kernel_shape, strides, pads, dilations,
    auto_pad, ceil_mode and count_include_pad. With spatial sizes known only at
    run time the body counts the taps it sums (count_include_pad=0, or no
    padding)."""

    def rewrite(self, op: onnx.AveragePoolOp, rewriter: PatternRewriter) -> None:
        self.replace(rewriter, op, [average_pool(rewriter, self.shapes, op)])


def average_pool(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    read: Callable[[Builder, SSAValue], SSAValue] | None = None,
    finish: Callable[[Builder, SSAValue], SSAValue] | None = None,
    accumulate: Attribute | None = None,
) -> SSAValue:
    """The average pooling of `op` (AveragePool's attributes; X its first
    operand), with `_pool`'s `read`, `finish` and `accumulate`."""
    window = _pool_window(op, shapes)
    include_pad = bool(op.attr("count_include_pad"))
    if not all(window.static(dim) for dim in range(window.rank)):
        if include_pad and window.needs_padding():
            raise unsupported(
                op, "count_include_pad=1 with padding and spatial sizes known at run time"
            )
        divisor: float | str = (
            COUNT_TAPS if window.needs_padding() else float(math.prod(window.kernel))
        )
        return _pool(
            rewriter, shapes, op, window, 0.0, scalar.ADD, divisor, finish, read, accumulate
        )
    divisors = average_divisors(window, include_pad)
    if np.any(divisors == 0):
        raise unsupported(op, "a pooling window holds no input element")
    if np.all(divisors == divisors.flat[0]):
        each: SSAValue | float = float(divisors.flat[0])
    else:
        wide = accumulate or accumulator_type(element_type(buffer_of(rewriter, op.operands[0])))
        each = weight(rewriter, op, divisors, wide, "divisor")
    return _pool(rewriter, shapes, op, window, 0.0, scalar.ADD, each, finish, read, accumulate)


def _global_pool(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    init: float,
    combine: Combine,
    finish: Callable[[Builder, SSAValue, Size], SSAValue] | None = None,
) -> SSAValue:
    """A new [N, C, 1, ...] buffer folding every spatial element of X into
    `init` with `combine` (a reduction generic over (n, c, spatial...)), then
    `finish(acc, count)` in place when given. 16-bit floats accumulate in
    float and are rounded once."""
    x_shape = shapes.sizes(op.operands[0])
    require_spatial(op, x_shape, "X")
    rank = len(x_shape)
    x = buffer_of(rewriter, op.operands[0])
    y_shape = shapes.result_sizes(op.results[0], [*x_shape[:2], *[1] * (rank - 2)])
    output = alloc(rewriter, op.results[0].type, y_shape)
    acc = accumulator(rewriter, output, y_shape)
    y = acc.buffer
    fill(rewriter, op, y, init)
    y_map = AffineMap(
        rank, 0, (AffineDimExpr(0), AffineDimExpr(1), *([AffineConstantExpr(0)] * (rank - 2)))
    )
    generic(
        rewriter,
        op,
        [x],
        [y],
        [identity_map(rank), y_map],
        [PARALLEL] * 2 + [REDUCTION] * (rank - 2),
        lambda b, args: combine(b, args[1], *widened(b, args[:1], args[1].type)),
    )
    if finish is not None:
        count = shapes.product(x_shape[2:])
        generic(
            rewriter,
            op,
            [],
            [y],
            [identity_map(rank)],
            [PARALLEL] * rank,
            lambda b, args: finish(b, args[0], count),
        )
    acc.finish(rewriter, op)
    return output


class GlobalAveragePoolOpLowering(OnnxLowering[onnx.GlobalAveragePoolOp]):
    """`onnx.GlobalAveragePool` -> the mean over the spatial axes: [N, C, 1, ...]
    filled with zero, a sum-reduction generic, a division by the spatial
    size. Any spatial rank."""

    def rewrite(self, op: onnx.GlobalAveragePoolOp, rewriter: PatternRewriter) -> None:
        def mean(b: Builder, total: SSAValue, count: Size) -> SSAValue:
            return scalar.DIV(b, total, number(b, count, total.type))

        y = _global_pool(rewriter, self.shapes, op, 0.0, scalar.ADD, mean)
        self.replace(rewriter, op, [y])


class GlobalMaxPoolOpLowering(OnnxLowering[onnx.GlobalMaxPoolOp]):
    """`onnx.GlobalMaxPool` -> the maximum over the spatial axes (NaN
    propagates, as in MaxPool)."""

    def rewrite(self, op: onnx.GlobalMaxPoolOp, rewriter: PatternRewriter) -> None:
        lowest = scalar.lowest(element_type(op.X))
        self.replace(rewriter, op, [_global_pool(rewriter, self.shapes, op, lowest, scalar.MAX)])


def _power_sum(p: int) -> Combine:
    """acc + |x|^p (p 1 and 2 without pow)."""

    def combine(b: Builder, acc: SSAValue, value: SSAValue) -> SSAValue:
        magnitude = scalar.ABS(b, value)
        if p == 1:
            term = magnitude
        elif p == 2:
            term = scalar.MUL(b, value, value)
        else:
            term = scalar.POW(b, magnitude, constant(b, float(p), value.type))
        return scalar.ADD(b, acc, term)

    return combine


def _root(b: Builder, total: SSAValue, p: int) -> SSAValue:
    """total^(1/p) (sqrt for 2, itself for 1)."""
    if p == 1:
        return total
    if p == 2:
        return scalar.SQRT(b, total)
    return scalar.POW(b, total, constant(b, 1.0 / p, total.type))


class GlobalLpPoolOpLowering(OnnxLowering[onnx.GlobalLpPoolOp]):
    """`onnx.GlobalLpPool` -> (sum over the spatial axes of |x|^p)^(1/p)."""

    def rewrite(self, op: onnx.GlobalLpPoolOp, rewriter: PatternRewriter) -> None:
        p = int(op.attr("p"))
        y = _global_pool(
            rewriter, self.shapes, op, 0.0, _power_sum(p), lambda b, acc, _: _root(b, acc, p)
        )
        self.replace(rewriter, op, [y])


class LpPoolOpLowering(OnnxLowering[onnx.LpPoolOp]):
    """`onnx.LpPool` -> (sum over each window's taps inside X of |x|^p)^(1/p)
    (padding taps add 0), with MaxPool's window attributes."""

    def rewrite(self, op: onnx.LpPoolOp, rewriter: PatternRewriter) -> None:
        p = int(op.attr("p"))
        if p <= 0:
            raise unsupported(op, f"p = {p} (a positive integer is needed)")
        window = _pool_window(op, self.shapes)
        y = _pool(
            rewriter,
            self.shapes,
            op,
            window,
            0.0,
            _power_sum(p),
            finish=lambda b, total: _root(b, total, p),
        )
        self.replace(rewriter, op, [y])
