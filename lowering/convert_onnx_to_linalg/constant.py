"""Constants and identities: `onnx.Constant` becomes a `memref.global`;
Identity and inference-mode Dropout are their input."""

from __future__ import annotations

from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from onnxc.dialects import onnx
from onnxc.dialects.constants import elements_to_numpy
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    constant_value,
    fill,
    is_none,
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


class DropoutOpLowering(OnnxLowering[onnx.DropoutOp]):
    """`onnx.Dropout` in inference (no `training_mode`, or a constant false
    one): the output is the input and the optional mask is all true. A
    training-mode Dropout (random) is rejected."""

    def rewrite(self, op: onnx.DropoutOp, rewriter: PatternRewriter) -> None:
        if not is_none(op.training_mode):
            training = constant_value(op.training_mode)
            if training is None or bool(training.reshape(-1)[0]):
                raise unsupported(op, "training_mode (random dropout) is not supported")
        mask: SSAValue | None = None
        if not is_none(op.mask):
            mask = self.result_buffer(rewriter, op.mask, self.shapes.sizes(op.data))
            fill(rewriter, op, mask, 1)
        self.replace(rewriter, op, [buffer_of(rewriter, op.data), mask])
