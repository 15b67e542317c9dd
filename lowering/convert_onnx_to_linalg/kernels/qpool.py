"""`kernel.qaverage_pool` (made by `onnx-fuse-quantized`) as AveragePool's
own loops (`nn/pool.average_pool`) with each tap dequantized as it is loaded
and each average quantized as it is stored: the DequantizeLinear,
AveragePool and QuantizeLinear it stands for, by the same float steps
(`dequantize`; the sum in window order and the division by the count;
`quantize` of the quotient by y's scale, as QuantizeLinear divides), so its
results are theirs to the bit, and the arena holds no float copy of X."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import kernel
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import OnnxLowering, buffer_of, element_type
from onnxc.lowering.convert_onnx_to_linalg.nn.pool import average_pool
from onnxc.lowering.convert_onnx_to_linalg.quantization.quantization import (
    WIDE,
    dequantize,
    quantize,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant


class QaveragePoolOpLowering(OnnxLowering[kernel.QaveragePoolOp]):
    """`kernel.qaverage_pool` -> AveragePool's generic (see the module docstring)."""

    def rewrite(self, op: kernel.QaveragePoolOp, rewriter: PatternRewriter) -> None:
        x_type = element_type(buffer_of(rewriter, op.X))
        result_type = op.Y.type
        assert isinstance(result_type, TensorType)
        y_type = result_type.get_element_type()

        def read(b: Builder, x: SSAValue) -> SSAValue:
            point = constant(b, op.attr("x_zero_point"), x_type)
            return dequantize(b, x, point, constant(b, op.attr("x_scale"), WIDE))

        def finish(b: Builder, average: SSAValue) -> SSAValue:
            scaled = scalar.DIV(b, average, constant(b, op.attr("y_scale"), WIDE))
            return quantize(b, scaled, constant(b, op.attr("y_zero_point"), y_type), y_type)

        y = average_pool(rewriter, self.shapes, op, read, finish, WIDE)
        self.replace(rewriter, op, [y])


__all__ = ["QaveragePoolOpLowering"]
