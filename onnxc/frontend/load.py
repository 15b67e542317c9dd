"""Reading a model: a file (with its external data, which must stay in the
model's folder, its entries checked before onnx reads them) or a ModelProto
as it is. Either way its text fields must be UTF-8 and every tensor's data
must fit its dims and element type: checked here, where the data enters, so
that the rest of the compiler can take names as text and read any tensor
with numpy."""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from pathlib import Path

import onnx
from google.protobuf.message import Message
from onnx import external_data_helper

from onnxc.errors import OnnxcError, first_line, node_label

ModelLike = str | os.PathLike[str] | onnx.ModelProto
"""A model as callers give it: a file's path or a ModelProto."""


def load_model(model: ModelLike) -> onnx.ModelProto:
    """Read a model file (with its external data) or take a ModelProto as it is."""
    if isinstance(model, onnx.ModelProto):
        _check_text(model, "the model")
        for tensor in _all_tensors(model.graph):
            if external_data_helper.uses_external_data(tensor):
                raise OnnxcError(
                    f"tensor '{tensor.name}' keeps its data in an external file; "
                    "pass the model's path instead of a ModelProto"
                )
        _check_tensor_data(model)
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
    _check_text(proto, str(path))
    _load_external_data(proto, path.resolve().parent)
    _check_tensor_data(proto)
    return proto


def _check_text(model: onnx.ModelProto, what: str) -> None:
    """Every string field is UTF-8 text. protobuf parses one that is not
    (ONNX's protos are proto2) and hands it over as bytes, where every name
    is expected to be a str."""
    field = _field_not_text(model, "model")
    if field is not None:
        raise OnnxcError(f"{what}: not a readable ONNX model ({field} is not UTF-8 text)")


def _field_not_text(message: Message, where: str) -> str | None:
    """The first string field of `message` (nested ones too) that protobuf
    gave as bytes, named by its path; or None."""
    for descriptor, value in message.ListFields():
        if descriptor.type == descriptor.TYPE_STRING:
            values = value if descriptor.is_repeated else [value]
            if not all(isinstance(v, str) for v in values):
                return f"{where}.{descriptor.name}"
        elif descriptor.type == descriptor.TYPE_MESSAGE:
            items = list(value) if descriptor.is_repeated else [value]
            for index, item in enumerate(items):
                at = f"{where}.{descriptor.name}" + (f"[{index}]" if descriptor.is_repeated else "")
                found = _field_not_text(item, at)
                if found is not None:
                    return found
    return None


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
        location = _external_location(tensor)
        try:
            target = (base / location).resolve()
            outside = Path(location).is_absolute() or not target.is_relative_to(base)
            missing = not outside and not target.is_file()
        except OSError as error:  # a name too long for the file system, a loop of links
            raise OnnxcError(
                f"tensor '{tensor.name}': external data location '{location}' "
                f"cannot be read ({error.strerror})"
            ) from None
        if outside:
            raise OnnxcError(
                f"tensor '{tensor.name}': external data location '{location}' "
                "is outside the model's folder"
            )
        if missing:
            raise OnnxcError(
                f"tensor '{tensor.name}': external data file '{location}' "
                f"not found next to the model"
            )
        try:
            external_data_helper.load_external_data_for_tensor(tensor, str(base))
        except Exception as error:
            raise OnnxcError(
                f"tensor '{tensor.name}': cannot read external data "
                f"'{location}' ({first_line(error)})"
            ) from None
        del tensor.external_data[:]
        tensor.data_location = onnx.TensorProto.DEFAULT


_EXTERNAL_DATA_KEYS = frozenset({"location", "offset", "length", "checksum", "basepath"})
"""The keys of a tensor's external data entries (onnx's)."""


def _external_location(tensor: onnx.TensorProto) -> str:
    """The file of a tensor's external data, its entries checked first (onnx
    reads them with `int()` and paths with NUL bytes fail in the OS): known
    keys only, a location, and offset and length as non-negative decimal
    integers."""
    entries = {entry.key: entry.value for entry in tensor.external_data}
    unknown = sorted(set(entries) - _EXTERNAL_DATA_KEYS)
    if unknown:  # onnxruntime refuses them too
        raise OnnxcError(
            f"tensor '{tensor.name}': unknown external data key '{unknown[0][:40]}' "
            f"(keys: {', '.join(sorted(_EXTERNAL_DATA_KEYS))})"
        )
    location = entries.get("location", "")
    if not location or "\0" in location:
        what = "no" if not location else "a NUL byte in its"
        raise OnnxcError(f"tensor '{tensor.name}': {what} external data location")
    for key in ("offset", "length"):
        value = entries.get(key)
        if value is not None and not re.fullmatch(r"[0-9]+", value):
            raise OnnxcError(
                f"tensor '{tensor.name}': external data {key} '{value[:40]}' "
                "is not a non-negative integer"
            )
    return location


_PACKED_BITS = {
    code: bits
    for name, bits in (
        ("INT4", 4),
        ("UINT4", 4),
        ("FLOAT4E2M1", 4),
        ("INT2", 2),
        ("UINT2", 2),
        ("FLOAT6E2M3", 6),
        ("FLOAT6E3M2", 6),
    )
    if (code := getattr(onnx.TensorProto, name, None)) is not None
}
"""Element types that TensorProto stores packed, and their bits (raw_data
holds the packed bytes; int32_data one packed byte per value, except the
6-bit types' one element per value, as numpy_helper reads them)."""


def _labelled_tensors(model: onnx.ModelProto) -> Iterator[tuple[str, onnx.TensorProto]]:
    """Every tensor of the model (initializers and tensor attributes, in
    subgraphs and functions too), each with how an error names it."""

    def of_nodes(nodes: Iterator[onnx.NodeProto]) -> Iterator[tuple[str, onnx.TensorProto]]:
        for node in nodes:
            for attribute in node.attribute:
                where = f"{node_label(node)}: tensor attribute '{attribute.name}'"
                if attribute.HasField("t"):
                    yield where, attribute.t
                for tensor in attribute.tensors:
                    yield where, tensor
                for graph in [attribute.g] if attribute.HasField("g") else attribute.graphs:
                    yield from of_graph(graph)

    def of_graph(graph: onnx.GraphProto) -> Iterator[tuple[str, onnx.TensorProto]]:
        for tensor in graph.initializer:
            yield f"initializer '{tensor.name}'", tensor
        yield from of_nodes(iter(graph.node))

    yield from of_graph(model.graph)
    for function in model.functions:
        yield from of_nodes(iter(function.node))


def _check_tensor_data(model: onnx.ModelProto) -> None:
    """Every tensor holds the data its dims and element type need."""
    for where, tensor in _labelled_tensors(model):
        problem = _tensor_data_problem(tensor)
        if problem is not None:
            raise OnnxcError(f"{where}: {problem}")


def _tensor_data_problem(tensor: onnx.TensorProto) -> str | None:
    """What is wrong with a tensor's data, or None."""
    code = tensor.data_type
    if code == onnx.TensorProto.UNDEFINED or code not in onnx.TensorProto.DataType.values():
        return f"unknown element type {code}"
    type_name = onnx.TensorProto.DataType.Name(code)
    dims = list(tensor.dims)
    shown = str(dims) if len(dims) <= 8 else f"{str(dims[:8])[:-1]}, ...]"
    if any(d < 0 for d in dims):
        return f"negative dims {shown}"
    if tensor.HasField("segment"):
        return "segmented tensors are not supported"
    count = math.prod(dims)
    shape = f"dims {shown} of {type_name}"
    if code == onnx.TensorProto.STRING:
        if len(tensor.string_data) != count:
            return f"{len(tensor.string_data)} strings for {shape}"
        for index, text in enumerate(tensor.string_data):
            try:
                text.decode("utf-8")
            except UnicodeDecodeError:
                return f"string {index} is not valid UTF-8"
        return None
    bits = _PACKED_BITS.get(code)
    if tensor.HasField("raw_data"):
        itemsize = onnx.helper.tensor_dtype_to_np_dtype(code).itemsize
        need = -(-count * bits // 8) if bits else count * itemsize
        if len(tensor.raw_data) != need:
            return f"raw_data holds {len(tensor.raw_data)} bytes, {shape} take {need}"
        return None
    field = onnx.helper.tensor_dtype_to_field(code)
    if bits in (2, 4):
        need = -(-count * bits // 8)
    elif code in (onnx.TensorProto.COMPLEX64, onnx.TensorProto.COMPLEX128):
        need = 2 * count
    else:
        need = count
    held = len(getattr(tensor, field))
    if held != need:
        return f"{field} holds {held} values, {shape} take {need}"
    return None
