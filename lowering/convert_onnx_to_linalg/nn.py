"""Neural-network operators: convolution, pooling and batch normalization.

No window operator copies its input into a padded buffer: on a microcontroller
that copy would be live next to the output. A convolution whose windows stay
inside X is one reduction `linalg.generic` whose input map is
`out * stride + tap * dilation` per spatial dim. Each loop dim is a bare result
of some operand's map, as `convert-linalg-to-loops` reads loop bounds from
operand shapes, so Conv views its buffers as `[N, G, M/G, ...]` /
`[G, M/G, C/G, ...]` with `memref.expand_shape`.

A padded convolution, and every pooling, is a parallel `linalg.generic` over
the output whose body loops over the window with `scf.for` (carrying the
accumulator) and reads X with `memref.load`; pooling thus needs no
window-shaped operand for its tap loop bounds. Along each spatial dim the tap
loop runs only over the taps inside X, so no load leaves X and padding taps are
skipped, which gives what reading the pad value would (0 for sums, -inf for
max). An `scf.if` on the output position sends the interior (outputs whose
window lies inside X, known at compile time) to loops with constant trip
counts, which the C compiler unrolls, and the border to loops with bounds
computed from `linalg.index`. Clamping loops instead of guarding each load
keeps bounds checks out of the tap loops.

Divisors and folded normalization constants are computed with numpy at compile
time and stored as `memref.global` weights.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    i64,
)
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    alloc,
    buffer_of,
    constant_value,
    fill,
    float_constant,
    generic,
    identity_map,
    insert,
    is_none,
    replace_with_buffers,
    shape_of,
    unsupported,
    weight,
)

# --------------------------------------------------------------------------
# Window geometry


@dataclass(frozen=True)
class Window:
    """The geometry of a sliding-window operator over the spatial dims: the
    output extent, and where each window starts (`out * stride - pads_begin`
    in input coordinates)."""

    input_shape: tuple[int, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[int, ...]
    pads_end: tuple[int, ...]
    output_shape: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.kernel)

    def reads_before(self, dim: int) -> bool:
        """Whether the first window along `dim` has taps before the input."""
        return self.pads_begin[dim] > 0

    def reads_past_end(self, dim: int) -> bool:
        """Whether the last window along `dim` has taps past the input (end
        padding, or the extra windows of ceil_mode)."""
        last = self.taps(dim, self.output_shape[dim] - 1)[-1]
        return last >= self.input_shape[dim]

    def interior(self, dim: int) -> tuple[int, int]:
        """First and last output along `dim` whose window lies inside the
        input (first > last when there is none)."""
        pad, stride = self.pads_begin[dim], self.strides[dim]
        span = (self.kernel[dim] - 1) * self.dilations[dim]
        first = -(-pad // stride)
        last = min((self.input_shape[dim] - 1 + pad - span) // stride, self.output_shape[dim] - 1)
        return first, last

    def needs_padding(self) -> bool:
        return any(self.reads_before(dim) or self.reads_past_end(dim) for dim in range(self.rank))

    def taps(self, dim: int, out: int) -> list[int]:
        """Input coordinates of the window taps of output `out` along `dim`."""
        start = out * self.strides[dim] - self.pads_begin[dim]
        return [start + k * self.dilations[dim] for k in range(self.kernel[dim])]


def _ints(op: onnx.OnnxOp, name: str, rank: int, default: int) -> tuple[int, ...]:
    value = op.attr(name)
    if value is None or len(value) == 0:
        return (default,) * rank
    if len(value) != rank:
        raise unsupported(op, f"'{name}' has {len(value)} values, expected {rank}")
    return tuple(int(v) for v in value)


def window_of(
    op: onnx.OnnxOp,
    input_shape: Sequence[int],
    kernel: Sequence[int],
    output_shape: Sequence[int],
    ceil_mode: bool = False,
) -> Window:
    """Resolve pads (explicit or `auto_pad`), strides and dilations of `op`,
    and check that the output extent they give is the inferred one."""
    rank = len(kernel)
    strides = _ints(op, "strides", rank, 1)
    dilations = _ints(op, "dilations", rank, 1)
    if any(s < 1 for s in strides) or any(d < 1 for d in dilations):
        raise unsupported(op, "strides and dilations must be positive")
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    auto_pad = op.attr("auto_pad") or "NOTSET"
    if auto_pad == "NOTSET":
        pads = _ints(op, "pads", 2 * rank, 0)
        begin, end = pads[:rank], pads[rank:]
        if any(p < 0 for p in pads):
            raise unsupported(op, "negative pads are not supported")
        expected: list[int] = []
        for i in range(rank):
            extent = input_shape[i] + begin[i] + end[i] - spans[i]
            if ceil_mode:
                out = -(-extent // strides[i]) + 1
                # The last window must start inside the input or its begin padding.
                if (out - 1) * strides[i] >= input_shape[i] + begin[i]:
                    out -= 1
            else:
                out = extent // strides[i] + 1
            expected.append(out)
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        expected = [-(-n // s) for n, s in zip(input_shape, strides, strict=True)]
        total = [
            max(0, (o - 1) * s + span - n)
            for o, s, span, n in zip(expected, strides, spans, input_shape, strict=True)
        ]
        if auto_pad == "SAME_UPPER":
            begin = tuple(t // 2 for t in total)
        else:
            begin = tuple(t - t // 2 for t in total)
        end = tuple(t - b for t, b in zip(total, begin, strict=True))
    elif auto_pad == "VALID":
        begin = end = (0,) * rank
        expected = [
            (n - span) // s + 1 for n, span, s in zip(input_shape, spans, strides, strict=True)
        ]
    else:
        raise unsupported(op, f"unknown auto_pad '{auto_pad}'")
    if tuple(expected) != tuple(output_shape):
        raise unsupported(
            op,
            f"output spatial shape {tuple(output_shape)} differs from the "
            f"{tuple(expected)} its attributes give",
        )
    return Window(
        tuple(input_shape),
        tuple(kernel),
        strides,
        dilations,
        tuple(begin),
        tuple(end),
        tuple(output_shape),
    )


def window_expr(window: Window, out_dim: int, tap_dim: int, axis: int) -> AffineExpr:
    """`out * stride + tap * dilation`: the input index along `axis` of a
    window that needs no padding."""
    return (
        AffineDimExpr(out_dim) * window.strides[axis]
        + AffineDimExpr(tap_dim) * window.dilations[axis]
    )


# --------------------------------------------------------------------------
# Window loops


def _index(b: Builder, value: int) -> SSAValue:
    return b.insert(arith.ConstantOp.from_int_and_width(value, IndexType())).result


def _ceil_div(b: Builder, value: SSAValue, divisor: int) -> SSAValue:
    """ceil(value / divisor) for value >= 0. For value <= 0 the result is
    <= 0 (`arith.divsi` truncates toward zero), which is all a loop upper
    bound needs."""
    if divisor == 1:
        return value
    biased = b.insert(arith.AddiOp(value, _index(b, divisor - 1))).result
    return b.insert(arith.DivSIOp(biased, _index(b, divisor))).result


@dataclass(frozen=True)
class TapRange:
    """The window of one output along one spatial dim: tap `k` reads input
    index `start + k * dilation`, and the loop runs over taps `lo <= k < hi`."""

    start: SSAValue
    lo: SSAValue
    hi: SSAValue


def _window_starts(b: Builder, window: Window, outs: Sequence[SSAValue]) -> list[SSAValue]:
    """`out * stride - pads_begin` along each spatial dim: the input index of
    tap 0 of the window of the output at spatial position `outs`."""
    starts: list[SSAValue] = []
    for dim, out in enumerate(outs):
        start = out
        if window.strides[dim] != 1:
            start = b.insert(arith.MuliOp(start, _index(b, window.strides[dim]))).result
        if window.pads_begin[dim]:
            start = b.insert(arith.SubiOp(start, _index(b, window.pads_begin[dim]))).result
        starts.append(start)
    return starts


def _tap_ranges(
    b: Builder, window: Window, starts: Sequence[SSAValue], clamp: bool
) -> list[TapRange]:
    """The `TapRange` along each spatial dim of the windows starting at
    `starts`: every kernel tap, or with `clamp` only the taps inside the
    input. A bound is clamped only on a side where some window leaves the
    input; elsewhere it stays the constant 0 or kernel size."""
    ranges: list[TapRange] = []
    for dim, start in enumerate(starts):
        dilation = window.dilations[dim]
        lo = _index(b, 0)
        if clamp and window.reads_before(dim):
            before = b.insert(arith.SubiOp(lo, start)).result
            before = b.insert(arith.MaxSIOp(before, lo)).result
            lo = _ceil_div(b, before, dilation)
        hi = _index(b, window.kernel[dim])
        if clamp and window.reads_past_end(dim):
            # A window starting at or past the end gets hi <= 0 <= lo: no taps.
            left = b.insert(arith.SubiOp(_index(b, window.input_shape[dim]), start)).result
            hi = b.insert(arith.MinSIOp(_ceil_div(b, left, dilation), hi)).result
        ranges.append(TapRange(start, lo, hi))
    return ranges


def over_window(
    b: Builder,
    window: Window,
    outs: Sequence[SSAValue],
    build: Callable[[Builder, Sequence[TapRange]], SSAValue],
) -> SSAValue:
    """`build(builder, ranges)` for the window of the output at spatial
    position `outs`. Without padding the ranges hold every kernel tap. With
    padding an `scf.if` on `outs` picks between two copies: outputs whose
    window lies inside the input (the interior, known at compile time) take
    every kernel tap, with constant trip counts the C compiler unrolls; the
    others (the border) take clamped ranges. When along some dim no window
    lies inside the input, every output takes clamped ranges, without the
    `scf.if`."""
    starts = _window_starts(b, window, outs)
    if not window.needs_padding():
        return build(b, _tap_ranges(b, window, starts, clamp=False))
    interior = [window.interior(dim) for dim in range(window.rank)]
    if any(first > last for first, last in interior):
        return build(b, _tap_ranges(b, window, starts, clamp=True))
    checks: list[SSAValue] = []
    for dim, (out, (first, last)) in enumerate(zip(outs, interior, strict=True)):
        if window.reads_before(dim):
            checks.append(b.insert(arith.CmpiOp(out, _index(b, first), "sge")).result)
        if window.reads_past_end(dim):
            checks.append(b.insert(arith.CmpiOp(out, _index(b, last), "sle")).result)
    inside = checks[0]
    for check in checks[1:]:
        inside = b.insert(arith.AndIOp(inside, check)).result

    def branch(clamp: bool) -> tuple[Block, SSAValue]:
        block = Block()
        inner = Builder(InsertPoint.at_end(block))
        result = build(inner, _tap_ranges(inner, window, starts, clamp))
        inner.insert(scf.YieldOp(result))
        return block, result

    (interior_block, result), (border_block, _) = branch(False), branch(True)
    return b.insert(scf.IfOp(inside, [result.type], [interior_block], [border_block])).results[0]


def reduce_loop(
    b: Builder,
    lo: SSAValue,
    hi: SSAValue,
    init: SSAValue,
    body: Callable[[Builder, SSAValue, SSAValue], SSAValue],
) -> SSAValue:
    """`scf.for k = lo to hi` carrying one accumulator from `init`;
    `body(builder, k, acc)` returns the next accumulator."""
    block = Block(arg_types=[IndexType(), init.type])
    inner = Builder(InsertPoint.at_end(block))
    inner.insert(scf.YieldOp(body(inner, block.args[0], block.args[1])))
    return b.insert(scf.ForOp(lo, hi, _index(b, 1), [init], block)).results[0]


@dataclass(frozen=True)
class Tap:
    """One window tap: its index along each spatial dim of the kernel, and of
    the input."""

    kernel_indices: Sequence[SSAValue]
    input_indices: Sequence[SSAValue]


TapBody = Callable[[Builder, Tap, SSAValue], SSAValue]
"""Combines one window tap into the accumulator (the last argument)."""


def reduce_window(
    b: Builder,
    window: Window,
    ranges: Sequence[TapRange],
    init: SSAValue,
    body: TapBody,
) -> SSAValue:
    """One loop per spatial dim over the taps in `ranges`, combining each
    with `body`, starting from `init`."""

    def level(lb: Builder, dim: int, acc: SSAValue, taps: list[SSAValue]) -> SSAValue:
        if dim == window.rank:
            positions: list[SSAValue] = []
            for r, tap, dilation in zip(ranges, taps, window.dilations, strict=True):
                offset = tap
                if dilation != 1:
                    offset = lb.insert(arith.MuliOp(tap, _index(lb, dilation))).result
                positions.append(lb.insert(arith.AddiOp(r.start, offset)).result)
            return body(lb, Tap(taps, positions), acc)
        r = ranges[dim]
        return reduce_loop(lb, r.lo, r.hi, acc, lambda ib, k, a: level(ib, dim + 1, a, [*taps, k]))

    return level(b, 0, init, [])


def output_indices(b: Builder, rank: int) -> list[SSAValue]:
    """`linalg.index` of loop dims 0..rank-1. They must sit directly in the
    generic's body, not in a nested loop: convert-linalg-to-loops replaces
    only those."""
    return [b.insert(IndexOp(dim)).result for dim in range(rank)]


# --------------------------------------------------------------------------
# Buffers


def _element_type(value: SSAValue) -> Attribute:
    value_type = value.type
    assert isinstance(value_type, MemRefType)
    return value_type.get_element_type()


def expand(
    rewriter: PatternRewriter,
    source: onnx.OnnxOp,
    buffer: SSAValue,
    reassociation: Sequence[Sequence[int]],
    shape: Sequence[int],
) -> SSAValue:
    """A `memref.expand_shape` view of `buffer` with the static `shape`."""
    view = memref.ExpandShapeOp.build(
        operands=[buffer, []],
        result_types=[MemRefType(_element_type(buffer), list(shape))],
        properties={
            "reassociation": ArrayAttr(
                [ArrayAttr([IntegerAttr(i, i64) for i in group]) for group in reassociation]
            ),
            "static_output_shape": DenseArrayBase.from_list(i64, list(shape)),
        },
    )
    insert(rewriter, view, source)
    return view.result


def _check_float(op: onnx.OnnxOp, value: SSAValue) -> None:
    element_type = value.type.get_element_type()
    if not isinstance(element_type, AnyFloat):
        raise unsupported(op, f"element type {element_type} is not a float type")


def _spatial(op: onnx.OnnxOp, shape: Sequence[int], what: str) -> None:
    if len(shape) < 3:
        raise unsupported(op, f"{what} must be [N, C, spatial...], got {list(shape)}")


# --------------------------------------------------------------------------
# Convolution


class ConvOpLowering(RewritePattern):
    """`onnx.Conv` (1-D, 2-D, 3-D, ...) -> the output initialised with the
    broadcast bias B (a generic) or zero (a fill), then, on `expand_shape`
    views that split channels by group (so grouped and depthwise convolutions
    keep every loop dim bare): without padding, one reduction generic over
    (n, g, m, o..., c, k...) with `X[n, g, c, o*stride + k*dilation]`,
    `W[g, m, c, k]` and `Y[n, g, m, o]`; with padding, a parallel generic
    over (n, g, m, o...) whose body loops over c and the taps inside X and
    loads X and W (no padded copy of X). Supports group, strides, dilations,
    explicit pads, every auto_pad and kernel_shape inferred from W; rejects
    non-float types and a kernel_shape that contradicts W."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.ConvOp, rewriter: PatternRewriter) -> None:
        x_value, w_value, b_value = op.operands
        _check_float(op, x_value)
        x_shape, w_shape = shape_of(x_value), shape_of(w_value)
        y_shape = shape_of(op.results[0])
        _spatial(op, x_shape, "X")
        rank = len(x_shape) - 2
        n, c = x_shape[:2]
        m = w_shape[0]
        kernel = tuple(w_shape[2:])
        kernel_shape = op.attr("kernel_shape")
        if kernel_shape and tuple(kernel_shape) != kernel:
            raise unsupported(op, f"kernel_shape {kernel_shape} differs from W {w_shape}")
        group = int(op.attr("group"))
        if group < 1 or c % group or m % group or w_shape[1] * group != c:
            raise unsupported(op, f"group {group} does not fit X {x_shape} and W {w_shape}")
        window = window_of(op, x_shape[2:], kernel, y_shape[2:])

        x = buffer_of(rewriter, x_value)
        w = buffer_of(rewriter, w_value)
        y = alloc(rewriter, op.results[0].type)
        if is_none(b_value):
            fill(rewriter, op, y, 0.0)
        else:
            if shape_of(b_value) != (m,):
                raise unsupported(op, f"B of shape {list(shape_of(b_value))} is not [M={m}]")
            bias = buffer_of(rewriter, b_value)
            y_rank = len(y_shape)
            generic(
                rewriter,
                op,
                [bias],
                [y],
                [AffineMap(y_rank, 0, (AffineDimExpr(1),)), identity_map(y_rank)],
                [PARALLEL] * y_rank,
                lambda b, args: args[0],
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
            _padded_conv(rewriter, op, x_view, w_view, y_view, window)
            replace_with_buffers(rewriter, op, [y])
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
            product = b.insert(arith.MulfOp(args[0], args[1])).result
            return b.insert(arith.AddfOp(args[2], product)).result

        generic(
            rewriter,
            op,
            [x_view, w_view],
            [y_view],
            [x_map, w_map, y_map],
            [PARALLEL] * (3 + rank) + [REDUCTION] * (1 + rank),
            body,
        )
        replace_with_buffers(rewriter, op, [y])


def _padded_conv(
    rewriter: PatternRewriter,
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
    channels = shape_of(x_view)[2]

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        n, g, m, *outs = output_indices(b, 3 + rank)

        def sum_over_window(wb: Builder, ranges: Sequence[TapRange]) -> SSAValue:
            def over_channel(cb: Builder, c: SSAValue, acc: SSAValue) -> SSAValue:
                def tap(tb: Builder, at: Tap, acc: SSAValue) -> SSAValue:
                    x = tb.insert(memref.LoadOp.get(x_view, [n, g, c, *at.input_indices])).res
                    w = tb.insert(memref.LoadOp.get(w_view, [g, m, c, *at.kernel_indices])).res
                    product = tb.insert(arith.MulfOp(x, w)).result
                    return tb.insert(arith.AddfOp(acc, product)).result

                return reduce_window(cb, window, ranges, acc, tap)

            return reduce_loop(wb, _index(wb, 0), _index(wb, channels), args[0], over_channel)

        return over_window(b, window, outs, sum_over_window)

    generic(
        rewriter,
        op,
        [],
        [y_view],
        [identity_map(3 + rank)],
        [PARALLEL] * (3 + rank),
        body,
    )


# --------------------------------------------------------------------------
# Pooling


def _pool(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    window: Window,
    init: float,
    combine: type[arith.MaximumfOp] | type[arith.AddfOp],
) -> SSAValue:
    """A new buffer holding, for each output, `init` combined with the window
    taps of X inside X: a parallel generic over (n, c, o...) whose body loops
    over those taps and loads X (so padding taps count as `init`, and no
    window-shaped operand is needed for the tap loop bounds)."""
    x = buffer_of(rewriter, op.operands[0])
    y = alloc(rewriter, op.results[0].type)
    element_type = _element_type(y)

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        n, c, *outs = output_indices(b, 2 + window.rank)

        def combine_window(wb: Builder, ranges: Sequence[TapRange]) -> SSAValue:
            def tap(tb: Builder, at: Tap, acc: SSAValue) -> SSAValue:
                value = tb.insert(memref.LoadOp.get(x, [n, c, *at.input_indices])).res
                return tb.insert(combine(acc, value)).result

            initial = float_constant(wb, init, element_type)
            return reduce_window(wb, window, ranges, initial, tap)

        return over_window(b, window, outs, combine_window)

    y_rank = 2 + window.rank
    generic(rewriter, op, [], [y], [identity_map(y_rank)], [PARALLEL] * y_rank, body)
    return y


def _pool_window(op: onnx.OnnxOp) -> Window:
    x_shape, y_shape = shape_of(op.operands[0]), shape_of(op.results[0])
    _spatial(op, x_shape, "X")
    kernel_shape = op.attr("kernel_shape")
    if not kernel_shape or len(kernel_shape) != len(x_shape) - 2:
        raise unsupported(op, f"kernel_shape {kernel_shape} does not fit X {list(x_shape)}")
    ceil_mode = bool(op.attr("ceil_mode"))
    return window_of(op, x_shape[2:], kernel_shape, y_shape[2:], ceil_mode)


class MaxPoolOpLowering(RewritePattern):
    """`onnx.MaxPool` -> one parallel generic over the output (n, c, o...)
    whose body takes `arith.maximumf` of -inf and the window taps inside X
    (taps in the pads, and past the input in the windows ceil_mode adds, are
    skipped, as if they read -inf). Supports 1-D to 3-D (any rank),
    kernel_shape, strides, dilations, pads, auto_pad and ceil_mode;
    storage_order only concerns Indices. Rejects a used Indices output and
    non-float types."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.MaxPoolOp, rewriter: PatternRewriter) -> None:
        if op.results[1].uses:
            raise unsupported(op, "the Indices output of MaxPool is not supported")
        _check_float(op, op.operands[0])
        y = _pool(rewriter, op, _pool_window(op), -math.inf, arith.MaximumfOp)
        replace_with_buffers(rewriter, op, [y, None])


def average_divisors(window: Window, count_include_pad: bool) -> np.ndarray:
    """How many taps each output's window averages (shape: the output's
    spatial shape): taps inside the input, or with count_include_pad also
    taps in the explicit padding, but never taps of the extra end padding
    that ceil_mode adds (as onnxruntime and onnx.reference count)."""
    per_dim: list[np.ndarray] = []
    for dim in range(window.rank):
        low = -window.pads_begin[dim] if count_include_pad else 0
        high = window.input_shape[dim] + (window.pads_end[dim] if count_include_pad else 0)
        per_dim.append(
            np.array(
                [
                    sum(1 for t in window.taps(dim, o) if low <= t < high)
                    for o in range(window.output_shape[dim])
                ],
                dtype=np.int64,
            )
        )
    divisors = np.ones((), dtype=np.int64)
    for counts in per_dim:
        divisors = np.multiply.outer(divisors, counts)
    return divisors


def _divide(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    y: SSAValue,
    divisors: np.ndarray,
) -> None:
    """y /= divisors (broadcast over N and C): a scalar constant when every
    window has the same count, else a constant weight of the spatial shape."""
    y_shape = shape_of(y)
    y_rank = len(y_shape)
    element_type = _element_type(y)
    if np.all(divisors == divisors.flat[0]):
        count = float(divisors.flat[0])

        def scalar_body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            divisor = float_constant(b, count, element_type)
            return b.insert(arith.DivfOp(args[0], divisor)).result

        generic(
            rewriter,
            op,
            [],
            [y],
            [identity_map(y_rank)],
            [PARALLEL] * y_rank,
            scalar_body,
        )
        return
    counts = weight(rewriter, op, divisors, element_type, "divisor")
    spatial_map = AffineMap(y_rank, 0, tuple(AffineDimExpr(i) for i in range(2, y_rank)))
    generic(
        rewriter,
        op,
        [counts],
        [y],
        [spatial_map, identity_map(y_rank)],
        [PARALLEL] * y_rank,
        lambda b, args: b.insert(arith.DivfOp(args[1], args[0])).result,
    )


class AveragePoolOpLowering(RewritePattern):
    """`onnx.AveragePool` -> one parallel generic over the output (n, c, o...)
    whose body sums the window taps inside X, and a division by the number of
    counted taps: a constant when all windows count the same, else a
    per-position divisor computed with numpy and stored as a weight
    (count_include_pad=0 near the border, ceil_mode windows running past the
    end). Supports any spatial rank, kernel_shape, strides, pads, dilations,
    auto_pad, ceil_mode and count_include_pad. Rejects non-float types."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.AveragePoolOp, rewriter: PatternRewriter) -> None:
        _check_float(op, op.operands[0])
        window = _pool_window(op)
        divisors = average_divisors(window, bool(op.attr("count_include_pad")))
        if np.any(divisors == 0):
            raise unsupported(op, "a pooling window holds no input element")
        y = _pool(rewriter, op, window, 0.0, arith.AddfOp)
        _divide(rewriter, op, y, divisors)
        replace_with_buffers(rewriter, op, [y])


class GlobalAveragePoolOpLowering(RewritePattern):
    """`onnx.GlobalAveragePool` -> the output ([N, C, 1, ...]) filled with
    zero, a sum-reduction generic over (n, c, spatial...) and a division by
    the spatial size. Any spatial rank; rejects non-float types."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx.GlobalAveragePoolOp,
        rewriter: PatternRewriter,
    ) -> None:
        _check_float(op, op.operands[0])
        x_shape = shape_of(op.operands[0])
        _spatial(op, x_shape, "X")
        rank = len(x_shape)
        x = buffer_of(rewriter, op.operands[0])
        y = alloc(rewriter, op.results[0].type)
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
            lambda b, args: b.insert(arith.AddfOp(args[1], args[0])).result,
        )
        _divide(rewriter, op, y, np.full((1,) * (rank - 2), math.prod(x_shape[2:])))
        replace_with_buffers(rewriter, op, [y])


# --------------------------------------------------------------------------
# Normalization


class BatchNormalizationOpLowering(RewritePattern):
    """`onnx.BatchNormalization` in inference mode (training_mode=0) on
    X [N, C, ...]. With constant scale, B, mean and var it is folded at
    compile time into `x * a[c] + b[c]` (a = scale / sqrt(var + epsilon),
    b = B - mean * a, two weights); otherwise one elementwise generic
    computes `(x - mean) / sqrt(var + epsilon) * scale + B`. Rejects
    training_mode=1 (and so the running_mean/running_var outputs) and
    non-float types."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx.BatchNormalizationOp,
        rewriter: PatternRewriter,
    ) -> None:
        if op.attr("training_mode"):
            raise unsupported(op, "training_mode=1 is not supported (inference only)")
        x_value = op.operands[0]
        _check_float(op, x_value)
        x_shape = shape_of(x_value)
        if len(x_shape) < 2:
            raise unsupported(op, f"X must be [N, C, ...], got {list(x_shape)}")
        rank = len(x_shape)
        for value, name in zip(op.operands[1:], ("scale", "B", "mean", "var"), strict=True):
            if shape_of(value) != (x_shape[1],):
                raise unsupported(
                    op,
                    f"{name} of shape {list(shape_of(value))} is not [C={x_shape[1]}]",
                )
        epsilon = float(op.attr("epsilon"))
        x = buffer_of(rewriter, x_value)
        y = alloc(rewriter, op.results[0].type)
        element_type = _element_type(x)
        channel_map = AffineMap(rank, 0, (AffineDimExpr(1),))
        params = [constant_value(v) for v in op.operands[1:]]
        folded_parameters = all(p is not None for p in params)
        if folded_parameters:
            scale, bias, mean, var = (np.asarray(p, dtype=np.float64) for p in params)  # type: ignore[arg-type]
            a = scale / np.sqrt(var + epsilon)
            b_fold = bias - mean * a
            multiplier = weight(rewriter, op, a, element_type, "multiplier")
            addend = weight(rewriter, op, b_fold, element_type, "addend")

            def folded(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
                product = b.insert(arith.MulfOp(args[0], args[1])).result
                return b.insert(arith.AddfOp(product, args[2])).result

            generic(
                rewriter,
                op,
                [x, multiplier, addend],
                [y],
                [identity_map(rank), channel_map, channel_map, identity_map(rank)],
                [PARALLEL] * rank,
                folded,
            )
        else:
            buffers = [buffer_of(rewriter, v) for v in op.operands[1:]]

            def formula(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
                x_arg, scale_arg, bias_arg, mean_arg, var_arg = args[:5]
                eps = float_constant(b, epsilon, element_type)
                centered = b.insert(arith.SubfOp(x_arg, mean_arg)).result
                shifted = b.insert(arith.AddfOp(var_arg, eps)).result
                std = b.insert(math_dialect.SqrtOp(shifted)).result
                normalized = b.insert(arith.DivfOp(centered, std)).result
                scaled = b.insert(arith.MulfOp(normalized, scale_arg)).result
                return b.insert(arith.AddfOp(scaled, bias_arg)).result

            generic(
                rewriter,
                op,
                [x, *buffers],
                [y],
                [identity_map(rank), *[channel_map] * 4, identity_map(rank)],
                [PARALLEL] * rank,
                formula,
            )
        replace_with_buffers(rewriter, op, [y, None, None])
