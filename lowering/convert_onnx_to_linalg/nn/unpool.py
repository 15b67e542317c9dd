"""MaxUnpool: the partial inverse of MaxPool, a scatter into zeros.

Each element of X goes to the position of the output its index I names.
The index is a position in the flattened tensor of the shape MaxPool's
input had: [N, C, (in - 1) * stride - pads + kernel, ...], the shape
inferred from the attributes. With `output_shape` the output may be larger;
the inferred tensor then sits at its start (the spec's example and
onnx.reference; onnxruntime instead reads the indices as positions in the
larger output). An index outside the inferred tensor, or an `output_shape`
smaller than it, stops the model with ONNXC_ERR_SHAPE.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import CheckOp
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    check,
    comment_for,
    fill,
    is_none,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.nn.window import require_spatial
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, index, nest
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes
from onnxc.lowering.index_arith import Size


class MaxUnpoolOpLowering(OnnxLowering[onnx.MaxUnpoolOp]):
    """`onnx.MaxUnpool` (see the module docstring): a zero fill of the
    output, then loops over X storing each element at the position its
    index names (decomposed row-major over the inferred shape)."""

    def rewrite(self, op: onnx.MaxUnpoolOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.X)
        require_spatial(op, sizes, "X")
        require_sizes(op, rewriter, shapes, shapes.sizes(op.I), sizes, "I")
        rank = len(sizes) - 2
        kernel = op.attr("kernel_shape")
        strides = op.attr("strides") or [1] * rank
        pads = op.attr("pads") or [0] * (2 * rank)
        if len(kernel) != rank or len(strides) != rank or len(pads) != 2 * rank:
            raise unsupported(op, "kernel_shape, strides and pads must fit the spatial axes")
        inferred: list[Size] = [sizes[0], sizes[1]]
        for k, size in enumerate(sizes[2:]):
            stretched = shapes.mul(shapes.sub(size, 1), strides[k])
            inferred.append(shapes.add(stretched, kernel[k] - pads[k] - pads[rank + k]))
        wanted = inferred
        if not is_none(op.output_shape):
            wanted = shape_elements(op, rewriter, shapes, op.output_shape)
            if len(wanted) != len(sizes):
                raise unsupported(op, f"output_shape has {len(wanted)} sizes for rank {len(sizes)}")
        output = self.result_buffer(rewriter, op.output, wanted)
        for d, (size, out) in enumerate(zip(inferred, shapes.sizes(output), strict=True)):
            if isinstance(size, int) and isinstance(out, int):
                if out < size:
                    raise unsupported(op, f"output_shape {out} of axis {d} is below {size}")
            elif not shapes.same(size, out):
                holds = shapes.equal(shapes.max(size, out), out)
                check(rewriter, op, holds, f"output_shape holds axis {d}")
        fill(rewriter, op, output, 0.0)
        x = buffer_of(rewriter, op.X)
        indices = buffer_of(rewriter, op.I)
        extents = [shapes.index(s) for s in inferred]
        total = shapes.index(shapes.product(inferred))
        message = f"{comment_for(op).data}: I is a position in the unpooled tensor"

        def scatter(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            raw = b.insert(memref.LoadOp.get(indices, at)).res
            flat = b.insert(arith.IndexCastOp(raw, IndexType())).result
            b.insert(CheckOp(b.insert(arith.CmpiOp(flat, total, "ult")).result, message))
            position: list[SSAValue] = []
            for size, extent in zip(reversed(inferred), reversed(extents), strict=True):
                if size == 1:
                    position.insert(0, index(b, 0))
                    continue
                position.insert(0, b.insert(arith.RemUIOp(flat, extent)).result)
                flat = b.insert(arith.DivUIOp(flat, extent)).result
            value = b.insert(memref.LoadOp.get(x, at)).res
            b.insert(memref.StoreOp.get(value, output, position))
            return []

        nest(builder_before(op), sizes, [], scatter)
        self.replace(rewriter, op, [output])
