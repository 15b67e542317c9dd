"""The depthwise form of `kernel.qconv` as integer loops.

Each channel's taps are read once into int32 values (the C compiler keeps a
3x3 kernel's nine in registers), and each output pixel is one int32 sum of
x * w over its window, started at the bias with x's zero point folded in
(`select_kernels/quantized.py`): one load and one multiply-add a MAC. The
pixels whose whole window lies inside the input (their rows and columns are
known at compile time) read it directly; the others, around the border,
read each tap at a clamped position and take x's zero point where it is
outside, which is what a padding tap contributes to the folded sum. Sums are
exact (int32 of 8-bit products over a window) and are requantized as they
are stored, as the dense kernel's.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue

from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import element_type
from onnxc.lowering.convert_onnx_to_linalg.kernels.integer import (
    IntegerKernel,
    Multiplier,
    channel_multiplier,
    requantized,
)
from onnxc.lowering.convert_onnx_to_linalg.kernels.loops import Arith, load
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import for_range
from onnxc.lowering.index_arith import Size

I32 = IntegerType(32)


@dataclass(frozen=True)
class Depthwise(IntegerKernel):
    taps: SSAValue

    def build(self, b: Builder, batch: int) -> None:
        def image(b: Builder, n: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            def channel(b: Builder, c: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                self._channel(b, n, c)
                return []

            for_range(b, 0, self.g.channels, [], channel)
            return []

        for_range(b, 0, batch, [], image)

    def _channel(self, b: Builder, n: SSAValue, c: SSAValue) -> None:
        g = self.g
        count = g.kernel_shape[0] * g.kernel_shape[1]
        weights = [scalar.convert(b, load(b, self.taps, [c, t]), I32) for t in range(count)]
        start = load(b, self.bias, [c])
        multiplier = channel_multiplier(b, self.scale, c)
        zero_point = scalar.constant(b, self.y_zero_point, element_type(self.out))
        pixel = _Pixel(self, n, c, weights, start, multiplier, zero_point)
        (top, bottom), (left, right) = g.inside(0), g.inside(1)
        height, width = g.out_size
        pixel.rows(b, 0, top, [(0, width, False)])
        pixel.rows(b, top, bottom, [(0, left, False), (left, right, True), (right, width, False)])
        pixel.rows(b, bottom, height, [(0, width, False)])


@dataclass(frozen=True)
class _Pixel:
    kernel: Depthwise
    n: SSAValue
    c: SSAValue
    weights: list[SSAValue]
    start: SSAValue
    multiplier: Multiplier
    zero_point: SSAValue

    def rows(self, b: Builder, lo: int, hi: int, spans: list[tuple[int, int, bool]]) -> None:
        """Output rows [lo, hi), each in column spans (lo, hi, inside)."""
        if lo >= hi or all(first >= last for first, last, _ in spans):
            return

        def row(b: Builder, oh: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            for first, last, inside in spans:
                if first < last:
                    span = functools.partial(self._one, oh=oh, inside=inside)
                    for_range(b, first, last, [], lambda b, ow, _, span=span: span(b, ow=ow))
            return []

        for_range(b, lo, hi, [], row)

    def _one(self, b: Builder, oh: SSAValue, ow: SSAValue, inside: bool) -> list[SSAValue]:
        """Output (oh, ow): its sum, requantized and stored."""
        g, k = self.kernel.g, self.kernel
        a = Arith(b)
        top, left = g.corner(a, oh, ow)
        total = self.start
        for t, weight in enumerate(self.weights):
            kh, kw = divmod(t, g.kernel_shape[1])
            ih = a.add(top, kh * g.dilations[0])
            iw = a.add(left, kw * g.dilations[1])
            value = self._tap(b, ih, iw, inside)
            total = scalar.ADD(b, total, scalar.MUL(b, value, weight))
        result = requantized(b, total, self.multiplier, self.zero_point)
        b.insert(memref.StoreOp.get(result, k.out, [self.n, self.c, a.index(oh), a.index(ow)]))
        return []

    def _tap(self, b: Builder, ih: Size, iw: Size, inside: bool) -> SSAValue:
        """x at (ih, iw) as int32; outside the input (a border pixel's
        padding tap) x's zero point, read at a clamped position."""
        g, k = self.kernel.g, self.kernel
        a = Arith(b)
        if inside:
            return scalar.convert(b, load(b, k.x, [self.n, self.c, ih, iw]), I32)
        within = g.within(a, ih, iw)
        at = [a.clamp(ih, 0, g.in_size[0] - 1), a.clamp(iw, 0, g.in_size[1] - 1)]
        value = scalar.convert(b, load(b, k.x, [self.n, self.c, *at]), I32)
        point = scalar.constant(b, k.x_zero_point, I32)
        return b.insert(arith.SelectOp(within, value, point)).result


__all__ = ["Depthwise"]
