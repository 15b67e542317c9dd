"""Ranks that onnx's inference leaves to data but the model decides, as
operator function bodies write them (AffineGrid's): a Squeeze without axes
of a size known only at run time, read by a Split along an axis only the
rank that keeps that size has; and an If whose branches yield a scalar and a
[1]-shaped value, only broadcast with a vector afterwards. Compared with
onnxruntime (rtol 1e-6: a few multiplications and copies); a run at sizes
the model cannot run at is refused (ONNXC_ERR_SHAPE), as onnxruntime
refuses it."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import onnxc

OPSET = [h.make_opsetid("", 21)]


def _session(model: onnx.ModelProto) -> ort.InferenceSession:
    return ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])


def _squeeze_then_split() -> onnx.ModelProto:
    """rows [N, 1, 3] squeezed without axes, then split along axis 1."""
    nodes = [
        h.make_node("Squeeze", ["rows"], ["squeezed"]),
        h.make_node("Split", ["squeezed"], ["a", "b", "c"], axis=1, num_outputs=3),
        h.make_node("Sub", ["a", "c"], ["d"]),
        h.make_node("Concat", ["d", "b"], ["y"], axis=1),
    ]
    graph = h.make_graph(
        nodes,
        "g",
        [h.make_tensor_value_info("rows", T.FLOAT, ["N", 1, 3])],
        [h.make_tensor_value_info("y", T.FLOAT, ["N", 2])],
    )
    return h.make_model(graph, opset_imports=OPSET)


def test_a_squeeze_whose_consumer_needs_the_run_time_axis() -> None:
    model = _squeeze_then_split()
    compiled = onnxc.compile(model, cache=False)
    rows = np.random.default_rng(0).standard_normal((4, 1, 3)).astype(np.float32)
    want = np.asarray(_session(model).run(None, {"rows": rows})[0])
    got = compiled.run({"rows": rows})["y"]
    assert got.shape == want.shape == (4, 2)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    one = rows[:1]
    with pytest.raises(Exception, match="axis 1 is not in valid range"):  # onnxruntime
        _session(model).run(None, {"rows": one})
    with pytest.raises(onnxc.OnnxcError, match="status -5"):
        compiled.run({"rows": one})


def test_a_squeeze_nothing_decides_is_refused() -> None:
    model = _squeeze_then_split()
    model.graph.node[1].attribute[0].i = 0  # Split along axis 0: any rank has it
    with pytest.raises(onnxc.OnnxcError, match="unknown rank"):
        onnxc.compile(model, cache=False)


def _step_of_two_ranks() -> onnx.ModelProto:
    """step: 0 as a scalar when n == 1, else 2 / (n - 1) as [1]; the grid
    range(n) * step, its element type taken from step (CastLike)."""
    zero = h.make_tensor("zero", T.FLOAT, [], [0.0])
    two = h.make_tensor("two", T.FLOAT, [], [2.0])
    one = h.make_tensor("one", T.INT64, [1], [1])
    start = h.make_tensor("start", T.INT64, [], [0])
    step = h.make_tensor("unit", T.INT64, [], [1])
    then_branch = h.make_graph(
        [h.make_node("Identity", ["zero"], ["flat"])],
        "then",
        [],
        [h.make_tensor_value_info("flat", T.FLOAT, [])],
    )
    else_branch = h.make_graph(
        [
            h.make_node("Sub", ["n", "one"], ["less"]),
            h.make_node("CastLike", ["less", "two"], ["less_f"]),
            h.make_node("Div", ["two", "less_f"], ["ratio"]),
        ],
        "else",
        [],
        [h.make_tensor_value_info("ratio", T.FLOAT, [1])],
    )
    nodes = [
        h.make_node("Equal", ["n", "one"], ["single"]),
        h.make_node("Squeeze", ["single"], ["is_one"]),
        h.make_node("If", ["is_one"], ["step"], then_branch=then_branch, else_branch=else_branch),
        h.make_node("Squeeze", ["n"], ["count"]),
        h.make_node("Range", ["start", "count", "unit"], ["indices"]),
        h.make_node("CastLike", ["indices", "step"], ["positions"]),
        h.make_node("Mul", ["positions", "step"], ["y"]),
    ]
    graph = h.make_graph(
        nodes,
        "g",
        [h.make_tensor_value_info("n", T.INT64, [1])],
        [h.make_tensor_value_info("y", T.FLOAT, [None])],
        [zero, two, one, start, step],
    )
    return h.make_model(graph, opset_imports=OPSET)


@pytest.mark.parametrize("n", [1, 5])
def test_branches_of_two_ranks_that_only_broadcast(n: int) -> None:
    model = _step_of_two_ranks()
    feeds = {"n": np.array([n], np.int64)}
    want = np.asarray(_session(model).run(None, feeds)[0])
    got = onnxc.compile(model, cache=False).run(feeds)["y"]
    assert got.shape == want.shape == (n,)
    np.testing.assert_allclose(got, want, rtol=1e-6)
