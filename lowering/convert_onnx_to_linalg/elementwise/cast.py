"""Type conversion: `onnx.Cast` and `onnx.CastLike`, elementwise, between any
two element types of the table (see `scalar.convert` for what each
conversion means), and `onnx.BitCast`, which keeps the bits instead."""

from __future__ import annotations

from collections.abc import Callable

import ml_dtypes
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float8E8M0FNUType, Float32Type, IntegerType, Signedness
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc import element_types
from onnxc.dialects import onnx
from onnxc.dialects.onnxc_strings import STRING
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    elementwise,
    memref_type,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant


def saturated(b: Builder, value: SSAValue, target: Attribute) -> SSAValue:
    """`value` converted to the 8-bit float `target` with saturation (Cast's
    `saturate`): values beyond the format's largest finite value, infinities
    included, become it (clamped in float); NaN stays NaN."""
    wide = scalar.convert(b, value, Float32Type())
    largest = float(ml_dtypes.finfo(element_types.row_of(target).numpy_dtype).max)
    above = scalar.MAX(b, wide, constant(b, -largest, wide.type))
    clamped = scalar.MIN(b, above, constant(b, largest, wide.type))
    return scalar.convert(b, clamped, target)


def to_e8m0(b: Builder, value: SSAValue, round_mode: str, saturate: bool) -> SSAValue:
    """`value` converted to float8e8m0 as Cast (opset 24) does: through float,
    whose exponent field is the result, rounded by `round_mode` ("up": any
    fraction bit rounds up; "down": truncates; "nearest": the guard bit
    rounds up when the round or sticky bits are set or the exponent is not
    zero, as onnx.reference does) and, with `saturate`, never rounded past
    2^127 into NaN; NaN and the infinities give NaN (0xFF)."""
    i32, u8 = IntegerType(32), IntegerType(8, Signedness.UNSIGNED)
    bits = b.insert(arith.BitcastOp(scalar.convert(b, value, Float32Type()), i32)).result

    def masked(mask: int) -> SSAValue:
        return scalar.AND(b, bits, constant(b, mask, i32))

    def nonzero(mask: int) -> SSAValue:
        return scalar.NOT_EQUAL(b, masked(mask), constant(b, 0, i32))

    exponent = scalar.SHIFT_RIGHT(b, masked(0x7F800000), constant(b, 23, i32))  # 0..255
    zero = constant(b, 0, i32)
    if round_mode == "up":
        round_up = nonzero(0x7FFFFF)
    elif round_mode == "down":
        round_up = constant(b, 0, IntegerType(1))
    elif round_mode == "nearest":
        rest = scalar.OR(b, nonzero(0x200000), nonzero(0x1FFFFF))
        odd = scalar.OR(b, rest, scalar.GREATER(b, exponent, zero))
        round_up = scalar.AND(b, nonzero(0x400000), odd)
    else:
        raise ValueError(f"round_mode '{round_mode}'")
    if saturate:
        largest = constant(b, 0xFE, i32)
        round_up = scalar.AND(b, round_up, scalar.NOT_EQUAL(b, exponent, largest))
    nan = constant(b, 0xFF, i32)
    special = scalar.EQUAL(b, exponent, nan)
    rounded = scalar.ADD(b, exponent, scalar.convert(b, round_up, i32))
    code = b.insert(arith.SelectOp(special, nan, rounded)).result
    return b.insert(arith.BitcastOp(scalar.convert(b, code, u8), Float8E8M0FNUType())).result


def _is_float8(t: Attribute) -> bool:
    """The 8-bit floats with a sign and a mantissa (not float8e8m0)."""
    row = element_types.of_ir(t)
    return (
        row is not None
        and row.runtime_name is not None
        and row.bits == 8
        and not isinstance(t, Float8E8M0FNUType)
    )


Converter = Callable[[Builder, SSAValue], SSAValue]


def _converter(op: onnx.OnnxOp, target: Attribute) -> Converter:
    """How Cast converts one value to `target`, given its attributes."""
    if isinstance(target, Float8E8M0FNUType):
        mode, saturate = str(op.attr("round_mode")), bool(op.attr("saturate"))
        if mode not in ("up", "down", "nearest"):
            raise unsupported(op, f"round_mode '{mode}' (up, down and nearest exist)")
        return lambda b, value: to_e8m0(b, value, mode, saturate)
    if _is_float8(target) and bool(op.attr("saturate")):
        return lambda b, value: saturated(b, value, target)
    return lambda b, value: scalar.convert(b, value, target)


class CastPattern(OnnxLowering[onnx.OnnxOp]):
    """Base of Cast and CastLike: a conversion of the first operand to the
    result's element type; a cast to the same type is the input buffer. A
    conversion to an 8-bit float saturates unless `saturate` is 0; one to
    float8e8m0 rounds as `round_mode` says."""

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        source_type = memref_type(op.operands[0].type).get_element_type()
        target_type = memref_type(op.results[0].type).get_element_type()
        if source_type == target_type:
            self.replace(rewriter, op, [buffer_of(rewriter, op.operands[0])])
            return
        if STRING in (source_type, target_type):
            raise unsupported(op, "casts to and from strings (number formatting and parsing)")
        convert = _converter(op, target_type)
        elementwise(
            rewriter, self.shapes, op, lambda b, args: convert(b, args[0]), inputs=[op.operands[0]]
        )


class CastOpLowering(CastPattern):
    """`onnx.Cast` -> an elementwise conversion to `to`; `saturate` and
    `round_mode` as above."""

    source = onnx.CastOp


class CastLikeOpLowering(CastPattern):
    """`onnx.CastLike` -> as `onnx.Cast` to the element type of `target_type`."""

    source = onnx.CastLikeOp


def reinterpreted(b: Builder, value: SSAValue, target: Attribute) -> SSAValue:
    """The bits of `value` as element type `target`, of the same storage
    width (`arith.bitcast`, which the C printer spells without undefined
    behaviour). bool is a byte holding 0 or 1 in onnxc: it becomes that byte,
    and a byte becomes the bool `byte != 0` (every nonzero byte is true,
    which is how numpy, the spec's reference, reads such a byte as bool)."""
    source = value.type
    if source == target:
        return value
    byte = IntegerType(8, Signedness.UNSIGNED)
    if scalar.kind(source) is Kind.BOOL:
        return reinterpreted(b, scalar.convert(b, value, byte), target)
    if scalar.kind(target) is Kind.BOOL:
        return scalar.convert(b, reinterpreted(b, value, byte), target)
    return b.insert(arith.BitcastOp(value, target)).result


class BitCastOpLowering(OnnxLowering[onnx.BitCastOp]):
    """`onnx.BitCast` -> an elementwise reinterpretation of each element's
    bits as type `to` (see `reinterpreted`); the storage widths must be
    equal. Little-endian as the spec asks: every value is one element, so
    only the widths matter, not the byte order."""

    def rewrite(self, op: onnx.BitCastOp, rewriter: PatternRewriter) -> None:
        source = element_types.row_of(memref_type(op.input.type).get_element_type())
        target = element_types.row_of(memref_type(op.output.type).get_element_type())
        if source.size != target.size:
            raise unsupported(op, f"{source.name} and {target.name} differ in width")
        if source == target:
            self.replace(rewriter, op, [buffer_of(rewriter, op.input)])
            return
        elementwise(
            rewriter,
            self.shapes,
            op,
            lambda b, args: reinterpreted(b, args[0], target.ir_type),
            inputs=[op.input],
        )
