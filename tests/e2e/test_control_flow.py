"""If, Loop and Scan compiled by onnxc match onnxruntime.

Hand-built models cover what the backend suite leaves out: an If whose
branches read outer-scope values, a Loop with a trip count, one ended by its
condition (scf.while), carried values swapped between iterations, scan
outputs, Scan with reverse directions and non-zero axes, and control flow
nested in control flow. PyTorch models scripted with a data-dependent `if`
and a loop (exported with the TorchScript exporter, which keeps If and Loop)
cover what an exporter writes. Tolerance: rtol 1e-5, atol 1e-6.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import onnxc
from onnxc.errors import OnnxcError
from tests.e2e.run_time import assert_matches_onnxruntime
from tests.mcu.tools import needs_arm

ort = pytest.importorskip("onnxruntime")

RTOL, ATOL = 1e-5, 1e-6
value = h.make_tensor_value_info


def _model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = h.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], ir_version=10)
    onnx.checker.check_model(model, full_check=True)
    return model


def _graph(nodes, inputs, outputs, name="body") -> onnx.GraphProto:
    return h.make_graph(nodes, name, inputs, outputs)


def _compare(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    assert_matches_onnxruntime(model, feeds, RTOL, ATOL)


def if_outer_scope() -> onnx.ModelProto:
    """Both branches read x and w of the outer graph."""
    then_branch = _graph(
        [h.make_node("Mul", ["x", "w"], ["t"]), h.make_node("Relu", ["t"], ["then_out"])],
        [],
        [value("then_out", T.FLOAT, [2, 3])],
        "then",
    )
    else_branch = _graph(
        [h.make_node("Sub", ["x", "w"], ["else_out"])],
        [],
        [value("else_out", T.FLOAT, [2, 3])],
        "else",
    )
    return _model(
        [
            h.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
            h.make_node("Greater", ["s", "zero"], ["c"]),
            h.make_node("If", ["c"], ["y"], then_branch=then_branch, else_branch=else_branch),
            h.make_node("Add", ["y", "x"], ["z"]),
        ],
        [value("x", T.FLOAT, [2, 3])],
        [value("z", T.FLOAT, [2, 3])],
        [
            onnx.numpy_helper.from_array(np.array(0, np.float32), "zero"),
            onnx.numpy_helper.from_array(
                np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3), "w"
            ),
        ],
    )


def loop_trip_count() -> onnx.ModelProto:
    """A for loop: trip count from an input, carried sum and product, and a
    scan output of the running sum."""
    body = _graph(
        [
            h.make_node("Cast", ["i"], ["fi"], to=T.FLOAT),
            h.make_node("Add", ["acc", "x"], ["a1"]),
            h.make_node("Mul", ["a1", "fi"], ["scaled"]),
            h.make_node("Add", ["acc", "scaled"], ["acc_out"]),
            h.make_node("Identity", ["c"], ["c_out"]),
            h.make_node("Identity", ["acc"], ["row"]),
        ],
        [value("i", T.INT64, []), value("c", T.BOOL, []), value("acc", T.FLOAT, [3])],
        [value("c_out", T.BOOL, []), value("acc_out", T.FLOAT, [3]), value("row", T.FLOAT, [3])],
    )
    return _model(
        [h.make_node("Loop", ["n", "", "x"], ["final", "rows"], body=body)],
        [value("n", T.INT64, []), value("x", T.FLOAT, [3])],
        [value("final", T.FLOAT, [3]), value("rows", T.FLOAT, ["N", 3])],
    )


def loop_static_trip_count() -> onnx.ModelProto:
    """A constant trip count and a constant-true condition: the scan output
    has a static length."""
    body = _graph(
        [
            h.make_node("Mul", ["v", "two"], ["v_out"]),
            h.make_node("Identity", ["c"], ["c_out"]),
            h.make_node("ReduceSum", ["v_out"], ["total"], keepdims=1),
        ],
        [value("i", T.INT64, []), value("c", T.BOOL, []), value("v", T.FLOAT, [2, 2])],
        [
            value("c_out", T.BOOL, []),
            value("v_out", T.FLOAT, [2, 2]),
            value("total", T.FLOAT, [1, 1]),
        ],
    )
    return _model(
        [h.make_node("Loop", ["four", "yes", "x"], ["final", "totals"], body=body)],
        [value("x", T.FLOAT, [2, 2])],
        [value("final", T.FLOAT, [2, 2]), value("totals", T.FLOAT, [4, 1, 1])],
        [
            onnx.numpy_helper.from_array(np.array(4, np.int64), "four"),
            onnx.numpy_helper.from_array(np.array(True), "yes"),
            onnx.numpy_helper.from_array(np.array(2, np.float32), "two"),
        ],
    )


def loop_while() -> onnx.ModelProto:
    """A while loop: doubles x until its sum passes a limit (no trip count)."""
    body = _graph(
        [
            h.make_node("Add", ["v", "v"], ["v_out"]),
            h.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0),
            h.make_node("Less", ["s", "limit"], ["c_out"]),
            h.make_node("Add", ["count", "one"], ["count_out"]),
        ],
        [
            value("i", T.INT64, []),
            value("c", T.BOOL, []),
            value("v", T.FLOAT, [4]),
            value("count", T.INT64, []),
        ],
        [
            value("c_out", T.BOOL, []),
            value("v_out", T.FLOAT, [4]),
            value("count_out", T.INT64, []),
        ],
    )
    return _model(
        [h.make_node("Loop", ["", "go", "x", "zero"], ["final", "trips"], body=body)],
        [value("x", T.FLOAT, [4]), value("go", T.BOOL, []), value("limit", T.FLOAT, [])],
        [value("final", T.FLOAT, [4]), value("trips", T.INT64, [])],
        [onnx.numpy_helper.from_array(np.array(0, np.int64), "zero"),
         onnx.numpy_helper.from_array(np.array(1, np.int64), "one")],
    )  # fmt: skip


def loop_while_with_trip_count() -> onnx.ModelProto:
    """Both a trip count and a condition computed by the body; carried
    values swapped every iteration."""
    body = _graph(
        [
            h.make_node("Add", ["a", "b"], ["s"]),
            h.make_node("ReduceMax", ["s"], ["m"], keepdims=0),
            h.make_node("Less", ["m", "limit"], ["c_out"]),
        ],
        [
            value("i", T.INT64, []),
            value("c", T.BOOL, []),
            value("a", T.FLOAT, [3]),
            value("b", T.FLOAT, [3]),
        ],
        [value("c_out", T.BOOL, []), value("b_out", T.FLOAT, [3]), value("s_out", T.FLOAT, [3])],
    )
    # b_out is b's input (a swap-like rotation): a' = b, b' = a + b.
    body.node.append(h.make_node("Identity", ["b"], ["b_out"]))
    body.node.append(h.make_node("Identity", ["s"], ["s_out"]))
    return _model(
        [h.make_node("Loop", ["n", "", "a0", "b0"], ["a", "b"], body=body)],
        [value("n", T.INT64, []), value("a0", T.FLOAT, [3]), value("b0", T.FLOAT, [3]),
         value("limit", T.FLOAT, [])],
        [value("a", T.FLOAT, [3]), value("b", T.FLOAT, [3])],
    )  # fmt: skip


def loop_while_scanning() -> onnx.ModelProto:
    """A condition the body computes and scan outputs: one row per trip that
    ran, which only the run tells (at most n, the trip count)."""
    body = _graph(
        [
            h.make_node("Add", ["a", "b"], ["s"]),
            h.make_node("ReduceMax", ["s"], ["m"], keepdims=0),
            h.make_node("Less", ["m", "limit"], ["c_out"]),
            h.make_node("Identity", ["s"], ["row"]),
            h.make_node("Cast", ["i"], ["step"], to=T.FLOAT),
        ],
        [value("i", T.INT64, []), value("c", T.BOOL, []), value("a", T.FLOAT, [3])],
        [
            value("c_out", T.BOOL, []),
            value("s", T.FLOAT, [3]),
            value("row", T.FLOAT, [3]),
            value("step", T.FLOAT, []),
        ],
    )
    return _model(
        [h.make_node("Loop", ["n", "", "a0"], ["a", "rows", "steps"], body=body)],
        [value("n", T.INT64, []), value("a0", T.FLOAT, [3]), value("b", T.FLOAT, [3]),
         value("limit", T.FLOAT, [])],
        [value("a", T.FLOAT, [3]), value("rows", T.FLOAT, [None, 3]),
         value("steps", T.FLOAT, [None])],
    )  # fmt: skip


def _scanning_feeds(trips: int, limit: float) -> dict[str, np.ndarray]:
    a0, b = np.array([0, 1, 2], np.float32), np.array([1, 0.5, 1], np.float32)
    return {"n": np.array(trips), "a0": a0, "b": b, "limit": np.array(limit, np.float32)}


def scan_reverse_axes() -> onnx.ModelProto:
    """Scan over axis 1 of x (backwards) and axis 0 of y (forwards), a
    running sum carried, scan outputs stacked at axis 1 (forwards) and
    axis 0 (backwards)."""
    body = _graph(
        [
            h.make_node("Add", ["acc", "xs"], ["a1"]),
            h.make_node("Mul", ["a1", "ys"], ["acc_out"]),
            h.make_node("Identity", ["acc_out"], ["o1"]),
            h.make_node("Neg", ["xs"], ["o2"]),
        ],
        [value("acc", T.FLOAT, [2]), value("xs", T.FLOAT, [2]), value("ys", T.FLOAT, [2])],
        [value("acc_out", T.FLOAT, [2]), value("o1", T.FLOAT, [2]), value("o2", T.FLOAT, [2])],
    )
    return _model(
        [
            h.make_node(
                "Scan",
                ["init", "x", "y"],
                ["final", "out1", "out2"],
                body=body,
                num_scan_inputs=2,
                scan_input_axes=[1, 0],
                scan_input_directions=[1, 0],
                scan_output_axes=[1, 0],
                scan_output_directions=[0, 1],
            )
        ],
        [value("init", T.FLOAT, [2]), value("x", T.FLOAT, [2, 5]), value("y", T.FLOAT, [5, 2])],
        [value("final", T.FLOAT, [2]), value("out1", T.FLOAT, [2, 5]),
         value("out2", T.FLOAT, [5, 2])],
    )  # fmt: skip


def nested() -> onnx.ModelProto:
    """A Loop whose body holds an If on the iteration number's parity and a
    Scan (cumulative sum of the carried rows)."""
    then_branch = _graph(
        [h.make_node("Add", ["m", "x"], ["t"])], [], [value("t", T.FLOAT, [3, 2])], "then"
    )
    else_branch = _graph(
        [h.make_node("Mul", ["m", "half"], ["e"])], [], [value("e", T.FLOAT, [3, 2])], "else"
    )
    scan_body = _graph(
        [
            h.make_node("Add", ["run", "row"], ["run_out"]),
            h.make_node("Identity", ["run_out"], ["o"]),
        ],
        [value("run", T.FLOAT, [2]), value("row", T.FLOAT, [2])],
        [value("run_out", T.FLOAT, [2]), value("o", T.FLOAT, [2])],
        "scan",
    )
    body = _graph(
        [
            h.make_node("Mod", ["i", "two"], ["parity"]),
            h.make_node("Equal", ["parity", "zero"], ["even"]),
            h.make_node("If", ["even"], ["b"], then_branch=then_branch, else_branch=else_branch),
            h.make_node("Scan", ["zeros", "b"], ["last", "m_out"], body=scan_body,
                        num_scan_inputs=1),
            h.make_node("Identity", ["c"], ["c_out"]),
        ],
        [value("i", T.INT64, []), value("c", T.BOOL, []), value("m", T.FLOAT, [3, 2])],
        [value("c_out", T.BOOL, []), value("m_out", T.FLOAT, [3, 2]), value("last", T.FLOAT, [2])],
    )  # fmt: skip
    return _model(
        [h.make_node("Loop", ["n", "", "x"], ["final", "lasts"], body=body)],
        [value("n", T.INT64, []), value("x", T.FLOAT, [3, 2])],
        [value("final", T.FLOAT, [3, 2]), value("lasts", T.FLOAT, ["N", 2])],
        [
            onnx.numpy_helper.from_array(np.array(2, np.int64), "two"),
            onnx.numpy_helper.from_array(np.array(0, np.int64), "zero"),
            onnx.numpy_helper.from_array(np.array(0.5, np.float32), "half"),
            onnx.numpy_helper.from_array(np.zeros(2, np.float32), "zeros"),
        ],
    )


RNG = np.random.default_rng(0)


def _while_feeds(go: bool) -> dict[str, np.ndarray]:
    x = np.array([0.5, 1, 0.25, 2], np.float32)
    return {"x": x, "go": np.array(go), "limit": np.array(100, np.float32)}


def _rotation_feeds(trips: int, limit: float) -> dict[str, np.ndarray]:
    a0, b0 = np.array([0, 1, 2], np.float32), np.array([1, 1, 1], np.float32)
    return {"n": np.array(trips), "a0": a0, "b0": b0, "limit": np.array(limit, np.float32)}


X23 = RNG.standard_normal((2, 3)).astype(np.float32)
CASES = {
    "if-then": (if_outer_scope, {"x": np.abs(X23)}),
    "if-else": (if_outer_scope, {"x": -np.abs(X23)}),
    "loop-trip-count": (
        loop_trip_count,
        {"n": np.array(4, np.int64), "x": np.array([1, -2, 0.5], np.float32)},
    ),
    "loop-zero-trips": (
        loop_trip_count,
        {"n": np.array(0, np.int64), "x": np.array([1, -2, 0.5], np.float32)},
    ),
    "loop-static-trip-count": (
        loop_static_trip_count,
        {"x": RNG.standard_normal((2, 2)).astype(np.float32)},
    ),
    "loop-while": (loop_while, _while_feeds(True)),
    "loop-while-not-started": (loop_while, _while_feeds(False)),
    "loop-while-trip-count": (loop_while_with_trip_count, _rotation_feeds(10, 30)),
    "loop-while-trip-count-first": (loop_while_with_trip_count, _rotation_feeds(3, 1000)),
    "loop-while-scanning-ends-early": (loop_while_scanning, _scanning_feeds(10, 6)),
    "loop-while-scanning-runs-out": (loop_while_scanning, _scanning_feeds(4, 1000)),
    "loop-while-scanning-no-trips": (loop_while_scanning, _scanning_feeds(0, 1000)),
    "scan-reverse-axes": (
        scan_reverse_axes,
        {
            "init": np.array([1, 2], np.float32),
            "x": RNG.standard_normal((2, 5)).astype(np.float32),
            "y": RNG.standard_normal((5, 2)).astype(np.float32),
        },
    ),  # fmt: skip
    "nested": (
        nested,
        {"n": np.array(3, np.int64), "x": RNG.standard_normal((3, 2)).astype(np.float32)},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_onnxruntime(case: str) -> None:
    build, feeds = CASES[case]
    _compare(build(), feeds)


def test_body_output_count_mismatch_is_one_line_error() -> None:
    body = _graph(
        [h.make_node("Identity", ["c"], ["c_out"])],
        [value("i", T.INT64, []), value("c", T.BOOL, []), value("v", T.FLOAT, [2])],
        [value("c_out", T.BOOL, [])],
    )
    graph = h.make_graph(
        [h.make_node("Loop", ["n", "", "x"], ["y"], body=body)],
        "g",
        [value("n", T.INT64, []), value("x", T.FLOAT, [2])],
        [value("y", T.FLOAT, [2])],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], ir_version=10)
    with pytest.raises(OnnxcError) as error:
        onnxc.compile(model)
    assert "\n" not in str(error.value)
    assert "Loop" in str(error.value)


def test_while_loop_prints_as_c_loop_with_break() -> None:
    source = onnxc.compile(loop_while()).c_source
    assert "for (;;) {" in source and "break;" in source


# --- PyTorch: scripted control flow, kept by the TorchScript exporter ----------------------


def _torch_models():
    torch = pytest.importorskip("torch")

    class Branchy(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Linear(4, 3)
            self.b = torch.nn.Linear(4, 3)

        def forward(self, x):
            if x.sum() > 0:
                y = torch.relu(self.a(x))
            else:
                y = torch.tanh(self.b(x)) * 2.0
            return y

    class Loopy(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.cell = torch.nn.Linear(4, 4)

        def forward(self, x, n: int):
            h = x
            for _ in range(n):
                h = torch.tanh(self.cell(h)) + x
            return h

    return torch, Branchy, Loopy


def _scripted(torch, module, args, names, tmp_path) -> onnx.ModelProto:
    path = tmp_path / "model.onnx"
    torch.manual_seed(0)
    scripted = torch.jit.script(module)
    torch.onnx.export(
        scripted, args, str(path), input_names=names, output_names=["y"], dynamo=False,
        opset_version=17,
    )  # fmt: skip
    model = onnx.load(str(path))
    kinds = {node.op_type for node in model.graph.node}
    assert kinds & {"If", "Loop"}, kinds
    return model


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_pytorch_data_dependent_if(tmp_path, sign: float) -> None:
    torch, branchy, _ = _torch_models()
    torch.manual_seed(0)
    module = branchy().eval()
    model = _scripted(torch, module, (torch.randn(2, 4),), ["x"], tmp_path)
    x = (sign * np.abs(RNG.standard_normal((2, 4)))).astype(np.float32)
    _compare(model, {"x": x})


@pytest.mark.parametrize("n", [0, 1, 5])
def test_pytorch_loop(tmp_path, n: int) -> None:
    torch, _, loopy = _torch_models()
    torch.manual_seed(0)
    module = loopy().eval()
    model = _scripted(torch, module, (torch.randn(2, 4), 3), ["x", "n"], tmp_path)
    _compare(model, {"x": RNG.standard_normal((2, 4)).astype(np.float32), "n": np.array(n)})


@needs_arm
@pytest.mark.parametrize("case", ["loop-static-trip-count", "scan-reverse-axes", "if-then"])
def test_runs_on_cortex_m4(case: str) -> None:
    build, feeds = CASES[case]
    model = build()
    host = onnxc.compile(model).run(feeds)
    mcu = onnxc.compile(model, target="cortex-m4").run(feeds)
    for name, value in host.items():
        np.testing.assert_array_equal(mcu[name], value)
