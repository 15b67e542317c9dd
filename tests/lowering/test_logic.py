"""Comparison, logic, bitwise and Mod lowerings, end to end, on the cases
where onnxc defines what ONNX or C leave open (x mod 0, shifts by negative
amounts or the width or more, the minimum integer mod -1) and on the special
float values; expected values are written out from the spec."""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import helper

import onnxc


def two_input_model(
    op_type: str,
    dtype: np.dtype[Any],
    shape: tuple[int, ...],
    out_dtype: Any = None,
    **attributes: Any,
) -> onnx.ModelProto:
    code = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    out_code = helper.np_dtype_to_tensor_dtype(np.dtype(out_dtype or dtype))
    node = helper.make_node(op_type, ["a", "b"], ["y"], name=op_type.lower(), **attributes)
    graph = helper.make_graph(
        [node],
        "test",
        [helper.make_tensor_value_info(n, code, shape) for n in ("a", "b")],
        [helper.make_tensor_value_info("y", out_code, shape)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)], ir_version=10)


def run(model: onnx.ModelProto, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return onnxc.compile(model).run({"a": a, "b": b})["y"]


def test_integer_mod_by_zero_is_zero() -> None:
    a = np.array([7, -7, 0, np.iinfo(np.int32).min], np.int32)
    b = np.array([0, 0, 0, -1], np.int32)
    for fmod in (0, 1):
        got = run(two_input_model("Mod", np.dtype(np.int32), (4,), fmod=fmod), a, b)
        np.testing.assert_array_equal(got, [0, 0, 0, 0])
    unsigned = run(
        two_input_model("Mod", np.dtype(np.uint8), (2,)),
        np.array([200, 3], np.uint8),
        np.array([0, 0], np.uint8),
    )
    np.testing.assert_array_equal(unsigned, [0, 0])


def test_integer_mod_signs() -> None:
    a = np.array([7, -7, 7, -7, 6, -6], np.int64)
    b = np.array([3, 3, -3, -3, -3, 3], np.int64)
    floor = run(two_input_model("Mod", np.dtype(np.int64), (6,)), a, b)
    np.testing.assert_array_equal(floor, [1, 2, -2, -1, 0, 0])
    truncated = run(two_input_model("Mod", np.dtype(np.int64), (6,), fmod=1), a, b)
    np.testing.assert_array_equal(truncated, [1, -1, 1, -1, 0, 0])


def test_float_mod_special_values() -> None:
    nan, inf = np.nan, np.inf
    a = np.array([5.5, -5.5, 0.0, -0.0, inf, 1.0, 2.0, -2.0, nan], np.float32)
    b = np.array([-2.0, 2.0, -3.0, 3.0, 2.0, 0.0, inf, inf, 1.0], np.float32)
    floor = run(two_input_model("Mod", np.dtype(np.float32), (9,)), a, b)
    np.testing.assert_array_equal(floor, [-0.5, 0.5, -0.0, 0.0, nan, nan, 2.0, inf, nan])
    assert list(np.signbit(floor[2:4])) == [True, False]  # zeros take the divisor's sign
    truncated = run(two_input_model("Mod", np.dtype(np.float32), (9,), fmod=1), a, b)
    np.testing.assert_array_equal(truncated, [1.5, -1.5, 0.0, -0.0, nan, nan, 2.0, -2.0, nan])


def test_bit_shift_out_of_range_amounts() -> None:
    x = np.array([-8, 8, -8, 8, 1, -1], np.int8)
    y = np.array([1, 1, 9, 9, -1, 8], np.int8)
    right = run(two_input_model("BitShift", np.dtype(np.int8), (6,), direction="RIGHT"), x, y)
    np.testing.assert_array_equal(right, [-4, 4, -1, 0, 0, -1])
    left = run(two_input_model("BitShift", np.dtype(np.int8), (6,), direction="LEFT"), x, y)
    np.testing.assert_array_equal(left, [-16, 16, 0, 0, 0, 0])
    unsigned = run(
        two_input_model("BitShift", np.dtype(np.uint64), (3,), direction="LEFT"),
        np.array([1, 1, 3], np.uint64),
        np.array([63, 64, 200], np.uint64),
    )
    np.testing.assert_array_equal(unsigned, [1 << 63, 0, 0])


def test_float_comparisons_with_nan_are_false() -> None:
    a = np.array([np.nan, 1.0, np.nan], np.float64)
    b = np.array([1.0, np.nan, np.nan], np.float64)
    for op_type in ("Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"):
        got = run(two_input_model(op_type, np.dtype(np.float64), (3,), np.bool_), a, b)
        np.testing.assert_array_equal(got, [False, False, False], err_msg=op_type)
