"""What the integer kernels (`qconv.py`, `qdepthwise.py`) share: the window
of a `kernel.qconv`, the operands they read alike, and the requantization of
an int32 sum as it is stored."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, i64
from xdsl.ir import SSAValue

from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import element_type
from onnxc.lowering.convert_onnx_to_linalg.kernels.loops import (
    Arith,
    inside_outputs,
    load,
    remainder,
)
from onnxc.lowering.convert_onnx_to_linalg.quantization.quantization import quantize
from onnxc.lowering.index_arith import Size


@dataclass(frozen=True)
class Geometry:
    """A kernel.qconv's window: input and output height and width, kernel
    shape, strides, dilations and leading pads (per axis), channels in and
    out, and the packed weight words per output channel (dense kernels)."""

    in_size: tuple[int, int]
    out_size: tuple[int, int]
    kernel_shape: tuple[int, int]
    strides: tuple[int, int]
    dilations: tuple[int, int]
    pads: tuple[int, int]
    channels: int
    outputs: int
    words: int

    @property
    def pairs(self) -> int:
        """Channel pairs per tap (words of one tap in a column)."""
        return (self.channels + 1) // 2

    @property
    def taps_words(self) -> int:
        """The words of a gathered window: a pair of channels per tap, or
        with one channel a pair of taps."""
        taps = self.kernel_shape[0] * self.kernel_shape[1]
        return (taps + 1) // 2 if self.channels == 1 else taps * self.pairs

    def corner(self, a: Arith, oh: Size, ow: Size) -> tuple[Size, Size]:
        """The input row and column of output (oh, ow)'s first tap."""
        top = a.sub(a.mul(oh, self.strides[0]), self.pads[0])
        return top, a.sub(a.mul(ow, self.strides[1]), self.pads[1])

    def tap(self, b: Builder, corner: tuple[Size, Size], t: Size) -> tuple[Size, Size, SSAValue]:
        """Tap t, in (kh, kw) order, of the window at `corner`: its input row
        and column, and whether they lie inside the input."""
        a = Arith(b)
        kh = a.floordiv(t, self.kernel_shape[1])
        kw = remainder(b, a.index(t), self.kernel_shape[1])
        ih = a.add(corner[0], a.mul(kh, self.dilations[0]))
        iw = a.add(corner[1], a.mul(kw, self.dilations[1]))
        return ih, iw, self.within(a, ih, iw)

    def within(self, a: Arith, ih: Size, iw: Size) -> SSAValue:
        """Whether input position (ih, iw) lies inside the input."""
        return a.both(
            a.both(a.less(-1, ih), a.less(ih, self.in_size[0])),
            a.both(a.less(-1, iw), a.less(iw, self.in_size[1])),
        )

    def inside(self, axis: int) -> tuple[int, int]:
        """The outputs [lo, hi) along `axis` (0 rows, 1 columns) whose every
        tap falls inside the input (both the output count when none does)."""
        return inside_outputs(
            self.in_size[axis],
            self.out_size[axis],
            self.kernel_shape[axis],
            self.strides[axis],
            self.dilations[axis],
            self.pads[axis],
        )


@dataclass(frozen=True)
class IntegerKernel:
    """A kernel.qconv's window, input, bias, multipliers, output buffer and
    zero points; each kernel adds its weights."""

    g: Geometry
    x: SSAValue
    bias: SSAValue
    scale: SSAValue
    out: SSAValue
    x_zero_point: int
    y_zero_point: int

    def parts(self) -> dict[str, Any]:
        """The fields, to build a kernel of them: Kernel(**parts, ...)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


Multiplier = SSAValue | tuple[SSAValue, SSAValue]
"""A channel's requantization multiplier: a float, or in fixed point an
int32 mantissa M and right shift n (the multiplier is M * 2^-n)."""


def channel_multiplier(b: Builder, scale: SSAValue, row: Size) -> Multiplier:
    """The multiplier of output channel `row` from a kernel.qconv's S: one
    float, or one (M, n) row of int32 pairs (`select_kernels.quantized.fixed_point`)."""
    if isinstance(element_type(scale), Float32Type):
        return load(b, scale, [row])
    return load(b, scale, [row, 0]), load(b, scale, [row, 1])


def requantized(
    b: Builder, total: SSAValue, multiplier: Multiplier, zero_point: SSAValue
) -> SSAValue:
    """An int32 sum as its output: in float times the channel's multiplier,
    then QuantizeLinear's clamp, rounding and zero point (the type of
    `zero_point`), onnxruntime's `MlasRequantizeOutput` step for step; or,
    with a fixed-point multiplier, `_fixed`."""
    if isinstance(multiplier, tuple):
        return _fixed(b, total, *multiplier, zero_point)
    value = scalar.MUL(b, scalar.convert(b, total, Float32Type()), multiplier)
    return quantize(b, value, zero_point, zero_point.type)


def _fixed(
    b: Builder, total: SSAValue, mantissa: SSAValue, shift: SSAValue, zero_point: SSAValue
) -> SSAValue:
    """round(total * M / 2^n), ties up, clamped to the output's range less
    its zero point, plus the zero point, in 64-bit integers with defined C
    behaviour throughout: |total * M| < 2^62, so total * M + 2^62 is
    non-negative; adding 2^(n-1) (wrapping) and shifting right logically by
    n gives floor((total * M + 2^62 + 2^(n-1)) / 2^n), less 2^(62-n) the
    rounded quotient. One 64-bit multiply, no float."""
    wide = i64
    one = scalar.constant(b, 1, wide)
    product = scalar.MUL(b, scalar.convert(b, total, wide), scalar.convert(b, mantissa, wide))
    n = scalar.convert(b, shift, wide)
    biased = b.insert(arith.AddiOp(product, scalar.constant(b, 1 << 62, wide))).result
    half = b.insert(arith.ShLIOp(one, b.insert(arith.SubiOp(n, one)).result)).result
    rounded = b.insert(arith.AddiOp(biased, half)).result
    quotient = b.insert(arith.ShRUIOp(rounded, n)).result
    offset = b.insert(
        arith.ShLIOp(one, b.insert(arith.SubiOp(scalar.constant(b, 62, wide), n)).result)
    ).result
    value = b.insert(arith.SubiOp(quotient, offset)).result
    target = zero_point.type
    point = scalar.convert(b, zero_point, wide)
    low = scalar.SUB(b, scalar.constant(b, scalar.lowest(target), wide), point)
    high = scalar.SUB(b, scalar.constant(b, scalar.highest(target), wide), point)
    value = scalar.MIN(b, scalar.MAX(b, value, low), high)
    return scalar.convert(b, scalar.ADD(b, value, point), target)
