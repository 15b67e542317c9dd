"""Elementwise lowerings, end to end: each case is a one-node model compiled by
onnxc and compared with onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxc

ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(0)


def one_node_model(
    op_type: str,
    inputs: dict[str, tuple[int, ...]],
    output_shape: tuple[int, ...],
    constants: dict[str, np.ndarray] | None = None,
    node_inputs: list[str] | None = None,
    opset: int = 18,
    **attributes: Any,
) -> onnx.ModelProto:
    """A model with one node `op_type` over float inputs and constants."""
    constants = constants or {}
    node = helper.make_node(
        op_type,
        node_inputs or [*inputs, *constants],
        ["y"],
        name=op_type.lower(),
        **attributes,
    )
    graph = helper.make_graph(
        [node],
        "test",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape)],
        initializer=[onnx.numpy_helper.from_array(v, n) for n, v in constants.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def compare(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    expected = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    ).run(None, feeds)
    actual = onnxc.compile(model).run(feeds)
    for want, got in zip(expected, actual.values(), strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def random(shape: tuple[int, ...], positive: bool = False) -> np.ndarray:
    values = np.asarray(RNG.standard_normal(shape) * 3, np.float32)
    return np.abs(values) + np.float32(0.1) if positive else values


BINARY_SHAPES = [
    ((2, 3), (2, 3)),
    ((2, 3), (3,)),
    ((2, 1, 4), (3, 1)),
    ((1,), (2, 3)),
    ((), (2, 3)),
]


@pytest.mark.parametrize("a_shape,b_shape", BINARY_SHAPES)
@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul", "Div", "Max", "Min"])
def test_binary_broadcast(op_type: str, a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    out = np.broadcast_shapes(a_shape, b_shape)
    model = one_node_model(op_type, {"a": a_shape, "b": b_shape}, out)
    compare(model, {"a": random(a_shape), "b": random(b_shape, positive=True)})


@pytest.mark.parametrize("op_type", ["Add", "Sub", "Mul", "Div", "Pow", "Max"])
def test_scalar_constant_operand(op_type: str) -> None:
    model = one_node_model(op_type, {"a": (2, 3)}, (2, 3), {"b": np.array(1.5, np.float32)})
    compare(model, {"a": random((2, 3), positive=True)})


def test_pow() -> None:
    model = one_node_model("Pow", {"a": (2, 3), "b": (3,)}, (2, 3))
    compare(model, {"a": random((2, 3), positive=True), "b": random((3,))})


def test_pow_integer_exponent_constant() -> None:
    model = one_node_model("Pow", {"a": (2, 3)}, (2, 3), {"e": np.array([2, 3, 0], np.int64)})
    compare(model, {"a": random((2, 3))})


@pytest.mark.parametrize("op_type", ["Max", "Min"])
def test_variadic(op_type: str) -> None:
    shapes = {"a": (2, 3), "b": (3,), "c": (2, 1)}
    compare(
        one_node_model(op_type, shapes, (2, 3)),
        {n: random(s) for n, s in shapes.items()},
    )
    compare(one_node_model(op_type, {"a": (4,)}, (4,)), {"a": random((4,))})


UNARY: list[tuple[str, dict[str, Any], bool]] = [
    ("Abs", {}, False),
    ("Neg", {}, False),
    ("Exp", {}, False),
    ("Log", {}, True),
    ("Sqrt", {}, True),
    ("Reciprocal", {}, True),
    ("Relu", {}, False),
    ("LeakyRelu", {}, False),
    ("LeakyRelu", {"alpha": 0.3}, False),
    ("Sigmoid", {}, False),
    ("Tanh", {}, False),
    ("HardSigmoid", {}, False),
    ("HardSigmoid", {"alpha": 0.5, "beta": 0.25}, False),
    ("HardSwish", {}, False),
    ("Erf", {}, False),
]


@pytest.mark.parametrize(
    "op_type,attributes,positive",
    UNARY,
    ids=[f"{o}-{'-'.join(map(str, a.values())) or 'default'}" for o, a, _ in UNARY],
)
def test_unary(op_type: str, attributes: dict[str, Any], positive: bool) -> None:
    model = one_node_model(op_type, {"x": (2, 3, 4)}, (2, 3, 4), **attributes)
    compare(model, {"x": random((2, 3, 4), positive)})


def test_sigmoid_saturates() -> None:
    model = one_node_model("Sigmoid", {"x": (4,)}, (4,))
    compare(model, {"x": np.array([-200.0, -50.0, 50.0, 200.0], np.float32)})


CLIPS: list[tuple[str, list[str], dict[str, np.ndarray]]] = [
    (
        "both",
        ["x", "lo", "hi"],
        {"lo": np.array(-1.0, np.float32), "hi": np.array(2.0, np.float32)},
    ),
    ("min-only", ["x", "lo"], {"lo": np.array(0.5, np.float32)}),
    ("max-only", ["x", "", "hi"], {"hi": np.array(-0.5, np.float32)}),
    ("none", ["x"], {}),
    (
        "min>max",
        ["x", "lo", "hi"],
        {"lo": np.array(1.0, np.float32), "hi": np.array(-1.0, np.float32)},
    ),
]


@pytest.mark.parametrize("node_inputs,constants", [c[1:] for c in CLIPS], ids=[c[0] for c in CLIPS])
def test_clip(node_inputs: list[str], constants: dict[str, np.ndarray]) -> None:
    model = one_node_model("Clip", {"x": (3, 4)}, (3, 4), constants, node_inputs=node_inputs)
    compare(model, {"x": random((3, 4))})


def test_clip_bounds_given_at_run_time() -> None:
    model = one_node_model("Clip", {"x": (3, 4), "lo": (), "hi": ()}, (3, 4))
    compare(
        model,
        {"x": random((3, 4)), "lo": np.array(-0.5, np.float32), "hi": np.array(1.25, np.float32)},
    )


def test_integer_tensors() -> None:
    node = helper.make_node("Neg", ["x"], ["y"], name="neg")
    graph = helper.make_graph(
        [node],
        "test",
        [helper.make_tensor_value_info("x", TensorProto.INT32, (3,))],
        [helper.make_tensor_value_info("y", TensorProto.INT32, (3,))],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)
    x = np.array([5, -7, -(2**31)], np.int32)
    np.testing.assert_array_equal(onnxc.compile(model).run({"x": x})["y"], -x)


@pytest.mark.parametrize("x_shape", [(2, 3, 4), (2, 3, 4, 3), (1, 3, 2, 2, 2)])
def test_prelu_channel_slope_before_opset_7(x_shape: tuple[int, ...]) -> None:
    """PRelu-6's [C] slope is per channel (X's axis 1), also where it would
    broadcast from the right (X [2, 3, 4, 3]); onnxruntime has no PRelu-6,
    so the spec's formula is the oracle."""
    slope = np.array([0.5, -2.0, 3.0], np.float32)
    model = one_node_model("PRelu", {"x": x_shape}, x_shape, constants={"slope": slope}, opset=6)
    x = random(x_shape)
    channel = slope.reshape((3,) + (1,) * (len(x_shape) - 2))
    got = onnxc.compile(model).run({"x": x})["y"]
    np.testing.assert_array_equal(got, np.where(x < 0, channel * x, x))


def test_prelu_slope_broadcasts_from_the_right_since_opset_7() -> None:
    slope = np.array([0.5, -2.0, 3.0], np.float32)
    model = one_node_model("PRelu", {"x": (2, 4, 3)}, (2, 4, 3), constants={"slope": slope})
    compare(model, {"x": random((2, 4, 3))})
