"""Shape and Size: a tensor's sizes as data.

onnx-fold-constants turns both into constants when the sizes are static;
what reaches this pass reads a size known only at run time, so each size is
stored into the int64 result (`memref.store` of the `index` value, cast).
"""

from __future__ import annotations

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import i64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg.common import OnnxLowering, alloc, shape_of
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size


def _store_sizes(
    rewriter: PatternRewriter, shapes: Shapes, result: SSAValue, sizes: list[Size]
) -> SSAValue:
    """A new int64 buffer for `result` holding `sizes`."""
    output = alloc(rewriter, result.type, list(shape_of(result)))
    for k, size in enumerate(sizes):
        value = rewriter.insert(arith.IndexCastOp(shapes.index(size), i64)).result
        indices = [shapes.index(k)] if shape_of(result) else []
        rewriter.insert(memref.StoreOp.get(value, output, indices))
    return output


class ShapeOpLowering(OnnxLowering[onnx.ShapeOp]):
    """`onnx.Shape` (with `start` / `end`, clamped as the spec says)."""

    def rewrite(self, op: onnx.ShapeOp, rewriter: PatternRewriter) -> None:
        sizes = self.shapes.sizes(op.data)
        rank = len(sizes)
        start = op.attr("start") or 0
        end = op.attr("end")
        end = rank if end is None else end
        start = min(max(start + rank if start < 0 else start, 0), rank)
        end = min(max(end + rank if end < 0 else end, 0), rank)
        kept = sizes[start:end]
        self.replace(rewriter, op, [_store_sizes(rewriter, self.shapes, op.shape, kept)])


class SizeOpLowering(OnnxLowering[onnx.SizeOp]):
    """`onnx.Size`: the element count, a scalar."""

    def rewrite(self, op: onnx.SizeOp, rewriter: PatternRewriter) -> None:
        count = self.shapes.product(self.shapes.sizes(op.data))
        self.replace(rewriter, op, [_store_sizes(rewriter, self.shapes, op.size, [count])])
