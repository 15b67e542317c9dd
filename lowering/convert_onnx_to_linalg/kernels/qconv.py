"""`kernel.qconv` (chosen by `select-kernels`) as integer loops: CMSIS-NN's
scheme in generated C.

For each pair of output pixels, their input windows are gathered into two
columns of a scratch buffer (im2col), each tap's channels in pairs: one int32
word holds (x[c] - x_zero_point, x[c+1] - x_zero_point) as signed 16-bit
halves, padding taps 0 (with one input channel, the pairs are of
consecutive taps instead, so that no half of a word is padding). Then for
each pair of output channels a register block of 2 x 2 int32 accumulators,
started at the bias, runs over the packed weight words: each word gives two
pairs of int8 weights (`onnxc.widen_bytes`, see `kernel.qconv` for the
packing) and each pair meets a column's pair in one dual multiply-accumulate
(`onnxc.dot2`: SMLAD on Armv7E-M, 16 MACs in eight instructions with the
four loads and four widenings around them). A last odd pixel and a last odd
channel take blocks of one column or one row.
Accumulators are requantized as they are stored: `acc` in float times the
channel's multiplier, then QuantizeLinear's clamp, round half to even and
zero point (quantization.py's `quantize`), onnxruntime's `MlasRequantizeOutput`
step for step.

The sums are exact in int32 (each term is a product of a 9-bit and an
8-bit value; a window would need over 2^16 taps to overflow), so the order
of the reduction does not matter and the results equal the plain
QLinearConv loops'.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerType, MemRefType
from xdsl.ir import Block, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from onnxc.dialects import kernel
from onnxc.dialects.onnxc import Dot2Op, WidenBytesOp
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    alloc,
    buffer_of,
    element_type,
    shape_of,
)
from onnxc.lowering.convert_onnx_to_linalg.kernels.integer import (
    Geometry,
    IntegerKernel,
    channel_multiplier,
    requantized,
)
from onnxc.lowering.convert_onnx_to_linalg.kernels.loops import Arith, load, remainder
from onnxc.lowering.convert_onnx_to_linalg.kernels.qconv_rows import BLOCK, U8, Rows, direct
from onnxc.lowering.convert_onnx_to_linalg.kernels.qdepthwise import Depthwise
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range
from onnxc.lowering.index_arith import Size

I32 = IntegerType(32)


class QconvOpLowering(OnnxLowering[kernel.QconvOp]):
    """`kernel.qconv` -> im2col pairs and 2 x 2 register blocks (see the
    module docstring)."""

    def rewrite(self, op: kernel.QconvOp, rewriter: PatternRewriter) -> None:
        x_shape, y_shape = shape_of(op.X), shape_of(op.Y)
        w_shape = shape_of(op.W)
        geometry = Geometry(
            in_size=(x_shape[2], x_shape[3]),
            out_size=(y_shape[2], y_shape[3]),
            kernel_shape=_pair(op.attr("kernel_shape")),
            strides=_pair(op.attr("strides")),
            dilations=_pair(op.attr("dilations")),
            pads=_pair(op.attr("pads")[:2]),
            channels=x_shape[1],
            outputs=y_shape[1],
            words=w_shape[1],
        )
        out = self.result_buffer(rewriter, op.Y, list(y_shape))
        common = IntegerKernel(
            g=geometry,
            x=buffer_of(rewriter, op.X),
            bias=buffer_of(rewriter, op.B),
            scale=buffer_of(rewriter, op.S),
            out=out,
            x_zero_point=op.attr("x_zero_point"),
            y_zero_point=op.attr("y_zero_point"),
        )
        if (op.attr("group") or 1) != 1:
            depthwise = Depthwise(**common.parts(), taps=buffer_of(rewriter, op.W))
            depthwise.build(builder_before(op), x_shape[0])
            self.replace(rewriter, op, [out])
            return
        if op.attr("form") == "rows":
            self._rows(rewriter, op, common)
            return
        count = _columns(geometry)
        columns = alloc(rewriter, MemRefType(I32, [count, 2 * geometry.words]))
        kernel_ = _Kernel(**common.parts(), w=buffer_of(rewriter, op.W), columns=columns)
        kernel_.build(builder_before(op), x_shape[0])
        self.replace(rewriter, op, [out])

    def _rows(self, rewriter: PatternRewriter, op: kernel.QconvOp, common: IntegerKernel) -> None:
        g = common.g
        length = shape_of(op.W)[1]
        reads_rows = direct(g.kernel_shape, g.strides, g.pads) and g.out_size == g.in_size
        width = length if reads_rows else g.channels
        rows = alloc(rewriter, MemRefType(U8, [g.in_size[0] * g.in_size[1], width]))
        columns = None if reads_rows else alloc(rewriter, MemRefType(U8, [BLOCK, length]))
        point = op.attr("x_zero_point")
        signed = element_type(common.x) != U8
        kernel_ = Rows(
            **common.parts(),
            w=buffer_of(rewriter, op.W),
            rows=rows,
            columns=columns,
            u_zero_point=point + 128 if signed else point,
        )
        kernel_.build(builder_before(op), shape_of(op.X)[0])
        self.replace(rewriter, op, [common.out])


def _columns(g: Geometry) -> int:
    """The columns gathered at once: a pair of output pixels, or the one
    pixel of a 1x1 output (a fully connected layer's)."""
    return 1 if g.out_size == (1, 1) else 2


def _pair(values: Sequence[int]) -> tuple[int, int]:
    first, second = values
    return first, second


@dataclass(frozen=True)
class _Kernel(IntegerKernel):
    w: SSAValue
    columns: SSAValue

    def build(self, b: Builder, batch: int) -> None:
        g = self.g
        taps = g.taps_words
        for column in range(_columns(g)):  # the words past the taps are never written again
            for word in range(taps, 2 * g.words):
                a = Arith(b)
                at = [a.index(column), a.index(word)]
                b.insert(memref.StoreOp.get(scalar.constant(b, 0, I32), self.columns, at))
        pixels = g.out_size[0] * g.out_size[1]

        def image(b: Builder, n: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            def pair(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                a = Arith(b)
                first = a.mul(j, 2)
                self._pixels(b, n, [first, a.add(first, 1)])
                return []

            for_range(b, 0, pixels // 2, [], pair)
            if pixels % 2:
                self._pixels(b, n, [Arith(b).index(pixels - 1)])
            return []

        for_range(b, 0, batch, [], image)

    def _pixels(self, b: Builder, n: SSAValue, pixels: list[Size]) -> None:
        """Gather the columns of `pixels` (one or two), then every block of
        output channels over them."""
        a = Arith(b)
        width = self.g.out_size[1]
        places: list[tuple[Size, Size]] = [
            (a.floordiv(p, width), remainder(b, a.index(p), width)) for p in pixels
        ]
        for column, (oh, ow) in enumerate(places):
            self._gather(b, n, column, oh, ow)
        outputs = self.g.outputs

        def rows(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self._block(b, n, Arith(b).mul(i, 2), 2, places)
            return []

        for_range(b, 0, outputs // 2, [], rows)
        if outputs % 2:
            self._block(b, n, outputs - 1, 1, places)

    def _gather(self, b: Builder, n: SSAValue, column: int, oh: Size, ow: Size) -> None:
        """Column `column` of the scratch: the window of output pixel (oh, ow),
        channel pairs per tap, taps in (kh, kw) order; padding taps 0."""
        g = self.g
        if g.channels == 1:
            self._gather_taps(b, n, column, oh, ow)
            return
        a = Arith(b)
        corner = g.corner(a, oh, ow)
        at_column = a.index(column)

        def tap(b: Builder, t: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            ih, iw, inside = g.tap(b, corner, t)
            base = Arith(b).mul(t, g.pairs)
            then, otherwise = Block(), Block()
            self._tap_words(Builder(InsertPoint.at_end(then)), n, at_column, base, ih, iw)
            self._zero_words(Builder(InsertPoint.at_end(otherwise)), at_column, base)
            b.insert(scf.IfOp(inside, [], [then], [otherwise]))
            return []

        for_range(b, 0, g.kernel_shape[0] * g.kernel_shape[1], [], tap)

    def _gather_taps(self, b: Builder, n: SSAValue, column: int, oh: Size, ow: Size) -> None:
        """`_gather` of one input channel: word j holds taps 2j and 2j + 1
        (the last one 0 past the window), each read at a clamped position and
        taken as 0 outside the input."""
        g = self.g
        a = Arith(b)
        corner = g.corner(a, oh, ow)
        count = g.kernel_shape[0] * g.kernel_shape[1]
        at_column = a.index(column)

        def tap(b: Builder, t: Size) -> SSAValue:
            a = Arith(b)
            ih, iw, inside = g.tap(b, corner, t)
            at = [n, 0, a.clamp(ih, 0, g.in_size[0] - 1), a.clamp(iw, 0, g.in_size[1] - 1)]
            value = self._centered(b, load(b, self.x, at))
            zero = scalar.constant(b, 0, I32)
            return b.insert(arith.SelectOp(inside, value, zero)).result

        def word(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            a = Arith(b)
            first = a.mul(j, 2)
            at = [at_column, a.index(j)]
            b.insert(
                memref.StoreOp.get(
                    _packed(b, tap(b, first), tap(b, a.add(first, 1))), self.columns, at
                )
            )
            return []

        for_range(b, 0, count // 2, [], word)
        if count % 2:
            a = Arith(b)
            last = _packed(b, tap(b, count - 1), scalar.constant(b, 0, I32))
            b.insert(memref.StoreOp.get(last, self.columns, [at_column, a.index(count // 2)]))

    def _tap_words(
        self, b: Builder, n: SSAValue, column: SSAValue, base: Size, ih: Size, iw: Size
    ) -> None:
        g = self.g

        def word(b: Builder, c2: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            a = Arith(b)
            channel = a.mul(c2, 2)
            low = self._centered(b, load(b, self.x, [n, channel, ih, iw]))
            high = self._centered(b, load(b, self.x, [n, a.add(channel, 1), ih, iw]))
            at = [column, a.index(a.add(base, c2))]
            b.insert(memref.StoreOp.get(_packed(b, low, high), self.columns, at))
            return []

        for_range(b, 0, g.channels // 2, [], word)
        if g.channels % 2:
            a = Arith(b)
            low = self._centered(b, load(b, self.x, [n, g.channels - 1, ih, iw]))
            zero = scalar.constant(b, 0, I32)
            at = a.index(a.add(base, g.channels // 2))
            b.insert(memref.StoreOp.get(_packed(b, low, zero), self.columns, [column, at]))
        b.insert(scf.YieldOp())

    def _zero_words(self, b: Builder, column: SSAValue, base: Size) -> None:
        zero = scalar.constant(b, 0, I32)

        def word(b: Builder, c2: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            at = Arith(b).add(base, c2)
            b.insert(memref.StoreOp.get(zero, self.columns, [column, Arith(b).index(at)]))
            return []

        for_range(b, 0, self.g.pairs, [], word)
        b.insert(scf.YieldOp())

    def _centered(self, b: Builder, value: SSAValue) -> SSAValue:
        """x - x_zero_point as int32."""
        wide = scalar.convert(b, value, I32)
        if not self.x_zero_point:
            return wide
        return scalar.SUB(b, wide, scalar.constant(b, self.x_zero_point, I32))

    def _block(
        self,
        b: Builder,
        n: SSAValue,
        first_row: Size,
        rows: int,
        places: list[tuple[Size, Size]],
    ) -> None:
        """Output channels first_row.. first_row + rows - 1 at the gathered
        pixels: rows x len(places) accumulators over the weight words."""
        a = Arith(b)
        row_at = [a.index(a.add(first_row, r)) for r in range(rows)]
        starts = [load(b, self.bias, [row]) for row in row_at for _ in places]
        cols = range(len(places))

        def step(b: Builder, q: SSAValue, accs: list[SSAValue]) -> list[SSAValue]:
            a = Arith(b)
            low_word, high_word = a.mul(q, 2), a.add(a.mul(q, 2), 1)
            halves = [
                (load(b, self.columns, [c, low_word]), load(b, self.columns, [c, high_word]))
                for c in cols
            ]
            result: list[SSAValue] = []
            for row in row_at:
                word = load(b, self.w, [row, q])
                even = b.insert(WidenBytesOp(word, odd=False)).result
                odd = b.insert(WidenBytesOp(word, odd=True)).result
                for c in cols:
                    acc = accs[len(result)]
                    acc = b.insert(Dot2Op(even, halves[c][0], acc)).result
                    result.append(b.insert(Dot2Op(odd, halves[c][1], acc)).result)
            return result

        sums = for_range(b, 0, self.g.words, starts, step)
        target = element_type(self.out)
        zero_point = scalar.constant(b, self.y_zero_point, target)
        for r, row in enumerate(row_at):
            multiplier = channel_multiplier(b, self.scale, row)
            for c, (oh, ow) in enumerate(places):
                value = requantized(b, sums[r * len(places) + c], multiplier, zero_point)
                at = [n, row, a.index(oh), a.index(ow)]  # row: an index value
                b.insert(memref.StoreOp.get(value, self.out, at))


def _packed(b: Builder, low: SSAValue, high: SSAValue) -> SSAValue:
    """(low & 0xFFFF) | high << 16: two int32 values in [-32768, 32767] as
    the signed halves of one word."""
    mask = scalar.constant(b, 0xFFFF, I32)
    shift = scalar.constant(b, 16, I32)
    masked = b.insert(arith.AndIOp(low, mask)).result
    shifted = b.insert(arith.ShLIOp(high, shift)).result
    return b.insert(arith.OrIOp(masked, shifted)).result


__all__ = ["QconvOpLowering"]
