"""Activation functions beyond the arithmetic ones of `arithmetic.py`: the
exponential linear units (Elu, Selu, Celu), PRelu, ThresholdedRelu, Shrink,
Gelu, Mish, Swish and SwiGLU, as elementwise maps (see `ElementwisePattern`) with
their attributes (spec defaults) as constants of the body.

exp(x) - 1 is computed as `math.expm1` (exact near 0, where onnxruntime's
exp(x) - 1 loses digits; both agree to the float type's precision).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects.builtin import Float64Type
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    broadcast_into,
    elementwise,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.elementwise.arithmetic import ElementwisePattern, sigmoid
from onnxc.lowering.convert_onnx_to_linalg.elementwise.logic import select
from onnxc.lowering.convert_onnx_to_linalg.elementwise.math_functions import softplus
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes

_GELU_CUBIC = float(np.float32(0.044715))
_GELU_SQRT_2_OVER_PI = math.sqrt(float(np.float32(2.0 / math.pi)))


def _times(b: Builder, factor: float, x: SSAValue) -> SSAValue:
    """factor * x (x itself for a factor of 1: the product is exact)."""
    return x if factor == 1.0 else scalar.MUL(b, constant(b, factor, x.type), x)


def elu(b: Builder, x: SSAValue, alpha: float) -> SSAValue:
    """x < 0 ? alpha * (exp(x) - 1) : x."""
    negative = scalar.LESS(b, x, constant(b, 0.0, x.type))
    return select(b, negative, _times(b, alpha, scalar.EXPM1(b, x)), x)


def thresholded_relu(b: Builder, x: SSAValue, alpha: float) -> SSAValue:
    """x > alpha ? x : 0."""
    above = scalar.GREATER(b, x, constant(b, alpha, x.type))
    return select(b, above, x, constant(b, 0.0, x.type))


class EluOpLowering(ElementwisePattern):
    """`onnx.Elu` (attribute `alpha`, 1.0) -> x < 0 ? alpha * (exp(x) - 1) : x."""

    source = onnx.EluOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return elu(b, args[0], op.attr("alpha"))


class SeluOpLowering(ElementwisePattern):
    """`onnx.Selu` (attributes `alpha` 1.6732..., `gamma` 1.0507...) ->
    gamma * (x > 0 ? x : alpha * (exp(x) - 1))."""

    source = onnx.SeluOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x = args[0]
        positive = scalar.GREATER(b, x, constant(b, 0.0, x.type))
        negative = _times(b, op.attr("alpha"), scalar.EXPM1(b, x))
        return _times(b, op.attr("gamma"), select(b, positive, x, negative))


class CeluOpLowering(ElementwisePattern):
    """`onnx.Celu` (attribute `alpha`, 1.0) ->
    max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    source = onnx.CeluOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x = args[0]
        alpha: float = op.attr("alpha")
        if alpha == 0:
            raise unsupported(op, "alpha must not be 0")
        zero = constant(b, 0.0, x.type)
        exponential = _times(b, alpha, scalar.EXPM1(b, _times(b, 1.0 / alpha, x)))
        return scalar.ADD(b, scalar.MAX(b, zero, x), scalar.MIN(b, zero, exponential))


class PReluOpLowering(OnnxLowering[onnx.PReluOp]):
    """`onnx.PRelu` -> x < 0 ? slope * x : x, with `slope` broadcast
    unidirectionally to X's shape (the result has X's sizes; a slope that
    does not broadcast to them is an error, or a run-time check where sizes
    are only known then). The per-channel slope of PRelu before opset 7
    arrives here unsqueezed to [C, 1, ...] by the importer's upgrade."""

    def rewrite(self, op: onnx.PReluOp, rewriter: PatternRewriter) -> None:
        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            x, slope = args
            negative = scalar.LESS(b, x, constant(b, 0, x.type))
            return select(b, negative, scalar.MUL(b, slope, x), x)

        output = self.result_buffer(rewriter, op.Y, self.shapes.sizes(op.X))
        broadcast_into(rewriter, self.shapes, op, body, [op.X, op.slope], output)
        self.replace(rewriter, op, [output])


class ThresholdedReluOpLowering(ElementwisePattern):
    """`onnx.ThresholdedRelu` (attribute `alpha`, 1.0) -> x > alpha ? x : 0."""

    source = onnx.ThresholdedReluOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return thresholded_relu(b, args[0], op.attr("alpha"))


class ShrinkOpLowering(ElementwisePattern):
    """`onnx.Shrink` (attributes `lambd` 0.5, `bias` 0.0) ->
    x < -lambd ? x + bias : (x > lambd ? x - bias : 0). Float attributes
    against integer elements: integers are compared and shifted in double
    and converted back (truncated, saturated), as onnxruntime does in
    float."""

    source = onnx.ShrinkOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x = args[0]
        t = x.type if scalar.kind(x.type) is Kind.FLOAT else Float64Type()
        value = scalar.convert(b, x, t)
        lambd, bias = constant(b, op.attr("lambd"), t), constant(b, op.attr("bias"), t)
        below = scalar.LESS(b, value, scalar.NEG(b, lambd))
        above = scalar.GREATER(b, value, lambd)
        zero = constant(b, 0.0, t)
        upper = select(b, above, scalar.SUB(b, value, bias), zero)
        result = select(b, below, scalar.ADD(b, value, bias), upper)
        return scalar.convert(b, result, x.type)


class GeluOpLowering(ElementwisePattern):
    """`onnx.Gelu` (attribute `approximate`, "none" or "tanh") ->
    0.5 * x * (1 + erf(x / sqrt(2))), or with tanh:
    0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), with the
    constants of the spec's function body (float32 values: onnxruntime and
    onnx.reference agree on them, also in double)."""

    source = onnx.GeluOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x = args[0]
        approximate = op.attr("approximate")
        if approximate == "none":
            curve = scalar.ERF(b, _times(b, math.sqrt(0.5), x))
        elif approximate == "tanh":
            cube = scalar.MUL(b, x, x, x)
            inner = scalar.ADD(b, x, _times(b, _GELU_CUBIC, cube))
            curve = scalar.TANH(b, _times(b, _GELU_SQRT_2_OVER_PI, inner))
        else:
            raise unsupported(op, f"approximate must be 'none' or 'tanh', not {approximate!r}")
        one = constant(b, 1.0, x.type)
        return scalar.MUL(b, _times(b, 0.5, x), scalar.ADD(b, one, curve))


class MishOpLowering(ElementwisePattern):
    """`onnx.Mish` -> x * tanh(softplus(x))."""

    source = onnx.MishOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return scalar.MUL(b, args[0], scalar.TANH(b, softplus(b, args[0])))


def swish(b: Builder, x: SSAValue, alpha: float = 1.0) -> SSAValue:
    """x * sigmoid(alpha * x) (SiLU when alpha is 1)."""
    return scalar.MUL(b, x, sigmoid(b, _times(b, alpha, x)))


class SwishOpLowering(ElementwisePattern):
    """`onnx.Swish` (attribute `alpha`, 1.0) -> x * sigmoid(alpha * x)."""

    source = onnx.SwishOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return swish(b, args[0], op.attr("alpha"))


class SwiGLUOpLowering(OnnxLowering[onnx.SwiGLUOp]):
    """`onnx.SwiGLU` (attribute `alpha`, 1.0) -> swish(a, alpha) * b, with A
    and B of the same shape (no broadcasting: sizes that differ are an
    error, or a run-time check)."""

    def rewrite(self, op: onnx.SwiGLUOp, rewriter: PatternRewriter) -> None:
        sizes = self.shapes.sizes(op.A)
        other = self.shapes.sizes(op.B)
        if len(other) != len(sizes):
            raise unsupported(op, "A and B must have the same shape")
        require_sizes(op, rewriter, self.shapes, other, sizes, "B")
        alpha = op.attr("alpha")

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            return scalar.MUL(b, swish(b, args[0], alpha), args[1])

        elementwise(rewriter, self.shapes, op, body)
