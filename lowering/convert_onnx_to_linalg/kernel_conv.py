"""The blocked kernels of the `kernel` dialect (chosen by `select-kernels`):
layout changes as `linalg.generic`s, the convolution as register-blocked loops.

`kernel.block` and `kernel.unblock` are copies whose maps split the channel
index into block and lane (`c = cb * b + v`); a last block with lanes past C
is zero-filled first.

`kernel.conv` computes one output row at a time. Each row is cut, at compile
time, into the pixels whose windows lie inside the input (all KW taps in
bounds) and the border pixels. Interior pixels go in register blocks of
`pixels` outputs: one accumulator array of `b` lanes (the output channel
block) per pixel, a `memref.alloca` the C compiler keeps in vector registers,
updated in a constant-trip loop over the lanes inside the loops over input
channels and taps, so the vector loop runs across independent outputs, never
across the reduction. Border pixels are blocks of one with the tap range
clipped; rows clip their KH range the same way. Every output keeps the naive
summation order (bias, then input channels, then taps in row-major order,
then the residual), so results equal the plain loops' without contraction.
The epilogue (bias first, residual, Relu or Clip) is applied as the
accumulators are stored.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import f32
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import kernel
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    buffer_of,
    fill,
    generic,
    identity_map,
    is_none,
    shape_of,
)
from onnxc.lowering.convert_onnx_to_linalg.loops import builder_before, for_range, nest
from onnxc.lowering.convert_onnx_to_linalg.views import view
from onnxc.lowering.index_arith import IndexArith, Size

# --------------------------------------------------------------------------
# Layout changes


def _channel_map(block: int) -> AffineMap:
    """(n, c, h, w) -> (n, c floordiv b, h, w, c mod b): where channel c lives
    in the blocked layout."""
    n, c, h, w = (AffineDimExpr(i) for i in range(4))
    return AffineMap(4, 0, (n, c // block, h, w, c % block))


class BlockOpLowering(OnnxLowering[kernel.BlockOp]):
    """`kernel.block` -> a copy into the blocked layout (padding lanes zeroed)."""

    def rewrite(self, op: kernel.BlockOp, rewriter: PatternRewriter) -> None:
        n, blocks, h, w, lanes = shape_of(op.Y)
        channels = shape_of(op.X)[1]
        if channels == 1:  # one channel: the same bytes in either layout
            self.replace(
                rewriter,
                op,
                [view(rewriter, self.shapes, op, buffer_of(rewriter, op.X), [n, 1, h, w, 1])],
            )
            return
        out = self.result_buffer(rewriter, op.Y, [n, blocks, h, w, lanes])
        if blocks * lanes != channels:
            fill(rewriter, op, out, 0.0)
        generic(
            rewriter,
            op,
            [buffer_of(rewriter, op.X)],
            [out],
            [identity_map(4), _channel_map(lanes)],
            [PARALLEL] * 4,
            lambda b, args: args[0],
        )
        self.replace(rewriter, op, [out])


class UnblockOpLowering(OnnxLowering[kernel.UnblockOp]):
    """`kernel.unblock` -> a copy back to NCHW."""

    def rewrite(self, op: kernel.UnblockOp, rewriter: PatternRewriter) -> None:
        lanes = shape_of(op.X)[4]
        if shape_of(op.Y)[1] == 1:  # one channel: the same bytes in either layout
            source = buffer_of(rewriter, op.X)
            self.replace(rewriter, op, [view(rewriter, self.shapes, op, source, shape_of(op.Y))])
            return
        out = self.result_buffer(rewriter, op.Y, list(shape_of(op.Y)))
        generic(
            rewriter,
            op,
            [buffer_of(rewriter, op.X)],
            [out],
            [_channel_map(lanes), identity_map(4)],
            [PARALLEL] * 4,
            lambda b, args: args[0],
        )
        self.replace(rewriter, op, [out])


# --------------------------------------------------------------------------
# Convolution


class Arith(IndexArith):
    """Index arithmetic inserted at a builder (one per loop body)."""

    def __init__(self, b: Builder) -> None:
        super().__init__()
        self.b = b

    def _insert(self, op: Operation, operands: Sequence[SSAValue]) -> SSAValue:
        return self.b.insert(op).results[0]


@dataclass(frozen=True)
class _Geometry:
    """The static sizes of one blocked convolution."""

    in_size: tuple[int, int]  # H, W
    in_lanes: int
    channels: int  # C, the input channels summed over (per group: 1 when depthwise)
    out_blocks: int
    out_size: tuple[int, int]  # OH, OW
    lanes: int
    kernel: tuple[int, int]
    strides: tuple[int, int]
    dilations: tuple[int, int]
    pads: tuple[int, int]  # top, left
    depthwise: bool
    pixels: int

    def interior(self) -> tuple[int, int]:
        """The output columns [lo, hi) whose KW taps all lie inside the input."""
        width, kw, stride, dilation, pad = (
            self.in_size[1],
            self.kernel[1],
            self.strides[1],
            self.dilations[1],
            self.pads[1],
        )
        lo = -(-pad // stride)
        hi = (width - 1 - (kw - 1) * dilation + pad) // stride + 1
        lo, hi = min(lo, self.out_size[1]), min(max(hi, 0), self.out_size[1])
        return (lo, hi) if lo < hi else (self.out_size[1], self.out_size[1])


def tap_range(a: Arith, start: Size, taps: int, dilation: int, extent: int) -> tuple[Size, Size]:
    """The taps k in [lo, hi) with 0 <= start + k * dilation < extent."""
    lo = a.max(0, a.ceildiv(a.sub(0, start), dilation))
    hi = a.min(taps, a.add(a.floordiv(a.sub(extent - 1, start), dilation), 1))
    return lo, a.max(lo, hi)


Activation = Callable[[Builder, SSAValue], SSAValue]


class ConvOpLowering(OnnxLowering[kernel.ConvOp]):
    """`kernel.conv` -> register-blocked loops (see the module docstring)."""

    def rewrite(self, op: kernel.ConvOp, rewriter: PatternRewriter) -> None:
        x_shape, y_shape = shape_of(op.X), shape_of(op.Y)
        depthwise = (op.attr("group") or 1) > 1
        g = _Geometry(
            in_size=(x_shape[2], x_shape[3]),
            in_lanes=x_shape[4],
            channels=1 if depthwise else shape_of(op.W)[1],
            out_blocks=y_shape[1],
            out_size=(y_shape[2], y_shape[3]),
            lanes=y_shape[4],
            kernel=_pair(op.attr("kernel_shape")),
            strides=_pair(op.attr("strides")),
            dilations=_pair(op.attr("dilations")),
            pads=_pair(op.attr("pads")),
            depthwise=depthwise,
            pixels=op.attr("pixels"),
        )
        x, w = buffer_of(rewriter, op.X), buffer_of(rewriter, op.W)
        bias = None if is_none(op.B) else buffer_of(rewriter, op.B)
        residual = None if is_none(op.R) else buffer_of(rewriter, op.R)
        if residual is not None and op.attr("in_place"):
            out = residual  # each output reads only its own element of R first
        else:
            out = self.result_buffer(rewriter, op.Y, list(y_shape))
        _Kernel(g, x, w, bias, residual, out, activation(op)).build(builder_before(op), y_shape[0])
        self.replace(rewriter, op, [out])


def _pair(values: Sequence[int]) -> tuple[int, int]:
    return int(values[0]), int(values[1])


def activation(op: kernel.ConvOp | kernel.MatmulOp) -> Activation:
    """The fused activation of a kernel (its `activation` property)."""
    kind = op.attr("activation")
    if kind == "Relu":
        return lambda b, v: scalar.MAX(b, v, scalar.constant(b, 0.0, f32))
    if kind == "Clip":
        low, high = op.attr("clip_min"), op.attr("clip_max")
        return lambda b, v: scalar.MIN(
            b, scalar.MAX(b, v, scalar.constant(b, low, f32)), scalar.constant(b, high, f32)
        )
    return lambda b, v: v


@dataclass
class _Kernel:
    """The loops of one blocked convolution."""

    g: _Geometry
    x: SSAValue
    w: SSAValue
    bias: SSAValue | None
    residual: SSAValue | None
    out: SSAValue
    activation: Activation

    def build(self, b: Builder, batch: int) -> None:
        sizes = [batch, self.g.out_blocks, self.g.out_size[0]]
        loops_over(b, sizes, lambda inner, at: self._row(inner, *at))

    def _row(self, b: Builder, n: SSAValue, cb: SSAValue, oh: SSAValue) -> None:
        g = self.g
        lo, hi = g.interior()
        blocks = (hi - lo) // g.pixels
        rest = (hi - lo) - blocks * g.pixels

        def single(inner: Builder, ow: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self._block(inner, n, cb, oh, ow, 1, clip_columns=True)
            return []

        def full(inner: Builder, ow: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self._block(inner, n, cb, oh, ow, g.pixels, clip_columns=False)
            return []

        if lo > 0:
            for_range(b, 0, lo, [], single)
        if blocks:
            for_range(b, lo, lo + blocks * g.pixels, [], full, step=g.pixels)
        if rest:
            start = Arith(b).index(lo + blocks * g.pixels)
            self._block(b, n, cb, oh, start, rest, clip_columns=False)
        if hi < g.out_size[1]:
            for_range(b, hi, g.out_size[1], [], single)

    def _block(
        self,
        b: Builder,
        n: SSAValue,
        cb: SSAValue,
        oh: SSAValue,
        ow0: SSAValue,
        pixels: int,
        *,
        clip_columns: bool,
    ) -> None:
        """Outputs (n, cb, oh, ow0 + j) for j < pixels, all lanes."""
        g = self.g
        a = Arith(b)
        columns = [a.add(ow0, j) for j in range(pixels)]
        top = a.sub(a.mul(oh, g.strides[0]), g.pads[0])
        kh_lo, kh_hi = tap_range(a, top, g.kernel[0], g.dilations[0], g.in_size[0])
        lefts = [a.sub(a.mul(c, g.strides[1]), g.pads[1]) for c in columns]
        if clip_columns:
            kw_lo, kw_hi = tap_range(a, lefts[0], g.kernel[1], g.dilations[1], g.in_size[1])
        else:
            kw_lo, kw_hi = 0, g.kernel[1]
        accumulators = []
        for j in range(pixels):
            acc = b.insert(memref.AllocaOp.get(f32, shape=[g.lanes]))
            acc.memref.name_hint = f"acc{j}"
            accumulators.append(acc.memref)
        self._lanes(b, lambda inner, v: self._initial(inner, cb, v, accumulators))

        def channel(inner: Builder, ci: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            def tap_row(row_b: Builder, kh: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                def tap(tap_b: Builder, kw: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                    self._taps(tap_b, n, cb, ci, top, lefts, kh, kw, accumulators)
                    return []

                for_range(row_b, kw_lo, kw_hi, [], tap)
                return []

            for_range(inner, kh_lo, kh_hi, [], tap_row)
            return []

        for_range(b, 0, g.channels, [], channel)
        self._lanes(b, lambda inner, v: self._store(inner, n, cb, oh, columns, v, accumulators))

    def _lanes(self, b: Builder, body: Callable[[Builder, SSAValue], None]) -> None:
        def lane(inner: Builder, v: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            body(inner, v)
            return []

        for_range(b, 0, self.g.lanes, [], lane)

    def _initial(self, b: Builder, cb: SSAValue, v: SSAValue, accumulators: list[SSAValue]) -> None:
        if self.bias is None:
            start = scalar.constant(b, 0.0, f32)
        else:
            a = Arith(b)
            start = load(b, self.bias, [a.add(a.mul(cb, self.g.lanes), v)])
        for acc in accumulators:
            b.insert(memref.StoreOp.get(start, acc, [v]))

    def _taps(
        self,
        b: Builder,
        n: SSAValue,
        cb: SSAValue,
        ci: SSAValue,
        top: Size,
        lefts: list[Size],
        kh: SSAValue,
        kw: SSAValue,
        accumulators: list[SSAValue],
    ) -> None:
        """acc_j[v] += x(pixel j) * w[v] for every lane v, for one input
        channel and tap."""
        g = self.g
        a = Arith(b)
        ih = a.add(top, a.mul(kh, g.dilations[0]))
        columns = [a.add(left, a.mul(kw, g.dilations[1])) for left in lefts]
        if g.depthwise:

            def lane(inner: Builder, v: SSAValue) -> None:
                weight = load(inner, self.w, [cb, kh, kw, v])
                for acc, iw in zip(accumulators, columns, strict=True):
                    value = load(inner, self.x, [n, cb, ih, iw, v])
                    accumulate(inner, acc, v, value, weight)

            self._lanes(b, lane)
            return
        block, lane_in = (
            (a.index(0), ci)
            if g.in_lanes == g.channels
            else (a.floordiv(ci, g.in_lanes), _remainder(b, ci, g.in_lanes))
        )
        values = [load(b, self.x, [n, a.index(block), ih, iw, lane_in]) for iw in columns]

        def dense_lane(inner: Builder, v: SSAValue) -> None:
            weight = load(inner, self.w, [cb, ci, kh, kw, v])
            for acc, value in zip(accumulators, values, strict=True):
                accumulate(inner, acc, v, value, weight)

        self._lanes(b, dense_lane)

    def _store(
        self,
        b: Builder,
        n: SSAValue,
        cb: SSAValue,
        oh: SSAValue,
        columns: list[Size],
        v: SSAValue,
        accumulators: list[SSAValue],
    ) -> None:
        a = Arith(b)
        for acc, ow in zip(accumulators, columns, strict=True):
            result = load(b, acc, [v])
            at = [n, cb, oh, a.index(ow), v]
            if self.residual is not None:
                result = scalar.ADD(b, result, load(b, self.residual, at))
            b.insert(memref.StoreOp.get(self.activation(b, result), self.out, at))


def loops_over(
    b: Builder, sizes: Sequence[int], body: Callable[[Builder, list[SSAValue]], None]
) -> None:
    """Loops over every position of `sizes`, with no loop for a size of 1 (its
    index is 0): canonicalize would fold such a loop away, and with it the
    ONNX node's comment on the nest."""
    looped = [k for k, size in enumerate(sizes) if size > 1]

    def innermost(inner: Builder, ivs: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
        at = [Arith(inner).index(0)] * len(sizes)
        for k, iv in zip(looped, ivs, strict=True):
            at[k] = iv
        body(inner, at)
        return []

    nest(b, [sizes[k] for k in looped], [], innermost)


def load(b: Builder, buffer: SSAValue, indices: Sequence[Size]) -> SSAValue:
    a = Arith(b)
    return b.insert(memref.LoadOp.get(buffer, [a.index(i) for i in indices])).res


def _remainder(b: Builder, value: SSAValue, divisor: int) -> SSAValue:
    modulus = Arith(b).index(divisor)
    return b.insert(arith.RemUIOp(value, modulus)).result


def accumulate(b: Builder, acc: SSAValue, v: SSAValue, value: SSAValue, weight: SSAValue) -> None:
    """acc[v] += value * weight."""
    total = scalar.ADD(b, load(b, acc, [v]), scalar.MUL(b, value, weight))
    b.insert(memref.StoreOp.get(total, acc, [v]))


__all__ = [
    "Arith",
    "BlockOpLowering",
    "ConvOpLowering",
    "UnblockOpLowering",
    "accumulate",
    "activation",
    "load",
    "loops_over",
    "tap_range",
]
