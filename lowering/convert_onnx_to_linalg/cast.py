"""Type conversion: `onnx.Cast` and `onnx.CastLike`, elementwise, between any
two element types of the table (see `scalar.convert` for what each
conversion means), and `onnx.BitCast`, which keeps the bits instead."""

from __future__ import annotations

import ml_dtypes
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IntegerType, Signedness
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc import element_types
from onnxc.dialects import onnx
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


def _is_float8(t: Attribute) -> bool:
    row = element_types.of_ir(t)
    return row is not None and row.runtime_name is not None and row.size == 1


class CastPattern(OnnxLowering[onnx.OnnxOp]):
    """Base of Cast and CastLike: a conversion of the first operand to the
    result's element type; a cast to the same type is the input buffer. A
    conversion to an 8-bit float saturates unless `saturate` is 0."""

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        source_type = memref_type(op.operands[0].type).get_element_type()
        target_type = memref_type(op.results[0].type).get_element_type()
        if source_type == target_type:
            self.replace(rewriter, op, [buffer_of(rewriter, op.operands[0])])
            return
        saturate = _is_float8(target_type) and bool(op.attr("saturate"))
        convert = saturated if saturate else scalar.convert
        elementwise(
            rewriter,
            self.shapes,
            op,
            lambda b, args: convert(b, args[0], target_type),
            inputs=[op.operands[0]],
        )


class CastOpLowering(CastPattern):
    """`onnx.Cast` -> an elementwise conversion to `to`; `saturate` as above
    (`round_mode` concerns float8e8m0, which the table does not have)."""

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
