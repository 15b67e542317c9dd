"""Pooling: `onnx.MaxPool`, `onnx.AveragePool`, `onnx.GlobalAveragePool`.

Each is a parallel `linalg.generic` over the output whose body combines the
window taps inside X (see `window.py`). Average divisors that differ by
position are computed with numpy at compile time and stored as a weight.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import SSAValue
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
from onnxc.lowering.convert_onnx_to_linalg.scalar import ScalarOp, constant, number
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.convert_onnx_to_linalg.window import (
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
from onnxc.lowering.index_arith import Size

# --------------------------------------------------------------------------
# Pooling


COUNT_TAPS = "taps"
"""`_pool`'s divisor for averages over the taps inside X, counted at run time."""


def _pool(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    window: Window,
    init: float,
    combine: ScalarOp,
    divisors: SSAValue | float | str | None = None,
) -> SSAValue:
    """A new buffer holding, for each output, `init` combined with the window
    taps of X inside X, divided by `divisors` when given (one count for every
    window, a weight of the spatial shape, or `COUNT_TAPS`: the taps combined):
    a parallel generic over (n, c, o...) whose body loops over those taps and
    loads X (so padding taps count as `init`, and no window-shaped operand is
    needed for the tap loop bounds). 16-bit floats are combined in float and
    rounded once."""
    x = buffer_of(rewriter, op.operands[0])
    x_shape = shapes.sizes(op.operands[0])
    y_shape = shapes.result_sizes(op.results[0], [*x_shape[:2], *window.output_shape])
    y = alloc(rewriter, op.results[0].type, y_shape)
    element = element_type(y)
    wide = accumulator_type(element)
    inputs = [divisors] if isinstance(divisors, SSAValue) else []

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        n, c, *outs = output_indices(b, 2 + window.rank)

        def combine_window(wb: Builder, ranges: Sequence[TapRange]) -> SSAValue:
            def tap(tb: Builder, at: Tap, acc: SSAValue) -> SSAValue:
                value = tb.insert(memref.LoadOp.get(x, [n, c, *at.input_indices])).res
                return combine(tb, acc, *widened(tb, [value], wide))

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
    kernel_shape, strides, dilations, pads, auto_pad and ceil_mode;
    storage_order only concerns Indices. Rejects a used Indices output."""

    def rewrite(self, op: onnx.MaxPoolOp, rewriter: PatternRewriter) -> None:
        if op.results[1].uses:
            raise unsupported(op, "the Indices output of MaxPool is not supported")
        element = element_type(op.operands[0])
        window = _pool_window(op, self.shapes)
        y = _pool(rewriter, self.shapes, op, window, scalar.lowest(element), scalar.MAX)
        self.replace(rewriter, op, [y, None])


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
        window = _pool_window(op, self.shapes)
        include_pad = bool(op.attr("count_include_pad"))
        if not all(window.static(dim) for dim in range(window.rank)):
            if include_pad and window.needs_padding():
                raise unsupported(
                    op, "count_include_pad=1 with padding and spatial sizes known at run time"
                )
            divisor: float | str = (
                COUNT_TAPS if window.needs_padding() else float(math.prod(window.kernel))
            )
            y = _pool(rewriter, self.shapes, op, window, 0.0, scalar.ADD, divisor)
            self.replace(rewriter, op, [y])
            return
        divisors = average_divisors(window, include_pad)
        if np.any(divisors == 0):
            raise unsupported(op, "a pooling window holds no input element")
        if np.all(divisors == divisors.flat[0]):
            y = _pool(rewriter, self.shapes, op, window, 0.0, scalar.ADD, float(divisors.flat[0]))
        else:
            wide = accumulator_type(element_type(buffer_of(rewriter, op.operands[0])))
            counts = weight(rewriter, op, divisors, wide, "divisor")
            y = _pool(rewriter, self.shapes, op, window, 0.0, scalar.ADD, counts)
        self.replace(rewriter, op, [y])


class GlobalAveragePoolOpLowering(OnnxLowering[onnx.GlobalAveragePoolOp]):
    """`onnx.GlobalAveragePool` -> the output ([N, C, 1, ...]) filled with
    zero, a sum-reduction generic over (n, c, spatial...) and a division by
    the spatial size. Any spatial rank; rejects non-float types."""

    def rewrite(self, op: onnx.GlobalAveragePoolOp, rewriter: PatternRewriter) -> None:
        x_shape = self.shapes.sizes(op.operands[0])
        require_spatial(op, x_shape, "X")
        rank = len(x_shape)
        x = buffer_of(rewriter, op.operands[0])
        y_shape = self.shapes.result_sizes(op.results[0], [*x_shape[:2], *[1] * (rank - 2)])
        output = alloc(rewriter, op.results[0].type, y_shape)
        acc = accumulator(rewriter, output, y_shape)
        y = acc.buffer
        fill(rewriter, op, y, 0.0)
        y_map = AffineMap(
            rank,
            0,
            (
                AffineDimExpr(0),
                AffineDimExpr(1),
                *([AffineConstantExpr(0)] * (rank - 2)),
            ),
        )
        generic(
            rewriter,
            op,
            [x],
            [y],
            [identity_map(rank), y_map],
            [PARALLEL] * 2 + [REDUCTION] * (rank - 2),
            lambda b, args: scalar.ADD(b, args[1], *widened(b, args[:1], args[1].type)),
        )
        _divide(rewriter, op, y, self.shapes.product(x_shape[2:]))
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [output])
