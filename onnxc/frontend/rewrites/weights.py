"""`detach-weights` and `attach-weights`: the data of large initializers out
of the proto while onnx upgrades and infers it, and back at the end."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper

from onnxc.frontend.rewrites.subgraph_types import SHAPE_LIKE
from onnxc.frontend.state import ModelState, Rewrite

DETACHED_BYTES = 1024
"""Initializers of more bytes leave the proto while it is upgraded, inferred
and folded (`detach_weights`), but for 32-bit and 64-bit integers, which
shape inference's data propagation reads (shapes, axes, indices)."""


def detach_weights(graph: onnx.GraphProto) -> dict[str, bytes]:
    """Take the data of the large initializers of `graph` out of it: their
    raw bytes, by name. onnx's version converter and shape inference copy the
    whole proto (serialised, into C++ and back) at every call, and read only
    the dims and types of such tensors; without their data, importing a model
    needs a fraction of the memory. `attach_weights` puts them back."""
    weights: dict[str, bytes] = {}
    for tensor in graph.initializer:
        if tensor.data_type not in SHAPE_LIKE and len(tensor.raw_data) > DETACHED_BYTES:
            weights[tensor.name] = tensor.raw_data
            tensor.ClearField("raw_data")
    return weights


def attach_weights(graph: onnx.GraphProto, weights: dict[str, bytes]) -> None:
    for tensor in graph.initializer:
        data = weights.get(tensor.name)
        if data is not None and not tensor.raw_data:
            tensor.raw_data = data


def array_of(tensor: onnx.TensorProto, weights: dict[str, bytes]) -> np.ndarray:
    """The value of initializer `tensor`, also when its data is detached."""
    data = weights.get(tensor.name)
    if data is None or tensor.raw_data:
        return numpy_helper.to_array(tensor)
    whole = onnx.TensorProto()
    whole.CopyFrom(tensor)
    whole.raw_data = data
    return numpy_helper.to_array(whole)


def _detach(state: ModelState) -> bool:
    state.weights = detach_weights(state.model.graph)
    return bool(state.weights)


def _attach(state: ModelState) -> bool:
    attach_weights(state.types().graph, state.weights)
    return bool(state.weights)


DETACH_WEIGHTS = Rewrite("detach-weights", _detach)
ATTACH_WEIGHTS = Rewrite("attach-weights", _attach, shows="inferred")
