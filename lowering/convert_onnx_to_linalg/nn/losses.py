"""Losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss.

Both pick, at each position [n, d1, ..., dk] of the target, the element of
the (log-)probabilities [N, C, d1, ..., dk] at the target's class, weighted
by `weight[class]` (1 without weights): loss = -input[n, target, d...] *
weight[target]. A target equal to `ignore_index` contributes a loss of 0 and
a weight of 0; any other target outside [0, C) stops the model with
ONNXC_ERR_SHAPE. `reduction` none keeps the losses, sum adds them, mean
divides their sum by the sum of the weights of the targets not ignored (the
spec's rule; onnx.reference, without weights and with ignore_index -1,
divides by the count of every target instead). 16-bit floats are computed
in float and rounded once.

SoftmaxCrossEntropyLoss is the same loss of the log-softmax of its scores
along the classes (softmax.py's `log_softmax_into`), which it also gives as
its optional second output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, MemRefType, TensorType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import CheckOp
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    accumulator_type,
    alloc,
    buffer_of,
    comment_for,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.reduction.blocks import reduced_buffer
from onnxc.lowering.convert_onnx_to_linalg.reduction.softmax import axis_of, log_softmax_into
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes

REDUCTIONS = ("none", "sum", "mean")


def _scalar_buffer(rewriter: PatternRewriter, element: Attribute) -> SSAValue:
    return alloc(rewriter, MemRefType(element, []), [])


def negative_log_likelihood(
    lowering: OnnxLowering[Any],
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    log_prob: SSAValue,
    target: SSAValue,
    weight: SSAValue,
    result: SSAValue,
) -> SSAValue:
    """The loss of `op` (see the module docstring) of the buffer `log_prob`
    [N, C, d...] (of the output's type or its accumulator type), the tensors
    `target` [N, d...] and `weight` [C] (or none), into a new buffer for
    `result`."""
    shapes = lowering.shapes
    sizes = shapes.sizes(log_prob)
    target_sizes = shapes.sizes(target)
    if len(sizes) < 2 or len(target_sizes) != len(sizes) - 1:
        raise unsupported(op, "input must be [N, C, d...] and target [N, d...]")
    kept = [sizes[0], *sizes[2:]]
    require_sizes(op, rewriter, shapes, target_sizes, kept, "target")
    weights = None if is_none(weight) else buffer_of(rewriter, weight)
    if weights is not None:
        require_sizes(op, rewriter, shapes, shapes.sizes(weight), sizes[1:2], "weight")
    reduction = op.attr("reduction")
    if reduction not in REDUCTIONS:
        raise unsupported(op, f"reduction '{reduction}'")
    element = element_type(result)
    wide = accumulator_type(element)
    classes = shapes.index(sizes[1])
    picked = _Picked(op, log_prob, weights, op.attr("ignore_index"), classes, wide)
    targets = buffer_of(rewriter, target)
    rank = len(target_sizes)
    if reduction == "none":
        output = lowering.result_buffer(rewriter, result, target_sizes)

        def each(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            loss, _ = picked.build(b, args[0], rank)
            return scalar.convert(b, loss, element)

        maps = [identity_map(rank)] * 2
        generic(rewriter, op, [targets], [output], maps, [PARALLEL] * rank, each)
        return output
    total = _scalar_buffer(rewriter, wide)
    counted = _scalar_buffer(rewriter, wide)
    for buffer in (total, counted):
        fill(rewriter, op, buffer, 0.0)

    def accumulate(b: Builder, args: Sequence[SSAValue]) -> Sequence[SSAValue]:
        loss, w = picked.build(b, args[0], rank)
        return [scalar.ADD(b, args[1], loss), scalar.ADD(b, args[2], w)]

    point = AffineMap(rank, 0, ())
    maps = [identity_map(rank), point, point]
    generic(rewriter, op, [targets], [total, counted], maps, [REDUCTION] * rank, accumulate)
    output = lowering.result_buffer(rewriter, result, [])
    mean = reduction == "mean"

    def finish(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        value = scalar.DIV(b, args[0], args[1]) if mean else args[0]
        return scalar.convert(b, value, element)

    none = AffineMap(0, 0, ())
    generic(rewriter, op, [total, counted], [output], [none] * 3, [], finish)
    return output


class _Picked:
    """Builds, inside a generic over the target's positions, the loss at
    one position and the weight it counts with."""

    def __init__(
        self,
        op: onnx.OnnxOp,
        log_prob: SSAValue,
        weights: SSAValue | None,
        ignore_index: int | None,
        classes: SSAValue,
        wide: Attribute,
    ) -> None:
        self.op = op
        self.log_prob = log_prob
        self.weights = weights
        self.ignore_index = ignore_index
        self.classes = classes
        self.wide = wide

    def build(self, b: Builder, label: SSAValue, rank: int) -> tuple[SSAValue, SSAValue]:
        position = [b.insert(IndexOp(d)).result for d in range(rank)]
        wanted = b.insert(arith.IndexCastOp(label, IndexType())).result
        inside = b.insert(arith.CmpiOp(wanted, self.classes, "ult")).result
        ignored = None
        if self.ignore_index is not None:
            skip = scalar.constant(b, self.ignore_index, label.type)
            ignored = scalar.EQUAL(b, label, skip)
            inside = b.insert(arith.OrIOp(inside, ignored)).result
            wanted = b.insert(arith.SelectOp(ignored, index(b, 0), wanted)).result
        message = f"{comment_for(self.op).data}: target is a class index or ignore_index"
        b.insert(CheckOp(inside, message))
        where = [position[0], wanted, *position[1:]]
        (x,) = widened(b, [b.insert(memref.LoadOp.get(self.log_prob, where)).res], self.wide)
        loss = scalar.NEG(b, x)
        if self.weights is None:
            w = scalar.constant(b, 1.0, self.wide)
        else:
            (w,) = widened(b, [b.insert(memref.LoadOp.get(self.weights, [wanted])).res], self.wide)
            loss = scalar.MUL(b, loss, w)
        if ignored is not None:
            zero = scalar.constant(b, 0.0, self.wide)
            loss = b.insert(arith.SelectOp(ignored, zero, loss)).result
            w = b.insert(arith.SelectOp(ignored, zero, w)).result
        return loss, w


class NegativeLogLikelihoodLossOpLowering(OnnxLowering[onnx.NegativeLogLikelihoodLossOp]):
    """`onnx.NegativeLogLikelihoodLoss` (see the module docstring): one
    generic over the target's positions, parallel into the losses
    (reduction none) or reducing into a sum of losses and a sum of weights,
    divided by a last 0-d generic (mean)."""

    def rewrite(self, op: onnx.NegativeLogLikelihoodLossOp, rewriter: PatternRewriter) -> None:
        log_prob = buffer_of(rewriter, op.input)
        loss = negative_log_likelihood(self, rewriter, op, log_prob, op.target, op.weight, op.loss)
        self.replace(rewriter, op, [loss])


class SoftmaxCrossEntropyLossOpLowering(OnnxLowering[onnx.SoftmaxCrossEntropyLossOp]):
    """`onnx.SoftmaxCrossEntropyLoss`: the log-softmax of the scores along
    axis 1 (into the log_prob output when it is used, else a temporary, of
    the accumulator type for 16-bit floats), then the negative log
    likelihood loss of it."""

    def rewrite(self, op: onnx.SoftmaxCrossEntropyLossOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.scores)
        if len(sizes) < 2:
            raise unsupported(op, "scores must be [N, C, d...]")
        scores = buffer_of(rewriter, op.scores)
        wide = accumulator_type(element_type(scores))
        wanted = isinstance(op.log_prob.type, TensorType) and bool(op.log_prob.uses)
        if wanted:
            log_prob = self.result_buffer(rewriter, op.log_prob, sizes)
        else:
            log_prob = reduced_buffer(rewriter, wide, sizes)
        along = axis_of(self, scores, 1, log_prob)
        computed = along.accumulator(rewriter)
        log_softmax_into(rewriter, op, along, computed.buffer)
        loss = negative_log_likelihood(
            self, rewriter, op, computed.buffer, op.labels, op.weights, op.output
        )
        computed.finish(rewriter, op)
        self.replace(rewriter, op, [loss, log_prob if wanted else None])
