"""Split: the input cut along `axis` into consecutive pieces, one per output.

The piece sizes come from the `split` input (a constant or computed at run
time; they must add up to the axis, checked at run time when not known),
from `num_outputs` (pieces of ceil(size / n), the last one smaller), or,
with neither, equal pieces (the axis must divide evenly). Each output is a
copy of its piece (`copy_window`: through an indexing map when the piece's
offset is known, else loaded at the offset computed at run time).
"""

from __future__ import annotations

from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    check,
    is_none,
    normalize_axis,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.tensor.data_movement import copy_window
from onnxc.lowering.convert_onnx_to_linalg.tensor.replication import counts
from onnxc.lowering.index_arith import Size


class SplitOpLowering(OnnxLowering[onnx.SplitOp]):
    """`onnx.Split` (see the module docstring); outputs are copies."""

    def rewrite(self, op: onnx.SplitOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.input)
        rank = len(sizes)
        if rank == 0:
            raise unsupported(op, "cannot split a scalar")
        axis = normalize_axis(op, op.attr("axis"), rank)
        parts = self._parts(op, rewriter, sizes[axis])
        source = buffer_of(rewriter, op.input)
        outputs = []
        offset: Size = 0
        for result, part in zip(op.outputs, parts, strict=True):
            piece = [part if d == axis else s for d, s in enumerate(sizes)]
            output = self.result_buffer(rewriter, result, piece)
            if not any(isinstance(s, int) and s == 0 for s in shapes.sizes(output)):
                first = [offset if d == axis else 0 for d in range(rank)]
                copy_window(rewriter, shapes, op, source, output, first, [1] * rank)
            outputs.append(output)
            offset = shapes.add(offset, part)
        self.replace(rewriter, op, outputs)

    def _parts(self, op: onnx.SplitOp, rewriter: PatternRewriter, dim: Size) -> list[Size]:
        shapes = self.shapes
        n = len(op.outputs)
        if not is_none(op.split):
            parts = counts(op, rewriter, shapes, op.split, "split")
            if len(parts) != n:
                raise unsupported(op, f"split has {len(parts)} sizes for {n} outputs")
            total: Size = 0
            for part in parts:
                total = shapes.add(total, part)
            self._require(op, rewriter, total, dim, "the split sizes add up to the axis")
            return parts
        number = op.attr("num_outputs")
        if number is not None and number != n:
            raise unsupported(op, f"num_outputs {number} for {n} outputs")
        if number is None:
            part = shapes.floordiv(dim, n)
            self._require(op, rewriter, shapes.mul(part, n), dim, "the axis splits evenly")
            return [part] * n
        chunk = shapes.ceildiv(dim, n)
        last = shapes.sub(dim, shapes.mul(chunk, n - 1))
        self._require(op, rewriter, shapes.max(last, 0), last, "the last piece is not negative")
        return [*[chunk] * (n - 1), last]

    def _require(
        self, op: onnx.SplitOp, rewriter: PatternRewriter, a: Size, b: Size, what: str
    ) -> None:
        """a == b: an error now when both are known, else checked at run time."""
        if isinstance(a, int) and isinstance(b, int):
            if a != b:
                raise unsupported(op, f"not {what} ({a} != {b})")
        elif not self.shapes.same(a, b):
            check(rewriter, op, self.shapes.equal(a, b), what)
