"""Sliding windows: the geometry and the loops that Conv and the poolings share.

No window operator copies its input into a padded buffer: on a microcontroller
that copy would be live next to the output. A window operator whose windows
stay inside X reads it through an affine map (`out * stride + tap * dilation`
per spatial dim, `window_expr`). Otherwise it is a parallel `linalg.generic`
over the output whose body loops over the window with `scf.for` (carrying the
accumulator) and reads X with `memref.load`: along each spatial dim the tap
loop runs only over the taps inside X, so no load leaves X and padding taps are
skipped, which gives what reading the pad value would (0 for sums, the lowest
value for max). An `scf.if` on the output position sends the interior (outputs
whose window lies inside X, known at compile time) to loops with constant trip
counts, which the C compiler unrolls, and the border to loops with bounds
computed from `linalg.index`. Clamping loops instead of guarding each load
keeps bounds checks out of the tap loops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import cast

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    i64,
)
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr
from xdsl.pattern_rewriter import (
    PatternRewriter,
)
from xdsl.rewriter import InsertPoint

from onnxc.dialects import onnx
from onnxc.dialects.dims import dims_of
from onnxc.lowering.convert_onnx_to_linalg.common import (
    element_type,
    insert,
    tensor_type,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

# --------------------------------------------------------------------------
# Window geometry


@dataclass(frozen=True)
class Window:
    """The geometry of a sliding-window operator over the spatial dims: the
    input and output extents and where each window starts
    (`out * stride - pads_begin` in input coordinates). Extents (and pads under
    `auto_pad=SAME_*` of run-time extents) are sizes: ints, or `index` values
    known at run time; then the predicates below answer conservatively."""

    input_shape: tuple[Size, ...]
    kernel: tuple[int, ...]
    strides: tuple[int, ...]
    dilations: tuple[int, ...]
    pads_begin: tuple[Size, ...]
    pads_end: tuple[Size, ...]
    output_shape: tuple[Size, ...]
    ceil_mode: bool = False

    @property
    def rank(self) -> int:
        return len(self.kernel)

    def span(self, dim: int) -> int:
        return (self.kernel[dim] - 1) * self.dilations[dim] + 1

    def static(self, dim: int) -> bool:
        return all(
            isinstance(v, int)
            for v in (self.input_shape[dim], self.output_shape[dim], self.pads_begin[dim])
        )

    def reads_before(self, dim: int) -> bool:
        """Whether the first window along `dim` may have taps before the input."""
        pad = self.pads_begin[dim]
        return not isinstance(pad, int) or pad > 0

    def reads_past_end(self, dim: int) -> bool:
        """Whether the last window along `dim` may have taps past the input
        (end padding, or the extra windows of ceil_mode)."""
        if self.static(dim):
            out = self.output_shape[dim]
            assert isinstance(out, int)
            last = self.taps(dim, out - 1)[-1]
            return last >= cast(int, self.input_shape[dim])
        end = self.pads_end[dim]
        return self.ceil_mode or not isinstance(end, int) or end > 0

    def interior(self, shapes: Shapes, dim: int) -> tuple[Size, Size]:
        """First and last output along `dim` whose window lies inside the
        input (first > last when there is none)."""
        pad, stride = self.pads_begin[dim], self.strides[dim]
        first = shapes.ceildiv(pad, stride)
        reach = shapes.sub(shapes.add(self.input_shape[dim], pad), self.span(dim))
        last = shapes.min(shapes.floordiv(reach, stride), shapes.sub(self.output_shape[dim], 1))
        return first, last

    def needs_padding(self) -> bool:
        return any(self.reads_before(dim) or self.reads_past_end(dim) for dim in range(self.rank))

    def taps(self, dim: int, out: int) -> list[int]:
        """Input coordinates of the window taps of output `out` along `dim`
        (static windows only)."""
        start = out * self.strides[dim] - cast(int, self.pads_begin[dim])
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
    shapes: Shapes,
    input_shape: Sequence[Size],
    kernel: Sequence[int],
    result: SSAValue,
    ceil_mode: bool = False,
) -> Window:
    """Resolve pads (explicit or `auto_pad`), strides and dilations of `op`,
    and the output's spatial extents (the last dims of `result`), which must be
    the inferred ones where those are static."""
    rank = len(kernel)
    strides = _ints(op, "strides", rank, 1)
    dilations = _ints(op, "dilations", rank, 1)
    if any(s < 1 for s in strides) or any(d < 1 for d in dilations):
        raise unsupported(op, "strides and dilations must be positive")
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    auto_pad = (op.attr("auto_pad") if "auto_pad" in op.SCHEMA.attributes else None) or "NOTSET"
    begin: list[Size] = []
    end: list[Size] = []
    expected: list[Size] = []
    if auto_pad == "NOTSET":
        pads = _ints(op, "pads", 2 * rank, 0)
        begin, end = list(pads[:rank]), list(pads[rank:])
        if any(p < 0 for p in pads):
            raise unsupported(op, "negative pads are not supported")
        for i in range(rank):
            extent = shapes.sub(shapes.add(input_shape[i], pads[i] + pads[rank + i]), spans[i])
            if ceil_mode:
                out = shapes.add(shapes.ceildiv(extent, strides[i]), 1)
                # The last window must start inside the input or its begin padding.
                out = shapes.min(
                    out,
                    shapes.add(shapes.ceildiv(shapes.add(input_shape[i], pads[i]), strides[i]), 0),
                )
            else:
                out = shapes.add(shapes.floordiv(extent, strides[i]), 1)
            expected.append(out)
    elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        for n, stride, span in zip(input_shape, strides, spans, strict=True):
            out = shapes.ceildiv(n, stride)
            total = shapes.max(
                shapes.sub(shapes.add(shapes.mul(shapes.sub(out, 1), stride), span), n), 0
            )
            half = shapes.floordiv(total, 2)
            first = half if auto_pad == "SAME_UPPER" else shapes.sub(total, half)
            begin.append(first)
            end.append(shapes.sub(total, first))
            expected.append(out)
    elif auto_pad == "VALID":
        begin = [0] * rank
        end = [0] * rank
        expected = [
            shapes.add(shapes.floordiv(shapes.sub(n, span), s), 1)
            for n, span, s in zip(input_shape, spans, strides, strict=True)
        ]
    else:
        raise unsupported(op, f"unknown auto_pad '{auto_pad}'")
    full = dims_of(tensor_type(result))
    given = full[len(full) - rank :]
    for have, want in zip(given, expected, strict=True):
        if isinstance(have, int) and isinstance(want, int) and have != want:
            raise unsupported(
                op,
                f"output spatial shape {tuple(given)} differs from the "
                f"{tuple(expected)} its attributes give",
            )
    return Window(
        tuple(input_shape),
        tuple(kernel),
        strides,
        dilations,
        tuple(begin),
        tuple(end),
        tuple(expected),
        ceil_mode,
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


def tap_index(b: Builder, value: Size) -> SSAValue:
    """A size as an `index` value inside a body: a constant built there, or
    the run-time value (built before the body)."""
    if isinstance(value, SSAValue):
        return value
    return b.insert(arith.ConstantOp.from_int_and_width(value, IndexType())).result


def _ceil_div(b: Builder, value: SSAValue, divisor: int) -> SSAValue:
    """ceil(value / divisor) for value >= 0. For value <= 0 the result is
    <= 0 (`arith.divsi` truncates toward zero), which is all a loop upper
    bound needs."""
    if divisor == 1:
        return value
    biased = b.insert(arith.AddiOp(value, tap_index(b, divisor - 1))).result
    return b.insert(arith.DivSIOp(biased, tap_index(b, divisor))).result


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
            start = b.insert(arith.MuliOp(start, tap_index(b, window.strides[dim]))).result
        if window.pads_begin[dim] != 0:
            start = b.insert(arith.SubiOp(start, tap_index(b, window.pads_begin[dim]))).result
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
        lo = tap_index(b, 0)
        if clamp and window.reads_before(dim):
            before = b.insert(arith.SubiOp(lo, start)).result
            before = b.insert(arith.MaxSIOp(before, lo)).result
            lo = _ceil_div(b, before, dilation)
        hi = tap_index(b, window.kernel[dim])
        if clamp and window.reads_past_end(dim):
            # A window starting at or past the end gets hi <= 0 <= lo: no taps.
            left = b.insert(arith.SubiOp(tap_index(b, window.input_shape[dim]), start)).result
            hi = b.insert(arith.MinSIOp(_ceil_div(b, left, dilation), hi)).result
        ranges.append(TapRange(start, lo, hi))
    return ranges


def over_window(
    b: Builder,
    shapes: Shapes,
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
    interior = [window.interior(shapes, dim) for dim in range(window.rank)]
    if any(
        isinstance(first, int) and isinstance(last, int) and first > last
        for first, last in interior
    ):
        return build(b, _tap_ranges(b, window, starts, clamp=True))
    checks: list[SSAValue] = []
    for dim, (out, (first, last)) in enumerate(zip(outs, interior, strict=True)):
        if window.reads_before(dim):
            checks.append(b.insert(arith.CmpiOp(out, tap_index(b, first), "sge")).result)
        if window.reads_past_end(dim):
            checks.append(b.insert(arith.CmpiOp(out, tap_index(b, last), "sle")).result)
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
    return b.insert(scf.ForOp(lo, hi, tap_index(b, 1), [init], block)).results[0]


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
                    offset = lb.insert(arith.MuliOp(tap, tap_index(lb, dilation))).result
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


def expand(
    rewriter: PatternRewriter,
    source: onnx.OnnxOp,
    buffer: SSAValue,
    reassociation: Sequence[Sequence[int]],
    shape: Sequence[Size],
) -> SSAValue:
    """A `memref.expand_shape` view of `buffer` with sizes `shape`."""
    static = [s if isinstance(s, int) else DYNAMIC_INDEX for s in shape]
    view = memref.ExpandShapeOp.build(
        operands=[buffer, [s for s in shape if isinstance(s, SSAValue)]],
        result_types=[MemRefType(element_type(buffer), static)],
        properties={
            "reassociation": ArrayAttr(
                [ArrayAttr([IntegerAttr(i, i64) for i in group]) for group in reassociation]
            ),
            "static_output_shape": DenseArrayBase.from_list(i64, static),
        },
    )
    insert(rewriter, view, source)
    return view.result


def require_spatial(op: onnx.OnnxOp, shape: Sequence[Size], what: str) -> None:
    if len(shape) < 3:
        raise unsupported(op, f"{what} must be [N, C, spatial...], got {list(shape)}")
