"""The tree ensembles' finishing rules match onnxruntime's in every
combination that matters. TreeEnsembleClassifier with two classes: weights
for one class or both (and which), all positive or of mixed signs, zero, one
or two base values, each post transform. TreeEnsembleRegressor: one to three
targets (some never scored), each aggregate function, with and without base
values, each post transform. One model per operator holds a node per
combination, so each is one build.

onnxruntime leaves the second score unwritten after PROBIT on a single score,
and with one base value and weights for both classes where a sample's second
class got no weight; those are compared on the first column only (onnxc
writes 0 there)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxc

ort = pytest.importorskip("onnxruntime")

TREES: dict[str, Any] = {
    "nodes_treeids": [0, 0, 0, 1, 1, 1],
    "nodes_nodeids": [0, 1, 2, 0, 1, 2],
    "nodes_featureids": [0, 0, 0, 1, 0, 0],
    "nodes_modes": ["BRANCH_LEQ", "LEAF", "LEAF"] * 2,
    "nodes_values": [0.0, 0.0, 0.0, 0.2, 0.0, 0.0],
    "nodes_truenodeids": [1, 0, 0, 1, 0, 0],
    "nodes_falsenodeids": [2, 0, 0, 2, 0, 0],
    "class_treeids": [0, 0, 1, 1],
    "class_nodeids": [1, 2, 1, 2],
    "classlabels_int64s": [3, 8],
}
CLASS_IDS = ([1, 1, 1, 1], [0, 0, 0, 0], [0, 1, 0, 1], [1, 1, 0, 1])
WEIGHTS = ([0.3, 0.8, 0.6, 0.1], [0.3, -0.8, 0.6, -0.1])
BASES: tuple[list[float], ...] = ([], [0.2], [0.1, 0.4])
TRANSFORMS = ("NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT")
COMBINATIONS = list(itertools.product(CLASS_IDS, WEIGHTS, BASES, TRANSFORMS))


def _one_model(nodes: list[onnx.NodeProto], outputs: list[onnx.ValueInfoProto]):
    """The nodes side by side on one input x [8, 2]."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, 2])
    graph = helper.make_graph(nodes, "rules", [x], outputs)
    opsets = [helper.make_opsetid("ai.onnx.ml", 3), helper.make_opsetid("", 17)]
    return helper.make_model(graph, opset_imports=opsets)


def _model() -> onnx.ModelProto:
    nodes: list[onnx.NodeProto] = []
    outputs: list[onnx.ValueInfoProto] = []
    for k, (ids, weights, base, transform) in enumerate(COMBINATIONS):
        attributes: dict[str, Any] = {**TREES, "class_ids": ids, "class_weights": weights}
        if base:
            attributes["base_values"] = base
        node = helper.make_node(
            "TreeEnsembleClassifier", ["x"], [f"y{k}", f"z{k}"], domain="ai.onnx.ml", **attributes
        )
        node.attribute.append(helper.make_attribute("post_transform", transform))
        nodes.append(node)
        outputs.append(helper.make_tensor_value_info(f"y{k}", TensorProto.INT64, [8]))
        outputs.append(helper.make_tensor_value_info(f"z{k}", TensorProto.FLOAT, [8, 2]))
    return _one_model(nodes, outputs)


def test_two_class_rules_match_onnxruntime() -> None:
    model = _model()
    x = np.random.default_rng(0).standard_normal((8, 2)).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    wanted = dict(
        zip([o.name for o in model.graph.output], session.run(None, {"x": x}), strict=True)
    )
    got = onnxc.compile(model, name="tree_rules").run({"x": x})
    for k, (ids, _, base, transform) in enumerate(COMBINATIONS):
        label = f"combination {k}: {COMBINATIONS[k]}"
        np.testing.assert_array_equal(got[f"y{k}"], wanted[f"y{k}"], err_msg=label)
        z, want = got[f"z{k}"], wanted[f"z{k}"]
        one_class = len(set(ids)) == 1
        unwritten = transform == "PROBIT" or (len(base) == 1 and not one_class)
        columns = 1 if unwritten else 2
        np.testing.assert_allclose(
            z[:, :columns], want[:, :columns], rtol=1e-6, atol=1e-7, err_msg=label
        )


REGRESSIONS = list(
    itertools.product((1, 2, 3), ("SUM", "AVERAGE", "MIN", "MAX"), (False, True), TRANSFORMS)
)


def _regressors() -> onnx.ModelProto:
    nodes: list[onnx.NodeProto] = []
    outputs: list[onnx.ValueInfoProto] = []
    trees = {k: v for k, v in TREES.items() if k.startswith("nodes_")}
    for k, (targets, aggregate, base, transform) in enumerate(REGRESSIONS):
        attributes: dict[str, Any] = {
            **trees,
            "n_targets": targets,
            "target_treeids": [0, 0, 1, 1],
            "target_nodeids": [1, 2, 1, 2],
            # with 3 targets, target 1 gets no weight from tree 1's leaves
            "target_ids": [0, min(1, targets - 1), 0, min(2, targets - 1)],
            "target_weights": [0.3, -0.8, 0.6, 0.1],
            "aggregate_function": aggregate,
        }
        if base:
            attributes["base_values"] = [0.1 * (t + 1) for t in range(targets)]
        node = helper.make_node(
            "TreeEnsembleRegressor", ["x"], [f"y{k}"], domain="ai.onnx.ml", **attributes
        )
        node.attribute.append(helper.make_attribute("post_transform", transform))
        nodes.append(node)
        outputs.append(helper.make_tensor_value_info(f"y{k}", TensorProto.FLOAT, [8, targets]))
    return _one_model(nodes, outputs)


def test_regression_rules_match_onnxruntime() -> None:
    model = _regressors()
    x = np.random.default_rng(1).standard_normal((8, 2)).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    wanted = session.run(None, {"x": x})
    got = onnxc.compile(model, name="regression_rules").run({"x": x})
    for k, want in enumerate(wanted):
        np.testing.assert_allclose(
            got[f"y{k}"], want, rtol=1e-6, atol=1e-7, err_msg=f"combination {REGRESSIONS[k]}"
        )
