"""Reading a model: a file (with its external data, which must stay in the
model's folder) or a ModelProto as it is."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import onnx
from onnx import external_data_helper

from onnxc.errors import OnnxcError, first_line

ModelLike = str | os.PathLike[str] | onnx.ModelProto
"""A model as callers give it: a file's path or a ModelProto."""


def load_model(model: ModelLike) -> onnx.ModelProto:
    """Read a model file (with its external data) or take a ModelProto as it is."""
    if isinstance(model, onnx.ModelProto):
        for tensor in _all_tensors(model.graph):
            if external_data_helper.uses_external_data(tensor):
                raise OnnxcError(
                    f"tensor '{tensor.name}' keeps its data in an external file; "
                    "pass the model's path instead of a ModelProto"
                )
        return model
    path = Path(model)
    if not path.is_file():
        raise OnnxcError(f"{path}: no such model file") from None
    try:
        proto = onnx.load_model(str(path), load_external_data=False)
    except Exception as error:  # protobuf raises DecodeError and others
        raise OnnxcError(f"{path}: not a readable ONNX model ({first_line(error)})") from None
    if not proto.graph.node and not proto.graph.output:
        raise OnnxcError(f"{path}: not a readable ONNX model (no graph)") from None
    _load_external_data(proto, path.resolve().parent)
    return proto


def _all_tensors(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    yield from graph.initializer
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t
            yield from attribute.tensors
            if attribute.HasField("g"):
                yield from _all_tensors(attribute.g)
            for subgraph in attribute.graphs:
                yield from _all_tensors(subgraph)


def _load_external_data(model: onnx.ModelProto, base: Path) -> None:
    for tensor in _all_tensors(model.graph):
        if not external_data_helper.uses_external_data(tensor):
            continue
        info = external_data_helper.ExternalDataInfo(tensor)
        location = Path(info.location)
        target = (base / location).resolve()
        if location.is_absolute() or not target.is_relative_to(base):
            raise OnnxcError(
                f"tensor '{tensor.name}': external data location '{info.location}' "
                "is outside the model's folder"
            )
        if not target.is_file():
            raise OnnxcError(
                f"tensor '{tensor.name}': external data file '{info.location}' "
                f"not found next to the model"
            )
        try:
            external_data_helper.load_external_data_for_tensor(tensor, str(base))
        except Exception as error:
            raise OnnxcError(
                f"tensor '{tensor.name}': cannot read external data "
                f"'{info.location}' ({first_line(error)})"
            ) from None
        del tensor.external_data[:]
        tensor.data_location = onnx.TensorProto.DEFAULT
