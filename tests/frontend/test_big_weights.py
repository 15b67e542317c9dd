"""Large initializers leave the proto while the importer upgrades and infers it
(`detach-weights`, `rewrites/weights.py`) and come back after: the caller's proto is
untouched, the prepared one holds every byte, and a node the importer folds
(to learn a rank) still reads the values of a detached constant."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import onnxc
from onnxc.frontend import prepare_model
from onnxc.frontend.rewrites.fold_constant_nodes import fold_constant_nodes
from onnxc.frontend.rewrites.weights import DETACHED_BYTES, detach_weights


def _model() -> tuple[onnx.ModelProto, np.ndarray]:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((32, 16)).astype(np.float32)  # 2 KiB: detached
    table = np.arange(300, dtype=np.float32)  # 1.2 KiB: detached
    table[:2] = [2, 32]
    nodes = [
        # Reshape's rank is known only once the slice of the table is folded
        helper.make_node("Slice", ["table", "starts", "ends"], ["sliced"]),
        helper.make_node("Cast", ["sliced"], ["shape"], to=TensorProto.INT64),
        helper.make_node("Reshape", ["x", "shape"], ["x2"]),
        helper.make_node("MatMul", ["x2", "w"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16])],
        [
            numpy_helper.from_array(w, "w"),
            numpy_helper.from_array(table, "table"),
            numpy_helper.from_array(np.array([0], np.int64), "starts"),
            numpy_helper.from_array(np.array([2], np.int64), "ends"),
        ],
    )
    # opset 11: the version converter runs on the detached proto too
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]), w


def test_weights_come_back_whole_and_the_caller_proto_is_untouched() -> None:
    model, w = _model()
    before = model.SerializeToString()
    prepared = prepare_model(model).model
    assert model.SerializeToString() == before
    (kept,) = [t for t in prepared.graph.initializer if t.name == "w"]
    assert len(kept.raw_data) > DETACHED_BYTES
    np.testing.assert_array_equal(numpy_helper.to_array(kept), w)
    (table,) = [t for t in prepared.graph.initializer if t.name == "table"]
    assert numpy_helper.to_array(table)[:2].tolist() == [2, 32]


def test_folding_reads_a_detached_weight() -> None:
    model, _ = _model()
    graph = model.graph
    graph.node.insert(0, helper.make_node("ReduceSum", ["table"], ["total"], keepdims=0))
    weights = detach_weights(graph)
    assert set(weights) == {"w", "table"}
    assert fold_constant_nodes(graph, model, weights)
    (total,) = [numpy_helper.to_array(t) for t in graph.initializer if t.name == "total"]
    assert total == np.arange(2, 300, dtype=np.float32).sum() + 34


def test_a_node_folded_from_a_detached_weight_computes_its_value() -> None:
    model, w = _model()
    x = np.random.default_rng(1).standard_normal(64).astype(np.float32)
    (y,) = onnxc.compile(model, name="big_weights")(x)
    np.testing.assert_allclose(y, x.reshape(2, 32) @ w, rtol=1e-5, atol=1e-5)
