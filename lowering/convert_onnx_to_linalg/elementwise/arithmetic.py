"""Elementwise operators: arithmetic with multidirectional broadcasting, unary
math and activations, over every element type their schemas allow.

Each lowering is a small class naming its source operation and either the
scalar operation of `scalar.py` it applies (`operation`) or a `body` built from
such operations; `ElementwisePattern` turns it into one `elementwise` call (a
`linalg.generic` over the inputs broadcast to the result's shape). The scalar
table picks float, signed, unsigned or bool arithmetic from the element type,
so there is one lowering per operator, not one per type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float64Type
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    constant_value,
    elementwise,
    is_none,
    tensor_type,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import NoScalarForm, ScalarOp, constant


class ElementwisePattern(OnnxLowering[onnx.OnnxOp]):
    """Base of the elementwise lowerings: lowers `source` with `elementwise`,
    computing each element with `body` (by default the scalar operation
    `operation` on the inputs). `inputs` names the operands read elementwise,
    when not all of them are."""

    operation: ClassVar[ScalarOp | None] = None

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        assert self.operation is not None, type(self).__name__
        return self.operation(b, *args)

    def inputs(self, op: onnx.OnnxOp) -> Sequence[SSAValue]:
        return op.operands

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        element = tensor_type(op.operands[0]).get_element_type()
        try:
            elementwise(
                rewriter, self.shapes, op, lambda b, args: self.body(op, b, args), self.inputs(op)
            )
        except NoScalarForm as error:
            raise unsupported(op, f"{error} ({onnx.element_type_name(element)})") from None


def sigmoid(b: Builder, x: SSAValue) -> SSAValue:
    """1 / (1 + exp(-x)) (saturates to 0 and 1 without NaN)."""
    return scalar.SIGMOID(b, x)


def leaky_relu(b: Builder, x: SSAValue, alpha: float) -> SSAValue:
    """x < 0 ? alpha * x : x."""
    scaled = scalar.MUL(b, x, constant(b, alpha, x.type))
    negative = scalar.LESS(b, x, constant(b, 0.0, x.type))
    return b.insert(arith.SelectOp(negative, scaled, x)).result


def hard_swish(b: Builder, x: SSAValue) -> SSAValue:
    """x * max(0, min(1, x / 6 + 0.5)): HardSwish, also fused into kernels."""
    return scalar.MUL(b, x, hard_sigmoid(b, x, 1.0 / 6.0, 0.5))


def hard_sigmoid(b: Builder, x: SSAValue, alpha: float, beta: float) -> SSAValue:
    """max(0, min(1, alpha * x + beta))."""
    shifted = scalar.ADD(b, scalar.MUL(b, x, constant(b, alpha, x.type)), constant(b, beta, x.type))
    clamped = scalar.MIN(b, shifted, constant(b, 1.0, x.type))
    return scalar.MAX(b, clamped, constant(b, 0.0, x.type))


class AddOpLowering(ElementwisePattern):
    """`onnx.Add` -> `arith.addf` / `arith.addi` (wrapping) of the broadcast inputs."""

    source = onnx.AddOp
    operation = scalar.ADD


class SubOpLowering(ElementwisePattern):
    """`onnx.Sub` -> `arith.subf` / `arith.subi` (wrapping)."""

    source = onnx.SubOp
    operation = scalar.SUB


class MulOpLowering(ElementwisePattern):
    """`onnx.Mul` -> `arith.mulf` / `arith.muli` (wrapping)."""

    source = onnx.MulOp
    operation = scalar.MUL


class DivOpLowering(ElementwisePattern):
    """`onnx.Div` -> `arith.divf`, or integer division truncating toward zero
    (`divsi` / `divui`; x / 0 is 0, where ONNX leaves it undefined)."""

    source = onnx.DivOp
    operation = scalar.DIV


class PowOpLowering(ElementwisePattern):
    """`onnx.Pow` -> `math.powf`. A float base takes the exponent converted to
    its type; an integer base and exponent are computed in double and
    converted back (truncated toward zero, saturated), as onnxruntime does.
    A float base raised to a constant 2 (one element: LayerNorm's variance
    as older exporters write it) is x * x, the correctly rounded square, for
    every x what a correctly rounded powf gives, without a call: a C
    compiler folds powf(x, 2) into it only when it sees the exponent's
    value, which a weight in another file (`--weights-file`) hides."""

    source = onnx.PowOp

    @staticmethod
    def _squares(op: onnx.OnnxOp) -> bool:
        base, exponent = op.operands
        if scalar.kind(tensor_type(base).get_element_type()) is not Kind.FLOAT:
            return False
        known = constant_value(exponent)
        return known is not None and known.size == 1 and float(known.reshape(-1)[0]) == 2.0

    def inputs(self, op: onnx.OnnxOp) -> Sequence[SSAValue]:
        return op.operands[:1] if self._squares(op) else op.operands

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        if self._squares(op):
            return scalar.MUL(b, args[0], args[0])
        base, exponent = args
        if scalar.kind(base.type) is Kind.FLOAT:
            return scalar.POW(b, base, scalar.convert(b, exponent, base.type))
        f64 = Float64Type()
        power = scalar.POW(b, scalar.convert(b, base, f64), scalar.convert(b, exponent, f64))
        return scalar.convert(b, power, base.type)


class MaxOpLowering(ElementwisePattern):
    """`onnx.Max` (1..N inputs, broadcast) -> a chain of `arith.maximumf`
    (NaN-propagating, like numpy) or `maxsi` / `maxui`."""

    source = onnx.MaxOp
    operation = scalar.MAX


class MinOpLowering(ElementwisePattern):
    """`onnx.Min` (1..N inputs, broadcast) -> a chain of `arith.minimumf` or
    `minsi` / `minui`."""

    source = onnx.MinOp
    operation = scalar.MIN


class AbsOpLowering(ElementwisePattern):
    """`onnx.Abs` -> `math.absf` / `math.absi`; unsigned values are their own
    absolute value (the minimum signed value stays itself, as it wraps)."""

    source = onnx.AbsOp
    operation = scalar.ABS


class NegOpLowering(ElementwisePattern):
    """`onnx.Neg` -> `arith.negf`, or `0 - x` (wrapping) on signed integers."""

    source = onnx.NegOp
    operation = scalar.NEG


class ExpOpLowering(ElementwisePattern):
    """`onnx.Exp` -> `math.exp`."""

    source = onnx.ExpOp
    operation = scalar.EXP


class LogOpLowering(ElementwisePattern):
    """`onnx.Log` -> `math.log`."""

    source = onnx.LogOp
    operation = scalar.LOG


class SqrtOpLowering(ElementwisePattern):
    """`onnx.Sqrt` -> `math.sqrt`."""

    source = onnx.SqrtOp
    operation = scalar.SQRT


class TanhOpLowering(ElementwisePattern):
    """`onnx.Tanh` -> `math.tanh`."""

    source = onnx.TanhOp
    operation = scalar.TANH


class ErfOpLowering(ElementwisePattern):
    """`onnx.Erf` -> `math.erf`."""

    source = onnx.ErfOp
    operation = scalar.ERF


class ReciprocalOpLowering(ElementwisePattern):
    """`onnx.Reciprocal` -> 1 / x."""

    source = onnx.ReciprocalOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return scalar.DIV(b, constant(b, 1.0, args[0].type), args[0])


class ReluOpLowering(ElementwisePattern):
    """`onnx.Relu` -> max(x, 0), in the element type's arithmetic."""

    source = onnx.ReluOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return scalar.MAX(b, args[0], constant(b, 0, args[0].type))


class LeakyReluOpLowering(ElementwisePattern):
    """`onnx.LeakyRelu` (attribute `alpha`, default 0.01) -> x < 0 ? alpha * x : x."""

    source = onnx.LeakyReluOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return leaky_relu(b, args[0], op.attr("alpha"))


class SigmoidOpLowering(ElementwisePattern):
    """`onnx.Sigmoid` -> `onnxc.sigmoid`: 1 / (1 + exp(-x)) (saturates to 0 and 1
    without NaN)."""

    source = onnx.SigmoidOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return sigmoid(b, args[0])


class HardSigmoidOpLowering(ElementwisePattern):
    """`onnx.HardSigmoid` (attributes `alpha` 0.2, `beta` 0.5) ->
    max(0, min(1, alpha * x + beta))."""

    source = onnx.HardSigmoidOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return hard_sigmoid(b, args[0], op.attr("alpha"), op.attr("beta"))


class HardSwishOpLowering(ElementwisePattern):
    """`onnx.HardSwish` -> x * max(0, min(1, x / 6 + 0.5))."""

    source = onnx.HardSwishOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return hard_swish(b, args[0])


class ClipOpLowering(ElementwisePattern):
    """`onnx.Clip` -> min(max(x, min), max) (so min > max gives max, as the
    spec says), in the element type's arithmetic. `min` and `max` are optional
    scalar inputs: a compile-time constant becomes a constant of the body, one
    computed at run time is read from its buffer; an absent bound is not
    applied."""

    source = onnx.ClipOp

    @staticmethod
    def _bounds(op: onnx.OnnxOp) -> list[tuple[SSAValue, ScalarOp]]:
        assert isinstance(op, onnx.ClipOp)
        return [(v, f) for v, f in ((op.min, scalar.MAX), (op.max, scalar.MIN)) if not is_none(v)]

    def inputs(self, op: onnx.OnnxOp) -> Sequence[SSAValue]:
        runtime = [v for v, _ in self._bounds(op) if constant_value(v) is None]
        return [op.operands[0], *runtime]

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x, *runtime = args
        read = iter(runtime)
        for value, bound in self._bounds(op):
            known = constant_value(value)
            if known is None:
                x = bound(b, x, next(read))
            elif known.size != 1:
                raise unsupported(op, "a bound must be a scalar")
            else:
                x = bound(b, x, constant(b, known.reshape(-1)[0].item(), x.type))
        return x


class SumOpLowering(ElementwisePattern):
    """`onnx.Sum` (1..N inputs, broadcast) -> a chain of `arith.addf`, left to
    right."""

    source = onnx.SumOp
    operation = scalar.ADD


class MeanOpLowering(ElementwisePattern):
    """`onnx.Mean` (1..N inputs, broadcast) -> their sum (left to right)
    divided by N."""

    source = onnx.MeanOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return scalar.DIV(b, scalar.ADD(b, *args), constant(b, len(args), args[0].type))
