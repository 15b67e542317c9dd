"""Scalar operations per element kind: the one table lowerings build bodies from.

ONNX defines an operator once for every element type its schema allows; arith
spells it per kind (`addf` / `addi`, `divf` / `divsi` / `divui`, `cmpf olt` /
`cmpi slt` / `cmpi ult`). `ScalarOp` holds the spelling for each kind (float,
signed, unsigned, bool) of one ONNX-level scalar operation, and builds the right
one for its operands' element type (read from the element-type table), so an
integer Add is the same lowering as a float Add. The kind-independent helpers
build constants and conversions (ONNX Cast semantics).

What the operations mean on integers is arith's (MLIR's) meaning, printed in C
without undefined behaviour (see emit/c_printer.py): add, sub and mul wrap;
division truncates toward zero; `x / 0` is 0. float16 and bfloat16 bodies use
the float operations; `emulate-narrow-floats` computes them in float later.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from onnxc import element_types
from onnxc.dialects.arith_extra import RemFOp
from onnxc.dialects.onnxc import SigmoidOp
from onnxc.dialects.onnxc_strings import STRING, StringEmptyOp, StringEqualOp, StringLessOp
from onnxc.element_types import Kind
from onnxc.errors import UnsupportedError

Emit = Callable[[Builder, Sequence[SSAValue]], SSAValue]
"""Builds one scalar operation on its operands at the builder's position."""


class NoScalarForm(UnsupportedError):
    """A scalar operation has no form for an element kind (arithmetic on
    strings, say): an error the lowering names the node in."""


def kind(t: Attribute) -> Kind:
    """The element kind of a scalar type (the element-type table's; index is
    signed)."""
    return element_types.kind_of(t)


@dataclass(frozen=True)
class ScalarOp:
    """One ONNX-level scalar operation, spelled for each element kind (None
    where it has no meaning, e.g. `Sqrt` on integers)."""

    name: str
    float: Emit | None = None
    signed: Emit | None = None
    unsigned: Emit | None = None
    boolean: Emit | None = None
    string: Emit | None = None

    def form(self, t: Attribute) -> Emit:
        """The builder for operands of element type `t`."""
        found = {
            Kind.FLOAT: self.float,
            Kind.SIGNED: self.signed,
            Kind.UNSIGNED: self.unsigned,
            Kind.BOOL: self.boolean,
            Kind.STRING: self.string,
        }[kind(t)]
        if found is None:
            raise NoScalarForm(f"{self.name} is not defined on {kind(t).value} elements")
        return found

    def supports(self, t: Attribute) -> bool:
        try:
            self.form(t)
        except NoScalarForm:
            return False
        return True

    def __call__(self, b: Builder, *args: SSAValue) -> SSAValue:
        return self.form(args[0].type)(b, args)


def _op(cls: Callable[..., Operation]) -> Emit:
    """The emitter of an op class taking the operands positionally."""

    def emit(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return b.insert(cls(*args)).results[0]

    return emit


def _cmpf(predicate: str) -> Emit:
    def emit(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return b.insert(arith.CmpfOp(args[0], args[1], predicate)).result

    return emit


def _cmpi(predicate: str) -> Emit:
    def emit(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return b.insert(arith.CmpiOp(args[0], args[1], predicate)).result

    return emit


def _fold(emit: Emit) -> Emit:
    """A binary emitter folded left over one or more operands."""

    def folded(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        result = args[0]
        for arg in args[1:]:
            result = emit(b, [result, arg])
        return result

    return folded


def _negate_int(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
    return b.insert(arith.SubiOp(constant(b, 0, args[0].type), args[0])).result


def _identity(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
    return args[0]


def _not(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
    return b.insert(arith.XOrIOp(args[0], constant(b, 1, args[0].type))).result


def _complement(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
    return b.insert(arith.XOrIOp(args[0], constant(b, -1, args[0].type))).result


def _is_nan(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
    return b.insert(arith.CmpfOp(args[0], args[0], "uno")).result


# --- the table ------------------------------------------------------------------

ADD = ScalarOp("Add", _fold(_op(arith.AddfOp)), _fold(_op(arith.AddiOp)), _fold(_op(arith.AddiOp)))
SUB = ScalarOp("Sub", _op(arith.SubfOp), _op(arith.SubiOp), _op(arith.SubiOp))
MUL = ScalarOp("Mul", _fold(_op(arith.MulfOp)), _fold(_op(arith.MuliOp)), _fold(_op(arith.MuliOp)))
DIV = ScalarOp("Div", _op(arith.DivfOp), _op(arith.DivSIOp), _op(arith.DivUIOp))
REM = ScalarOp("Mod(fmod=1)", _op(RemFOp), _op(arith.RemSIOp), _op(arith.RemUIOp))
"""The remainder of division truncating toward zero (C's `%` and `fmod`): the
dividend's sign; `x % 0` is 0 on integers, NaN on floats."""
SHIFT_LEFT = ScalarOp("BitShift(LEFT)", None, _op(arith.ShLIOp), _op(arith.ShLIOp))
SHIFT_RIGHT = ScalarOp("BitShift(RIGHT)", None, _op(arith.ShRSIOp), _op(arith.ShRUIOp))
"""Shifts (right: arithmetic on signed, logical on unsigned); a shift amount
that is negative or at least the width gives 0, or -1 for a negative value
shifted right (the C printer's definition, which ONNX's BitShift spells out)."""
BITWISE_NOT = ScalarOp("BitwiseNot", None, _complement, _complement)
MAX = ScalarOp(
    "Max",
    _fold(_op(arith.MaximumfOp)),
    _fold(_op(arith.MaxSIOp)),
    _fold(_op(arith.MaxUIOp)),
    _fold(_op(arith.MaxUIOp)),
)
MIN = ScalarOp(
    "Min",
    _fold(_op(arith.MinimumfOp)),
    _fold(_op(arith.MinSIOp)),
    _fold(_op(arith.MinUIOp)),
    _fold(_op(arith.MinUIOp)),
)
NEG = ScalarOp("Neg", _op(arith.NegfOp), _negate_int)
ABS = ScalarOp("Abs", _op(math.AbsFOp), _op(math.AbsIOp), _identity)
AND = ScalarOp(
    "And", None, _fold(_op(arith.AndIOp)), _fold(_op(arith.AndIOp)), _fold(_op(arith.AndIOp))
)
OR = ScalarOp("Or", None, _fold(_op(arith.OrIOp)), _fold(_op(arith.OrIOp)), _fold(_op(arith.OrIOp)))
XOR = ScalarOp(
    "Xor", None, _fold(_op(arith.XOrIOp)), _fold(_op(arith.XOrIOp)), _fold(_op(arith.XOrIOp))
)
NOT = ScalarOp("Not", boolean=_not)
EQUAL = ScalarOp("Equal", _cmpf("oeq"), _cmpi("eq"), _cmpi("eq"), _cmpi("eq"), _op(StringEqualOp))
NOT_EQUAL = ScalarOp(
    "NotEqual",
    _cmpf("une"),
    _cmpi("ne"),
    _cmpi("ne"),
    _cmpi("ne"),
    lambda b, args: _not(b, [_op(StringEqualOp)(b, args)]),
)
"""Unordered: true when either side is NaN."""
LESS = ScalarOp("Less", _cmpf("olt"), _cmpi("slt"), _cmpi("ult"), _cmpi("ult"), _op(StringLessOp))
LESS_OR_EQUAL = ScalarOp("LessOrEqual", _cmpf("ole"), _cmpi("sle"), _cmpi("ule"), _cmpi("ule"))
GREATER = ScalarOp("Greater", _cmpf("ogt"), _cmpi("sgt"), _cmpi("ugt"), _cmpi("ugt"))
GREATER_OR_EQUAL = ScalarOp(
    "GreaterOrEqual", _cmpf("oge"), _cmpi("sge"), _cmpi("uge"), _cmpi("uge")
)
IS_NAN = ScalarOp("IsNaN", float=_is_nan)


def _float_only(name: str, cls: Callable[..., Operation]) -> ScalarOp:
    return ScalarOp(name, float=_op(cls))


SQRT = _float_only("Sqrt", math.SqrtOp)
EXP = _float_only("Exp", math.ExpOp)
LOG = _float_only("Log", math.LogOp)
TANH = _float_only("Tanh", math.TanhOp)
ERF = _float_only("Erf", math.ErfOp)
POW = _float_only("Pow", math.PowFOp)
COPYSIGN = _float_only("CopySign", math.CopySignOp)
EXPM1 = _float_only("Expm1", math.ExpM1Op)
LOG1P = _float_only("Log1p", math.Log1pOp)
SIN = _float_only("Sin", math.SinOp)
COS = _float_only("Cos", math.CosOp)
TAN = _float_only("Tan", math.TanOp)
ASIN = _float_only("Asin", math.AsinOp)
ACOS = _float_only("Acos", math.AcosOp)
ATAN = _float_only("Atan", math.AtanOp)
SINH = _float_only("Sinh", math.SinhOp)
COSH = _float_only("Cosh", math.CoshOp)
ASINH = _float_only("Asinh", math.AsinhOp)
ACOSH = _float_only("Acosh", math.AcoshOp)
ATANH = _float_only("Atanh", math.AtanhOp)
FLOOR = _float_only("Floor", math.FloorOp)
CEIL = _float_only("Ceil", math.CeilOp)
ROUND_EVEN = _float_only("Round", math.RoundEvenOp)
SIGMOID = _float_only("Sigmoid", SigmoidOp)
"""1 / (1 + exp(-x)): the runtime's `onnxc_sigmoidf` on float."""


# --- constants and conversions ----------------------------------------------------


def constant_ops(value: float, t: Attribute) -> list[Operation]:
    """The ops of a scalar constant of type `t` (any element type, or index)
    equal to `value` (rounded to `t`; integers wrap to `t`'s width); the last
    one's result is the constant. arith constants are signless, as in MLIR, so
    an unsigned constant is a signless one reinterpreted (`arith.bitcast`)."""
    if isinstance(t, AnyFloat):
        return [arith.ConstantOp(FloatAttr(_in_range(float(value), t), t))]
    if isinstance(t, IndexType):
        return [arith.ConstantOp.from_int_and_width(int(value), t)]
    if t == STRING:  # the zero of strings: the only string a number names
        if value:
            raise UnsupportedError(f"the number {value} as a string")
        return [StringEmptyOp()]
    assert isinstance(t, IntegerType), t
    width = t.width.data
    if width == 1:
        return [arith.ConstantOp(IntegerAttr(1 if value else 0, t))]
    wrapped = int(value) % (1 << width)
    if wrapped >= 1 << (width - 1):
        wrapped -= 1 << width
    signless = IntegerType(width)
    ops: list[Operation] = [arith.ConstantOp(IntegerAttr(wrapped, signless))]
    if t != signless:
        ops.append(arith.BitcastOp(ops[0].results[0], t))
    return ops


def _in_range(value: float, t: Attribute) -> float:
    """`value`, or the infinity of its sign where it is finite but rounds to
    one in float type `t` (1 / 1e-45 in f32): what the arithmetic gives, and
    the only such value an f16 or f32 attribute can hold."""
    row = element_types.of_ir(t)
    if row is None or not np.isfinite(value):
        return value
    with np.errstate(over="ignore"):
        rounded = float(np.asarray(value).astype(row.numpy_dtype))
    return rounded if np.isinf(rounded) else value


def constant(b: Builder, value: float, t: Attribute) -> SSAValue:
    """A scalar constant of type `t`, built at the builder's position."""
    ops = constant_ops(value, t)
    for op in ops:
        b.insert(op)
    return ops[-1].results[0]


def number(b: Builder, value: float | SSAValue, t: Attribute) -> SSAValue:
    """A scalar of type `t` equal to `value`: a constant, or an `index` value
    (a size known at run time) converted to `t`."""
    if not isinstance(value, SSAValue):
        return constant(b, value, t)
    as_integer = b.insert(arith.IndexCastOp(value, IntegerType(64))).result
    return convert(b, as_integer, t)


def lowest(t: Attribute) -> float:
    """The identity of Max on `t`: -inf for floats, the minimum integer else."""
    row = element_types.row_of(t)
    if row.kind is Kind.FLOAT:
        return float("-inf")
    if row.kind is Kind.SIGNED:
        return -(1 << (row.bits - 1))
    return 0


def highest(t: Attribute) -> float:
    """The identity of Min on `t`: +inf for floats, the maximum integer else."""
    row = element_types.row_of(t)
    if row.kind is Kind.FLOAT:
        return float("inf")
    if row.kind is Kind.SIGNED:
        return (1 << (row.bits - 1)) - 1
    return (1 << row.bits) - 1


def _is_unsigned(t: Attribute) -> bool:
    return kind(t) in (Kind.UNSIGNED, Kind.BOOL)


def _float_width(t: AnyFloat) -> int:
    return t.bitwidth


def convert(b: Builder, value: SSAValue, target: Attribute) -> SSAValue:
    """`value` converted to element type `target` as ONNX Cast does: floats to
    integers truncate toward zero (out of range saturates, NaN gives 0: what
    the C printer does where ONNX leaves it undefined), anything to bool is
    `!= 0`, integers change width by sign or zero extension (by the source's
    signedness) or by dropping high bits, floats round to nearest even. Two
    16-bit float types convert through float. Floats become 4-bit and 2-bit
    integers through int32 and then by dropping high bits (onnx.reference's
    conversion, where ONNX leaves out-of-range values undefined)."""
    if STRING in (value.type, target) and value.type != target:
        raise NoScalarForm("conversions between strings and numbers are not compiled")
    source = value.type
    if source == target:
        return value
    if isinstance(target, IntegerType) and target.width.data == 1:
        zero = constant(b, 0, source)
        if isinstance(source, AnyFloat):
            return b.insert(arith.CmpfOp(value, zero, "une")).result
        return b.insert(arith.CmpiOp(value, zero, "ne")).result
    if isinstance(source, AnyFloat) and isinstance(target, AnyFloat):
        if _float_width(source) == _float_width(target):
            value = b.insert(arith.ExtFOp(value, Float32Type())).result
            return b.insert(arith.TruncFOp(value, target)).result
        if _float_width(source) < _float_width(target):
            return b.insert(arith.ExtFOp(value, target)).result
        return b.insert(arith.TruncFOp(value, target)).result
    if isinstance(source, IntegerType) and isinstance(target, AnyFloat):
        cast = arith.UIToFPOp if _is_unsigned(source) else arith.SIToFPOp
        return b.insert(cast(value, target)).result
    if isinstance(source, AnyFloat) and isinstance(target, IntegerType):
        if target.width.data < 8:  # 4 and 2 bits: through int32, then the low bits
            whole = b.insert(arith.FPToSIOp(value, IntegerType(32))).result
            return b.insert(arith.TruncIOp(whole, target)).result
        cast = arith.FPToUIOp if _is_unsigned(target) else arith.FPToSIOp
        return b.insert(cast(value, target)).result
    assert isinstance(source, IntegerType) and isinstance(target, IntegerType)
    if source.width.data < target.width.data:
        extend = arith.ExtUIOp if _is_unsigned(source) else arith.ExtSIOp
        return b.insert(extend(value, target)).result
    if source.width.data > target.width.data:
        return b.insert(arith.TruncIOp(value, target)).result
    return b.insert(arith.BitcastOp(value, target)).result


def rounded(b: Builder, value: SSAValue, t: Attribute) -> SSAValue:
    """`value` rounded to type `t` (where an operation's result is of type
    `t`), kept in its own type: a conversion there and back."""
    if value.type == t:
        return value
    return convert(b, convert(b, value, t), value.type)
