"""Tree ensembles of the ai.onnx.ml domain: `onnx_ml.TreeEnsembleRegressor`,
`onnx_ml.TreeEnsembleClassifier` (version 3, what skl2onnx emits) and
`onnx_ml.TreeEnsemble` (ml opset 5: set membership, aggregate functions).

Table-driven: the nodes become constant arrays (`ml_forest.py`: feature,
threshold, children, leaf entries; a mode and missing-value table only where
the nodes differ), read from flash, never copied. Per sample and tree the walk
is a loop of exactly `depth` steps `node = cond ? true[node] : false[node]`
(leaves are their own children), then the reached leaf's weights go into a
row of per-target scores (and a per-target "has a score" flag that MIN, MAX
and the binary classifier need). The scores are aggregated, finished and
written as onnxruntime does (`tree_ensemble_aggregator.h`): SUM, AVERAGE
(divided by the number of trees), MIN, MAX, plus base values, then the post
transform (`ml_scores.py`); with several targets or classes, one no leaf
scored (nor, for a classifier, a base value) is written as 0, as onnxruntime
reads it. Comparisons are in X's type for float and double
(double where the thresholds are), in float for integer X; scores accumulate
in float (double when the weights are double).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import Float64Type, IndexType, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx, onnx_ml
from onnxc.lowering.convert_onnx_to_linalg import ml_forest, ml_scores, scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    check,
    element_type,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.loops import builder_before, for_range, index, nest
from onnxc.lowering.convert_onnx_to_linalg.ml_forest import LEAF, MEMBER, Forest
from onnxc.lowering.convert_onnx_to_linalg.ml_scores import F32, I64, Samples

I1 = IntegerType(1)
I32 = IntegerType(32)
F64 = Float64Type()
AGGREGATES = ("AVERAGE", "SUM", "MIN", "MAX")
"""Aggregate functions, numbered as TreeEnsemble's `aggregate_function`."""

Finish = Callable[[Builder, SSAValue, list[SSAValue], list[SSAValue]], None]
"""Writes the outputs of one sample: gets the row, the aggregated scores and
their has-a-score flags."""

_COMPARE = {
    0: scalar.LESS_OR_EQUAL,
    1: scalar.LESS,
    2: scalar.GREATER_OR_EQUAL,
    3: scalar.GREATER,
    4: scalar.EQUAL,
    5: scalar.NOT_EQUAL,
}


@dataclass
class Ensemble:
    """A forest with what its lowering decided: the type features are
    compared in, the type scores accumulate in, the number of targets (or
    classes) and the aggregate function."""

    forest: Forest
    compare: Attribute
    accumulate: Attribute
    targets: int
    aggregate: str


def _index(b: Builder, table: SSAValue, at: SSAValue) -> SSAValue:
    """table[at] (an integer table) as an `index`."""
    value = b.insert(memref.LoadOp.get(table, [at])).res
    return b.insert(arith.IndexCastOp(value, IndexType())).result


def _load(b: Builder, table: SSAValue, at: SSAValue) -> SSAValue:
    return b.insert(memref.LoadOp.get(table, [at])).res


class _Walk:
    """The constant tables of an `Ensemble` and the IR walking them."""

    def __init__(self, op: onnx.OnnxOp, rewriter: PatternRewriter, ensemble: Ensemble):
        forest = ensemble.forest
        self.ensemble = ensemble

        def table(name: str, values: Sequence[float], t: Attribute) -> SSAValue:
            return weight(rewriter, op, np.asarray(values if values else [0]), t, name)

        self.feature = table("feature", forest.feature, I32)
        self.threshold = table("threshold", forest.threshold, ensemble.compare)
        self.true = table("true", forest.true_child, I32)
        self.false = table("false", forest.false_child, I32)
        self.roots = table("roots", forest.roots, I32)
        self.leaf_start = table("leaf_start", forest.leaf_start, I32)
        self.leaf_count = table("leaf_count", forest.leaf_count, I32)
        self.leaf_target = table("leaf_target", forest.leaf_target, I32)
        self.leaf_weight = table("leaf_weight", forest.leaf_weight, ensemble.accumulate)
        self.modes = sorted({m for m in forest.mode if m != LEAF})
        self.mode = table("mode", forest.mode, IntegerType(8)) if len(self.modes) > 1 else None
        self.missing = (
            table("missing", forest.missing_true, I1) if any(forest.missing_true) else None
        )
        if MEMBER in self.modes:
            self.members = table("members", forest.members, ensemble.compare)
            self.member_start = table("member_start", forest.member_start, I32)
            self.member_count = table("member_count", forest.member_count, I32)

    def _member(self, b: Builder, value: SSAValue, node: SSAValue) -> SSAValue:
        start = _index(b, self.member_start, node)
        end = b.insert(arith.AddiOp(start, _index(b, self.member_count, node))).result

        def test(b: Builder, k: SSAValue, found: list[SSAValue]) -> list[SSAValue]:
            equal = scalar.EQUAL(b, value, _load(b, self.members, k))
            return [scalar.OR(b, found[0], equal)]

        return for_range(b, start, end, [scalar.constant(b, 0, I1)], test)[0]

    def _condition(self, b: Builder, value: SSAValue, node: SSAValue) -> SSAValue:
        threshold = _load(b, self.threshold, node)

        def of(mode: int) -> SSAValue:
            if mode == MEMBER:
                return self._member(b, value, node)
            return _COMPARE[mode](b, value, threshold)

        condition = of(self.modes[0])
        if self.mode is not None:
            mode = _load(b, self.mode, node)
            for other in self.modes[1:]:
                chosen = scalar.EQUAL(b, mode, scalar.constant(b, other, IntegerType(8)))
                condition = ml_scores.select(b, chosen, of(other), condition)
        if self.missing is not None:
            missing = scalar.AND(b, scalar.IS_NAN(b, value), _load(b, self.missing, node))
            condition = scalar.OR(b, condition, missing)
        return condition

    def leaf(self, b: Builder, x: Samples, row: SSAValue, tree: SSAValue) -> SSAValue:
        """The position of the leaf that sample `row` reaches in `tree`."""

        def step(b: Builder, _: SSAValue, node: list[SSAValue]) -> list[SSAValue]:
            feature = _index(b, self.feature, node[0])
            value = x.load(b, row, feature, self.ensemble.compare)
            taken = self._condition(b, value, node[0])
            child = ml_scores.select(
                b, taken, _load(b, self.true, node[0]), _load(b, self.false, node[0])
            )
            return [b.insert(arith.IndexCastOp(child, IndexType())).result]

        root = _index(b, self.roots, tree)
        return for_range(b, 0, self.ensemble.forest.depth, [root], step)[0]

    def add_leaf(self, b: Builder, node: SSAValue, scores: SSAValue, has: SSAValue) -> None:
        """Aggregate the weights of leaf `node` into the row `scores`."""
        start = _index(b, self.leaf_start, node)
        end = b.insert(arith.AddiOp(start, _index(b, self.leaf_count, node))).result
        aggregate = self.ensemble.aggregate

        def entry(b: Builder, k: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            target = _index(b, self.leaf_target, k)
            value = _load(b, self.leaf_weight, k)
            old = _load(b, scores, target)
            if aggregate in ("MIN", "MAX"):
                better = (scalar.LESS if aggregate == "MIN" else scalar.GREATER)(b, value, old)
                first = scalar.NOT(b, _load(b, has, target))
                new = ml_scores.select(b, scalar.OR(b, first, better), value, old)
            else:
                new = scalar.ADD(b, old, value)
            b.insert(memref.StoreOp.get(new, scores, [target]))
            b.insert(memref.StoreOp.get(scalar.constant(b, 1, I1), has, [target]))
            return []

        for_range(b, start, end, [], entry)


def walk_ensemble(
    lowering: OnnxLowering[Any],
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    x: Samples,
    ensemble: Ensemble,
    finish: Finish,
) -> None:
    """For every sample: walk every tree, aggregate the leaves' weights into
    a row of scores, and `finish` the row."""
    forest = ensemble.forest
    targets = ensemble.targets
    if any(not 0 <= t < targets for t in forest.leaf_target):
        raise unsupported(op, f"a leaf weight's target or class is outside [0, {targets})")
    used = max(forest.feature, default=0)
    if isinstance(x.c, int) and used >= x.c:
        raise unsupported(op, f"a node reads feature {used}, but X has {x.c}")
    if not isinstance(x.c, int):
        check(rewriter, op, lowering.shapes.less(used, x.c), "X has every feature a node reads")
    walk = _Walk(op, rewriter, ensemble)
    scores = ml_scores.scratch(rewriter, [targets], ensemble.accumulate)
    has = ml_scores.scratch(rewriter, [targets], I1)

    def sample(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
        for k in range(targets):
            b.insert(
                memref.StoreOp.get(
                    scalar.constant(b, 0, ensemble.accumulate), scores, [index(b, k)]
                )
            )
            b.insert(memref.StoreOp.get(scalar.constant(b, 0, I1), has, [index(b, k)]))

        def tree(b: Builder, t: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            walk.add_leaf(b, walk.leaf(b, x, at[0], t), scores, has)
            return []

        for_range(b, 0, len(forest.roots), [], tree)
        values = [_load(b, scores, index(b, k)) for k in range(targets)]
        flags = [_load(b, has, index(b, k)) for k in range(targets)]
        finish(b, at[0], values, flags)
        return []

    nest(builder_before(op), [x.n], [], sample)


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
    (float16 in float)."""

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
    """`onnx_ml.TreeEnsembleClassifier` with int64 labels: per-class sums of
    the leaves' weights plus `base_values`, the label of the first largest
    and the post-transformed scores. Two classes follow onnxruntime's binary
    rules: with weights for one class only (the binary case) the label is
    labels[1] where that class's score is > 0.5 (all weights positive) or
    > 0, and a missing second score is made from the first ([1 - s, s], or
    [-s, s] with mixed signs, logistic of both with LOGISTIC)."""

    def rewrite(self, op: onnx_ml.TreeEnsembleClassifierOp, rewriter: PatternRewriter) -> None:
        labels = ml_scores.int_labels(op, "classlabels_int64s", "classlabels_strings")
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
                label = ml_scores.pick(b, ml_scores.first_max(b, values, flags), labels)
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
    labels: list[int],
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
        winner, loser = labels[1], labels[0]
    else:
        wins = scalar.GREATER(b, weight, zero)
        winner, loser = 1, 0
    label = ml_scores.select(
        b, wins, scalar.constant(b, winner, I64), scalar.constant(b, loser, I64)
    )
    # onnxruntime reads a score no leaf (nor base value) gave as 0
    s0 = ml_scores.select(b, h0, s0, zero)
    s1 = ml_scores.select(b, h1, s1, zero)
    two = ml_scores.transformed(b, name, [s0, s1])
    if name == "PROBIT":
        one = [ml_scores.probit(b, s0), zero]
    elif not binary and base:
        one = [s0, zero]
    elif mixed and name == "LOGISTIC":
        one = [ml_scores.logistic(b, scalar.NEG(b, s0)), ml_scores.logistic(b, s0)]
    elif mixed:
        one = [scalar.NEG(b, s0), s0]
    else:
        one = [scalar.SUB(b, ml_scores.const(b, 1.0), s0), s0]
    scores = [ml_scores.select(b, both, a, c) for a, c in zip(two, one, strict=True)]
    return label, scores
