"""Constants and identities: `onnx.Constant` becomes a `memref.global`."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from onnxc.dialects import onnx
from onnxc.dialects.constants import elements_to_numpy
from onnxc.lowering.convert_onnx_to_linalg.common import (
    buffer_of,
    replace_with_buffers,
    unsupported,
    weight,
)


class ConstantOpLowering(RewritePattern):
    """`onnx.Constant` with a tensor `value` -> a private constant `memref.global`
    (weights in flash on a microcontroller) and a `memref.get_global`. Other
    forms (`value_float`, ...) are normalised to `value` by onnx-fold-constants."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx.ConstantOp,
        rewriter: PatternRewriter,
    ) -> None:
        value = op.properties.get("value")
        if value is None:
            raise unsupported(op, "only the 'value' form of Constant is lowered")
        result_type = op.results[0].type
        assert isinstance(result_type, TensorType)
        array = elements_to_numpy(value)
        buffer = weight(rewriter, op, array, result_type.get_element_type())
        replace_with_buffers(rewriter, op, [buffer])


class IdentityOpLowering(RewritePattern):
    """`onnx.Identity` is its input's buffer."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx.IdentityOp,
        rewriter: PatternRewriter,
    ) -> None:
        replace_with_buffers(rewriter, op, [buffer_of(rewriter, op.operands[0])])
