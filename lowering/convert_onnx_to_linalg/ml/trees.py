"""Tree ensembles of the ai.onnx.ml domain: `onnx_ml.TreeEnsembleRegressor`,
`onnx_ml.TreeEnsembleClassifier` (version 3, what skl2onnx emits) and
`onnx_ml.TreeEnsemble` (ml opset 5: set membership, aggregate functions).

Table-driven: the nodes become constant arrays (`forest.py`) walked a
fixed number of steps per tree (`tree_walk.py`); this module decides the
types and finishes each sample's row of scores as onnxruntime does
(`tree_ensemble_aggregator.h`): SUM, AVERAGE (divided by the number of
trees), MIN, MAX, plus base values, then the post transform
(`scores.py`); with several targets or classes, one no leaf scored (nor,
for a classifier, a base value) is written as 0, as onnxruntime reads it.
Comparisons are in X's type for float and double (double where the
thresholds are), in float for integer X; scores accumulate in float (double
when the weights are double).
"""

from __future__ import annotations

from typing import Any

from xdsl.builder import Builder
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx, onnx_ml
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    element_type,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.ml import forest as ml_forest
from onnxc.lowering.convert_onnx_to_linalg.ml import scores as ml_scores
from onnxc.lowering.convert_onnx_to_linalg.ml.scores import F32, F64, I1
from onnxc.lowering.convert_onnx_to_linalg.ml.tree_walk import Ensemble, walk_ensemble

AGGREGATES = ("AVERAGE", "SUM", "MIN", "MAX")
"""Aggregate functions, numbered as TreeEnsemble's `aggregate_function`."""


def _base_values(op: onnx.OnnxOp, count: int) -> list[float] | None:
    """The base values, when there is one per target (as onnxruntime uses
    them), None when there are none."""
    values = ml_forest.float_values(op, "base_values")
    if not values:
        return None
    if len(values) != count:
        raise unsupported(op, f"{len(values)} base values for {count} targets")
    return values


def _regression(
    lowering: OnnxLowering[Any],
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    ensemble: Ensemble,
    base: list[float] | None,
    output: SSAValue,
) -> None:
    """Lower a regression ensemble into a new buffer for `output` and replace `op`."""
    x = ml_scores.samples(lowering, op, rewriter)
    y = lowering.result_buffer(rewriter, output, [x.n, ensemble.targets])
    name = ml_scores.transform_name(op)
    out_type = element_type(output)
    trees = len(ensemble.forest.roots)

    def finish(b: Builder, row: SSAValue, values: list[SSAValue], flags: list[SSAValue]) -> None:
        t = values[0].type
        done: list[SSAValue] = []
        for k, value in enumerate(values):
            if ensemble.aggregate == "AVERAGE":
                value = scalar.DIV(b, value, scalar.constant(b, trees, t))
            elif ensemble.aggregate in ("MIN", "MAX") and len(values) == 1:
                value = ml_scores.select(b, flags[k], value, scalar.constant(b, 0, t))
            if base is not None:
                value = scalar.ADD(b, value, scalar.constant(b, base[k], t))
            if len(values) > 1:  # onnxruntime writes 0 for a target no leaf scored
                value = ml_scores.select(b, flags[k], value, scalar.constant(b, 0, t))
            done.append(value)
        done = ml_scores.transformed(b, name, done)
        ml_scores.store_row(b, [scalar.convert(b, v, out_type) for v in done], y, row)

    walk_ensemble(lowering, op, rewriter, x, ensemble, finish)
    lowering.replace(rewriter, op, [y])


def _version_3(op: onnx.OnnxOp, prefix: str, targets: int, aggregate: str) -> Ensemble:
    x_type = element_type(op.operands[0])
    wide = ml_forest.doubles(op, "nodes_values") or x_type == F64
    accumulate = F64 if ml_forest.doubles(op, f"{prefix}_weights") else F32
    forest = ml_forest.from_version_3(op, prefix)
    return Ensemble(forest, F64 if wide else F32, accumulate, targets, aggregate)


class TreeEnsembleRegressorOpLowering(OnnxLowering[onnx_ml.TreeEnsembleRegressorOp]):
    """`onnx_ml.TreeEnsembleRegressor`: Y[N, n_targets] (float), aggregated
    by `aggregate_function` (SUM, AVERAGE, MIN, MAX) plus `base_values`,
    then post-transformed."""

    def rewrite(self, op: onnx_ml.TreeEnsembleRegressorOp, rewriter: PatternRewriter) -> None:
        targets = int(op.attr("n_targets") or 1)
        aggregate = str(op.attr("aggregate_function"))
        if aggregate not in AGGREGATES:
            raise unsupported(op, f"aggregate_function {aggregate}")
        ensemble = _version_3(op, "target", targets, aggregate)
        _regression(self, op, rewriter, ensemble, _base_values(op, targets), op.Y)


class TreeEnsembleOpLowering(OnnxLowering[onnx_ml.TreeEnsembleOp]):
    """`onnx_ml.TreeEnsemble` (ml opset 5): Y[N, n_targets] in X's type;
    set membership nodes, aggregate functions AVERAGE, SUM, MIN, MAX, post
    transforms as numbered by the spec. Comparisons and sums are in X's type
    (float16 in float). Membership is equality with a member, as the spec and
    onnx.reference have it (onnxruntime truncates x for a set of integers:
    -2.97 is a member of {-2})."""

    def rewrite(self, op: onnx_ml.TreeEnsembleOp, rewriter: PatternRewriter) -> None:
        x_type = element_type(op.X)
        compare = F64 if x_type == F64 else F32
        aggregate = int(op.attr("aggregate_function"))
        if not 0 <= aggregate < len(AGGREGATES):
            raise unsupported(op, f"aggregate_function {aggregate}")
        targets = int(op.attr("n_targets"))
        forest = ml_forest.from_version_5(op)
        ensemble = Ensemble(forest, compare, compare, targets, AGGREGATES[aggregate])
        _regression(self, op, rewriter, ensemble, None, op.Y)


class TreeEnsembleClassifierOpLowering(OnnxLowering[onnx_ml.TreeEnsembleClassifierOp]):
    """`onnx_ml.TreeEnsembleClassifier` (int64 or string labels): per-class sums of
    the leaves' weights plus `base_values`, the label of the first largest
    and the post-transformed scores. Two classes follow onnxruntime's binary
    rules: with weights for one class only (the binary case) the label is
    labels[1] where that class's score is > 0.5 (all weights positive) or
    > 0, and a missing second score is made from the first ([1 - p, p] with
    p = s or, with LOGISTIC, logistic(s); [-s, s] with mixed signs). Where
    onnxruntime leaves the second score unwritten (after PROBIT, or with a
    single base value), it is 0 here."""

    def rewrite(self, op: onnx_ml.TreeEnsembleClassifierOp, rewriter: PatternRewriter) -> None:
        labels = ml_scores.class_labels(rewriter, op, "classlabels_int64s", "classlabels_strings")
        classes = len(labels)
        if classes < 2:
            raise unsupported(op, f"{classes} class label(s)")
        ensemble = _version_3(op, "class", classes, "SUM")
        base = ml_forest.float_values(op, "base_values")
        name = ml_scores.transform_name(op)
        x = ml_scores.samples(self, op, rewriter)
        y = self.result_buffer(rewriter, op.Y, [x.n])
        z = self.result_buffer(rewriter, op.Z, [x.n, classes])
        weights = ml_forest.float_values(op, "class_weights")
        binary = classes == 2 and len(set(op.attr("class_ids") or [])) == 1
        positive = all(w >= 0 for w in weights)

        def finish(
            b: Builder, row: SSAValue, values: list[SSAValue], flags: list[SSAValue]
        ) -> None:
            values = [scalar.convert(b, v, F32) for v in values]
            if classes > 2:
                for k, value in enumerate(base[:classes]):
                    values[k] = scalar.ADD(b, values[k], ml_scores.const(b, value))
                    flags[k] = scalar.constant(b, 1, I1)
                label = labels.pick(b, ml_scores.first_max(b, values, flags))
                scores = ml_scores.transformed(b, name, values)
            else:
                label, scores = _binary(b, values, flags, base, labels, name, binary, positive)
            ml_scores.store(b, label, y, row)
            ml_scores.store_row(b, scores, z, row)

        walk_ensemble(self, op, rewriter, x, ensemble, finish)
        self.replace(rewriter, op, [y, z])


def _binary(
    b: Builder,
    values: list[SSAValue],
    flags: list[SSAValue],
    base: list[float],
    labels: ml_scores.Labels,
    name: str,
    binary: bool,
    positive: bool,
) -> tuple[SSAValue, list[SSAValue]]:
    """The label and the two scores of a two-class ensemble, as onnxruntime's
    TreeAggregatorClassifier::FinalizeScores makes them."""
    s0, s1 = values
    h0, h1 = flags
    zero = ml_scores.const(b, 0.0)
    both = h1  # whether the second score stays (else only s0 is written)
    mixed = False  # which way a single score is made into two
    if len(base) == 2:
        moved = scalar.ADD(b, ml_scores.const(b, base[1]), s0)
        s1 = ml_scores.select(b, h1, moved, scalar.ADD(b, s1, ml_scores.const(b, base[1])))
        s0 = ml_scores.select(
            b, h1, scalar.NEG(b, moved), scalar.ADD(b, s0, ml_scores.const(b, base[0]))
        )
        both = scalar.constant(b, 1, I1)
    elif len(base) == 1:
        s0 = scalar.ADD(b, s0, ml_scores.const(b, base[0]))
    elif not base:
        mixed = True
    elif len(base) > 2:
        both = scalar.constant(b, 1, I1)
    first = ml_scores.select(b, h0, s0, zero)
    weight = ml_scores.select(b, h1, s1, first)
    if binary:
        mixed = not positive
        cut = ml_scores.const(b, 0.5 if positive else 0.0)
        wins = scalar.GREATER(b, weight, cut)
        winner, loser = labels.at(b, 1), labels.at(b, 0)
    else:
        wins = scalar.GREATER(b, weight, zero)
        winner, loser = labels.number(b, 1), labels.number(b, 0)
    label = ml_scores.select(b, wins, winner, loser)
    # onnxruntime reads a score no leaf (nor base value) gave as 0
    s0 = ml_scores.select(b, h0, s0, zero)
    s1 = ml_scores.select(b, h1, s1, zero)
    two = ml_scores.transformed(b, name, [s0, s1])
    # A single score made into two (onnxruntime leaves the second unwritten
    # after PROBIT or with no rule for it: 0 here).
    if name == "PROBIT":
        one = [ml_scores.probit(b, s0), zero]
    elif not binary and base:
        one = [s0, zero]
    elif mixed and name == "LOGISTIC":
        one = [ml_scores.logistic(b, scalar.NEG(b, s0)), ml_scores.logistic(b, s0)]
    elif mixed:
        one = [scalar.NEG(b, s0), s0]
    else:
        p = ml_scores.logistic(b, s0) if name == "LOGISTIC" else s0
        one = [scalar.SUB(b, ml_scores.const(b, 1.0), p), p]
    scores = [ml_scores.select(b, both, a, c) for a, c in zip(two, one, strict=True)]
    return label, scores
