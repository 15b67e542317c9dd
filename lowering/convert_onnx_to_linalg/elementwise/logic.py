"""Comparison, logic and bitwise operators, and Mod: elementwise maps with
multidirectional broadcasting (see `ElementwisePattern`), over every element
type their schemas allow.

Comparisons give bool whatever their inputs; float comparisons are ordered
(false when either side is NaN), as in C and onnxruntime. Integer semantics
are defined where ONNX leaves them open or C would not: `x % 0` is 0, a shift
by a negative amount or by the width or more gives 0 (or -1 for a negative
value shifted right), as BitShift's spec says.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import i1
from xdsl.ir import SSAValue

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import unsupported
from onnxc.lowering.convert_onnx_to_linalg.elementwise.arithmetic import ElementwisePattern
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant


def select(b: Builder, condition: SSAValue, if_true: SSAValue, if_false: SSAValue) -> SSAValue:
    """`condition ? if_true : if_false` (`arith.select`)."""
    return b.insert(arith.SelectOp(condition, if_true, if_false)).result


class EqualOpLowering(ElementwisePattern):
    """`onnx.Equal` -> `arith.cmpf oeq` / `arith.cmpi eq` (bool result)."""

    source = onnx.EqualOp
    operation = scalar.EQUAL


class LessOpLowering(ElementwisePattern):
    """`onnx.Less` -> `arith.cmpf olt` / `arith.cmpi slt` / `ult`."""

    source = onnx.LessOp
    operation = scalar.LESS


class LessOrEqualOpLowering(ElementwisePattern):
    """`onnx.LessOrEqual` -> `arith.cmpf ole` / `arith.cmpi sle` / `ule`."""

    source = onnx.LessOrEqualOp
    operation = scalar.LESS_OR_EQUAL


class GreaterOpLowering(ElementwisePattern):
    """`onnx.Greater` -> `arith.cmpf ogt` / `arith.cmpi sgt` / `ugt`."""

    source = onnx.GreaterOp
    operation = scalar.GREATER


class GreaterOrEqualOpLowering(ElementwisePattern):
    """`onnx.GreaterOrEqual` -> `arith.cmpf oge` / `arith.cmpi sge` / `uge`."""

    source = onnx.GreaterOrEqualOp
    operation = scalar.GREATER_OR_EQUAL


class AndOpLowering(ElementwisePattern):
    """`onnx.And` (bool) -> `arith.andi`."""

    source = onnx.AndOp
    operation = scalar.AND


class OrOpLowering(ElementwisePattern):
    """`onnx.Or` (bool) -> `arith.ori`."""

    source = onnx.OrOp
    operation = scalar.OR


class XorOpLowering(ElementwisePattern):
    """`onnx.Xor` (bool) -> `arith.xori`."""

    source = onnx.XorOp
    operation = scalar.XOR


class NotOpLowering(ElementwisePattern):
    """`onnx.Not` (bool) -> `arith.xori` with true."""

    source = onnx.NotOp
    operation = scalar.NOT


class WhereOpLowering(ElementwisePattern):
    """`onnx.Where` -> `arith.select` of the three inputs broadcast together
    (condition bool, X and Y of any element type)."""

    source = onnx.WhereOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return select(b, *args)


class IsNaNOpLowering(ElementwisePattern):
    """`onnx.IsNaN` -> `arith.cmpf uno` of x with itself."""

    source = onnx.IsNaNOp
    operation = scalar.IS_NAN


class IsInfOpLowering(ElementwisePattern):
    """`onnx.IsInf` (attributes `detect_negative`, `detect_positive`, both 1 by
    default) -> x == -inf, x == +inf, their `or`, or false when neither is
    detected."""

    source = onnx.IsInfOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x = args[0]
        found = [
            scalar.EQUAL(b, x, constant(b, infinity, x.type))
            for infinity, detect in (
                (float("-inf"), op.attr("detect_negative")),
                (float("inf"), op.attr("detect_positive")),
            )
            if detect
        ]
        return scalar.OR(b, *found) if found else constant(b, 0, i1)


class BitShiftOpLowering(ElementwisePattern):
    """`onnx.BitShift` (attribute `direction`, LEFT or RIGHT) -> `arith.shli`,
    or `arith.shrui` / `arith.shrsi` (arithmetic on signed elements). Shift
    amounts that are negative or at least the width give 0, or -1 for a
    negative value shifted right (the spec's rule, the C printer's meaning)."""

    source = onnx.BitShiftOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        direction = op.attr("direction")
        if direction not in ("LEFT", "RIGHT"):
            raise unsupported(op, f"direction must be LEFT or RIGHT, not {direction!r}")
        shift = scalar.SHIFT_LEFT if direction == "LEFT" else scalar.SHIFT_RIGHT
        return shift(b, *args)


class BitwiseAndOpLowering(ElementwisePattern):
    """`onnx.BitwiseAnd` -> `arith.andi`."""

    source = onnx.BitwiseAndOp
    operation = scalar.AND


class BitwiseOrOpLowering(ElementwisePattern):
    """`onnx.BitwiseOr` -> `arith.ori`."""

    source = onnx.BitwiseOrOp
    operation = scalar.OR


class BitwiseXorOpLowering(ElementwisePattern):
    """`onnx.BitwiseXor` -> `arith.xori`."""

    source = onnx.BitwiseXorOp
    operation = scalar.XOR


class BitwiseNotOpLowering(ElementwisePattern):
    """`onnx.BitwiseNot` -> `arith.xori` with all ones."""

    source = onnx.BitwiseNotOp
    operation = scalar.BITWISE_NOT


class ModOpLowering(ElementwisePattern):
    """`onnx.Mod`. fmod=1: the remainder of division truncating toward zero
    (`arith.remf`, C's fmod, or `arith.remsi` / `remui`). fmod=0 (the default):
    the remainder of floor division, which has the divisor's sign (Python's
    `%`): the truncated remainder r, plus the divisor when r is nonzero and
    of the other sign; a zero float result takes the divisor's sign, as the
    spec's special cases (and Python) say. Integer `x % 0` is 0 (ONNX leaves
    it undefined); float `x % 0` is NaN."""

    source = onnx.ModOp

    def body(self, op: onnx.OnnxOp, b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x, y = args
        remainder = scalar.REM(b, x, y)
        fmod = op.attr("fmod")
        if fmod not in (0, 1):
            raise unsupported(op, f"fmod must be 0 or 1, not {fmod}")
        if fmod == 1 or scalar.kind(x.type) is Kind.UNSIGNED:
            return remainder
        zero = constant(b, 0, x.type)
        # `une` is true for a NaN remainder, which then stays NaN.
        nonzero = scalar.NOT_EQUAL(b, remainder, zero)
        signs_differ = scalar.XOR(b, scalar.LESS(b, remainder, zero), scalar.LESS(b, y, zero))
        adjusted = select(
            b, scalar.AND(b, nonzero, signs_differ), scalar.ADD(b, remainder, y), remainder
        )
        if scalar.kind(x.type) is not Kind.FLOAT:
            return adjusted
        return select(b, nonzero, adjusted, scalar.COPYSIGN(b, zero, y))
