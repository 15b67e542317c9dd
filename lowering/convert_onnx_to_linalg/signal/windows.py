"""Signal generators: the window functions (HannWindow, HammingWindow,
BlackmanWindow) and MelWeightMatrix.

Their sizes come from data (the window's `size`, the matrix's `dft_length`
and `num_mel_bins`); each element is computed in double, as onnxruntime
does, then converted to `output_datatype` (ONNX Cast semantics, so an integer
output truncates). The windows are cosine sums -a1 cos(2 pi n / N) +
a2 cos(4 pi n / N) + a0 (summed in that order, as the spec's reference does,
so whole values come out whole), N the size (`periodic`) or the size - 1.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import math as math_dialect
from xdsl.dialects import memref
from xdsl.dialects.builtin import f64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    element_type,
    indexed_generic,
    shape_of,
)
from onnxc.lowering.convert_onnx_to_linalg.interpolation import (
    Real,
    add,
    compare,
    div,
    mul,
    of_index,
    real,
    select,
    sub,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, index
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_scalar


def _unary(b: Builder, cls: type, x: Real) -> SSAValue:
    return b.insert(cls(real(b, x))).result


class CosineSumWindowLowering(OnnxLowering[onnx.OnnxOp]):
    """A window of `size` elements, a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)."""

    coefficients: ClassVar[tuple[float, float, float]]

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        size = shape_scalar(op, rewriter, shapes, op.operands[0], "size")
        size = shapes.max(size, 0)
        output = self.result_buffer(rewriter, op.results[0], [size])
        period = size if op.attr("periodic") else shapes.sub(size, 1)
        here = builder_before(op)
        step = div(here, 2 * math.pi, scalar.number(here, period, f64))
        a0, a1, a2 = self.coefficients
        target = element_type(output)

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            angle = mul(b, step, of_index(b, position[0]))
            value = mul(b, -a1, _unary(b, math_dialect.CosOp, angle))
            if a2:
                twice = mul(b, 2.0, angle)
                value = add(b, value, mul(b, a2, _unary(b, math_dialect.CosOp, twice)))
            return scalar.convert(b, add(b, value, a0), target)

        indexed_generic(rewriter, op, output, body)
        self.replace(rewriter, op, [output])


class HannWindowOpLowering(CosineSumWindowLowering):
    """`onnx.HannWindow`: 0.5 - 0.5 cos(2 pi n / N) (= sin^2(pi n / N))."""

    source = onnx.HannWindowOp
    coefficients = (0.5, 0.5, 0.0)


class HammingWindowOpLowering(CosineSumWindowLowering):
    """`onnx.HammingWindow`: 25/46 - 21/46 cos(2 pi n / N)."""

    source = onnx.HammingWindowOp
    coefficients = (25 / 46, 1 - 25 / 46, 0.0)


class BlackmanWindowOpLowering(CosineSumWindowLowering):
    """`onnx.BlackmanWindow`: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)."""

    source = onnx.BlackmanWindowOp
    coefficients = (0.42, 0.5, 0.08)


class MelWeightMatrixOpLowering(OnnxLowering[onnx.MelWeightMatrixOp]):
    """`onnx.MelWeightMatrix`: [dft_length / 2 + 1, num_mel_bins] triangles.
    Band i rises from bin f(i) to f(i + 1) and falls to f(i + 2), where
    f(k) = floor((dft_length + 1) hz(mel(lower) + k step) / sample_rate),
    mel(hz) = 2595 log10(1 + hz / 700) and step = (mel(upper) - mel(lower)) /
    (num_mel_bins + 2), as the spec's reference and test compute it; a band
    whose rise is empty is 1 at its centre. Each element is computed on its
    own (no band writes outside the matrix)."""

    def rewrite(self, op: onnx.MelWeightMatrixOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        bands = shape_scalar(op, rewriter, shapes, op.num_mel_bins, "num_mel_bins")
        length = shape_scalar(op, rewriter, shapes, op.dft_length, "dft_length")
        rate = shape_scalar(op, rewriter, shapes, op.sample_rate, "sample_rate")
        bins = shapes.add(shapes.floordiv(shapes.max(length, 0), 2), 1)
        output = self.result_buffer(rewriter, op.output, [bins, shapes.max(bands, 0)])
        here = builder_before(op)
        ln10 = math.log(10.0)

        def mel(hertz: SSAValue) -> SSAValue:
            ratio = _unary(here, math_dialect.Log1pOp, div(here, hertz, 700.0))
            return div(here, mul(here, 2595.0, ratio), ln10)

        low, high = (
            mel(_scalar(here, rewriter, v)) for v in (op.lower_edge_hertz, op.upper_edge_hertz)
        )
        step = div(here, sub(here, high, low), scalar.number(here, shapes.add(bands, 2), f64))
        scale = scalar.number(here, shapes.add(length, 1), f64)
        per_second = scalar.number(here, rate, f64)
        target = element_type(output)

        def edge(b: Builder, band: SSAValue, offset: float) -> SSAValue:
            level = add(b, low, mul(b, step, add(b, of_index(b, band), offset)))
            hertz = mul(
                b, 700.0, _unary(b, math_dialect.ExpM1Op, mul(b, div(b, level, 2595.0), ln10))
            )
            return _unary(b, math_dialect.FloorOp, div(b, mul(b, scale, hertz), per_second))

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            j = of_index(b, position[0])
            left, centre, right = (edge(b, position[1], k) for k in (0.0, 1.0, 2.0))
            rising = div(b, sub(b, j, left), sub(b, centre, left))
            in_rise = _both(b, compare(b, "oge", j, left), compare(b, "ole", j, centre))
            empty_rise = compare(b, "oeq", left, centre)
            at_centre = compare(b, "oeq", j, centre)
            up = select(
                b, empty_rise, select(b, at_centre, 1.0, 0.0), select(b, in_rise, rising, 0.0)
            )
            falling = div(b, sub(b, right, j), sub(b, right, centre))
            in_fall = _both(b, compare(b, "oge", j, centre), compare(b, "olt", j, right))
            return scalar.convert(b, select(b, in_fall, falling, up), target)

        indexed_generic(rewriter, op, output, body)
        self.replace(rewriter, op, [output])


def _both(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return scalar.AND(b, x, y)


def _scalar(b: Builder, rewriter: PatternRewriter, value: SSAValue) -> SSAValue:
    """The one element of a scalar (or one-element) float tensor, as a double."""
    buffer = buffer_of(rewriter, value)
    indices = [index(b, 0) for _ in shape_of(value)]
    loaded = b.insert(memref.LoadOp.get(buffer, indices)).res
    return scalar.convert(b, loaded, f64)
