"""Constants and identities: `onnx.Constant` becomes a `memref.global`;
Identity is its input (Dropout, which in inference is too, is in random.py)."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from onnxc.dialects import onnx
from onnxc.dialects.constants import elements_to_numpy
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    unsupported,
    weight,
)


class ConstantOpLowering(OnnxLowering[onnx.ConstantOp]):
    """`onnx.Constant` with a tensor `value` -> a private constant `memref.global`
    (weights in flash on a microcontroller) and a `memref.get_global`. Other
    forms (`value_float`, ...) are normalised to `value` by onnx-fold-constants."""

    def rewrite(self, op: onnx.ConstantOp, rewriter: PatternRewriter) -> None:
        value = op.properties.get("value")
        if value is None:
            raise unsupported(op, "only the 'value' form of Constant is lowered")
        result_type = op.results[0].type
        assert isinstance(result_type, TensorType)
        array = elements_to_numpy(value)
        buffer = weight(rewriter, op, array, result_type.get_element_type())
        self.replace(rewriter, op, [buffer])


class IdentityOpLowering(OnnxLowering[onnx.IdentityOp]):
    """`onnx.Identity` is its input's buffer."""

    def rewrite(self, op: onnx.IdentityOp, rewriter: PatternRewriter) -> None:
        self.replace(rewriter, op, [buffer_of(rewriter, op.operands[0])])
