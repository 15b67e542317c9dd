"""The walk of a tree ensemble's tables (`forest.py`), shared by the tree
lowerings of `trees.py`.

Every table is a constant weight, read where it lies (flash on a
microcontroller), never copied. Per sample and tree the walk is a loop of
exactly `depth` steps `node = cond ? true[node] : false[node]`, the same for
every tree (leaves are their own children, so a short path stays on its
leaf); `cond` is the one comparison all branches share, or, where modes
differ, the one the node's `mode` entry picks (BRANCH_MEMBER: a scan of the
node's slice of `members`), or'ed with `isnan(x) && missing[node]` where some
node sends missing values to its true child. The reached leaf's entries are
aggregated into a row of per-target scores and has-a-score flags, which a
`Finish` callback turns into the operator's outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    check,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.ml import scores as ml_scores
from onnxc.lowering.convert_onnx_to_linalg.ml.forest import LEAF, MEMBER, Forest
from onnxc.lowering.convert_onnx_to_linalg.ml.scores import I1, I32, Samples
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index, nest

I16 = IntegerType(16)

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

        def table(name: str, values: Sequence[float], t: Attribute | None = None) -> SSAValue:
            """A constant table; integer ones (t None) in the narrowest of
            int8, int16 and int32 that holds them, to keep flash small."""
            array = np.asarray(values if values else [0])
            if t is None:
                top = int(np.abs(array).max())
                t = IntegerType(8) if top < 1 << 7 else I16 if top < 1 << 15 else I32
            return weight(rewriter, op, array, t, name)

        self.feature = table("feature", forest.feature)
        self.threshold = table("threshold", forest.threshold, ensemble.compare)
        self.true = table("true", forest.true_child)
        self.false = table("false", forest.false_child)
        self.roots = table("roots", forest.roots)
        self.leaf_start = table("leaf_start", forest.leaf_start)
        self.leaf_count = table("leaf_count", forest.leaf_count)
        self.leaf_target = table("leaf_target", forest.leaf_target)
        self.leaf_weight = table("leaf_weight", forest.leaf_weight, ensemble.accumulate)
        self.modes = sorted({m for m in forest.mode if m != LEAF})
        self.mode = table("mode", forest.mode, IntegerType(8)) if len(self.modes) > 1 else None
        self.missing = (
            table("missing", forest.missing_true, I1) if any(forest.missing_true) else None
        )
        if MEMBER in self.modes:
            self.members = table("members", forest.members, ensemble.compare)
            self.member_start = table("member_start", forest.member_start)
            self.member_count = table("member_count", forest.member_count)

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

    def add_leaf(self, b: Builder, node: SSAValue, scores: SSAValue, has: SSAValue | None) -> None:
        """Aggregate the weights of leaf `node` into the row `scores` (and
        set their targets' flags in `has`, when tracked)."""
        start = _index(b, self.leaf_start, node)
        end = b.insert(arith.AddiOp(start, _index(b, self.leaf_count, node))).result
        aggregate = self.ensemble.aggregate

        def entry(b: Builder, k: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            target = _index(b, self.leaf_target, k)
            value = _load(b, self.leaf_weight, k)
            old = _load(b, scores, target)
            if aggregate in ("MIN", "MAX") and has is not None:
                better = (scalar.LESS if aggregate == "MIN" else scalar.GREATER)(b, value, old)
                first = scalar.NOT(b, _load(b, has, target))
                new = ml_scores.select(b, scalar.OR(b, first, better), value, old)
            else:
                new = scalar.ADD(b, old, value)
            b.insert(memref.StoreOp.get(new, scores, [target]))
            if has is not None:
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
    # One target summed needs no has-a-score flags (its score is read as is).
    tracked = targets > 1 or ensemble.aggregate in ("MIN", "MAX")
    has = ml_scores.scratch(rewriter, [targets], I1) if tracked else None

    def sample(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
        for k in range(targets):
            b.insert(
                memref.StoreOp.get(
                    scalar.constant(b, 0, ensemble.accumulate), scores, [index(b, k)]
                )
            )
            if has is not None:
                b.insert(memref.StoreOp.get(scalar.constant(b, 0, I1), has, [index(b, k)]))

        def tree(b: Builder, t: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            walk.add_leaf(b, walk.leaf(b, x, at[0], t), scores, has)
            return []

        for_range(b, 0, len(forest.roots), [], tree)
        values = [_load(b, scores, index(b, k)) for k in range(targets)]
        if has is not None:
            flags = [_load(b, has, index(b, k)) for k in range(targets)]
        else:
            flags = [scalar.constant(b, 1, I1)] * targets
        finish(b, at[0], values, flags)
        return []

    nest(builder_before(op), [x.n], [], sample)
