"""Softmax and ReduceMean lowerings, end to end against onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import onnxc
from onnxc.errors import OnnxcError
from tests.lowering.test_elementwise import compare, one_node_model, random

pytest.importorskip("onnxruntime")


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


def test_reduce_mean_runtime_axes_are_rejected() -> None:
    model = one_node_model("ReduceMean", {"x": (2, 3, 4), "axes": (1,)}, (2, 1, 4))
    model.graph.input[1].type.tensor_type.elem_type = 7  # int64
    with pytest.raises(OnnxcError, match="'axes' must be a compile-time constant"):
        onnxc.compile(model)
