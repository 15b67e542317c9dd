"""Constants and identities: `onnx.Constant` becomes a `memref.global`;
Identity is its input (Dropout, which in inference is too, is in random/distributions.py).

The optional operators on plain tensors are an identity and a constant: a
tensor is an optional that holds an element, an omitted input one that holds
none, so OptionalGetElement of a tensor is the tensor and OptionalHasElement
is known at compile time. Values of optional type (graph inputs, Optional's
result) are part of sequences and optionals, not lowered yet."""

from __future__ import annotations

from xdsl.dialects.builtin import MemRefType, TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from onnxc.dialects import onnx
from onnxc.dialects.constants import elements_to_numpy
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
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


def _plain_tensor(op: onnx.OnnxOp, value: SSAValue) -> None:
    if not isinstance(value.type, TensorType | MemRefType):
        raise unsupported(op, f"an input of type {value.type} (optionals and sequences)")


class OptionalGetElementOpLowering(OnnxLowering[onnx.OptionalGetElementOp]):
    """`onnx.OptionalGetElement` of a tensor is the tensor (see the module docstring)."""

    def rewrite(self, op: onnx.OptionalGetElementOp, rewriter: PatternRewriter) -> None:
        _plain_tensor(op, op.input)
        self.replace(rewriter, op, [buffer_of(rewriter, op.input)])


class OptionalHasElementOpLowering(OnnxLowering[onnx.OptionalHasElementOp]):
    """`onnx.OptionalHasElement`: true of a tensor, false of an omitted input."""

    def rewrite(self, op: onnx.OptionalHasElementOp, rewriter: PatternRewriter) -> None:
        present = not is_none(op.input)
        if present:
            _plain_tensor(op, op.input)
        result = self.result_buffer(rewriter, op.output, [])
        fill(rewriter, op, result, 1.0 if present else 0.0)
        self.replace(rewriter, op, [result])
