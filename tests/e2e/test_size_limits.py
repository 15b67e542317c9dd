"""Sizes taken from data at their limits (more in the size-limits work):
an output with no element but a size numpy cannot hold is a one-line
RunError, not a numpy traceback."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import onnxc
from onnxc.errors import RunError


def test_an_empty_shape_numpy_cannot_hold() -> None:
    """(0, 2^63 - 1) holds no element: the model runs, numpy refuses the shape."""
    value = h.make_tensor("v", T.FLOAT, [1], [7.0])
    graph = h.make_graph(
        [h.make_node("ConstantOfShape", ["s"], ["y"], value=value)],
        "sizes",
        [h.make_tensor_value_info("s", T.INT64, [2])],
        [h.make_tensor_value_info("y", T.FLOAT, [None, None])],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 18)], ir_version=9)
    compiled = onnxc.compile(model)
    assert compiled.run({"s": np.array([0, 5], np.int64)})["y"].shape == (0, 5)
    with pytest.raises(RunError, match="which a numpy array cannot have"):
        compiled.run({"s": np.array([0, np.iinfo(np.int64).max], np.int64)})
