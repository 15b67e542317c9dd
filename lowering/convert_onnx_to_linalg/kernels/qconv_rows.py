"""The "rows" form of `kernel.qconv` (the hosts'): dense integer
convolutions as dot products of byte rows, the loops gcc turns into x86's
VNNI instructions (`vpdpbusd`: 64 products of an unsigned and a signed byte
into 16 int32 sums, one instruction).

Each image of X is first copied channels-last into a scratch buffer, every
byte as unsigned (an int8 one plus 128: `x ^ 0x80`), so that the window of
an output pixel is a few contiguous runs of bytes. For each block of four
output pixels, their windows are gathered (im2col) into four rows of the
weight rows' length (taps in (kh, kw) order, channels innermost; a padding
tap reads x's zero point as an unsigned byte; zeros past the window, which
meet zero weights); a 1x1 convolution of stride 1 without pads reads the
channels-last rows themselves. Then each block of four output channels
takes 16 dot products, one per (pixel, channel), over the rows: one loop
whose 16 int32 sums the compiler keeps in vector registers and reduces at
the end.

The sums are exact: each product of an unsigned byte and an int8 weight
lies within +-32640 and a row is shorter than 2^16 bytes (`fits`), so they
are added as signed int32 without wrapping (`nsw`, what lets the compiler
see a dot product); the bias (select-kernels folded x's unsigned zero
point into it: b - u_zero_point * the row's sum) is added after, wrapping.
The results equal the plain QLinearConv loops' and the "pairs" kernel's,
and are requantized as they are stored (`integer.requantized`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerType, Signedness
from xdsl.ir import Block, SSAValue
from xdsl.rewriter import InsertPoint

from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import element_type, shape_of
from onnxc.lowering.convert_onnx_to_linalg.kernels.integer import IntegerKernel, requantized
from onnxc.lowering.convert_onnx_to_linalg.kernels.loops import Arith, load, remainder
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import for_range
from onnxc.lowering.index_arith import Size

I32 = IntegerType(32)
U8 = IntegerType(8, Signedness.UNSIGNED)
BLOCK = 4
"""Output pixels, and output channels, of one register block: 16 sums."""

_NSW = arith.IntegerOverflowAttr((arith.IntegerOverflowFlag.NSW,))


def direct(kernel_shape: tuple[int, int], strides: tuple[int, int], pads: tuple[int, int]) -> bool:
    """Whether the kernel reads the channels-last rows of X themselves (a 1x1
    window of stride 1 without pads): no gathering."""
    return kernel_shape == (1, 1) and strides == (1, 1) and pads == (0, 0)


@dataclass(frozen=True)
class Rows(IntegerKernel):
    """`rows` is the channels-last scratch [H * W, S] (S: the weight rows'
    length when `direct`, else C), `columns` the gathered windows [4, Kp]
    (unused when `direct`), `w` the int8 weight rows [M, Kp]."""

    w: SSAValue
    rows: SSAValue
    columns: SSAValue | None
    u_zero_point: int

    @property
    def length(self) -> int:
        return shape_of(self.w)[1]

    def build(self, b: Builder, batch: int) -> None:
        g = self.g
        taps = g.kernel_shape[0] * g.kernel_shape[1] * g.channels
        if self.columns is None:
            self._zero(b, self.rows, g.in_size[0] * g.in_size[1], g.channels)
        else:
            self._zero(b, self.columns, BLOCK, taps)
        pixels = g.out_size[0] * g.out_size[1]

        def image(b: Builder, n: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self._channels_last(b, n)

            def block(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                first = Arith(b).mul(j, BLOCK)
                self._pixels(b, n, [Arith(b).add(first, i) for i in range(BLOCK)])
                return []

            for_range(b, 0, pixels // BLOCK, [], block)
            last = pixels - pixels % BLOCK
            if pixels % BLOCK:
                self._pixels(b, n, list(range(last, pixels)))
            return []

        for_range(b, 0, batch, [], image)

    def _zero(self, b: Builder, buffer: SSAValue, count: int, start: int) -> None:
        """buffer[i, start:] = 0 for i < count: the bytes past the window, or
        past the channels, that meet the weight rows' zeros."""
        if start >= shape_of(buffer)[1]:
            return

        def row(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            def byte(b: Builder, k: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                b.insert(memref.StoreOp.get(scalar.constant(b, 0, U8), buffer, [i, k]))
                return []

            for_range(b, start, shape_of(buffer)[1], [], byte)
            return []

        for_range(b, 0, count, [], row)

    def _channels_last(self, b: Builder, n: SSAValue) -> None:
        """rows[h * W + w, c] = x[n, c, h, w] as an unsigned byte."""
        g = self.g
        height, width = g.in_size
        signed = element_type(self.x) != U8

        def channel(b: Builder, c: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            def row(b: Builder, h: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                def column(b: Builder, w: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                    a = Arith(b)
                    value = load(b, self.x, [n, c, h, w])
                    if signed:
                        flip = scalar.constant(b, -128, value.type)
                        value = b.insert(arith.XOrIOp(value, flip)).result
                    at = [a.index(a.add(a.mul(h, width), w)), c]
                    b.insert(memref.StoreOp.get(scalar.convert(b, value, U8), self.rows, at))
                    return []

                for_range(b, 0, width, [], column)
                return []

            for_range(b, 0, height, [], row)
            return []

        for_range(b, 0, g.channels, [], channel)

    def _pixels(self, b: Builder, n: SSAValue, pixels: list[Size]) -> None:
        """The outputs of `pixels` (one to four): their rows (gathered, or
        the channels-last ones), then every block of output channels."""
        a = Arith(b)
        width = self.g.out_size[1]
        places: list[tuple[Size, Size]] = [
            (a.floordiv(p, width), remainder(b, a.index(p), width)) for p in pixels
        ]
        if self.columns is None:
            sources = [(self.rows, a.index(p)) for p in pixels]
        else:
            sources = []
            for i, (oh, ow) in enumerate(places):
                self._gather(b, i, oh, ow)
                sources.append((self.columns, a.index(i)))
        outputs = self.g.outputs

        def channels(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self._block(b, n, Arith(b).mul(j, BLOCK), BLOCK, places, sources)
            return []

        for_range(b, 0, outputs // BLOCK, [], channels)
        if outputs % BLOCK:
            self._block(b, n, outputs - outputs % BLOCK, outputs % BLOCK, places, sources)

    def _gather(self, b: Builder, i: int, oh: Size, ow: Size) -> None:
        """columns[i] = the window of output pixel (oh, ow): per tap, its C
        channels-last bytes, or x's unsigned zero point outside the input."""
        g = self.g
        columns = self.columns
        assert columns is not None
        corner = g.corner(Arith(b), oh, ow)

        def tap(b: Builder, t: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            a = Arith(b)
            ih, iw, inside = g.tap(b, corner, t)
            base = a.mul(t, g.channels)
            pixel = a.add(a.mul(ih, g.in_size[1]), iw)
            then, otherwise = Block(), Block()
            self._copy(Builder(InsertPoint.at_end(then)), i, base, pixel)
            self._fill(Builder(InsertPoint.at_end(otherwise)), i, base)
            b.insert(scf.IfOp(inside, [], [then], [otherwise]))
            return []

        for_range(b, 0, g.kernel_shape[0] * g.kernel_shape[1], [], tap)

    def _copy(self, b: Builder, i: int, base: Size, pixel: Size) -> None:
        assert self.columns is not None
        columns = self.columns

        def byte(b: Builder, c: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            a = Arith(b)
            value = load(b, self.rows, [pixel, c])
            b.insert(memref.StoreOp.get(value, columns, [a.index(i), a.index(a.add(base, c))]))
            return []

        for_range(b, 0, self.g.channels, [], byte)
        b.insert(scf.YieldOp())

    def _fill(self, b: Builder, i: int, base: Size) -> None:
        assert self.columns is not None
        columns = self.columns

        def byte(b: Builder, c: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            a = Arith(b)
            point = scalar.constant(b, self.u_zero_point, U8)
            b.insert(memref.StoreOp.get(point, columns, [a.index(i), a.index(a.add(base, c))]))
            return []

        for_range(b, 0, self.g.channels, [], byte)
        b.insert(scf.YieldOp())

    def _block(
        self,
        b: Builder,
        n: SSAValue,
        first: Size,
        count: int,
        places: list[tuple[Size, Size]],
        sources: list[tuple[SSAValue, SSAValue]],
    ) -> None:
        """Output channels first .. first + count - 1 at `places`: one dot
        product per (channel, pixel) over the rows, then bias, requantized."""
        a = Arith(b)
        channels = [a.index(a.add(first, r)) for r in range(count)]
        zero = scalar.constant(b, 0, I32)

        def step(b: Builder, k: SSAValue, sums: list[SSAValue]) -> list[SSAValue]:
            xs = [scalar.convert(b, load(b, buffer, [at, k]), I32) for buffer, at in sources]
            result: list[SSAValue] = []
            for m in channels:
                weight = scalar.convert(b, load(b, self.w, [m, k]), I32)
                for x in xs:
                    product = b.insert(arith.MuliOp(x, weight, overflow=_NSW)).result
                    total = arith.AddiOp(sums[len(result)], product, overflow=_NSW)
                    result.append(b.insert(total).result)
            return result

        sums = for_range(b, 0, self.length, [zero] * (count * len(sources)), step)
        target = element_type(self.out)
        zero_point = scalar.constant(b, self.y_zero_point, target)
        for r, m in enumerate(channels):
            bias = load(b, self.bias, [m])
            multiplier = load(b, self.scale, [m])
            for c, (oh, ow) in enumerate(places):
                total = scalar.ADD(b, sums[r * len(places) + c], bias)
                value = requantized(b, total, multiplier, zero_point)
                at = [n, m, a.index(oh), a.index(ow)]
                b.insert(memref.StoreOp.get(value, self.out, at))


__all__ = ["BLOCK", "Rows", "direct"]
