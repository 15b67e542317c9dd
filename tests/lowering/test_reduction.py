"""The reductions (Reduce*, ArgMax/ArgMin, the softmax family, CumSum and
CumProd), end to end against onnxruntime; where onnxruntime departs from the
spec (ReduceMax of NaN), against numpy."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from onnxc.errors import OnnxcError
from tests.lowering.test_elementwise import compare, one_node_model, random

ort = pytest.importorskip("onnxruntime")


@pytest.mark.parametrize("axis", [None, -1, 0, 1, 2])
def test_softmax(axis: int | None) -> None:
    attributes: dict[str, Any] = {} if axis is None else {"axis": axis}
    model = one_node_model("Softmax", {"x": (2, 3, 4)}, (2, 3, 4), **attributes)
    compare(model, {"x": random((2, 3, 4))})


def test_softmax_large_values_are_stable() -> None:
    model = one_node_model("Softmax", {"x": (2, 3)}, (2, 3))
    x = np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1001.0]], np.float32)
    compare(model, {"x": x})


def test_softmax_opset_11_is_upgraded() -> None:
    model = one_node_model("Softmax", {"x": (2, 3, 4)}, (2, 3, 4), opset=11, axis=1)
    compare(model, {"x": random((2, 3, 4))})


REDUCE_MEANS: list[tuple[str, list[int] | None, dict[str, Any], tuple[int, ...]]] = [
    ("axis1-keep", [1], {}, (2, 1, 4)),
    ("axis1-drop", [1], {"keepdims": 0}, (2, 4)),
    ("negative-axes", [-1, 0], {}, (1, 3, 1)),
    ("all-keep", None, {}, (1, 1, 1)),
    ("all-drop", None, {"keepdims": 0}, ()),
    ("empty-axes-all", [], {}, (1, 1, 1)),
    ("noop", None, {"noop_with_empty_axes": 1}, (2, 3, 4)),
    ("noop-ignored-with-axes", [2], {"noop_with_empty_axes": 1}, (2, 3, 1)),
]


@pytest.mark.parametrize(
    "axes,attributes,out_shape",
    [r[1:] for r in REDUCE_MEANS],
    ids=[r[0] for r in REDUCE_MEANS],
)
def test_reduce_mean(
    axes: list[int] | None, attributes: dict[str, Any], out_shape: tuple[int, ...]
) -> None:
    constants = {} if axes is None else {"axes": np.array(axes, np.int64)}
    model = one_node_model("ReduceMean", {"x": (2, 3, 4)}, out_shape, constants, **attributes)
    compare(model, {"x": random((2, 3, 4))})


def test_reduce_mean_opset_17_axes_attribute() -> None:
    model = one_node_model("ReduceMean", {"x": (2, 3, 4)}, (2, 4), opset=17, axes=[1], keepdims=0)
    compare(model, {"x": random((2, 3, 4))})


REDUCE_OPS = [
    "ReduceSum",
    "ReduceMean",
    "ReduceProd",
    "ReduceMax",
    "ReduceMin",
    "ReduceSumSquare",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
]


def model(
    nodes: list[onnx.NodeProto],
    inputs: list[onnx.ValueInfoProto],
    outputs: list[onnx.ValueInfoProto],
    initializers: dict[str, np.ndarray] | None = None,
    opset: int = 18,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "test",
        inputs,
        outputs,
        [numpy_helper.from_array(v, k) for k, v in (initializers or {}).items()],
    )
    opsets = [helper.make_opsetid("", opset)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def reduce_model(
    op_type: str, axes_shape: tuple[int, ...] | None, out_rank: int, **attributes: Any
) -> onnx.ModelProto:
    """`op_type` of x [2, 3, 4] float, its axes a graph input of `axes_shape`
    (None: no axes), its result of rank `out_rank` (sizes not declared)."""
    names = ["x"] if axes_shape is None else ["x", "axes"]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])]
    if axes_shape is not None:
        inputs.append(helper.make_tensor_value_info("axes", TensorProto.INT64, axes_shape))
    node = helper.make_node(op_type, names, ["y"], **attributes)
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, [None] * out_rank)
    return model([node], inputs, [output])


def run_both(proto: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    want = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, feeds
    )
    got = onnxc.compile(proto).run(feeds)
    for w, g in zip(want, got.values(), strict=True):
        assert g.shape == w.shape
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


AXES = [[1], [-1, 0], [0, 1, 2], [2, 0]]


@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("op_type", REDUCE_OPS)
def test_reduce_runtime_axes(op_type: str, keepdims: int) -> None:
    """Axes from a graph input: one compiled model per number of axes, run on
    each list of that many axes."""
    x = np.abs(random((2, 3, 4))) + np.float32(0.5) if "Log" in op_type else random((2, 3, 4))
    for count in (1, 2, 3):
        proto = reduce_model(op_type, (count,), 3 if keepdims else 3 - count, keepdims=keepdims)
        compiled = onnxc.compile(proto)
        session = ort.InferenceSession(
            proto.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        for axes in (a for a in AXES if len(a) == count):
            feeds = {"x": x, "axes": np.array(axes, np.int64)}
            (want,) = session.run(None, feeds)
            (got,) = compiled.run(feeds).values()
            assert got.shape == want.shape, axes
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=str(axes))


@pytest.mark.parametrize("noop", [0, 1])
@pytest.mark.parametrize("op_type", REDUCE_OPS)
def test_reduce_no_axes(op_type: str, noop: int) -> None:
    """No axes (an empty axes input, or none): every axis, or with
    noop_with_empty_axes none, where the per-element steps still apply."""
    x = np.abs(random((2, 3, 4))) + np.float32(0.5) if "Log" in op_type else random((2, 3, 4))
    run_both(
        reduce_model(op_type, (0,), 3, noop_with_empty_axes=noop),
        {"x": x, "axes": np.zeros(0, np.int64)},
    )
    run_both(
        reduce_model(op_type, None, 3 if noop else 0, keepdims=0, noop_with_empty_axes=noop),
        {"x": x},
    )


EMPTY_SET = {
    "ReduceSum": 0.0,
    "ReduceMean": np.nan,
    "ReduceProd": 1.0,
    "ReduceMax": -np.inf,
    "ReduceMin": np.inf,
    "ReduceSumSquare": 0.0,
    "ReduceL1": 0.0,
    "ReduceL2": 0.0,
    "ReduceLogSum": -np.inf,
    "ReduceLogSumExp": -np.inf,
}


@pytest.mark.parametrize("runtime", [False, True])
@pytest.mark.parametrize("op_type", REDUCE_OPS)
def test_reduce_empty_set(op_type: str, runtime: bool) -> None:
    """Reducing an empty axis gives the spec's value for the empty set."""
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 0, 4])]
    axes = np.array([1], np.int64)
    initializers: dict[str, np.ndarray] = {}
    if runtime:
        inputs.append(helper.make_tensor_value_info("axes", TensorProto.INT64, [1]))
    else:
        initializers["axes"] = axes
    node = helper.make_node(op_type, ["x", "axes"], ["y"], keepdims=1)
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 1, 4])
    feeds: dict[str, np.ndarray] = {"x": np.zeros((2, 0, 4), np.float32)}
    if runtime:
        feeds["axes"] = axes
    (got,) = onnxc.compile(model([node], inputs, [output], initializers)).run(feeds).values()
    np.testing.assert_array_equal(got, np.full((2, 1, 4), EMPTY_SET[op_type], np.float32))


@pytest.mark.parametrize("op_type", ["ReduceMax", "ReduceMin"])
def test_reduce_max_min_propagate_nan(op_type: str) -> None:
    """As the spec's numpy definition (onnxruntime keeps a NaN only when it
    comes first)."""
    x = np.array([[1.0, np.nan, 2.0], [np.nan, 1.0, 2.0], [3.0, -1.0, 2.0]], np.float32)
    proto = model(
        [helper.make_node(op_type, ["x", "axes"], ["y"], keepdims=0)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
        {"axes": np.array([1], np.int64)},
    )
    (got,) = onnxc.compile(proto).run({"x": x}).values()
    want = np.max(x, axis=1) if op_type == "ReduceMax" else np.min(x, axis=1)
    np.testing.assert_array_equal(got, want)


def test_reduce_log_sum_exp_is_stable() -> None:
    x = np.array(
        [[1000, 1000], [-1000, -1000], [np.inf, 1], [-np.inf, 1], [-np.inf, -np.inf], [np.nan, 1]],
        np.float32,
    )
    proto = model(
        [helper.make_node("ReduceLogSumExp", ["x", "axes"], ["y"], keepdims=0)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6])],
        {"axes": np.array([1], np.int64)},
    )
    (got,) = onnxc.compile(proto).run({"x": x}).values()
    want = np.array([1000 + np.log(2), -1000 + np.log(2), np.inf, 1, -np.inf, np.nan], np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_reduce_runtime_axes_out_of_range_are_refused() -> None:
    compiled = onnxc.compile(reduce_model("ReduceSum", (2,), 1, keepdims=0))
    for axes in ([0, 3], [1, 1], [-4, 0]):
        feeds = {"x": random((2, 3, 4)), "axes": np.array(axes, np.int64)}
        with pytest.raises(OnnxcError, match="status -5"):
            compiled.run(feeds)


def test_reduce_runtime_axes_against_declared_sizes() -> None:
    """A declared output shape the axes disagree with is refused at run time."""
    proto = reduce_model("ReduceSum", (1,), 3, keepdims=1)
    for dim, size in zip(proto.graph.output[0].type.tensor_type.shape.dim, (2, 1, 4), strict=True):
        dim.dim_value = size
    compiled = onnxc.compile(proto)
    (got,) = compiled.run({"x": random((2, 3, 4)), "axes": np.array([1], np.int64)}).values()
    assert got.shape == (2, 1, 4)
    with pytest.raises(OnnxcError, match="status -5"):
        compiled.run({"x": random((2, 3, 4)), "axes": np.array([2], np.int64)})


def arg_model(op_type: str, keepdims: int = 1, **attributes: Any) -> onnx.ModelProto:
    return model(
        [helper.make_node(op_type, ["x"], ["y"], keepdims=keepdims, **attributes)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "M"])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [None] * (1 + keepdims))],
    )


TIES_AND_NANS = np.array(
    [
        [np.nan, 1, 2, 2],
        [1, np.nan, 2, 2],
        [2, 2, np.nan, 1],
        [1, 2, 2, np.nan],
        [np.nan, np.nan, np.nan, np.nan],
        [3, np.nan, 3, 1],
        [1, 1, 1, 1],
        [-np.inf, -np.inf, 0, 0],
    ],
    np.float32,
)


@pytest.mark.parametrize("select_last_index", [0, 1])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
def test_arg_ties_and_nan(op_type: str, keepdims: int, select_last_index: int) -> None:
    """Ties take the first (the last with select_last_index), NaN as
    onnxruntime, at sizes known only at run time."""
    proto = arg_model(op_type, axis=1, keepdims=keepdims, select_last_index=select_last_index)
    run_both(proto, {"x": TIES_AND_NANS})
    run_both(proto, {"x": random((3, 1))})
    run_both(proto, {"x": random((0, 5))})


@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("op_type", ["ArgMax", "ArgMin"])
def test_arg_axes(op_type: str, axis: int) -> None:
    proto = one_node_model(
        op_type,
        {"x": (2, 3, 4)},
        (3, 4) if axis == 0 else (2, 3, 1),
        axis=axis,
        keepdims=int(axis != 0),
    )
    proto.graph.output[0].type.tensor_type.elem_type = TensorProto.INT64
    run_both(proto, {"x": random((2, 3, 4))})


def test_arg_of_an_empty_axis_is_refused() -> None:
    compiled = onnxc.compile(arg_model("ArgMax", axis=1))
    with pytest.raises(OnnxcError, match="status -5"):
        compiled.run({"x": np.zeros((2, 0), np.float32)})


@pytest.mark.parametrize("op_type", ["LogSoftmax", "Hardmax"])
@pytest.mark.parametrize("axis", [None, -1, 0, 1, 2])
def test_softmax_family(op_type: str, axis: int | None) -> None:
    attributes: dict[str, Any] = {} if axis is None else {"axis": axis}
    proto = one_node_model(op_type, {"x": (2, 3, 4)}, (2, 3, 4), **attributes)
    run_both(proto, {"x": random((2, 3, 4))})


@pytest.mark.parametrize("op_type", ["Softmax", "LogSoftmax", "Hardmax"])
def test_softmax_family_edge_values(op_type: str) -> None:
    """Large values, ties, and NaN (Hardmax: a NaN first gives no 1), at
    sizes known only at run time."""
    proto = model(
        [helper.make_node(op_type, ["x"], ["y"], axis=1)],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", "M"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "M"])],
    )
    large = np.array([[1000, 1001, 999, 1001], [-1000, -1002, -1001, -1000]], np.float32)
    run_both(proto, {"x": large})
    run_both(proto, {"x": TIES_AND_NANS[:, :]})
    run_both(proto, {"x": random((3, 1))})


def cumulative_model(op_type: str, axis_type: int, **attributes: Any) -> onnx.ModelProto:
    return model(
        [helper.make_node(op_type, ["x", "axis"], ["y"], **attributes)],
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["A", "B", "C"]),
            helper.make_tensor_value_info("axis", axis_type, []),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["A", "B", "C"])],
        opset=26,
    )


@pytest.mark.parametrize("reverse", [0, 1])
@pytest.mark.parametrize("exclusive", [0, 1])
@pytest.mark.parametrize("op_type", ["CumSum", "CumProd"])
def test_cumulative_runtime_axis(op_type: str, exclusive: int, reverse: int) -> None:
    """The axis and the sizes known only at run time."""
    proto = cumulative_model(op_type, TensorProto.INT32, exclusive=exclusive, reverse=reverse)
    compiled = onnxc.compile(proto)
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    for shape in ((2, 3, 4), (1, 5, 1), (3, 0, 2)):
        for axis in (0, 1, 2, -1, -3):
            feeds = {"x": random(shape), "axis": np.array(axis, np.int32)}
            (want,) = session.run(None, feeds)
            (got,) = compiled.run(feeds).values()
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=str((shape, axis)))


@pytest.mark.parametrize("op_type", ["CumSum", "CumProd"])
def test_cumulative_constant_axis(op_type: str) -> None:
    for axis in (0, -1):
        proto = one_node_model(
            op_type,
            {"x": (2, 3, 4)},
            (2, 3, 4),
            {"axis": np.array(axis, np.int64)},
            opset=26,
            reverse=1,
        )
        run_both(proto, {"x": random((2, 3, 4))})


def test_cumulative_axis_out_of_range_is_refused() -> None:
    compiled = onnxc.compile(cumulative_model("CumSum", TensorProto.INT64))
    with pytest.raises(OnnxcError, match="status -5"):
        compiled.run({"x": random((2, 3, 4)), "axis": np.array(3, np.int64)})
