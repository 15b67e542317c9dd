"""An If whose condition the compiler knows is replaced by the branch it
takes (`onnxc.frontend.rewrites.constant_branches`), at import: the model compiles without
control flow and matches onnxruntime."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from onnxc.frontend import prepare_model

ort = pytest.importorskip("onnxruntime")

F = TensorProto.FLOAT


def _branch(name: str, op: str, scale: float) -> onnx.GraphProto:
    """`y = op(x) * scale`, with a local name ("t") both branches define, and
    an initializer of its own."""
    return helper.make_graph(
        [
            helper.make_node(op, ["x"], ["t"], name="inner"),
            helper.make_node("Mul", ["t", "k"], ["y"]),
        ],
        name,
        [],
        [helper.make_tensor_value_info("y", F, [2, 3])],
        [numpy_helper.from_array(np.array(scale, np.float32), "k")],
    )


def _model(rank_test: int) -> onnx.ModelProto:
    """If (Size(Shape(x)) == rank_test) then relu(x) * 2 else neg(x) * 3, then
    + |x|, named "pick_t": the name the branch's "t" would get when inlined."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Size", ["shape"], ["rank"]),
        helper.make_node("Equal", ["rank", "expected"], ["cond"]),
        helper.make_node(
            "If",
            ["cond"],
            ["branch"],
            name="pick",
            then_branch=_branch("then", "Relu", 2.0),
            else_branch=_branch("else", "Neg", 3.0),
        ),
        helper.make_node("Abs", ["x"], ["pick_t"]),
        helper.make_node("Add", ["branch", "pick_t"], ["out"]),
    ]
    graph = helper.make_graph(
        nodes,
        "branches",
        [helper.make_tensor_value_info("x", F, [2, 3])],
        [helper.make_tensor_value_info("out", F, [2, 3])],
        [numpy_helper.from_array(np.array(rank_test, np.int64), "expected")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize("rank_test", [2, 5], ids=["then", "else"])
def test_taken_branch_is_inlined_and_matches_onnxruntime(rank_test: int) -> None:
    model = _model(rank_test)
    prepared = prepare_model(model).model
    assert "If" not in {n.op_type for n in prepared.graph.node}
    x = np.random.default_rng(rank_test).standard_normal((2, 3)).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"x": x})
    got = onnxc.compile(model, name=f"branch_{rank_test}").run({"x": x})["out"]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("expected", [2, 5], ids=["then", "else"])
def test_a_condition_known_only_at_run_time_is_not_inlined(expected: int) -> None:
    """`expected` overridable as a graph input: the If stays, and compiles
    to a branch taken at run time."""
    model = _model(2)
    model.graph.input.append(helper.make_tensor_value_info("expected", TensorProto.INT64, []))
    prepared = prepare_model(model).model
    assert "If" in {n.op_type for n in prepared.graph.node}
    x = np.random.default_rng(expected).standard_normal((2, 3)).astype(np.float32)
    feeds = {"x": x, "expected": np.array(expected, np.int64)}
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, feeds)
    got = onnxc.compile(model, name=f"run_time_{expected}").run(feeds)["out"]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
