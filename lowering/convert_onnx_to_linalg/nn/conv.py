"""Convolution: `onnx.Conv` over every float type, and the building blocks
the integer convolutions (ConvInteger, QLinearConv in qlinear.py) share.

A convolution whose windows stay inside X is one reduction `linalg.generic`
whose input map is `out * stride + tap * dilation` per spatial dim. Each loop
dim is a bare result of some operand's map, as `convert-linalg-to-loops` reads
loop bounds from operand shapes, so Conv views its buffers as `[N, G, M/G, ...]`
/ `[G, M/G, C/G, ...]` with `memref.expand_shape`. A padded convolution loops
over the taps inside X (see `window.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.builder import Builder
from xdsl.dialects import memref
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
    alloc,
    buffer_of,
    fill,
    generic,
    identity_map,
    is_none,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.linear_algebra.matmul import Term, multiply
from onnxc.lowering.convert_onnx_to_linalg.nn.window import (
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
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size, is_static, static

# --------------------------------------------------------------------------
# Convolution


@dataclass(frozen=True)
class Convolution:
    """The geometry of a convolution of X by W: X's sizes [N, C, spatial...],
    W's shape [M, C/group, kernel...] (static), the group count, the window
    and the result's sizes [N, M, out...]."""

    x_sizes: list[Size]
    w_shape: list[int]
    group: int
    window: Window
    sizes: list[Size]

    @property
    def rank(self) -> int:
        return self.window.rank


def convolution(
    op: onnx.OnnxOp, shapes: Shapes, x_value: SSAValue, w_value: SSAValue, result: SSAValue
) -> Convolution:
    """The `Convolution` of `op` (Conv, ConvInteger, QLinearConv: attributes
    group, strides, dilations, pads, auto_pad, kernel_shape) giving `result`,
    checked: W's sizes and X's channels are static, kernel_shape agrees with W
    and the group divides the channels."""
    x_shape = shapes.sizes(x_value)
    w_sizes = shapes.sizes(w_value)
    require_spatial(op, x_shape, "X")
    if not is_static(w_sizes) or not isinstance(x_shape[1], int):
        raise unsupported(op, "W and the channels of X must have sizes known at compile time")
    w_shape = static(w_sizes)
    c, m = x_shape[1], w_shape[0]
    kernel = tuple(w_shape[2:])
    kernel_shape = op.attr("kernel_shape")
    if kernel_shape and tuple(kernel_shape) != kernel:
        raise unsupported(op, f"kernel_shape {kernel_shape} differs from W {w_shape}")
    group = int(op.attr("group"))
    if group < 1 or c % group or m % group or w_shape[1] * group != c:
        raise unsupported(op, f"group {group} does not fit X {x_shape} and W {w_shape}")
    window = window_of(op, shapes, x_shape[2:], kernel, result)
    sizes = shapes.result_sizes(result, [x_shape[0], m, *window.output_shape])
    return Convolution(x_shape, w_shape, group, window, sizes)


def start_with_bias(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    conv: Convolution,
    y: SSAValue,
    b_value: SSAValue,
) -> None:
    """Initialise the accumulator `y` with the bias B broadcast along the
    output channels (a generic, widened to y's type), or zero (a fill)
    when B is omitted."""
    m = conv.w_shape[0]
    if is_none(b_value):
        fill(rewriter, op, y, 0.0)
        return
    if shapes.sizes(b_value) != [m]:
        raise unsupported(op, f"B of shape {shapes.sizes(b_value)} is not [M={m}]")
    y_rank = len(conv.sizes)
    generic(
        rewriter,
        op,
        [buffer_of(rewriter, b_value)],
        [y],
        [AffineMap(y_rank, 0, (AffineDimExpr(1),)), identity_map(y_rank)],
        [PARALLEL] * y_rank,
        lambda b, args: widened(b, args[:1], args[1].type)[0],
    )


class ConvOpLowering(OnnxLowering[onnx.ConvOp]):
    """`onnx.Conv` (1-D, 2-D, 3-D, ...) -> the output initialised with the
    broadcast bias B (a generic) or zero (a fill), then the accumulation of
    `convolve`. Supports group, strides, dilations, explicit pads, every
    auto_pad and kernel_shape inferred from W; rejects a kernel_shape that
    contradicts W."""

    def rewrite(self, op: onnx.ConvOp, rewriter: PatternRewriter) -> None:
        conv = convolution(op, self.shapes, op.X, op.W, op.results[0])
        output = alloc(rewriter, op.results[0].type, conv.sizes)
        acc = accumulator(rewriter, output, conv.sizes)
        start_with_bias(rewriter, self.shapes, op, conv, acc.buffer, op.B)
        x, w = buffer_of(rewriter, op.X), buffer_of(rewriter, op.W)
        convolve(rewriter, self.shapes, op, conv, x, w, acc.buffer)
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [output])


def convolve(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    conv: Convolution,
    x: SSAValue,
    w: SSAValue,
    y: SSAValue,
    term: Term = multiply,
    extras: Sequence[SSAValue] = (),
) -> None:
    """Add `term` of every (x, w) pair of the convolution into the
    accumulator `y` (initialised by the caller). On `expand_shape` views that
    split channels by group (so grouped and depthwise convolutions keep every
    loop dim bare): without padding, one reduction generic over
    (n, g, m, o..., c, k...) with `X[n, g, c, o*stride + k*dilation]`,
    `W[g, m, c, k]` and `Y[n, g, m, o]`; with padding, a parallel generic
    over (n, g, m, o...) whose body loops over c and the taps inside X and
    loads X and W (no padded copy of X). `extras` are buffers of one element
    or of one per output channel (M), whose elements at the output channel
    `term` gets."""
    rank, group = conv.rank, conv.group
    n, c = conv.x_sizes[0], cast(int, conv.x_sizes[1])
    m = conv.w_shape[0]
    mg, cg = m // group, c // group
    spatial_groups = [[i + 2] for i in range(1, rank + 1)]
    x_view = expand(
        rewriter, op, x, [[0], [1, 2], *spatial_groups], [n, group, cg, *conv.x_sizes[2:]]
    )
    w_view = expand(
        rewriter,
        op,
        w,
        [[0, 1], *[[i + 1] for i in range(1, rank + 2)]],
        [group, mg, *conv.w_shape[1:]],
    )
    y_view = expand(
        rewriter, op, y, [[0], [1, 2], *spatial_groups], [n, group, mg, *conv.sizes[2:]]
    )
    channel_views = [_per_channel(rewriter, shapes, op, e, group, mg) for e in extras]
    window = conv.window
    if window.needs_padding():
        _padded_conv(rewriter, shapes, op, x_view, w_view, y_view, window, term, channel_views)
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
        acc = args[-1]
        return scalar.ADD(b, acc, term(b, args[0], args[1], args[2:-1], acc.type))

    generic(
        rewriter,
        op,
        [x_view, w_view, *(view for view, _ in channel_views)],
        [y_view],
        [x_map, w_map, *(_extended(read, num_dims) for _, read in channel_views), y_map],
        [PARALLEL] * (3 + rank) + [REDUCTION] * (1 + rank),
        body,
    )


def _per_channel(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    buffer: SSAValue,
    group: int,
    mg: int,
) -> tuple[SSAValue, AffineMap]:
    """A buffer of one element, or of one per output channel, and how the
    loops (n, g, m, ...) read it: at 0, or at (g, m) of its [G, M/G] view."""
    sizes = shapes.sizes(buffer)
    if len(sizes) == 1 and sizes[0] == group * mg and group * mg != 1:
        view = expand(rewriter, op, buffer, [[0, 1]], [group, mg])
        return view, AffineMap(3, 0, (AffineDimExpr(1), AffineDimExpr(2)))
    return buffer, AffineMap(3, 0, tuple(AffineConstantExpr(0) for _ in sizes))


def _extended(read: AffineMap, num_dims: int) -> AffineMap:
    """`read` over `num_dims` loop dims (its results use the first ones)."""
    return AffineMap(num_dims, 0, read.results)


def _padded_conv(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    x_view: SSAValue,
    w_view: SSAValue,
    y_view: SSAValue,
    window: Window,
    term: Term,
    channel_views: Sequence[tuple[SSAValue, AffineMap]],
) -> None:
    """Y[n, g, m, o] += term(X[n, g, c, o*stride + k*dilation], W[g, m, c, k])
    over the taps inside X only: a parallel generic over Y whose body loops
    over c and those taps."""
    rank = window.rank
    channels = shapes.sizes(x_view)[2]

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        n, g, m, *outs = output_indices(b, 3 + rank)
        extras = args[:-1]

        def sum_over_window(wb: Builder, ranges: Sequence[TapRange]) -> SSAValue:
            def over_channel(cb: Builder, c: SSAValue, acc: SSAValue) -> SSAValue:
                def tap(tb: Builder, at: Tap, acc: SSAValue) -> SSAValue:
                    x = tb.insert(memref.LoadOp.get(x_view, [n, g, c, *at.input_indices])).res
                    w = tb.insert(memref.LoadOp.get(w_view, [g, m, c, *at.kernel_indices])).res
                    return scalar.ADD(tb, acc, term(tb, x, w, extras, acc.type))

                return reduce_window(cb, window, ranges, acc, tap)

            return reduce_loop(
                wb, tap_index(wb, 0), tap_index(wb, channels), args[-1], over_channel
            )

        return over_window(b, shapes, window, outs, sum_over_window)

    generic(
        rewriter,
        op,
        [view for view, _ in channel_views],
        [y_view],
        [*(_extended(read, 3 + rank) for _, read in channel_views), identity_map(3 + rank)],
        [PARALLEL] * (3 + rank),
        body,
    )
