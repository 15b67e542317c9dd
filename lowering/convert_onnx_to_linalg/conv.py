"""Convolution: `onnx.Conv` over every float type.

A convolution whose windows stay inside X is one reduction `linalg.generic`
whose input map is `out * stride + tap * dilation` per spatial dim. Each loop
dim is a bare result of some operand's map, as `convert-linalg-to-loops` reads
loop bounds from operand shapes, so Conv views its buffers as `[N, G, M/G, ...]`
/ `[G, M/G, C/G, ...]` with `memref.expand_shape`. A padded convolution loops
over the taps inside X (see `window.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
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
    alloc,
    buffer_of,
    fill,
    generic,
    identity_map,
    is_none,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.convert_onnx_to_linalg.window import (
    Tap,
    TapRange,
    Window,
    expand,
    output_indices,
    over_window,
    reduce_loop,
    reduce_window,
    require_spatial,
    tap_index,
    window_expr,
    window_of,
)
from onnxc.lowering.index_arith import is_static, static

# --------------------------------------------------------------------------
# Convolution


class ConvOpLowering(OnnxLowering[onnx.ConvOp]):
    """`onnx.Conv` (1-D, 2-D, 3-D, ...) -> the output initialised with the
    broadcast bias B (a generic) or zero (a fill), then, on `expand_shape`
    views that split channels by group (so grouped and depthwise convolutions
    keep every loop dim bare): without padding, one reduction generic over
    (n, g, m, o..., c, k...) with `X[n, g, c, o*stride + k*dilation]`,
    `W[g, m, c, k]` and `Y[n, g, m, o]`; with padding, a parallel generic
    over (n, g, m, o...) whose body loops over c and the taps inside X and
    loads X and W (no padded copy of X). Supports group, strides, dilations,
    explicit pads, every auto_pad and kernel_shape inferred from W; rejects
    a kernel_shape that contradicts W."""

    def rewrite(self, op: onnx.ConvOp, rewriter: PatternRewriter) -> None:
        x_value, w_value, b_value = op.operands
        x_shape = self.shapes.sizes(x_value)
        w_sizes = self.shapes.sizes(w_value)
        require_spatial(op, x_shape, "X")
        if not is_static(w_sizes) or not isinstance(x_shape[1], int):
            raise unsupported(op, "W and the channels of X must have sizes known at compile time")
        w_shape = static(w_sizes)
        rank = len(x_shape) - 2
        n, c = x_shape[0], x_shape[1]
        m = w_shape[0]
        kernel = tuple(w_shape[2:])
        kernel_shape = op.attr("kernel_shape")
        if kernel_shape and tuple(kernel_shape) != kernel:
            raise unsupported(op, f"kernel_shape {kernel_shape} differs from W {w_shape}")
        group = int(op.attr("group"))
        if group < 1 or c % group or m % group or w_shape[1] * group != c:
            raise unsupported(op, f"group {group} does not fit X {x_shape} and W {w_shape}")
        window = window_of(op, self.shapes, x_shape[2:], kernel, op.results[0])
        y_shape = self.shapes.result_sizes(op.results[0], [n, m, *window.output_shape])

        x = buffer_of(rewriter, x_value)
        w = buffer_of(rewriter, w_value)
        output = alloc(rewriter, op.results[0].type, y_shape)
        acc = accumulator(rewriter, output, y_shape)
        y = acc.buffer
        if is_none(b_value):
            fill(rewriter, op, y, 0.0)
        else:
            if self.shapes.sizes(b_value) != [m]:
                raise unsupported(op, f"B of shape {self.shapes.sizes(b_value)} is not [M={m}]")
            bias = buffer_of(rewriter, b_value)
            y_rank = len(y_shape)
            generic(
                rewriter,
                op,
                [bias],
                [y],
                [AffineMap(y_rank, 0, (AffineDimExpr(1),)), identity_map(y_rank)],
                [PARALLEL] * y_rank,
                lambda b, args: widened(b, args[:1], args[1].type)[0],
            )

        mg, cg = m // group, c // group
        spatial_groups = [[i + 2] for i in range(1, rank + 1)]
        x_view = expand(
            rewriter,
            op,
            x,
            [[0], [1, 2], *spatial_groups],
            [n, group, cg, *x_shape[2:]],
        )
        w_view = expand(
            rewriter,
            op,
            w,
            [[0, 1], *[[i + 1] for i in range(1, rank + 2)]],
            [group, mg, *w_shape[1:]],
        )
        y_view = expand(
            rewriter,
            op,
            y,
            [[0], [1, 2], *spatial_groups],
            [n, group, mg, *y_shape[2:]],
        )
        if window.needs_padding():
            _padded_conv(rewriter, self.shapes, op, x_view, w_view, y_view, window)
            acc.finish(rewriter, op)
            self.replace(rewriter, op, [output])
            return
        # Loop dims: n, g, m, o_0..o_r-1, c, k_0..k_r-1.
        outs = [3 + i for i in range(rank)]
        c_dim = 3 + rank
        taps = [c_dim + 1 + i for i in range(rank)]
        num_dims = c_dim + 1 + rank
        d = AffineDimExpr
        x_map = AffineMap(
            num_dims,
            0,
            (
                d(0),
                d(1),
                d(c_dim),
                *(window_expr(window, outs[i], taps[i], i) for i in range(rank)),
            ),
        )
        w_map = AffineMap(num_dims, 0, (d(1), d(2), d(c_dim), *(d(t) for t in taps)))
        y_map = AffineMap(num_dims, 0, (d(0), d(1), d(2), *(d(o) for o in outs)))

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            x, w = widened(b, args[:2], args[2].type)
            return scalar.ADD(b, args[2], scalar.MUL(b, x, w))

        generic(
            rewriter,
            op,
            [x_view, w_view],
            [y_view],
            [x_map, w_map, y_map],
            [PARALLEL] * (3 + rank) + [REDUCTION] * (1 + rank),
            body,
        )
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [output])


def _padded_conv(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    x_view: SSAValue,
    w_view: SSAValue,
    y_view: SSAValue,
    window: Window,
) -> None:
    """Y[n, g, m, o] += X[n, g, c, o*stride + k*dilation] * W[g, m, c, k]
    over the taps inside X only: a parallel generic over Y whose body loops
    over c and those taps."""
    rank = window.rank
    channels = shapes.sizes(x_view)[2]

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        n, g, m, *outs = output_indices(b, 3 + rank)

        def sum_over_window(wb: Builder, ranges: Sequence[TapRange]) -> SSAValue:
            def over_channel(cb: Builder, c: SSAValue, acc: SSAValue) -> SSAValue:
                def tap(tb: Builder, at: Tap, acc: SSAValue) -> SSAValue:
                    x = tb.insert(memref.LoadOp.get(x_view, [n, g, c, *at.input_indices])).res
                    w = tb.insert(memref.LoadOp.get(w_view, [g, m, c, *at.kernel_indices])).res
                    x, w = widened(tb, [x, w], acc.type)
                    return scalar.ADD(tb, acc, scalar.MUL(tb, x, w))

                return reduce_window(cb, window, ranges, acc, tap)

            return reduce_loop(wb, tap_index(wb, 0), tap_index(wb, channels), args[0], over_channel)

        return over_window(b, shapes, window, outs, sum_over_window)

    generic(
        rewriter,
        op,
        [],
        [y_view],
        [identity_map(3 + rank)],
        [PARALLEL] * (3 + rank),
        body,
    )
