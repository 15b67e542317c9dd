"""Scaled dot-product attention: `onnx.Attention` (opsets 23 to 25, upgraded
to 25 by the importer).

Q, K and V are 4-D (batch, heads, sequence, head size), or 3-D (batch,
sequence, heads * head size) with `q_num_heads` and `kv_num_heads`: those are
seen as 4-D views (batch, sequence, heads, head size) and read through
permuted indexing maps, so nothing is transposed. With `past_key` and
`past_value` the keys and values are the cache followed by K and V along the
sequence (`present_key`, `present_value`). Grouped-query attention: query
head h reads key and value head h floordiv (q heads / kv heads).

Over a scores buffer (batch, q heads, q sequence, kv sequence):

1. a fill and a generic accumulating (Q sqrt(scale)) (K sqrt(scale))^T, the
   head size being the reduction;
2. in place: softcap, the attention bias added, softmax_precision
   (`qk_matmul_output` modes 0, 1 and 2 are written by this generic);
3. the softmax along the keys, guarded against fully masked rows
   (masked_softmax.py, which also builds the bias; mode 3 is written
   there);
4. a fill and a generic accumulating P V into Y, the keys being the
   reduction.

Precision follows onnx.reference, which the spec's function body matches:
sums accumulate in float for 16-bit types; values are rounded to the input
type where the reference rounds them (Q and K times sqrt(scale), the scores,
softcap, the biased logits, the probabilities before P V); the softmax runs
in the wider of the scores' accumulator type and softmax_precision's, each
of its steps rounded to softmax_precision (default: the input type).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, Float64Type, IntegerType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc import element_types
from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.attention.masked_softmax import (
    Bias,
    attention_bias,
    masked_softmax,
)
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    accumulator,
    accumulator_type,
    buffer_of,
    copy,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    require_equal,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.reduction.blocks import reduced_buffer
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, convert, rounded
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before
from onnxc.lowering.convert_onnx_to_linalg.tensor.data_movement import concatenate
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import view
from onnxc.lowering.index_arith import Size


@dataclass
class Heads:
    """Q, K, V or a cache as a 4-D buffer: `sizes` are (batch, heads,
    sequence, head size); `seq_major` says the buffer holds them as (batch,
    sequence, heads, head size) (the view of a 3-D input)."""

    buffer: SSAValue
    sizes: list[Size]
    seq_major: bool

    def at(self, b: AffineExpr, h: AffineExpr, s: AffineExpr, x: AffineExpr) -> AffineMap:
        """The map reading (batch b, head h, position s, element x) of the
        buffer, from 5 loops."""
        return AffineMap(5, 0, (b, s, h, x) if self.seq_major else (b, h, s, x))


def _wider(a: Attribute, b: Attribute) -> Attribute:
    assert isinstance(a, AnyFloat) and isinstance(b, AnyFloat)
    return b if b.bitwidth > a.bitwidth else a


class AttentionOpLowering(OnnxLowering[onnx.AttentionOp]):
    """`onnx.Attention`: see the module docstring. 4-D inputs take their head
    counts from their shapes (opset 23's q_num_heads and kv_num_heads are
    not read); head counts known only at run time must be equal (no
    grouping); past_key with nonpad_kv_seqlen, which the spec forbids, is an
    error."""

    def rewrite(self, op: onnx.AttentionOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        if len({len(shapes.sizes(v)) for v in (op.Q, op.K, op.V)}) != 1:
            raise unsupported(op, "Q, K and V must have the same rank")
        q = self._heads(op, rewriter, op.Q, op.attr("q_num_heads"), "Q")
        k = self._heads(op, rewriter, op.K, op.attr("kv_num_heads"), "K")
        v = self._heads(op, rewriter, op.V, op.attr("kv_num_heads"), "V")
        batch, heads, q_length, size = q.sizes
        require_sizes(
            op,
            rewriter,
            shapes,
            [k.sizes[0], k.sizes[3], v.sizes[0], v.sizes[1], v.sizes[2]],
            [batch, size, batch, k.sizes[1], k.sizes[2]],
            "K and V",
        )
        if is_none(op.past_key) != is_none(op.past_value):
            raise unsupported(op, "past_key and past_value must be given together")
        if not (is_none(op.past_key) or is_none(op.nonpad_kv_seqlen)):
            raise unsupported(op, "nonpad_kv_seqlen cannot be combined with past_key")
        past_length = 0 if is_none(op.past_key) else shapes.sizes(op.past_key)[2]
        keys = self._cache(op, rewriter, k, op.past_key, op.present_key)
        values = self._cache(op, rewriter, v, op.past_value, op.present_value)
        group = self._group(op, heads, keys.sizes[1])
        t1 = element_type(op.Q)
        precision = op.attr("softmax_precision")
        soft = t1 if precision is None else self._precision(op, precision)
        work = _wider(accumulator_type(t1), accumulator_type(soft))
        sizes = [batch, heads, q_length, keys.sizes[2]]
        bias = attention_bias(op, rewriter, shapes, work, sizes, past_length)
        mode = op.attr("qk_matmul_output_mode")
        if mode not in (0, 1, 2, 3):
            raise unsupported(op, f"qk_matmul_output_mode {mode}")
        qk = None if is_none(op.qk_matmul_output) else op.qk_matmul_output
        qk_output = None if qk is None else self.result_buffer(rewriter, qk, sizes)
        scores = reduced_buffer(rewriter, work, sizes)
        self._scores(op, rewriter, q, keys, group, scores)
        early = qk_output if mode < 3 else None
        self._logits(op, rewriter, scores, bias, soft, early, mode)
        late = qk_output if mode == 3 else None
        masked_softmax(rewriter, op, scores, bias, soft, sizes[:3], late)
        self.replace(
            rewriter,
            op,
            [
                self._output(op, rewriter, q, values, group, scores),
                None if is_none(op.present_key) else keys.buffer,
                None if is_none(op.present_value) else values.buffer,
                qk_output,
            ],
        )

    def _heads(
        self,
        op: onnx.AttentionOp,
        rewriter: PatternRewriter,
        value: SSAValue,
        heads: int | None,
        what: str,
    ) -> Heads:
        """Q, K or V as `Heads`: a 4-D input as it is, a 3-D one as a view
        splitting its hidden size into `heads` heads (which must divide it)."""
        shapes = self.shapes
        sizes = shapes.sizes(value)
        buffer = buffer_of(rewriter, value)
        if len(sizes) == 4:
            return Heads(buffer, sizes, False)
        if len(sizes) != 3:
            raise unsupported(op, "Q, K and V must be 3-D or 4-D")
        if heads is None or heads <= 0:
            raise unsupported(op, "3-D inputs need positive q_num_heads and kv_num_heads")
        batch, length, hidden = sizes
        size = shapes.floordiv(hidden, heads)
        whole = shapes.mul(size, heads)
        require_equal(rewriter, shapes, op, whole, hidden, f"{what} splits into {heads} heads")
        split = view(rewriter, shapes, op, buffer, [batch, length, heads, size])
        return Heads(split, [batch, heads, length, size], True)

    def _cache(
        self,
        op: onnx.AttentionOp,
        rewriter: PatternRewriter,
        current: Heads,
        past: SSAValue,
        present: SSAValue,
    ) -> Heads:
        """The keys (or values) attention reads: `current`, or, with a past,
        the past followed by `current` along the sequence, in a 4-D buffer
        that is the `present` output when it is asked for."""
        shapes = self.shapes
        batch, heads, length, size = current.sizes
        if is_none(past) and is_none(present):
            return current
        total = length
        if not is_none(past):
            past_sizes = shapes.sizes(past)
            if len(past_sizes) != 4:
                raise unsupported(op, "past_key and past_value must be 4-D")
            kept = [past_sizes[0], past_sizes[1], past_sizes[3]]
            require_sizes(op, rewriter, shapes, kept, [batch, heads, size], "the past")
            total = shapes.add(past_sizes[2], length)
        sizes = [batch, heads, total, size]
        element = element_type(current.buffer)
        if is_none(present):
            target = reduced_buffer(rewriter, element, sizes)
        else:
            target = self.result_buffer(rewriter, present, sizes)
        source = target if is_none(past) else reduced_buffer(rewriter, element, current.sizes)
        if current.seq_major or is_none(past):
            dims = [AffineDimExpr(d) for d in range(4)]
            order = (dims[0], dims[2], dims[1], dims[3]) if current.seq_major else tuple(dims)
            read = AffineMap(4, 0, order)
            copy(rewriter, op, current.buffer, source, read, identity_map(4))
        else:
            source = current.buffer
        if not is_none(past):
            inputs = [shapes.sizes(past), current.sizes]
            buffers = [buffer_of(rewriter, past), source]
            concatenate(rewriter, shapes, op, buffers, inputs, target, shapes.sizes(target), 2)
        return Heads(target, shapes.sizes(target), False)

    def _group(self, op: onnx.AttentionOp, heads: Size, kv_heads: Size) -> int:
        """How many query heads share a key/value head."""
        if self.shapes.same(heads, kv_heads):
            return 1
        if not (isinstance(heads, int) and isinstance(kv_heads, int)):
            raise unsupported(op, "head counts known only at run time must be equal")
        if kv_heads <= 0 or heads % kv_heads:
            raise unsupported(op, f"{heads} query heads do not group over {kv_heads} kv heads")
        return heads // kv_heads

    def _precision(self, op: onnx.AttentionOp, code: int) -> Attribute:
        row = element_types.by_onnx_code(code)
        if row is None or row.kind is not Kind.FLOAT:
            raise unsupported(op, f"softmax_precision {code} is not a float type")
        return row.ir_type

    def _scale(self, op: onnx.AttentionOp, size: Size) -> SSAValue:
        """sqrt(scale) (default 1 / sqrt(head size)) in Q's type, rounded to
        it."""
        t1 = element_type(op.Q)
        b = builder_before(op)
        scale = op.attr("scale")
        if scale is None and isinstance(size, int):
            scale = 1 / math.sqrt(size)
        if scale is not None:
            factor = math.sqrt(scale)
            row = element_types.row_of(t1)
            return constant(b, float(np.asarray(factor).astype(row.numpy_dtype)), t1)
        count = b.insert(arith.IndexCastOp(self.shapes.index(size), IntegerType(64))).result
        root = scalar.SQRT(b, scalar.SQRT(b, convert(b, count, Float64Type())))
        return convert(b, scalar.DIV(b, constant(b, 1.0, Float64Type()), root), t1)

    def _scores(
        self,
        op: onnx.AttentionOp,
        rewriter: PatternRewriter,
        q: Heads,
        keys: Heads,
        group: int,
        scores: SSAValue,
    ) -> None:
        """scores = (Q sqrt(scale)) (keys sqrt(scale))^T, over loops
        (batch, head, query, key, element)."""
        work = element_type(scores)
        t1 = element_type(q.buffer)
        factor = self._scale(op, q.sizes[3])
        fill(rewriter, op, scores, 0.0)
        b, h, i, j, x = (AffineDimExpr(d) for d in range(5))
        shared = h if group == 1 else h // group

        def body(builder: Builder, args: Sequence[SSAValue]) -> SSAValue:
            wide = convert(builder, factor, work)
            scaled = [
                rounded(builder, scalar.MUL(builder, convert(builder, a, work), wide), t1)
                for a in args[:2]
            ]
            return scalar.ADD(builder, args[2], scalar.MUL(builder, *scaled))

        generic(
            rewriter,
            op,
            [q.buffer, keys.buffer],
            [scores],
            [q.at(b, h, i, x), keys.at(b, shared, j, x), AffineMap(5, 0, (b, h, i, j))],
            [PARALLEL] * 4 + [REDUCTION],
            body,
        )

    def _logits(
        self,
        op: onnx.AttentionOp,
        rewriter: PatternRewriter,
        scores: SSAValue,
        bias: Bias,
        soft: Attribute,
        qk_output: SSAValue | None,
        mode: int,
    ) -> None:
        """In place: the scores rounded to Q's type, soft-capped, biased and
        rounded to softmax_precision; `qk_output` gets mode 0, 1 or 2's."""
        work = element_type(scores)
        t1 = element_type(op.Q)
        softcap = float(op.attr("softcap"))
        if t1 == work and soft == work and softcap <= 0 and not bias.present and not qk_output:
            return

        def body(b: Builder, args: Sequence[SSAValue]) -> Sequence[SSAValue]:
            stages = [rounded(b, args[0], t1)]
            if softcap > 0:
                cap = constant(b, softcap, work)
                tanh = scalar.TANH(b, scalar.DIV(b, stages[-1], cap))
                stages.append(rounded(b, scalar.MUL(b, cap, tanh), t1))
            else:
                stages.append(stages[-1])
            if bias.present:
                loop = [b.insert(IndexOp(d)).result for d in range(4)]
                stages.append(rounded(b, scalar.ADD(b, stages[-1], bias.at(b, loop)), t1))
            else:
                stages.append(stages[-1])
            # Every stage is rounded to t1 already.
            logits = stages[-1] if soft == t1 else rounded(b, stages[-1], soft)
            if qk_output is None:
                return [logits]
            return [logits, convert(b, stages[mode], t1)]

        outputs = [scores] if qk_output is None else [scores, qk_output]
        maps = [identity_map(4)] * len(outputs)
        generic(rewriter, op, [], outputs, maps, [PARALLEL] * 4, body)

    def _output(
        self,
        op: onnx.AttentionOp,
        rewriter: PatternRewriter,
        q: Heads,
        values: Heads,
        group: int,
        probabilities: SSAValue,
    ) -> SSAValue:
        """Y = P values, over loops (batch, head, query, element, key), in
        Q's layout; returns Y's buffer."""
        shapes = self.shapes
        batch, heads, q_length, _ = q.sizes
        size = values.sizes[3]
        if q.seq_major:
            y = self.result_buffer(rewriter, op.Y, [batch, q_length, shapes.mul(heads, size)])
            target = view(rewriter, shapes, op, y, [batch, q_length, heads, size])
        else:
            y = self.result_buffer(rewriter, op.Y, [batch, heads, q_length, size])
            target = y
        out = accumulator(rewriter, target, shapes.sizes(target))
        fill(rewriter, op, out.buffer, 0.0)
        t1 = element_type(op.Q)
        acc = element_type(out.buffer)
        b, h, i, x, j = (AffineDimExpr(d) for d in range(5))
        shared = h if group == 1 else h // group

        def body(builder: Builder, args: Sequence[SSAValue]) -> SSAValue:
            p = convert(builder, convert(builder, args[0], t1), acc)
            value = convert(builder, args[1], acc)
            return scalar.ADD(builder, args[2], scalar.MUL(builder, p, value))

        generic(
            rewriter,
            op,
            [probabilities, values.buffer],
            [out.buffer],
            [AffineMap(5, 0, (b, h, i, j)), values.at(b, shared, j, x), q.at(b, h, i, x)],
            [PARALLEL] * 4 + [REDUCTION],
            body,
        )
        out.finish(rewriter, op)
        return y
