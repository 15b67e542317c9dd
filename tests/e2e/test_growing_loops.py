"""Loops whose carried tensors change size from trip to trip (a Concat
accumulator, `torch.cat` in a scripted loop, a greedy decoder) match
onnxruntime.

Such a value lives in loop storage, a share of the workspace left when the
loop starts; a trip that needs more stops the model with
ONNXC_ERR_WORKSPACE asking for more, and the Python runner retries (at
least doubling). The cases cover 0, 1 and many trips (thousands: several
retries), a condition the body computes (scf.while), a size that changes on
one axis of two (the other a free dimension), two growing values swapped
each trip, a growing value next to a fixed one and a scan output, a growing
loop inside another loop, and a PyTorch decoder scripted with `torch.cat`.
Results are compared exactly (integers) or with rtol 1e-5, atol 1e-6.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import onnxc
from tests.e2e.run_time import assert_builds_warning_free, assert_matches_onnxruntime

RTOL, ATOL = 1e-5, 1e-6
value = h.make_tensor_value_info


def _model(body_nodes, body_inputs, body_outputs, loop_inputs, outputs, inputs, extra=()):
    body = h.make_graph(body_nodes, "body", body_inputs, body_outputs)
    loop = h.make_node("Loop", loop_inputs, [o.name for o in outputs], body=body)
    graph = h.make_graph([*extra, loop], "g", inputs, outputs)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], ir_version=10)
    onnx.checker.check_model(model, full_check=True)
    return model


def _compare(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    assert_matches_onnxruntime(model, feeds, RTOL, ATOL)


def accumulator() -> onnx.ModelProto:
    """y = x ++ [0, 1, ..., n - 1] (one Concat per trip)."""
    return _model(
        [
            h.make_node("Identity", ["c"], ["c_out"]),
            h.make_node("Cast", ["i"], ["f"], to=T.FLOAT),
            h.make_node("Unsqueeze", ["f", "zero"], ["f1"]),
            h.make_node("Concat", ["acc", "f1"], ["acc_out"], axis=0),
        ],
        [value("i", T.INT64, []), value("c", T.BOOL, []), value("acc", T.FLOAT, [None])],
        [value("c_out", T.BOOL, []), value("acc_out", T.FLOAT, [None])],
        ["n", "", "x"],
        [value("y", T.FLOAT, [None])],
        [value("n", T.INT64, []), value("x", T.FLOAT, [2])],
        [h.make_node("Constant", [], ["zero"], value_ints=[0])],
    )


def columns() -> onnx.ModelProto:
    """A (N, k) matrix growing by a column per trip, N given at run time,
    next to a fixed-size running sum and a scan output."""
    return _model(
        [
            h.make_node("Identity", ["c"], ["c_out"]),
            h.make_node("ReduceSum", ["acc", "one"], ["col"], keepdims=1),
            h.make_node("Concat", ["acc", "col"], ["acc_out"], axis=1),
            h.make_node("Add", ["total", "col"], ["total_out"]),
            h.make_node("Identity", ["total_out"], ["scanned"]),
        ],
        [
            value("i", T.INT64, []),
            value("c", T.BOOL, []),
            value("acc", T.FLOAT, ["N", None]),
            value("total", T.FLOAT, ["N", 1]),
        ],
        [
            value("c_out", T.BOOL, []),
            value("acc_out", T.FLOAT, ["N", None]),
            value("total_out", T.FLOAT, ["N", 1]),
            value("scanned", T.FLOAT, ["N", 1]),
        ],
        ["n", "", "x", "t"],
        [
            value("y", T.FLOAT, ["N", None]),
            value("total_y", T.FLOAT, ["N", 1]),
            value("rows", T.FLOAT, [None, "N", 1]),
        ],
        [value("n", T.INT64, []), value("x", T.FLOAT, ["N", 2]), value("t", T.FLOAT, ["N", 1])],
        [h.make_node("Constant", [], ["one"], value_ints=[1])],
    )


def until_limit() -> onnx.ModelProto:
    """A while loop (no trip count): appends i * step while the sum of
    what it holds stays below `limit`."""
    return _model(
        [
            h.make_node("Cast", ["i"], ["f"], to=T.FLOAT),
            h.make_node("Mul", ["f", "step"], ["g"]),
            h.make_node("Unsqueeze", ["g", "zero"], ["g1"]),
            h.make_node("Concat", ["acc", "g1"], ["acc_out"], axis=0),
            h.make_node("ReduceSum", ["acc_out"], ["total"], keepdims=0),
            h.make_node("Less", ["total", "limit"], ["c_out"]),
        ],
        [value("i", T.INT64, []), value("c", T.BOOL, []), value("acc", T.FLOAT, [None])],
        [value("c_out", T.BOOL, []), value("acc_out", T.FLOAT, [None])],
        ["", "", "x"],
        [value("y", T.FLOAT, [None])],
        [
            value("x", T.FLOAT, [1]),
            value("step", T.FLOAT, []),
            value("limit", T.FLOAT, []),
        ],
        [h.make_node("Constant", [], ["zero"], value_ints=[0])],
    )


def swapped() -> onnx.ModelProto:
    """Two growing values swapped each trip: a' = b ++ [i], b' = a."""
    return _model(
        [
            h.make_node("Identity", ["c"], ["c_out"]),
            h.make_node("Unsqueeze", ["i", "zero"], ["i1"]),
            h.make_node("Concat", ["b", "i1"], ["a_out"], axis=0),
            h.make_node("Identity", ["a"], ["b_out"]),
        ],
        [
            value("i", T.INT64, []),
            value("c", T.BOOL, []),
            value("a", T.INT64, [None]),
            value("b", T.INT64, [None]),
        ],
        [
            value("c_out", T.BOOL, []),
            value("a_out", T.INT64, [None]),
            value("b_out", T.INT64, [None]),
        ],
        ["n", "", "a0", "b0"],
        [value("a_y", T.INT64, [None]), value("b_y", T.INT64, [None])],
        [value("n", T.INT64, []), value("a0", T.INT64, [1]), value("b0", T.INT64, [3])],
        [h.make_node("Constant", [], ["zero"], value_ints=[0])],
    )


def nested() -> onnx.ModelProto:
    """A growing loop inside a loop: trip j of the outer loop grows x by
    j + 1 values and adds their sum to a running total."""
    inner = h.make_graph(
        [
            h.make_node("Identity", ["c"], ["c_out"]),
            h.make_node("Cast", ["i"], ["f"], to=T.FLOAT),
            h.make_node("Unsqueeze", ["f", "zero"], ["f1"]),
            h.make_node("Concat", ["acc", "f1"], ["acc_out"], axis=0),
        ],
        "inner",
        [value("i", T.INT64, []), value("c", T.BOOL, []), value("acc", T.FLOAT, [None])],
        [value("c_out", T.BOOL, []), value("acc_out", T.FLOAT, [None])],
    )
    return _model(
        [
            h.make_node("Identity", ["oc"], ["oc_out"]),
            h.make_node("Add", ["j", "one"], ["trips"]),
            h.make_node("Loop", ["trips", "", "x"], ["grown"], body=inner),
            h.make_node("ReduceSum", ["grown"], ["s"], keepdims=1),
            h.make_node("Add", ["total", "s"], ["total_out"]),
        ],
        [value("j", T.INT64, []), value("oc", T.BOOL, []), value("total", T.FLOAT, [1])],
        [value("oc_out", T.BOOL, []), value("total_out", T.FLOAT, [1])],
        ["n", "", "t0"],
        [value("t", T.FLOAT, [1])],
        [value("n", T.INT64, []), value("x", T.FLOAT, [1]), value("t0", T.FLOAT, [1])],
        [
            h.make_node("Constant", [], ["zero"], value_ints=[0]),
            h.make_node("Constant", [], ["one"], value_int=1),
        ],
    )


def _n(trips: int) -> np.ndarray:
    return np.array(trips, np.int64)


X2 = np.array([0.5, -1.5], np.float32)
X32 = np.arange(6, dtype=np.float32).reshape(3, 2) / 4
T31 = np.ones((3, 1), np.float32)
CASES = {
    "accumulator-no-trips": (accumulator, {"n": _n(0), "x": X2}),
    "accumulator-one-trip": (accumulator, {"n": _n(1), "x": X2}),
    "accumulator-thousands": (accumulator, {"n": _n(3000), "x": X2}),
    "columns": (columns, {"n": _n(4), "x": X32, "t": T31}),
    "columns-one-row": (columns, {"n": _n(3), "x": X32[:1], "t": T31[:1]}),
    "until-limit": (
        until_limit,
        {
            "x": np.array([1], np.float32),
            "step": np.array(0.5, np.float32),
            "limit": np.array(40, np.float32),
        },
    ),  # fmt: skip
    "until-limit-at-once": (
        until_limit,
        {
            "x": np.array([100], np.float32),
            "step": np.array(1, np.float32),
            "limit": np.array(40, np.float32),
        },
    ),  # fmt: skip
    "swapped": (swapped, {"n": _n(5), "a0": np.array([7]), "b0": np.array([1, 2, 3])}),
    "nested": (
        nested,
        {"n": _n(6), "x": np.array([0.5], np.float32), "t0": np.zeros(1, np.float32)},
    ),
    "swapped-no-trips": (swapped, {"n": _n(0), "a0": np.array([7]), "b0": np.array([1, 2, 3])}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_onnxruntime(case: str) -> None:
    build, feeds = CASES[case]
    _compare(build(), feeds)


def test_workspace_grows_then_is_reused() -> None:
    """The first call retries until the workspace holds the loop; the
    next call of the same sizes gets it at once and gives the same."""
    model = onnxc.compile(accumulator())
    feeds = {"n": _n(2000), "x": X2}
    first = model.run(feeds)["y"]
    again = model.run(feeds)["y"]
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first[2:], np.arange(2000, dtype=np.float32))


@pytest.mark.parametrize("compiler", ["gcc", "clang", "arm-none-eabi-gcc"])
def test_c_is_warning_free(compiler: str, tmp_path) -> None:
    assert_builds_warning_free(swapped(), "grow", tmp_path, compiler)


def test_pytorch_decoder_with_cat(tmp_path) -> None:
    """A greedy decoder scripted with `torch.cat`: tokens and scores grow
    by a column per step."""
    torch = pytest.importorskip("torch")

    class Decode(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = torch.nn.Embedding(10, 8)
            self.out = torch.nn.Linear(8, 10)

        def forward(self, start, n: int):
            tokens = start
            scores = torch.zeros(start.shape[0], 0)
            for _ in range(n):
                logits = self.out(self.embed(tokens).mean(dim=1))
                tokens = torch.cat([tokens, logits.argmax(dim=1, keepdim=True)], dim=1)
                scores = torch.cat([scores, logits.max(dim=1, keepdim=True).values], dim=1)
            return tokens, scores

    torch.manual_seed(0)
    path = tmp_path / "decode.onnx"
    scripted = torch.jit.script(Decode().eval())
    torch.onnx.export(
        scripted, (torch.tensor([[1, 2], [3, 4]]), 3), str(path), input_names=["start", "n"],
        output_names=["tokens", "scores"], dynamo=False, opset_version=17,
    )  # fmt: skip
    model = onnx.load(str(path))
    assert "Loop" in {node.op_type for node in model.graph.node}
    for trips in (0, 1, 4, 40):
        _compare(model, {"start": np.array([[1, 2], [3, 4]]), "n": _n(trips)})
