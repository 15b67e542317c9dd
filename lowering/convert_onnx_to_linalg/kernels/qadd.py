"""`kernel.qadd` (made by `onnx-fuse-quantized`) as one elementwise
`linalg.generic`: each element of A and B dequantized, added and quantized
into Y in registers, by the same float steps as the DequantizeLinear, Add and
QuantizeLinear it stands for (quantization.py's `dequantize` and `quantize`,
the quotient by y's scale as QuantizeLinear divides), so its results are
theirs to the bit; the arena holds no float tensor for it."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import kernel
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    buffer_of,
    element_type,
    generic,
    identity_map,
)
from onnxc.lowering.convert_onnx_to_linalg.quantization.qlinear import per_tensor
from onnxc.lowering.convert_onnx_to_linalg.quantization.quantization import (
    dequantize,
    quantize,
)


class QaddOpLowering(OnnxLowering[kernel.QaddOp]):
    """`kernel.qadd` -> one elementwise generic (see the module docstring)."""

    def rewrite(self, op: kernel.QaddOp, rewriter: PatternRewriter) -> None:
        sizes = self.shapes.sizes(op.A)
        rank = len(sizes)
        output = self.result_buffer(rewriter, op.Y, sizes)
        target = element_type(output)
        parameters = [op.a_scale, op.a_zero_point, op.b_scale, op.b_zero_point]
        parameters += [op.y_scale, op.y_zero_point]

        reads = [
            per_tensor(op, rewriter, self.shapes, v, rank, "a scale or zero point")
            for v in parameters
        ]
        buffers = [buffer_of(rewriter, v) for v in (op.A, op.B)] + [buffer for buffer, _ in reads]
        maps = [identity_map(rank)] * 2 + [m for _, m in reads] + [identity_map(rank)]

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            a, b_value, a_scale, a_point, b_scale, b_point, y_scale, y_point = args[:8]
            total = scalar.ADD(
                b, dequantize(b, a, a_point, a_scale), dequantize(b, b_value, b_point, b_scale)
            )
            return quantize(b, scalar.DIV(b, total, y_scale), y_point, target)

        generic(rewriter, op, buffers, [output], maps, [PARALLEL] * rank, body)
        self.replace(rewriter, op, [output])


__all__ = ["QaddOpLowering"]
