"""Linear attention: `onnx.LinearAttention` (opset 27), a recurrence over
the tokens with a state per key/value head.

query, key and value are packed (batch, tokens, heads * head size) and seen
as 4-D views (batch, tokens, heads, head size); the state S is (batch, kv
heads, d_k, d_v), from past_state or zeros. For each token t, with the
update rule:

- linear: S += k_t (x) v_t
- gated: S = exp(g_t) S + k_t (x) v_t
- delta: S += beta_t k_t (x) (v_t - S^T k_t)
- gated_delta: S = exp(g_t) S, then as delta;

then o_t = scale q_t^T S for each query head sharing the kv head (query
head h reads kv head h floordiv (q heads / kv heads)). decay g is per head
(last dimension kv heads) or per key element (kv heads * d_k); beta per
head or one for all heads.

The work is sequential in the tokens, so it is explicit loops (scf_loops.py):
for each (batch, kv head), for each token, for each value column m: the
column S[:, m] decays and gives S^T k_t in a first pass over d_k (delta
rules), then is updated and read by the query heads in a second pass. As
onnx.reference, everything is computed in float; the output and
present_state are rounded to their types once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import Float64Type, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    accumulator,
    buffer_of,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    require_equal,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, convert
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index, nest
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import view
from onnxc.lowering.index_arith import Size

RULES = {
    "linear": (False, False),
    "gated": (True, False),
    "delta": (False, True),
    "gated_delta": (True, True),
}
"""update_rule -> (decays: needs decay, corrects by delta: needs beta)."""


Token = tuple[SSAValue, SSAValue, SSAValue]
"""(batch, kv head, token): where a step of the recurrence is."""

Gate = tuple[SSAValue, bool, bool]
"""decay or beta as a 4-D view, and whether it varies along its heads and
along its last axis."""


@dataclass
class Recurrence:
    """The loops of one LinearAttention over one (batch, kv head): the float
    state, the 4-D views of the inputs and the output, the gates, how many
    query heads share a kv head, and the scale."""

    state: SSAValue
    query: SSAValue
    key: SSAValue
    value: SSAValue
    decay: Gate | None
    beta: Gate | None
    output: SSAValue
    group: int
    scale: SSAValue
    steps: Size
    size_k: Size
    size_v: Size

    def head(self, b: Builder, outer: list[SSAValue]) -> list[SSAValue]:
        """Every token, in order, and every value column of each."""

        def token(b: Builder, t: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            def column(b: Builder, m: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                self.column(b, (outer[0], outer[1], t), m)
                return []

            for_range(b, 0, self.size_v, [], column)
            return []

        for_range(b, 0, self.steps, [], token)
        return []

    def load(self, b: Builder, buffer: SSAValue, at: Sequence[SSAValue]) -> SSAValue:
        wide = element_type(self.state)
        return convert(b, b.insert(memref.LoadOp.get(buffer, list(at))).res, wide)

    def gate(self, b: Builder, gate: Gate, at: Sequence[SSAValue]) -> SSAValue:
        """The gate at (batch, token, head, element)."""
        buffer, by_head, by_element = gate
        zero = index(b, 0)
        return self.load(
            b, buffer, [*at[:2], at[2] if by_head else zero, at[3] if by_element else zero]
        )

    def decayed(self, b: Builder, at: Token, d: SSAValue, m: SSAValue) -> SSAValue:
        """S[d, m], times exp(g[d]) with a decay."""
        n, h, t = at
        value = self.load(b, self.state, [n, h, d, m])
        if self.decay is None:
            return value
        return scalar.MUL(b, value, scalar.EXP(b, self.gate(b, self.decay, [n, t, h, d])))

    def column(self, b: Builder, at: Token, m: SSAValue) -> None:
        """Column m of the state at token t, and the outputs it gives."""
        n, h, t = at
        state, size_k = self.state, self.size_k
        zero = constant(b, 0.0, element_type(state))
        update = self.load(b, self.value, [n, t, h, m])
        if self.beta is not None:  # the delta rules

            def retrieve(b: Builder, d: SSAValue, found: list[SSAValue]) -> list[SSAValue]:
                value = self.decayed(b, at, d, m)
                b.insert(memref.StoreOp.get(value, state, [n, h, d, m]))
                key = self.load(b, self.key, [n, t, h, d])
                return [scalar.ADD(b, found[0], scalar.MUL(b, value, key))]

            (retrieved,) = for_range(b, 0, size_k, [zero], retrieve)
            rate = self.gate(b, self.beta, [n, t, h, index(b, 0)])
            update = scalar.MUL(b, rate, scalar.SUB(b, update, retrieved))
        first = b.insert(arith.MuliOp(h, index(b, self.group))).result
        queries = [b.insert(arith.AddiOp(first, index(b, r))).result for r in range(self.group)]

        def write(b: Builder, d: SSAValue, sums: list[SSAValue]) -> list[SSAValue]:
            if self.beta is not None:
                value = self.load(b, state, [n, h, d, m])
            else:
                value = self.decayed(b, at, d, m)
            key = self.load(b, self.key, [n, t, h, d])
            value = scalar.ADD(b, value, scalar.MUL(b, key, update))
            b.insert(memref.StoreOp.get(value, state, [n, h, d, m]))
            return [
                scalar.ADD(b, total, scalar.MUL(b, self.load(b, self.query, [n, t, r, d]), value))
                for r, total in zip(queries, sums, strict=True)
            ]

        sums = for_range(b, 0, size_k, [zero] * self.group, write)
        element = element_type(self.output)
        for r, total in zip(queries, sums, strict=True):
            result = convert(b, scalar.MUL(b, self.scale, total), element)
            b.insert(memref.StoreOp.get(result, self.output, [n, t, r, m]))


class LinearAttentionOpLowering(OnnxLowering[onnx.LinearAttentionOp]):
    """`onnx.LinearAttention`: see the module docstring. chunk_size is a
    tuning hint with no effect on the result."""

    def rewrite(self, op: onnx.LinearAttentionOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        rule = op.attr("update_rule")
        if rule not in RULES:
            raise unsupported(op, f"update_rule '{rule}'")
        gating, delta = RULES[rule]
        if gating == is_none(op.decay) or delta == is_none(op.beta):
            raise unsupported(op, f"update_rule '{rule}' with decay and beta given or not")
        q_heads, kv_heads = op.attr("q_num_heads"), op.attr("kv_num_heads")
        if q_heads <= 0 or kv_heads <= 0 or q_heads % kv_heads:
            raise unsupported(op, "q_num_heads must be a positive multiple of kv_num_heads")
        if any(len(shapes.sizes(v)) != 3 for v in (op.query, op.key, op.value)):
            raise unsupported(op, "query, key and value must be 3-D")
        batch, steps, _ = shapes.sizes(op.query)
        q = self._heads(op, rewriter, op.query, q_heads, None)
        k = self._heads(op, rewriter, op.key, kv_heads, q[1])
        v = self._heads(op, rewriter, op.value, kv_heads, None)
        size_k, size_v = q[1], v[1]
        state_sizes = [batch, kv_heads, size_k, size_v]
        present = self.result_buffer(rewriter, op.present_state, state_sizes)
        state = accumulator(rewriter, present, state_sizes)
        wide = element_type(state.buffer)
        if is_none(op.past_state):
            fill(rewriter, op, state.buffer, 0.0)
        else:
            past = shapes.sizes(op.past_state)
            require_sizes(op, rewriter, shapes, past, state_sizes, "past_state")
            generic(
                rewriter,
                op,
                [buffer_of(rewriter, op.past_state)],
                [state.buffer],
                [identity_map(4)] * 2,
                [PARALLEL] * 4,
                lambda b, args: convert(b, args[0], wide),
            )
        decay = None if is_none(op.decay) else self._gate(op, rewriter, op.decay, size_k)
        beta = None if is_none(op.beta) else self._gate(op, rewriter, op.beta, 1)
        output = self.result_buffer(
            rewriter, op.output, [batch, steps, shapes.mul(q_heads, size_v)]
        )
        out = view(rewriter, shapes, op, output, [batch, steps, q_heads, size_v])
        scale = self._scale(op, size_k, wide)
        recurrence = Recurrence(
            state.buffer,
            q[0],
            k[0],
            v[0],
            decay,
            beta,
            out,
            q_heads // kv_heads,
            scale,
            steps,
            size_k,
            size_v,
        )
        nest(builder_before(op), [batch, kv_heads], [], lambda b, at, _: recurrence.head(b, at))
        state.finish(rewriter, op)
        self.replace(rewriter, op, [output, present])

    def _heads(
        self,
        op: onnx.LinearAttentionOp,
        rewriter: PatternRewriter,
        value: SSAValue,
        heads: int,
        size: Size | None,
    ) -> tuple[SSAValue, Size]:
        """A packed input (batch, tokens, heads * head size) as a 4-D view,
        and its head size (`size` when given, else its hidden size divided
        by `heads`, which must divide it)."""
        shapes = self.shapes
        sizes = shapes.sizes(value)
        require_sizes(op, rewriter, shapes, sizes[:2], shapes.sizes(op.query)[:2], "inputs")
        if size is None:
            size = shapes.floordiv(sizes[2], heads)
        whole = shapes.mul(size, heads)
        require_equal(rewriter, shapes, op, whole, sizes[2], f"inputs split into {heads} heads")
        split = view(rewriter, shapes, op, buffer_of(rewriter, value), [*sizes[:2], heads, size])
        return split, size

    def _gate(
        self, op: onnx.LinearAttentionOp, rewriter: PatternRewriter, value: SSAValue, inner: Size
    ) -> tuple[SSAValue, bool, bool]:
        """decay (inner: d_k) or beta (inner: 1) as a 4-D view (batch, tokens,
        kv heads or 1, inner or 1), and whether it varies along its heads and
        along its inner axis."""
        shapes = self.shapes
        sizes = shapes.sizes(value)
        if len(sizes) != 3:
            raise unsupported(op, "decay and beta must be 3-D")
        require_sizes(op, rewriter, shapes, sizes[:2], shapes.sizes(op.query)[:2], "decay, beta")
        kv_heads: int = op.attr("kv_num_heads")
        last = sizes[2]
        if shapes.same(last, kv_heads):
            split = [kv_heads, 1]
        elif inner == 1 and shapes.same(last, 1):
            split = [1, 1]
        elif shapes.same(last, shapes.mul(kv_heads, inner)):
            split = [kv_heads, inner]
        else:
            raise unsupported(op, f"a decay or beta of last dimension {last} for {kv_heads} heads")
        gate = view(rewriter, shapes, op, buffer_of(rewriter, value), [*sizes[:2], *split])
        return gate, split[0] != 1, split[1] != 1

    def _scale(self, op: onnx.LinearAttentionOp, size: Size, wide: Attribute) -> SSAValue:
        """`scale`, or 1 / sqrt(d_k) when it is 0, in `wide`."""
        b = builder_before(op)
        scale = float(op.attr("scale"))
        if scale == 0.0 and isinstance(size, int):
            scale = 1 / math.sqrt(size)
        if scale != 0.0:
            return constant(b, scale, wide)
        count = b.insert(arith.IndexCastOp(self.shapes.index(size), IntegerType(64))).result
        root = scalar.SQRT(b, convert(b, count, Float64Type()))
        return convert(b, scalar.DIV(b, constant(b, 1.0, Float64Type()), root), wide)
