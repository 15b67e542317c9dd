"""The sequence, optional and ZipMap operators, resolved at compile time: each
handler follows the containers its node reads (`containers.py`) and either
makes a container of tensor names or emits tensor nodes (see
`sequences/resolver.py`, whose resolver calls them). What only the run can
tell (a run-time position among tensors of different shapes, a run-time
split) makes a sequence known at run time (`sequences/ragged.py`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import onnx
from onnx import helper

from onnxc.containers import Maps, Opt, Ragged, Seq, Value, rebuilt, tensor_names
from onnxc.errors import OnnxcError, node_label
from onnxc.frontend.graphs import fresh_name, inline_graph
from onnxc.frontend.sequences import ragged

if TYPE_CHECKING:
    from onnxc.frontend.sequences.resolver import Resolver

__all__ = ["HANDLERS", "RESOLVED_OPS", "SEQUENCE_OPS", "node_label"]

SEQUENCE_OPS = {
    "SequenceEmpty",
    "SequenceConstruct",
    "SequenceInsert",
    "SequenceErase",
    "SequenceAt",
    "SequenceLength",
    "SplitToSequence",
    "ConcatFromSequence",
    "SequenceMap",
    "Optional",
    "OptionalHasElement",
    "OptionalGetElement",
}


RESOLVED_OPS = {"": SEQUENCE_OPS, "ai.onnx.ml": {"ZipMap"}}
"""The operators resolved on import (never lowered), by domain."""


def _attribute(node: onnx.NodeProto, name: str, default: int) -> int:
    found = next((a for a in node.attribute if a.name == name), None)
    return default if found is None else int(helper.get_attribute_value(found))


def _sequence_empty(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    r.values[node.output[0]] = Seq(())


def _sequence_construct(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    if any(not isinstance(v, str) for v in read):
        raise OnnxcError(f"{node_label(node)}: a sequence holds tensors only")
    r.values[node.output[0]] = Seq(tuple(node.input))


def _sequence_insert(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    found, tensor = r.sequence(node, read[0]), node.input[1]
    if isinstance(found, Seq):
        items = found.items
        at = r.position(node, 2, len(items), len(items))
        if at is not None:
            r.values[node.output[0]] = Seq((*items[:at], tensor, *items[at:]))
            return
        shape = r.one_shape([*items, tensor])
        if shape is not None:
            _insert_by_selection(r, node, items, tensor, shape)
            return
    value = r.ragged(node, found, node.input[1])
    where = ragged.position(r, node, 2, value, last=False) if len(node.input) > 2 else None
    r.values[node.output[0]] = ragged.insert(r, node, value, tensor, where)


def _insert_by_selection(
    r: Resolver, node: onnx.NodeProto, items: tuple[str, ...], tensor: str, shape: tuple[int, ...]
) -> None:
    """Insert `tensor` at a run-time position among `items` of its static
    `shape`: each tensor of the result selected elementwise."""
    at_run_time = r.run_time_position(node, 2, len(items), last=False)
    made: list[str] = []
    for k in range(len(items) + 1):  # k < at: items[k]; k == at: tensor; k > at: items[k - 1]
        index = r.emit_constant(np.array(k, np.int64))
        chosen = tensor
        if k > 0:
            chosen = r.emit("Where", [r.emit("Equal", [index, at_run_time]), tensor, items[k - 1]])
        if k < len(items):
            chosen = r.emit("Where", [r.emit("Less", [index, at_run_time]), items[k], chosen])
        made.append(chosen)
        r.shapes[chosen] = shape
    r.values[node.output[0]] = Seq(tuple(made))


def _sequence_erase(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    found = r.sequence(node, read[0])
    if isinstance(found, Seq):
        items = found.items
        if not items:
            raise OnnxcError(f"{node_label(node)}: erases from an empty sequence")
        at = r.position(node, 1, len(items), len(items) - 1)
        if at is not None:
            if at == len(items):
                raise OnnxcError(f"{node_label(node)}: position {at} is past the sequence's end")
            r.values[node.output[0]] = Seq((*items[:at], *items[at + 1 :]))
            return
        shape = r.one_shape(items)
        if shape is not None:
            at_run_time = r.run_time_position(node, 1, len(items), last=True)
            kept: list[str] = []
            for k in range(len(items) - 1):  # k < at: items[k]; else items[k + 1]
                before = r.emit("Less", [r.emit_constant(np.array(k, np.int64)), at_run_time])
                kept.append(r.emit("Where", [before, items[k], items[k + 1]]))
                r.shapes[kept[-1]] = shape
            r.values[node.output[0]] = Seq(tuple(kept))
            return
    value = r.ragged(node, found)
    where = ragged.position(r, node, 1, value, last=True)
    r.values[node.output[0]] = ragged.erase(r, value, where)


def _sequence_at(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    found = r.sequence(node, read[0])
    if isinstance(found, Seq):
        items = found.items
        at = r.position(node, 1, len(items), 0)
        if at is not None:
            if at == len(items):
                raise OnnxcError(f"{node_label(node)}: position {at} is past the sequence's end")
            r.emit("Identity", [items[at]], node.output[0])
            return
        if r.one_shape(items) is not None:  # the tensors stacked, the one at the position gathered
            axis = r.emit_constant(np.array([0], np.int64))
            stacked = r.emit("Concat", [r.emit("Unsqueeze", [t, axis]) for t in items], axis=0)
            position = r.run_time_position(node, 1, len(items), last=True)
            r.emit("Gather", [stacked, position], node.output[0], axis=0)
            return
    value = r.ragged(node, found)
    ragged.at(r, node, value, ragged.position(r, node, 1, value, last=False), node.output[0])


def _sequence_length(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    found = r.sequence(node, read[0])
    if isinstance(found, Ragged):
        ragged.length(r, found, node.output[0])
        return
    r.emit_constant(np.array(len(found.items), np.int64), node.output[0])


def _split_to_sequence(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    data = node.input[0]
    rank = len(r.shape(node, data))
    given_axis = _attribute(node, "axis", 0)
    if not -rank <= given_axis < rank:
        raise OnnxcError(f"{node_label(node)}: axis {given_axis} is out of range for rank {rank}")
    axis = given_axis + rank if given_axis < 0 else given_axis
    split = node.input[1] if len(node.input) > 1 else ""
    keepdims = _attribute(node, "keepdims", 1)
    given = r.constant(split) if split else None
    split_shape = r.shapes.get(split) if split else None
    whole = r.shape(node, data)[axis]
    run_time_sizes = given is None and (not split_shape or split_shape[0] < 0)
    if (whole < 0 and (given is None or given.ndim == 0)) or (split and run_time_sizes):
        # how many pieces, or how big, only the run tells
        r.values[node.output[0]] = ragged.split(r, node, data, split or None, axis, bool(keepdims))
        return
    if not split:
        count = r.static_size(node, data, axis)
        sizes: list[int] | None = [1] * count
    else:
        if given is None:
            assert split_shape is not None
            count, sizes = split_shape[0], None
        elif given.ndim == 0:
            chunk, whole = int(given), r.static_size(node, data, axis)
            if chunk <= 0:
                raise OnnxcError(f"{node_label(node)}: split {chunk} is not positive")
            count = math.ceil(whole / chunk)
            sizes = [min(chunk, whole - k * chunk) for k in range(count)]
        else:
            sizes = [int(v) for v in given]
            count = len(sizes)
    if count == 0:
        r.values[node.output[0]] = Seq(())
        return
    split_input = split if sizes is None else r.emit_constant(np.array(sizes, np.int64))
    parts = [fresh_name(f"{node.output[0]}_{k}", r.taken) for k in range(count)]
    label = fresh_name(f"{r.current}_Split", r.taken)
    r.nodes.append(helper.make_node("Split", [data, split_input], parts, name=label, axis=axis))
    data_type = r.types.get(data)
    if sizes is None and data_type is not None:  # sizes known at run time: give the rank
        element = data_type.tensor_type.elem_type
        r.graph.value_info.extend(
            helper.make_tensor_value_info(part, element, [None] * rank) for part in parts
        )
    if not split and not keepdims:
        axes = r.emit_constant(np.array([axis], np.int64))
        parts = [r.emit("Squeeze", [part, axes]) for part in parts]
    r.values[node.output[0]] = Seq(tuple(parts))


def _concat_from_sequence(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    found = r.sequence(node, read[0])
    if isinstance(found, Ragged):
        axis, new_axis = _attribute(node, "axis", 0), bool(_attribute(node, "new_axis", 0))
        ragged.concat(r, node, found, axis, new_axis, node.output[0])
        return
    items = found.items
    if not items:
        raise OnnxcError(f"{node_label(node)}: concatenates an empty sequence")
    axis = _attribute(node, "axis", 0)
    if _attribute(node, "new_axis", 0):
        axes = r.emit_constant(np.array([axis], np.int64))
        items = tuple(r.emit("Unsqueeze", [item, axes]) for item in items)
    r.emit("Concat", items, node.output[0], axis=axis)


def _sequence_map(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    body = next(a.g for a in node.attribute if a.name == "body")
    if any(isinstance(v.value if isinstance(v, Opt) else v, Ragged) for v in read):
        raise OnnxcError(
            f"{node_label(node)}: maps over a sequence known only at run time (not supported)"
        )
    lengths = {len(v.items) for v in read if isinstance(v, Seq)}
    if len(lengths) != 1:
        raise OnnxcError(f"{node_label(node)}: its sequences differ in length")
    count = lengths.pop()
    results: list[list[str]] = [[] for _ in node.output]
    for index in range(count):
        bindings = {
            formal.name: (value.items[index] if isinstance(value, Seq) else str(value))
            for formal, value in zip(body.input, read, strict=False)
        }
        prefix = f"{node.name or 'SequenceMap'}_{index}"
        nodes, outputs = inline_graph(body, bindings, prefix, r.taken, r.graph)
        for inlined in nodes:
            r.resolve(inlined)
        for result, output in zip(results, outputs, strict=True):
            result.append(output)
    for name, items in zip(node.output, results, strict=True):
        r.values[name] = Seq(tuple(items))


def _optional(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    given = node.input[0] if node.input and node.input[0] else ""
    value = read[0] if given else None
    if isinstance(value, Opt | Maps):
        raise OnnxcError(
            f"{node_label(node)}: an optional of an optional or of maps is not supported"
        )
    r.values[node.output[0]] = Opt(value)


def _optional_has_element(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    given = bool(node.input and node.input[0])
    if given and isinstance(read[0], Opt) and read[0].present is not None:
        r.emit("Identity", [read[0].present], node.output[0])  # known at run time
        return
    present = given and not (isinstance(read[0], Opt) and read[0].value is None)
    r.emit_constant(np.array(present), node.output[0])


def _optional_get_element(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    value = read[0]
    if isinstance(value, Opt):
        if value.value is None:
            raise OnnxcError(f"{node_label(node)}: the optional '{node.input[0]}' is empty")
        present, value = value.present, value.value
        if present is not None:  # empty only at run time: the model stops there
            guarded = (_present_or_stop(r, t, present) for t in tensor_names(value))
            value = rebuilt(value, guarded)  # type: ignore[assignment]
    if isinstance(value, str):
        r.emit("Identity", [value], node.output[0])
    else:
        r.values[node.output[0]] = value


def _present_or_stop(r: Resolver, tensor: str, present: str) -> str:
    """`tensor`, through a check that stops the model unless `present`."""
    flat = r.emit("Reshape", [tensor, r.emit_constant(np.array([-1], np.int64))])
    return r.emit("Reshape", [ragged.guard(r, flat, present), r.emit("Shape", [tensor])])


def _zip_map(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    keys = next(
        (
            tuple(v.decode() if isinstance(v, bytes) else int(v) for v in a.ints or a.strings)
            for a in node.attribute
            if a.name in ("classlabels_int64s", "classlabels_strings")
        ),
        (),
    )
    if not isinstance(read[0], str):
        raise OnnxcError(f"{node_label(node)}: expects a tensor")
    r.values[node.output[0]] = Maps(node.input[0], keys)  # type: ignore[arg-type]


HANDLERS = {
    ("ai.onnx", "SequenceEmpty"): _sequence_empty,
    ("ai.onnx", "SequenceConstruct"): _sequence_construct,
    ("ai.onnx", "SequenceInsert"): _sequence_insert,
    ("ai.onnx", "SequenceErase"): _sequence_erase,
    ("ai.onnx", "SequenceAt"): _sequence_at,
    ("ai.onnx", "SequenceLength"): _sequence_length,
    ("ai.onnx", "SplitToSequence"): _split_to_sequence,
    ("ai.onnx", "ConcatFromSequence"): _concat_from_sequence,
    ("ai.onnx", "SequenceMap"): _sequence_map,
    ("ai.onnx", "Optional"): _optional,
    ("ai.onnx", "OptionalHasElement"): _optional_has_element,
    ("ai.onnx", "OptionalGetElement"): _optional_get_element,
    ("ai.onnx.ml", "ZipMap"): _zip_map,
}
