"""Tree ensembles as tables: the attributes of `onnx_ml.TreeEnsembleRegressor`,
`onnx_ml.TreeEnsembleClassifier` (version 3) and `onnx_ml.TreeEnsemble`
(version 5) turned, at compile time, into flat arrays that `trees.py`
stores as constant weights (flash on a microcontroller) and walks.

Every node, branch or leaf, gets one position. A branch has a feature, a
threshold, a mode and its two children's positions; a leaf is its own true
and false child, so walking a tree is `depth` steps of
`node = cond ? true[node] : false[node]`, each branch-free, the same count
for every tree (the depth of the deepest). A leaf's contributions (target or
class, weight) are the entries `leaf_start[node] .. + leaf_count[node]` of
`leaf_target`/`leaf_weight`. BRANCH_MEMBER nodes (version 5) test set
membership: their sets are the entries `member_start .. + member_count` of
`members`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg.common import unsupported

MODES = ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ")
"""Branch modes, numbered as TreeEnsemble's `nodes_modes` (then MEMBER, LEAF)."""
MEMBER = 6
LEAF = 7


@dataclass
class Forest:
    """The tables of a tree ensemble (see the module docstring)."""

    feature: list[int] = field(default_factory=list[int])
    threshold: list[float] = field(default_factory=list[float])
    mode: list[int] = field(default_factory=list[int])
    true_child: list[int] = field(default_factory=list[int])
    false_child: list[int] = field(default_factory=list[int])
    missing_true: list[int] = field(default_factory=list[int])
    leaf_start: list[int] = field(default_factory=list[int])
    leaf_count: list[int] = field(default_factory=list[int])
    member_start: list[int] = field(default_factory=list[int])
    member_count: list[int] = field(default_factory=list[int])
    roots: list[int] = field(default_factory=list[int])
    leaf_target: list[int] = field(default_factory=list[int])
    leaf_weight: list[float] = field(default_factory=list[float])
    members: list[float] = field(default_factory=list[float])
    depth: int = 0

    def add(self, feature: int, threshold: float, mode: int, missing: int) -> int:
        self.feature.append(feature if mode != LEAF else 0)
        self.threshold.append(threshold if mode != LEAF else 0.0)
        self.mode.append(mode)
        self.missing_true.append(missing)
        for table in (self.true_child, self.false_child, self.leaf_start, self.leaf_count):
            table.append(0)
        self.member_start.append(0)
        self.member_count.append(0)
        return len(self.mode) - 1

    def finish(self, op: onnx.OnnxOp, entries: dict[int, list[tuple[int, float]]]) -> Forest:
        """Lay out the leaf entries, make leaves their own children and
        measure the depth (refusing cycles)."""
        for node, found in sorted(entries.items()):
            self.leaf_start[node] = len(self.leaf_target)
            self.leaf_count[node] = len(found)
            for target, weight in found:
                self.leaf_target.append(target)
                self.leaf_weight.append(weight)
        for node, mode in enumerate(self.mode):
            if mode == LEAF:
                self.true_child[node] = self.false_child[node] = node
        self.depth = max((self._depth_of(op, root) for root in self.roots), default=0)
        return self

    def _depth_of(self, op: onnx.OnnxOp, root: int) -> int:
        """The number of branches on the longest path from `root`."""
        depth, level = 0, [root]
        while any(self.mode[n] != LEAF for n in level):
            level = [
                child
                for n in level
                if self.mode[n] != LEAF
                for child in (self.true_child[n], self.false_child[n])
            ]
            depth += 1
            if depth > len(self.mode):
                raise unsupported(op, "a tree has a cycle")
        return depth


def float_values(op: onnx.OnnxOp, name: str) -> list[float]:
    """A FLOATS attribute, or its `_as_tensor` twin."""
    plain = op.attr(name)
    if plain:
        return [float(v) for v in plain]
    tensor = op.attr(f"{name}_as_tensor")
    return [] if tensor is None else [float(v) for v in np.asarray(tensor).ravel()]


def doubles(op: onnx.OnnxOp, name: str) -> bool:
    """Whether attribute `name` is given as a double tensor (`_as_tensor`)."""
    tensor = op.attr(f"{name}_as_tensor")
    return tensor is not None and np.asarray(tensor).dtype == np.float64


def from_version_3(op: onnx.OnnxOp, prefix: str) -> Forest:
    """The forest of a TreeEnsembleRegressor (`prefix` 'target') or
    TreeEnsembleClassifier ('class')."""
    trees: list[int] = list(op.attr("nodes_treeids") or [])
    ids: list[int] = list(op.attr("nodes_nodeids") or [])
    modes: list[str] = list(op.attr("nodes_modes") or [])
    features: list[int] = list(op.attr("nodes_featureids") or [])
    values = float_values(op, "nodes_values")
    trues: list[int] = list(op.attr("nodes_truenodeids") or [])
    falses: list[int] = list(op.attr("nodes_falsenodeids") or [])
    missing: list[int] = list(op.attr("nodes_missing_value_tracks_true") or [])
    count = len(ids)
    lengths = {len(trees), len(modes), len(features), len(values), len(trues), len(falses)}
    if lengths != {count} or (missing and len(missing) != count):
        raise unsupported(op, "the nodes_* attributes differ in length")
    forest = Forest()
    position: dict[tuple[int, int], int] = {}
    for k in range(count):
        if modes[k] != "LEAF" and modes[k] not in MODES:
            raise unsupported(op, f"node mode {modes[k]}")
        mode = LEAF if modes[k] == "LEAF" else MODES.index(modes[k])
        position[(trees[k], ids[k])] = forest.add(
            features[k], values[k], mode, missing[k] if missing else 0
        )
    children: set[int] = set()
    for k in range(count):
        if forest.mode[k] == LEAF:
            continue
        for table, child in ((forest.true_child, trues[k]), (forest.false_child, falses[k])):
            found = position.get((trees[k], child))
            if found is None:
                raise unsupported(op, f"tree {trees[k]} node {ids[k]} has no child {child}")
            table[k] = found
            children.add(found)
    for tree in dict.fromkeys(trees):
        roots = [k for k in range(count) if trees[k] == tree and k not in children]
        if len(roots) != 1:
            raise unsupported(op, f"tree {tree} has {len(roots)} roots")
        forest.roots.append(roots[0])
    entries: dict[int, list[tuple[int, float]]] = defaultdict(list)
    weights = float_values(op, f"{prefix}_weights")
    leaf_trees: list[int] = list(op.attr(f"{prefix}_treeids") or [])
    leaf_nodes: list[int] = list(op.attr(f"{prefix}_nodeids") or [])
    targets: list[int] = list(op.attr(f"{prefix}_ids") or [])
    if not len(weights) == len(leaf_trees) == len(leaf_nodes) == len(targets):
        raise unsupported(op, f"the {prefix}_* attributes differ in length")
    for tree, node, target, weight in zip(leaf_trees, leaf_nodes, targets, weights, strict=True):
        found = position.get((tree, node))
        if found is None:
            raise unsupported(op, f"a weight names tree {tree} node {node}, which does not exist")
        entries[found].append((target, weight))
    return forest.finish(op, entries)


def from_version_5(op: onnx.OnnxOp) -> Forest:
    """The forest of a TreeEnsemble (ml opset 5): branch nodes first, then
    one node per leaf."""
    features: list[int] = list(op.attr("nodes_featureids"))
    splits = np.asarray(op.attr("nodes_splits"), np.float64).ravel()
    modes = [int(m) for m in np.asarray(op.attr("nodes_modes")).ravel()]
    trues: list[int] = list(op.attr("nodes_truenodeids"))
    falses: list[int] = list(op.attr("nodes_falsenodeids"))
    true_leafs: list[int] = list(op.attr("nodes_trueleafs"))
    false_leafs: list[int] = list(op.attr("nodes_falseleafs"))
    missing: list[int] = list(op.attr("nodes_missing_value_tracks_true") or [])
    targets: list[int] = list(op.attr("leaf_targetids"))
    weights = [float(v) for v in np.asarray(op.attr("leaf_weights")).ravel()]
    branches = len(features)
    if {len(splits), len(modes), len(trues), len(falses), len(true_leafs), len(false_leafs)} != {
        branches
    } or len(targets) != len(weights):
        raise unsupported(op, "the nodes_* or leaf_* attributes differ in length")
    forest = Forest()
    sets = _member_sets(op, modes)
    for k in range(branches):
        if not 0 <= modes[k] <= MEMBER:
            raise unsupported(op, f"node mode {modes[k]}")
        forest.add(features[k], float(splits[k]), modes[k], missing[k] if missing else 0)
        if modes[k] == MEMBER:
            forest.member_start[k] = len(forest.members)
            forest.member_count[k] = len(sets[k])
            forest.members += sets[k]
    entries: dict[int, list[tuple[int, float]]] = {}
    for target, weight in zip(targets, weights, strict=True):
        node = forest.add(0, 0.0, LEAF, 0)
        entries[node] = [(target, weight)]
    for k in range(branches):
        for table, child, leaf in (
            (forest.true_child, trues[k], true_leafs[k]),
            (forest.false_child, falses[k], false_leafs[k]),
        ):
            limit = len(targets) if leaf else branches
            if not 0 <= child < limit:
                raise unsupported(op, f"node {k} has a child {child} out of range")
            table[k] = branches + child if leaf else child
    forest.roots = [int(r) for r in op.attr("tree_roots")]
    if any(not 0 <= r < branches for r in forest.roots):
        raise unsupported(op, "a tree root is out of range")
    return forest.finish(op, entries)


def _member_sets(op: onnx.OnnxOp, modes: Sequence[int]) -> dict[int, list[float]]:
    """The value set of each BRANCH_MEMBER node: `membership_values` holds
    them in node order, separated by NaN."""
    members = [k for k, mode in enumerate(modes) if mode == MEMBER]
    if not members:
        return {}
    values = np.asarray(op.attr("membership_values"), np.float64).ravel()
    sets: list[list[float]] = [[]]
    for value in values:
        if np.isnan(value):
            sets.append([])
        else:
            sets[-1].append(float(value))
    if sets and not sets[-1] and len(sets) > len(members):
        sets.pop()
    if len(sets) != len(members):
        raise unsupported(op, f"membership_values has {len(sets)} sets for {len(members)} nodes")
    return dict(zip(members, sets, strict=True))
