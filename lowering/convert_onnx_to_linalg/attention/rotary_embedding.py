"""Rotary positional embeddings: `onnx.RotaryEmbedding` (opset 23).

X is 4-D (batch, heads, sequence, head size), or 3-D (batch, sequence,
heads * head size) with `num_heads`, seen as a 4-D view (batch, sequence,
heads, head size). The first `rotary_embedding_dim` elements of each head
(default: all) are rotated in pairs, the others copied: element k of the
first half pairs with element k of the second half, or, `interleaved`,
element 2k with 2k + 1; a pair (x1, x2) becomes (cos x1 - sin x2,
sin x1 + cos x2) with cos and sin at (position, k) of the caches, the
position being position_ids[batch, sequence] (checked in range, negative
counting from the end) or, without position_ids, the caches being indexed
by (batch, sequence) themselves.

One generic over the output: each element loads its partner, and its cos
and sin, in the body; 16-bit floats are computed in float and rounded once.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    identity_map,
    indexed_generic,
    is_none,
    require_equal,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.elementwise.logic import select
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import choose, index
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import position_in, require_sizes
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import view
from onnxc.lowering.index_arith import Size


class RotaryEmbeddingOpLowering(OnnxLowering[onnx.RotaryEmbeddingOp]):
    """`onnx.RotaryEmbedding`: see the module docstring."""

    def rewrite(self, op: onnx.RotaryEmbeddingOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.X)
        x = buffer_of(rewriter, op.X)
        result = self.result_buffer(rewriter, op.Y, sizes)
        output = result
        if len(sizes) == 4:
            batch, _, length, size = sizes
            sequence_axis = 2
        elif len(sizes) == 3:
            heads = op.attr("num_heads")
            if heads is None or heads <= 0:
                raise unsupported(op, "a 3-D input needs a positive num_heads")
            batch, length, hidden = sizes
            size = shapes.floordiv(hidden, heads)
            require_equal(rewriter, shapes, op, shapes.mul(size, heads), hidden, "heads split X")
            split = [batch, length, heads, size]
            x = view(rewriter, shapes, op, x, split)
            output = view(rewriter, shapes, op, result, split)
            sequence_axis = 1
        else:
            raise unsupported(op, "X must be 3-D or 4-D")
        rotated: Size = op.attr("rotary_embedding_dim") or size
        half = shapes.floordiv(rotated, 2)
        even = shapes.mul(half, 2)
        require_equal(rewriter, shapes, op, even, rotated, "rotary_embedding_dim is even")
        fits = shapes.min(rotated, size)
        require_equal(rewriter, shapes, op, fits, rotated, "rotary_embedding_dim fits the heads")
        cache = shapes.sizes(op.cos_cache)
        require_sizes(op, rewriter, shapes, shapes.sizes(op.sin_cache), cache, "sin_cache")
        ids = None if is_none(op.position_ids) else buffer_of(rewriter, op.position_ids)
        if ids is not None and len(shapes.sizes(op.position_ids)) != 2:
            raise unsupported(op, "position_ids must be 2-D (batch, sequence)")
        rows = [batch, length] if ids is None else [shapes.sizes(op.position_ids)[0]]
        if len(cache) != len(rows) + 1:
            raise unsupported(op, f"the caches must be {len(rows) + 1}-D")
        if ids is None:
            require_sizes(op, rewriter, shapes, cache, [*rows, half], "the caches")
        else:
            ids_sizes = shapes.sizes(op.position_ids)
            require_sizes(op, rewriter, shapes, ids_sizes, [batch, length], "position_ids")
            require_sizes(op, rewriter, shapes, cache[1:], [half], "the caches")
        cos, sin = buffer_of(rewriter, op.cos_cache), buffer_of(rewriter, op.sin_cache)
        interleaved = bool(op.attr("interleaved"))
        half_index, rotated_index = shapes.index(half), shapes.index(rotated)
        positions = shapes.index(cache[0])

        def rotate(b: Builder, at: list[SSAValue], value: SSAValue) -> SSAValue:
            element = at[3]
            if interleaved:
                pair = b.insert(arith.ShRUIOp(element, index(b, 1))).result
                parity = b.insert(arith.RemUIOp(element, index(b, 2))).result
                first = b.insert(arith.CmpiOp(parity, index(b, 0), "eq")).result
                step = index(b, 1)
            else:
                first = b.insert(arith.CmpiOp(element, half_index, "slt")).result
                step = half_index
                later = b.insert(arith.SubiOp(element, half_index)).result
                pair = b.insert(arith.SelectOp(first, element, later)).result
            forward = b.insert(arith.AddiOp(element, step)).result
            backward = b.insert(arith.SubiOp(element, step)).result
            partner = b.insert(arith.SelectOp(first, forward, backward)).result
            other = b.insert(memref.LoadOp.get(x, [*at[:3], partner])).res
            if ids is None:
                row = [at[0], at[sequence_axis]]
            else:
                raw = b.insert(memref.LoadOp.get(ids, [at[0], at[sequence_axis]])).res
                row = [position_in(b, op, raw, positions, "position id")]
            c = b.insert(memref.LoadOp.get(cos, [*row, pair])).res
            s = b.insert(memref.LoadOp.get(sin, [*row, pair])).res
            # (x1, x2) is (value, other) for the first of a pair, else (other, value).
            kept, turned = scalar.MUL(b, c, value), scalar.MUL(b, s, other)
            real, imaginary = scalar.SUB(b, kept, turned), scalar.ADD(b, turned, kept)
            return select(b, first, real, imaginary)

        def body(b: Builder, at: list[SSAValue], args: Sequence[SSAValue]) -> SSAValue:
            if shapes.same(rotated, size):
                return rotate(b, at, args[0])
            inside = b.insert(arith.CmpiOp(at[3], rotated_index, "slt")).result
            return choose(b, inside, lambda t: rotate(t, at, args[0]), lambda _: args[0])

        indexed_generic(rewriter, op, output, body, [x], [identity_map(4)])
        self.replace(rewriter, op, [result])
