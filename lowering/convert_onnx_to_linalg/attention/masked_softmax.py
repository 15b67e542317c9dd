"""The softmax of `onnx.Attention` (attention.py) over its scores (batch,
q heads, q sequence, kv sequence), and the attention bias it masks with.

The bias (what `attn_mask`, `is_causal`, the sliding window and
`nonpad_kv_seqlen` add to the scores) is never stored: the generics over the
scores compute it at each position (`Bias.at`), from the mask (loaded,
broadcast to the scores) and the position itself. The softmax is softmax.py's
(a max-reduction, exp(x - max) in place, an add-reduction, an in-place
division), guarded as the spec asks: a row whose maximum is -inf gives 0, a
row whose bias is -inf everywhere (fully masked) gives 0, whatever its
scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    broadcast_indices,
    broadcast_reads,
    buffer_of,
    check,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.elementwise.logic import select
from onnxc.lowering.convert_onnx_to_linalg.reduction.blocks import (
    accumulate,
    reduced_buffer,
    reduced_map,
    reduction_iterators,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, convert, rounded
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes
from onnxc.lowering.index_arith import Size

NEG_INF = float("-inf")


@dataclass
class Bias:
    """The additive attention bias at a position (batch, q head, query i,
    key j) of the scores, as onnx.reference builds it: `attn_mask` (bool: 0
    where true, -inf where false; numbers: converted and added), broadcast
    to the scores and padded with -inf past its last dimension; plus -inf
    where the position is not allowed: a causal frontier j <= p, a sliding
    window p - left <= j <= p + right (p = i + offset), keys at or past
    nonpad_kv_seqlen. The offset of the query block is the past length, or
    nonpad_kv_seqlen[batch] - q sequence with an external cache."""

    shapes: Shapes
    work: Attribute
    mask: SSAValue | None
    mask_sizes: list[Size]
    ambiguous: list[bool]
    """Leading mask axes whose broadcasting only the run-time sizes tell."""
    padded: bool
    causal: bool
    left: int
    right: int
    offset: Size
    nonpad: SSAValue | None
    q_length: Size

    @property
    def present(self) -> bool:
        return self.mask is not None or self.restricts

    @property
    def restricts(self) -> bool:
        windowed = self.left >= 0 or self.right >= 0
        return self.causal or windowed or self.nonpad is not None

    def at(self, b: Builder, loop: Sequence[SSAValue]) -> SSAValue:
        """The bias at the position `loop` (four indices), in `work`."""
        value = self._mask(b, loop) if self.mask is not None else None
        if not self.restricts:
            assert value is not None
            return value
        blocked = select(
            b,
            self._allowed(b, loop),
            constant(b, 0.0, self.work),
            constant(b, NEG_INF, self.work),
        )
        return blocked if value is None else scalar.ADD(b, value, blocked)

    def _mask(self, b: Builder, loop: Sequence[SSAValue]) -> SSAValue:
        assert self.mask is not None
        length = self.mask_sizes[-1]
        if length == 0:
            return constant(b, NEG_INF, self.work)
        lead = self.mask_sizes[:-1]
        indices = broadcast_indices(b, self.shapes, lead, self.ambiguous, loop[:3])
        key = loop[3]
        last = self.shapes.index(length)
        if self.padded:
            final = self.shapes.index(self.shapes.sub(length, 1))
            indices.append(b.insert(arith.MinSIOp(key, final)).result)
        else:
            indices.append(key)
        element = b.insert(memref.LoadOp.get(self.mask, indices)).res
        if scalar.kind(element.type) is Kind.BOOL:
            zero, blocked = constant(b, 0.0, self.work), constant(b, NEG_INF, self.work)
            value = select(b, element, zero, blocked)
        else:
            value = convert(b, element, self.work)
        if not self.padded:
            return value
        inside = b.insert(arith.CmpiOp(key, last, "slt")).result
        return select(b, inside, value, constant(b, NEG_INF, self.work))

    def _allowed(self, b: Builder, loop: Sequence[SSAValue]) -> SSAValue:
        batch, _, query, key = loop
        conditions: list[SSAValue] = []
        offset = None if self.offset == 0 else self.shapes.index(self.offset)
        if self.nonpad is not None:
            loaded = b.insert(memref.LoadOp.get(self.nonpad, [batch])).res
            valid = b.insert(arith.IndexCastOp(loaded, IndexType())).result
            conditions.append(b.insert(arith.CmpiOp(key, valid, "slt")).result)
            offset = b.insert(arith.SubiOp(valid, self.shapes.index(self.q_length))).result
        position = query
        if offset is not None:
            position = b.insert(arith.AddiOp(query, offset)).result

        def at_most(x: SSAValue, y: SSAValue) -> None:
            conditions.append(b.insert(arith.CmpiOp(x, y, "sle")).result)

        if self.causal:
            at_most(key, position)
        if self.left >= 0:
            at_most(b.insert(arith.SubiOp(position, index(b, self.left))).result, key)
        if self.right >= 0:
            at_most(key, b.insert(arith.AddiOp(position, index(b, self.right))).result)
        return scalar.AND(b, *conditions)


def attention_bias(
    op: onnx.AttentionOp,
    rewriter: PatternRewriter,
    shapes: Shapes,
    work: Attribute,
    sizes: list[Size],
    offset: Size,
) -> Bias:
    """The `Bias` of `op` on scores of `sizes`, its sizes checked."""
    mask: SSAValue | None = None
    mask_sizes: list[Size] = []
    ambiguous: list[bool] = []
    padded = False
    if not is_none(op.attn_mask):
        mask_sizes = shapes.sizes(op.attn_mask)
        if not 1 <= len(mask_sizes) <= 4:
            raise unsupported(op, "attn_mask must have 1 to 4 dimensions")
        lead = mask_sizes[:-1]
        reads = broadcast_reads(rewriter, shapes, op, "attn_mask", lead, sizes[:3])
        ambiguous = [r is None for r in reads]
        length, keys = mask_sizes[-1], sizes[3]
        if isinstance(length, int) and isinstance(keys, int) and length > keys:
            raise unsupported(op, f"attn_mask has {length} keys, more than {keys}")
        padded = not shapes.same(length, keys)
        if padded and not (isinstance(length, int) and isinstance(keys, int)):
            fits = shapes.both(shapes.less(0, length), shapes.less(shapes.sub(length, 1), keys))
            check(rewriter, op, fits, "attn_mask has 1 to kv_sequence_length keys")
        mask = buffer_of(rewriter, op.attn_mask)
    nonpad: SSAValue | None = None
    if not is_none(op.nonpad_kv_seqlen):
        nonpad_sizes = shapes.sizes(op.nonpad_kv_seqlen)
        if len(nonpad_sizes) != 1:
            raise unsupported(op, "nonpad_kv_seqlen must be 1-D")
        require_sizes(op, rewriter, shapes, nonpad_sizes, sizes[:1], "nonpad_kv_seqlen")
        nonpad = buffer_of(rewriter, op.nonpad_kv_seqlen)
    left, right = op.attr("left_window_size"), op.attr("right_window_size")
    if left < -1 or right < -1:
        raise unsupported(op, "window sizes must be -1 or nonnegative")
    causal = bool(op.attr("is_causal"))
    return Bias(
        shapes,
        work,
        mask,
        mask_sizes,
        ambiguous,
        padded,
        causal,
        left,
        right,
        offset,
        nonpad,
        sizes[2],
    )


def masked_softmax(
    rewriter: PatternRewriter,
    op: onnx.AttentionOp,
    scores: SSAValue,
    bias: Bias,
    soft: Attribute,
    rows: list[Size],
    qk_output: SSAValue | None,
) -> None:
    """In place: the softmax of the logits along the keys, 0 on rows
    whose bias is -inf everywhere; `qk_output` gets it (mode 3). Each
    step's result (the shifted logits, their exponentials, the sums, the
    quotients) is rounded to `soft`, the sums accumulating in `work`."""
    work = element_type(scores)
    t1 = element_type(op.Q)
    along, reduced = identity_map(4), reduced_map(4, {3}, keepdims=False)
    iterators = reduction_iterators(4, {3})
    top = reduced_buffer(rewriter, work, rows)
    fill(rewriter, op, top, NEG_INF)
    maxima = [top]
    if bias.present:
        floor = reduced_buffer(rewriter, work, rows)
        fill(rewriter, op, floor, NEG_INF)
        maxima.append(floor)

    def maximum(b: Builder, args: Sequence[SSAValue]) -> Sequence[SSAValue]:
        found = [scalar.MAX(b, args[1], args[0])]
        if bias.present:
            loop = [b.insert(IndexOp(d)).result for d in range(4)]
            found.append(scalar.MAX(b, args[2], bias.at(b, loop)))
        return found

    maps = [along, *[reduced] * len(maxima)]
    generic(rewriter, op, [scores], maxima, maps, iterators, maximum)

    def exponential(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        most, logit = args
        empty = scalar.EQUAL(b, most, constant(b, NEG_INF, work))
        shift = select(b, empty, constant(b, 0.0, work), most)
        shifted = rounded(b, scalar.SUB(b, logit, shift), soft)
        return rounded(b, scalar.EXP(b, shifted), soft)

    generic(rewriter, op, [top], [scores], [reduced, along], [PARALLEL] * 4, exponential)
    total = reduced_buffer(rewriter, work, rows)
    fill(rewriter, op, total, 0.0)
    generic(rewriter, op, [scores], [total], [along, reduced], iterators, accumulate(scalar.ADD))

    def normalized(b: Builder, args: Sequence[SSAValue]) -> Sequence[SSAValue]:
        zero, one = constant(b, 0.0, work), constant(b, 1.0, work)
        sum_, value = rounded(b, args[0], soft), args[len(maxima)]
        divisor = select(b, scalar.EQUAL(b, sum_, zero), one, sum_)
        probability = rounded(b, scalar.DIV(b, value, divisor), soft)
        if bias.present:
            masked = scalar.EQUAL(b, args[1], constant(b, NEG_INF, work))
            probability = select(b, masked, zero, probability)
        if qk_output is None:
            return [probability]
        return [probability, convert(b, probability, t1)]

    inputs = [total, *maxima[1:]]
    outputs = [scores] if qk_output is None else [scores, qk_output]
    maps = [reduced] * len(inputs) + [along] * len(outputs)
    generic(rewriter, op, inputs, outputs, maps, [PARALLEL] * 4, normalized)
