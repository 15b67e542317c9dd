"""Unary math functions: trigonometric and hyperbolic functions, rounding,
Sign, Softplus and Softsign, as elementwise maps (see `ElementwisePattern`).

Each is one `math` dialect operation (printed as the <math.h> function of the
element type) or a short body of them; float16 and bfloat16 are computed in
float by `emulate-narrow-floats`, as onnxruntime does.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.ir import SSAValue

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.elementwise.arithmetic import ElementwisePattern
from onnxc.lowering.convert_onnx_to_linalg.elementwise.logic import select
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant


def softplus(b: Builder, x: SSAValue) -> SSAValue:
    """log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)) so that it
    neither overflows for large x nor loses small values."""
    positive = scalar.MAX(b, x, constant(b, 0.0, x.type))
    return scalar.ADD(b, positive, scalar.LOG1P(b, scalar.EXP(b, scalar.NEG(b, scalar.ABS(b, x)))))


def softsign(b: Builder, x: SSAValue) -> SSAValue:
    """x / (1 + |x|)."""
    return scalar.DIV(b, x, scalar.ADD(b, constant(b, 1.0, x.type), scalar.ABS(b, x)))


class SinOpLowering(ElementwisePattern):
    """`onnx.Sin` -> `math.sin`."""

    source = onnx.SinOp
    operation = scalar.SIN


class CosOpLowering(ElementwisePattern):
    """`onnx.Cos` -> `math.cos`."""

    source = onnx.CosOp
    operation = scalar.COS


class TanOpLowering(ElementwisePattern):
    """`onnx.Tan` -> `math.tan`."""

    source = onnx.TanOp
    operation = scalar.TAN


class AsinOpLowering(ElementwisePattern):
    """`onnx.Asin` -> `math.asin`."""

    source = onnx.AsinOp
    operation = scalar.ASIN


class AcosOpLowering(ElementwisePattern):
    """`onnx.Acos` -> `math.acos`."""

    source = onnx.AcosOp
    operation = scalar.ACOS


class AtanOpLowering(ElementwisePattern):
    """`onnx.Atan` -> `math.atan`."""

    source = onnx.AtanOp
    operation = scalar.ATAN


class SinhOpLowering(ElementwisePattern):
    """`onnx.Sinh` -> `math.sinh`."""

    source = onnx.SinhOp
    operation = scalar.SINH


class CoshOpLowering(ElementwisePattern):
    """`onnx.Cosh` -> `math.cosh`."""

    source = onnx.CoshOp
    operation = scalar.COSH


class AsinhOpLowering(ElementwisePattern):
    """`onnx.Asinh` -> `math.asinh`."""

    source = onnx.AsinhOp
    operation = scalar.ASINH


class AcoshOpLowering(ElementwisePattern):
    """`onnx.Acosh` -> `math.acosh`."""

    source = onnx.AcoshOp
    operation = scalar.ACOSH


class AtanhOpLowering(ElementwisePattern):
    """`onnx.Atanh` -> `math.atanh`."""

    source = onnx.AtanhOp
    operation = scalar.ATANH


class FloorOpLowering(ElementwisePattern):
    """`onnx.Floor` -> `math.floor`."""

    source = onnx.FloorOp
    operation = scalar.FLOOR


class CeilOpLowering(ElementwisePattern):
    """`onnx.Ceil` -> `math.ceil`."""

    source = onnx.CeilOp
    operation = scalar.CEIL


class RoundOpLowering(ElementwisePattern):
    """`onnx.Round` -> `math.roundeven` (halves to even, as the spec says;
    printed as `rint` in the default rounding mode)."""

    source = onnx.RoundOp
    operation = scalar.ROUND_EVEN


class SignOpLowering(ElementwisePattern):
    """`onnx.Sign` -> x > 0 ? 1 : (x < 0 ? -1 : x), in the element type's
    arithmetic: zeros (of either sign) and NaN are their own sign."""

    source = onnx.SignOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x = args[0]
        zero = constant(b, 0, x.type)
        negative = select(b, scalar.LESS(b, x, zero), constant(b, -1, x.type), x)
        return select(b, scalar.GREATER(b, x, zero), constant(b, 1, x.type), negative)


class SoftplusOpLowering(ElementwisePattern):
    """`onnx.Softplus` -> log(1 + exp(x)) (see `softplus`)."""

    source = onnx.SoftplusOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return softplus(b, args[0])


class SoftsignOpLowering(ElementwisePattern):
    """`onnx.Softsign` -> x / (1 + |x|)."""

    source = onnx.SoftsignOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return softsign(b, args[0])
