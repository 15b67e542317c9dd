"""Type conversion: `onnx.Cast` and `onnx.CastLike`, elementwise, between any
two element types of the table (see `scalar.convert` for what each
conversion means)."""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    elementwise,
    memref_type,
)


class CastPattern(OnnxLowering[onnx.OnnxOp]):
    """Base of Cast and CastLike: a conversion of the first operand to the
    result's element type; a cast to the same type is the input buffer."""

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        source_type = memref_type(op.operands[0].type).get_element_type()
        target_type = memref_type(op.results[0].type).get_element_type()
        if source_type == target_type:
            self.replace(rewriter, op, [buffer_of(rewriter, op.operands[0])])
            return
        elementwise(
            rewriter,
            self.shapes,
            op,
            lambda b, args: scalar.convert(b, args[0], target_type),
            inputs=[op.operands[0]],
        )


class CastOpLowering(CastPattern):
    """`onnx.Cast` -> an elementwise conversion to `to`. `saturate` and
    `round_mode` only concern 8-bit floats, which the table does not have yet."""

    source = onnx.CastOp


class CastLikeOpLowering(CastPattern):
    """`onnx.CastLike` -> as `onnx.Cast` to the element type of `target_type`."""

    source = onnx.CastLikeOp
