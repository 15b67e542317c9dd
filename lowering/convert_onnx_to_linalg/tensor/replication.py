"""Replication: Expand broadcasts its input to a shape, Tile repeats it.

Both take their target from a shape-carrying tensor (`shape`, `repeats`)
that may be a constant or computed at run time (`shape_elements`); a
negative element is an error at compile time or ONNXC_ERR_SHAPE at run time.
Expand is a broadcast copy (`broadcast_into`), so it reads through indexing
maps where the sizes tell how; Tile's output position i reads input position
`i mod size` along each repeated axis.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    broadcast_into,
    broadcast_sizes,
    buffer_of,
    check,
    generic,
    identity_map,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size


def counts(
    op: onnx.OnnxOp, rewriter: PatternRewriter, shapes: Shapes, value: SSAValue, what: str
) -> list[Size]:
    """The elements of a 1-D tensor of sizes, each checked to be 0 or more
    (at compile time when known, else at run time)."""
    elements = shape_elements(op, rewriter, shapes, value)
    for k, size in enumerate(elements):
        if isinstance(size, int) and size < 0:
            raise unsupported(op, f"{what}[{k}] is {size}; sizes are 0 or more")
        if not isinstance(size, int):
            fits = shapes.equal(shapes.max(size, 0), size)
            check(rewriter, op, fits, f"{what}[{k}] >= 0")
    return elements


class ExpandOpLowering(OnnxLowering[onnx.ExpandOp]):
    """`onnx.Expand`: the input broadcast (numpy rules) with the `shape`
    tensor; each of the shape's sizes must be 1 or the result's."""

    def rewrite(self, op: onnx.ExpandOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        in_sizes = shapes.sizes(op.input)
        target = counts(op, rewriter, shapes, op.shape, "shape")
        rank = max(len(in_sizes), len(target))
        computed = broadcast_sizes(shapes, [in_sizes, target], rank)
        output = self.result_buffer(rewriter, op.output, computed)
        out_sizes = shapes.sizes(output)
        for k, size in enumerate(target):
            out = out_sizes[rank - len(target) + k]
            if shapes.same(size, out) or size == 1:
                continue
            if isinstance(size, int) and isinstance(out, int):
                raise unsupported(op, f"shape[{k}] = {size} does not broadcast to {out}")
            fits = shapes.either(shapes.equal(size, 1), shapes.equal(size, out))
            check(rewriter, op, fits, f"shape[{k}] broadcasts")
        broadcast_into(rewriter, shapes, op, lambda _, args: args[0], [op.input], output)
        self.replace(rewriter, op, [output])


class TileOpLowering(OnnxLowering[onnx.TileOp]):
    """`onnx.Tile`: `repeats[d]` copies of the input along each axis d."""

    def rewrite(self, op: onnx.TileOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        in_sizes = shapes.sizes(op.input)
        repeats = counts(op, rewriter, shapes, op.repeats, "repeats")
        if len(repeats) != len(in_sizes):
            raise unsupported(
                op, f"repeats has {len(repeats)} elements for an input of rank {len(in_sizes)}"
            )
        # saturating: a product too large fails the result's element-count check
        limit = shapes.limits.elements + 1
        computed = [
            shapes.saturating_product([size, r], limit)
            for size, r in zip(in_sizes, repeats, strict=True)
        ]
        output = self.result_buffer(rewriter, op.output, computed)
        source = buffer_of(rewriter, op.input)
        rank = len(in_sizes)
        wraps = [not (r == 1 or size == 1) for size, r in zip(in_sizes, repeats, strict=True)]
        # Sizes used in the body are built here, before the generic.
        sizes = [
            shapes.index(size) if wrap else None for size, wrap in zip(in_sizes, wraps, strict=True)
        ]

        def body(b: Builder, _: Sequence[SSAValue]) -> SSAValue:
            indices: list[SSAValue] = []
            for d in range(rank):
                if in_sizes[d] == 1:
                    indices.append(
                        b.insert(arith.ConstantOp.from_int_and_width(0, IndexType())).result
                    )
                    continue
                index = b.insert(IndexOp(d)).result
                size = sizes[d]
                indices.append(b.insert(arith.RemSIOp(index, size)).result if size else index)
            return b.insert(memref.LoadOp.get(source, indices)).res

        generic(rewriter, op, [], [output], [identity_map(rank)], [PARALLEL] * rank, body)
        self.replace(rewriter, op, [output])
