"""Elementwise operators: arithmetic with multidirectional broadcasting, unary
math and activations.

Each lowering is a small class naming its source operation and its scalar body;
`ElementwisePattern` turns it into one `elementwise` call (a `linalg.generic`
over the inputs broadcast to the result's shape). The element type must be a
float type: integer tensors are rejected rather than computed with float ops.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, IntegerType, Signedness
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg.common import (
    elementwise,
    float_constant,
    is_none,
    required_constant,
    tensor_type,
    unsupported,
)

Scalar = Callable[[object, onnx.OnnxOp, Builder, Sequence[SSAValue]], SSAValue]
"""A scalar body as a method: (pattern, source op, builder, input scalars)."""


class ElementwisePattern(RewritePattern):
    """Base of the elementwise lowerings: matches `source` and lowers it with
    `elementwise` and the subclass's `scalar` body. Subclasses set `inputs`
    when only some operands are tensors read elementwise."""

    source: ClassVar[type[onnx.OnnxOp]]

    def scalar(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        raise NotImplementedError

    def inputs(self, op: onnx.OnnxOp) -> Sequence[SSAValue]:
        return op.operands

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, self.source):
            return
        element = tensor_type(op.results[0]).get_element_type()
        if not isinstance(element, AnyFloat):
            raise unsupported(op, f"only float tensors are supported, not {element}")
        elementwise(rewriter, op, lambda b, args: self.scalar(op, b, args), self.inputs(op))


def _unary(op_class: type[Operation]) -> Scalar:
    def scalar(self: object, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return b.insert(op_class(args[0])).results[0]

    return scalar


def _fold(op_class: type[Operation]) -> Scalar:
    """A binary op, folded left over the (one or more) inputs."""

    def scalar(self: object, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        result = args[0]
        for arg in args[1:]:
            result = b.insert(op_class(result, arg)).results[0]
        return result

    return scalar


def _constant(b: Builder, value: float, like: SSAValue) -> SSAValue:
    return float_constant(b, value, like.type)


def _clamp01(b: Builder, x: SSAValue) -> SSAValue:
    x = b.insert(arith.MinimumfOp(x, _constant(b, 1.0, x))).result
    return b.insert(arith.MaximumfOp(x, _constant(b, 0.0, x))).result


def _hard_sigmoid(b: Builder, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    """max(0, min(1, alpha * x + beta))."""
    scaled = b.insert(arith.MulfOp(x, _constant(b, alpha, x))).result
    shifted = b.insert(arith.AddfOp(scaled, _constant(b, beta, x))).result
    return _clamp01(b, shifted)


class AddOpLowering(ElementwisePattern):
    """`onnx.Add` -> `arith.addf` of the broadcast inputs."""

    source = onnx.AddOp
    scalar = _fold(arith.AddfOp)


class SubOpLowering(ElementwisePattern):
    """`onnx.Sub` -> `arith.subf` of the broadcast inputs."""

    source = onnx.SubOp
    scalar = _fold(arith.SubfOp)


class MulOpLowering(ElementwisePattern):
    """`onnx.Mul` -> `arith.mulf` of the broadcast inputs."""

    source = onnx.MulOp
    scalar = _fold(arith.MulfOp)


class DivOpLowering(ElementwisePattern):
    """`onnx.Div` -> `arith.divf` of the broadcast inputs (float only)."""

    source = onnx.DivOp
    scalar = _fold(arith.DivfOp)


class PowOpLowering(ElementwisePattern):
    """`onnx.Pow` -> `math.powf` of the broadcast inputs; an integer exponent
    tensor is converted to the base's float type first (`arith.sitofp`)."""

    source = onnx.PowOp

    def scalar(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        base, exponent = args
        if isinstance(exponent.type, IntegerType):
            if exponent.type.signedness.data == Signedness.UNSIGNED:
                convert = arith.UIToFPOp(exponent, base.type)
            else:
                convert = arith.SIToFPOp(exponent, base.type)
            exponent = b.insert(convert).result
        elif exponent.type != base.type:
            raise unsupported(op, f"exponent of type {exponent.type} is not supported")
        return b.insert(math.PowFOp(base, exponent)).result


class MaxOpLowering(ElementwisePattern):
    """`onnx.Max` (1..N inputs, broadcast) -> a chain of `arith.maximumf`
    (NaN-propagating, like numpy)."""

    source = onnx.MaxOp
    scalar = _fold(arith.MaximumfOp)


class MinOpLowering(ElementwisePattern):
    """`onnx.Min` (1..N inputs, broadcast) -> a chain of `arith.minimumf`."""

    source = onnx.MinOp
    scalar = _fold(arith.MinimumfOp)


class AbsOpLowering(ElementwisePattern):
    """`onnx.Abs` -> `math.absf`."""

    source = onnx.AbsOp
    scalar = _unary(math.AbsFOp)


class NegOpLowering(ElementwisePattern):
    """`onnx.Neg` -> `arith.negf`."""

    source = onnx.NegOp
    scalar = _unary(arith.NegfOp)


class ExpOpLowering(ElementwisePattern):
    """`onnx.Exp` -> `math.exp`."""

    source = onnx.ExpOp
    scalar = _unary(math.ExpOp)


class LogOpLowering(ElementwisePattern):
    """`onnx.Log` -> `math.log`."""

    source = onnx.LogOp
    scalar = _unary(math.LogOp)


class SqrtOpLowering(ElementwisePattern):
    """`onnx.Sqrt` -> `math.sqrt`."""

    source = onnx.SqrtOp
    scalar = _unary(math.SqrtOp)


class TanhOpLowering(ElementwisePattern):
    """`onnx.Tanh` -> `math.tanh`."""

    source = onnx.TanhOp
    scalar = _unary(math.TanhOp)


class ErfOpLowering(ElementwisePattern):
    """`onnx.Erf` -> `math.erf`."""

    source = onnx.ErfOp
    scalar = _unary(math.ErfOp)


class ReciprocalOpLowering(ElementwisePattern):
    """`onnx.Reciprocal` -> 1 / x."""

    source = onnx.ReciprocalOp

    def scalar(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return b.insert(arith.DivfOp(_constant(b, 1.0, args[0]), args[0])).result


class ReluOpLowering(ElementwisePattern):
    """`onnx.Relu` -> max(x, 0)."""

    source = onnx.ReluOp

    def scalar(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return b.insert(arith.MaximumfOp(args[0], _constant(b, 0.0, args[0]))).result


class LeakyReluOpLowering(ElementwisePattern):
    """`onnx.LeakyRelu` (attribute `alpha`, default 0.01) -> x < 0 ? alpha * x : x."""

    source = onnx.LeakyReluOp

    def scalar(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x = args[0]
        alpha = _constant(b, op.attr("alpha"), x)
        scaled = b.insert(arith.MulfOp(x, alpha)).result
        negative = b.insert(arith.CmpfOp(x, _constant(b, 0.0, x), "olt")).result
        return b.insert(arith.SelectOp(negative, scaled, x)).result


class SigmoidOpLowering(ElementwisePattern):
    """`onnx.Sigmoid` -> 1 / (1 + exp(-x)) (saturates to 0 and 1 without NaN)."""

    source = onnx.SigmoidOp

    def scalar(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        one = _constant(b, 1.0, args[0])
        negated = b.insert(arith.NegfOp(args[0])).result
        exp = b.insert(math.ExpOp(negated)).result
        denominator = b.insert(arith.AddfOp(one, exp)).result
        return b.insert(arith.DivfOp(one, denominator)).result


class HardSigmoidOpLowering(ElementwisePattern):
    """`onnx.HardSigmoid` (attributes `alpha` 0.2, `beta` 0.5) ->
    max(0, min(1, alpha * x + beta))."""

    source = onnx.HardSigmoidOp

    def scalar(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return _hard_sigmoid(b, args[0], op.attr("alpha"), op.attr("beta"))


class HardSwishOpLowering(ElementwisePattern):
    """`onnx.HardSwish` -> x * max(0, min(1, x / 6 + 0.5))."""

    source = onnx.HardSwishOp

    def scalar(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        gate = _hard_sigmoid(b, args[0], 1.0 / 6.0, 0.5)
        return b.insert(arith.MulfOp(args[0], gate)).result


class ClipOpLowering(ElementwisePattern):
    """`onnx.Clip` -> min(max(x, min), max) (so min > max gives max, as the
    spec says). `min` and `max` are optional scalar inputs that must be
    compile-time constants; an absent bound is not applied. Bounds computed at
    run time are rejected."""

    source = onnx.ClipOp

    def inputs(self, op: onnx.OnnxOp) -> Sequence[SSAValue]:
        return op.operands[:1]

    def scalar(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x = args[0]
        for operand, what, op_class in (
            (op.operands[1], "min", arith.MaximumfOp),
            (op.operands[2], "max", arith.MinimumfOp),
        ):
            if is_none(operand):
                continue
            bound = required_constant(op, operand, what)
            if bound.size != 1:
                raise unsupported(op, f"input '{what}' must be a scalar")
            x = b.insert(op_class(x, _constant(b, float(bound.item()), x))).result
        return x
