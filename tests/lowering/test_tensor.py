"""Tensor lowerings, end to end: each case is a one-node model over runtime data
(shape-like inputs as initializers) compiled by onnxc and compared with
onnxruntime."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnxc

ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(0)
INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


def i64(*values: Any) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def data(*shape: int, dtype: Any = np.float32) -> np.ndarray:
    values = RNG.standard_normal(shape) * 4
    if np.issubdtype(dtype, np.integer) or dtype == np.bool_:
        return np.asarray(np.round(values), dtype=dtype)
    return np.asarray(values, dtype=dtype)


@dataclass
class Case:
    """One node `op_type` over runtime `inputs` and constant `constants`, in
    `order` (names; "" for an omitted optional input)."""

    op_type: str
    inputs: dict[str, np.ndarray]
    constants: dict[str, np.ndarray] = field(default_factory=dict)
    order: list[str] | None = None
    attributes: dict[str, Any] = field(default_factory=dict)

    def model(self) -> onnx.ModelProto:
        names = self.order or [*self.inputs, *self.constants]
        node = helper.make_node(
            self.op_type, names, ["y"], name=self.op_type.lower(), **self.attributes
        )
        feeds = {n: v for n, v in self.inputs.items()}
        constants = {n: v for n, v in self.constants.items()}
        # The reference gives the output's type, so no case spells it out.
        (expected,) = ReferenceEvaluator(node).run(None, {**feeds, **constants})
        expected = np.asarray(expected)
        graph = helper.make_graph(
            [node],
            "test",
            [
                helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
                for n, v in self.inputs.items()
            ],
            [
                helper.make_tensor_value_info(
                    "y", helper.np_dtype_to_tensor_dtype(expected.dtype), expected.shape
                )
            ],
            initializer=[numpy_helper.from_array(v, n) for n, v in constants.items()],
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def compare(case: Case) -> None:
    model = case.model()
    expected = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    ).run(None, case.inputs)
    actual = onnxc.compile(model).run(case.inputs)
    for want, got in zip(expected, actual.values(), strict=True):
        # TODO: the runtime hands bool outputs back as uint8 (emit/build.py).
        if want.dtype == np.bool_ and got.dtype == np.uint8:
            got = got.astype(np.bool_)
        assert got.dtype == want.dtype
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


X = data(2, 3, 4)

CASES: dict[str, Case] = {
    # Flatten
    "flatten_axis1": Case("Flatten", {"x": X}),
    "flatten_axis0": Case("Flatten", {"x": X}, attributes={"axis": 0}),
    "flatten_axis_rank": Case("Flatten", {"x": X}, attributes={"axis": 3}),
    "flatten_axis_negative": Case("Flatten", {"x": X}, attributes={"axis": -1}),
    # Reshape
    "reshape_infer": Case("Reshape", {"x": X}, {"s": i64(4, -1)}),
    "reshape_copy_zero": Case("Reshape", {"x": X}, {"s": i64(0, 0, 2, -1)}),
    "reshape_regroup": Case("Reshape", {"x": X}, {"s": i64(3, 8)}),
    "reshape_flat": Case("Reshape", {"x": X}, {"s": i64(-1)}),
    "reshape_to_scalar": Case("Reshape", {"x": data(1, 1)}, {"s": i64()}),
    "reshape_from_scalar": Case("Reshape", {"x": data()}, {"s": i64(1, 1)}),
    "reshape_allowzero": Case("Reshape", {"x": X}, {"s": i64(6, 4)}, attributes={"allowzero": 1}),
    # Squeeze / Unsqueeze
    "squeeze_axes": Case("Squeeze", {"x": data(1, 3, 1, 4)}, {"a": i64(-2)}),
    "squeeze_all": Case("Squeeze", {"x": data(1, 3, 1, 4)}),
    "unsqueeze": Case("Unsqueeze", {"x": data(3, 4)}, {"a": i64(0, -1)}),
    "unsqueeze_middle": Case("Unsqueeze", {"x": data(3, 4)}, {"a": i64(3, 1)}),
    "unsqueeze_scalar": Case("Unsqueeze", {"x": data()}, {"a": i64(0)}),
    # Transpose
    "transpose_default": Case("Transpose", {"x": X}),
    "transpose_perm": Case("Transpose", {"x": X}, attributes={"perm": [2, 0, 1]}),
    "transpose_nhwc": Case("Transpose", {"x": data(1, 2, 3, 4)}, attributes={"perm": [0, 2, 3, 1]}),
    "transpose_int": Case(
        "Transpose", {"x": data(3, 4, dtype=np.int64)}, attributes={"perm": [1, 0]}
    ),
    # Concat
    "concat_axis0": Case("Concat", {"a": data(2, 3), "b": data(1, 3)}, attributes={"axis": 0}),
    "concat_three_negative": Case(
        "Concat",
        {"a": data(2, 3, 2), "b": data(2, 1, 2), "c": data(2, 2, 2)},
        attributes={"axis": -2},
    ),
    "concat_last": Case("Concat", {"a": data(2, 3), "b": data(2, 2)}, attributes={"axis": 1}),
    # Slice
    "slice_basic": Case("Slice", {"x": data(5, 6)}, {"s": i64(1, 2), "e": i64(4, 5)}),
    "slice_prefix": Case("Slice", {"x": data(5, 6)}, {"s": i64(0), "e": i64(3)}),
    "slice_negative_steps": Case(
        "Slice",
        {"x": data(5, 6)},
        {"s": i64(-1, 4), "e": i64(INT64_MIN, 0), "a": i64(1, 0), "t": i64(-2, -1)},
    ),
    "slice_clamp_and_step": Case(
        "Slice",
        {"x": data(5, 6, 3)},
        {"s": i64(1, -100), "e": i64(INT64_MAX, 100), "a": i64(-3, 1), "t": i64(2, 3)},
    ),
    "slice_negative_axis_only_steps": Case(
        "Slice",
        {"x": data(4, 7)},
        {"s": i64(-2), "e": i64(-7), "t": i64(-1)},
        order=["x", "s", "e", "", "t"],
    ),
    # Gather
    "gather_scalar": Case("Gather", {"x": data(3, 4)}, {"i": np.array(1, np.int64)}),
    "gather_scalar_axis1_negative": Case(
        "Gather",
        {"x": data(3, 4)},
        {"i": np.array(-1, np.int64)},
        attributes={"axis": 1},
    ),
    "gather_progression": Case(
        "Gather", {"x": data(6, 4)}, {"i": np.array([[4, 3], [2, -5]], np.int64)}
    ),
    "gather_prefix": Case("Gather", {"x": data(6, 4)}, {"i": i64(0, 1, 2)}, attributes={"axis": 0}),
    "gather_irregular_axis1": Case(
        "Gather", {"x": data(3, 5, 2)}, {"i": i64(4, 0, -2, 4)}, attributes={"axis": 1}
    ),
    "gather_matrix_indices_last_axis": Case(
        "Gather",
        {"x": data(2, 5)},
        {"i": np.array([[0, 4], [3, 3]], np.int64)},
        attributes={"axis": -1},
    ),
    "gather_runtime_indices": Case(
        "Gather",
        {"x": data(5, 3), "i": np.array([[4, -1], [0, 2]], np.int32)},
    ),
    "gather_to_scalar": Case("Gather", {"x": data(5)}, {"i": np.array(2, np.int64)}),
    "gather_runtime_scalar_index": Case("Gather", {"x": data(5), "i": np.array(-2, np.int64)}),
    # Identities and scalars
    "concat_single": Case("Concat", {"a": data(2, 3)}, attributes={"axis": 1}),
    "transpose_identity": Case("Transpose", {"x": data(2, 3)}, attributes={"perm": [0, 1]}),
    "cast_scalar": Case("Cast", {"x": data()}, attributes={"to": 6}),
    # Cast
    "cast_float_to_int32": Case(
        "Cast", {"x": data(2, 3)}, attributes={"to": onnx.TensorProto.INT32}
    ),
    "cast_float_to_int64": Case(
        "Cast", {"x": data(2, 3)}, attributes={"to": onnx.TensorProto.INT64}
    ),
    "cast_float_to_uint8": Case(
        "Cast",
        {"x": np.abs(data(2, 3)) + 0.5},
        attributes={"to": onnx.TensorProto.UINT8},
    ),
    "cast_float_to_bool": Case(
        "Cast",
        {"x": np.array([0.0, -0.0, 1.5, -2.0], np.float32)},
        attributes={"to": onnx.TensorProto.BOOL},
    ),
    "cast_float_to_double": Case(
        "Cast", {"x": data(2, 3)}, attributes={"to": onnx.TensorProto.DOUBLE}
    ),
    "cast_double_to_float": Case("Cast", {"x": data(2, 3, dtype=np.float64)}, attributes={"to": 1}),
    "cast_int64_to_float": Case("Cast", {"x": data(2, 3, dtype=np.int64)}, attributes={"to": 1}),
    "cast_uint8_to_float": Case(
        "Cast", {"x": np.array([0, 7, 200, 255], np.uint8)}, attributes={"to": 1}
    ),
    "cast_bool_to_float": Case(
        "Cast", {"x": np.array([True, False, True], np.bool_)}, attributes={"to": 1}
    ),
    "cast_int32_to_int64": Case("Cast", {"x": data(2, 3, dtype=np.int32)}, attributes={"to": 7}),
    "cast_int64_to_int32": Case("Cast", {"x": data(2, 3, dtype=np.int64)}, attributes={"to": 6}),
    "cast_int32_to_bool": Case("Cast", {"x": np.array([0, 3, -1], np.int32)}, attributes={"to": 9}),
    "cast_bool_to_int32": Case(
        "Cast", {"x": np.array([True, False], np.bool_)}, attributes={"to": 6}
    ),
    "cast_same_type": Case("Cast", {"x": data(2, 3)}, attributes={"to": 1}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_tensor_op(name: str) -> None:
    compare(CASES[name])


def test_cast_int8_to_uint8() -> None:
    """Same-width integer casts reinterpret the bits (two's complement)."""
    compare(
        Case(
            "Cast",
            {"x": np.array([-3, 0, 5, 127, -128], np.int8)},
            attributes={"to": 2},
        )
    )


def test_flatten_reshape_chain() -> None:
    """The legacy PyTorch export of `x.view(x.size(0), -1)` after a Transpose:
    the shape arithmetic folds away and the Reshape is a view."""
    x = data(2, 3, 4)
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[0, 2, 1]),
        helper.make_node("Shape", ["t"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["t", "target"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "chain",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, (2, 12))],
        initializer=[
            numpy_helper.from_array(np.array(0, np.int64), "zero"),
            numpy_helper.from_array(i64(0), "axes"),
            numpy_helper.from_array(i64(-1), "minus_one"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)
    got = onnxc.compile(model).run({"x": x})["y"]
    np.testing.assert_array_equal(got, x.transpose(0, 2, 1).reshape(2, -1))


@pytest.mark.parametrize("step", [1, -1])
def test_slice_negative_bounds_of_a_run_time_dimension(step: int) -> None:
    """Constant negative starts and ends wrap by a size known only at run time."""
    bounds = {"s": i64(-2 if step > 0 else -1), "e": i64(-1 if step > 0 else -4)}
    graph = helper.make_graph(
        [helper.make_node("Slice", ["x", "s", "e", "a", "p"], ["y"])],
        "slice",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [None, 3])],
        initializer=[
            numpy_helper.from_array(v, n)
            for n, v in {**bounds, "a": i64(0), "p": i64(step)}.items()
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)
    compiled = onnxc.compile(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for n in (1, 2, 5):
        x = data(n, 3)
        (want,) = session.run(None, {"x": x})
        np.testing.assert_array_equal(compiled.run({"x": x})["y"], want)
