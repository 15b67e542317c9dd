"""Mutation fuzzing of `onnxc compile`: seeded mutants of valid models, each
compiled in a forked child, which must end cleanly.

onnxc's promise is that bad input gets one line, `onnxc: error: ...`, and exit
status 1: never a traceback, a crash or a hang. Each mutant is a seed model
(`examples/digits_cnn.onnx`, or a small model of onnx's node test cases, some
with If, Loop and Scan bodies) changed by one to three structural mutations
made with the protobuf API (attributes changed, deleted or added, element
types, raw_data of the wrong length, dims and dim_params, node inputs and
outputs dropped, renamed or duplicated, opsets, domains and op_types,
ir_version, external data, subgraph inputs and outputs, int inputs turned
into constants of extreme values, ...), and some of them then by a byte-level
one (truncated, bits flipped, bytes set or inserted). Mutant N of seed S is
the same whenever it is made, alone or in a campaign.

`onnxc.tools.cli.main(["compile", MODEL, "-o", OUT])` runs in a child forked
from a parent that has imported (and warmed up) onnxc, with stdout and
stderr in files, its address space limited (`RLIMIT_AS`, 6 GiB) and a
timeout. The outcome is good when the child exits with 0, or with 1 and
exactly one line on stderr that starts `onnxc: error:` (after any one-line
`onnxc: warning:`s); bad otherwise: a
traceback, other output with the error (noise), another exit status, a
signal, or a timeout. A bad outcome's cause is the innermost frame and the
exception type (for a signal or a timeout: the innermost frame faulthandler
dumps); a campaign writes one reproducer per cause, the smallest mutant that
shows it.

    python -m tests.fuzz.mutants --count 10000 --seed 1   # a campaign
    python -m tests.fuzz.mutants --seed 1 --only 4711      # mutant 4711 alone
    python -m tests.fuzz.mutants --seed 1 --only 4711 --keep DIR  # and its files
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import functools
import io
import os
import random
import re
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
import traceback
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, external_data_helper, helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
DIGITS = ROOT / "examples" / "digits_cnn.onnx"
TIMEOUT = 60.0
MEMORY_LIMIT = 6 << 30
"""The children's address space (`RLIMIT_AS`): a mutant that makes onnxc
allocate without bound fails with MemoryError (a traceback) instead of
taking the machine down."""

GOOD = ("ok", "error")
BAD = ("traceback", "noise", "exit-status", "signal", "timeout")

INTS = [0, 1, -1, 2, -2, 3, 7, 64, 255, 256, 2**15, 2**31 - 1, 2**31, -(2**31), 2**32]
INTS += [2**40, 2**62, 2**63 - 1, -(2**63)]
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, 1e-45, 1e-38, 3.4e38, -3.4e38]
FLOATS += [float("inf"), float("-inf"), float("nan")]
STRINGS: list[str | bytes] = ["", " ", "é", "\x00", "a" * 10_000, b"\xff\xfe", b"\xc3"]
STRINGS += ["NOTSET", "SAME_UPPER", "VALID", "constant", "reflect", "edge", "wrap", "linear"]
STRINGS += ["nearest", "cubic", "tf_crop_and_resize", "half_pixel", "Relu", "tanh", "none"]
ELEMENT_TYPES = [*range(29), 99, -1]
DIMS = [-1, -7, 0, 1, 2, 3, 2**31, 2**40, 2**62, -(2**63)]
DIM_PARAMS = ["", "N", "batch", "é", "a b", "1x", "x" * 10_000, "N\x00", "-1", "$", "d.0"]
OPSETS = [0, -1, 1, 6, 7, 9, 11, 13, 999, 2**62]
IR_VERSIONS = [0, -1, 1, 2, 3, 4, 7, 10, 11, 12, 99, 2**62, 2**63 - 1]
LOCATIONS = ["weights.bin", "../outside.bin", "/etc/passwd", "missing.bin", "", "a\x00b"]
LOCATIONS += ["sub/../weights.bin", "w" * 5000, ".", "weights.bin/"]
SUBGRAPH_OPS = {"If", "Loop", "Scan", "SequenceMap"}


# --- seed models --------------------------------------------------------------


@functools.cache
def seed_models() -> tuple[tuple[str, onnx.ModelProto], ...]:
    """The models mutants start from: the digits CNN, then a varied subset of
    onnx's node test cases (the first small case of each set of operators,
    and every small one with a subgraph), by name, each also with its inputs
    but the first made constants of the case's data where they are arrays."""
    from onnx.backend.test.loader import load_model_tests

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        cases = sorted(load_model_tests(kind="node"), key=lambda c: c.name)
    models: list[tuple[str, onnx.ModelProto]] = [("digits_cnn", onnx.load(DIGITS))]
    seen: set[tuple[str, ...]] = set()
    for case in cases:
        model = case.model if case.model_dir is None else _load_case(case.model_dir)
        if model is None:
            continue
        ops = tuple(sorted({n.op_type for n in model.graph.node}))
        nested = bool(SUBGRAPH_OPS & set(ops))
        if model.ByteSize() > (8192 if nested else 2048) or (ops in seen and not nested):
            continue
        seen.add(ops)
        models.append((case.name, model))
        if case.data_sets:
            constants = _with_constants(model, case.data_sets[0][0])
            if constants is not None:
                models.append((f"{case.name}+constants", constants))
    return tuple(models)


def _with_constants(model: onnx.ModelProto, inputs: Sequence[object]) -> onnx.ModelProto | None:
    """`model` with its inputs after the first made initializers holding the
    test case's data (weights, shapes, axes as real models have them)."""
    graph = model.graph
    if len(graph.input) < 2 or len(inputs) != len(graph.input):
        return None
    made = onnx.ModelProto()
    made.CopyFrom(model)
    for value, data in list(zip(made.graph.input, inputs, strict=True))[1:]:
        if not isinstance(data, np.ndarray) or data.size > 1024 or data.dtype == object:
            return None
        made.graph.initializer.append(numpy_helper.from_array(data, value.name))
        made.graph.input.remove(value)
    return made


def _load_case(folder: str) -> onnx.ModelProto | None:
    path = Path(folder) / "model.onnx"
    return onnx.load(path) if path.is_file() else None


# --- walking a model ----------------------------------------------------------


def _graphs(graph: onnx.GraphProto) -> Iterator[onnx.GraphProto]:
    """`graph` and every subgraph in it."""
    yield graph
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("g"):
                yield from _graphs(attribute.g)
            for subgraph in attribute.graphs:
                yield from _graphs(subgraph)


def _nodes(model: onnx.ModelProto) -> list[onnx.NodeProto]:
    return [node for graph in _graphs(model.graph) for node in graph.node]


def _values(model: onnx.ModelProto) -> list[onnx.ValueInfoProto]:
    """The declared tensor values, graph inputs first."""
    found: list[onnx.ValueInfoProto] = []
    for graph in _graphs(model.graph):
        found += [*graph.input, *graph.output, *graph.value_info]
    return [v for v in found if v.type.HasField("tensor_type")]


def _tensors(model: onnx.ModelProto) -> list[onnx.TensorProto]:
    """Initializers and tensor attributes, subgraphs' too."""
    found: list[onnx.TensorProto] = []
    for graph in _graphs(model.graph):
        found += list(graph.initializer)
        for node in graph.node:
            found += [a.t for a in node.attribute if a.HasField("t")]
    return found


def _subgraph_nodes(model: onnx.ModelProto) -> list[tuple[onnx.NodeProto, onnx.GraphProto]]:
    return [
        (node, attribute.g)
        for node in _nodes(model)
        for attribute in node.attribute
        if attribute.HasField("g")
    ]


# --- mutators -----------------------------------------------------------------
# Each changes the model in place (and may add files beside it) and says what
# it did, or returns None when the model has nothing it can change.


@dataclass
class Mutant:
    """A mutated model: the bytes of its file, the files beside it, and what
    was done to its seed."""

    index: int
    source: str
    steps: list[str] = field(default_factory=list[str])
    data: bytes = b""
    files: dict[str, bytes] = field(default_factory=dict[str, bytes])


Mutator = Callable[[random.Random, onnx.ModelProto, Mutant], "str | None"]


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _label(node: onnx.NodeProto) -> str:
    return node.name or node.op_type


def _odd_value(rng: random.Random, kind: int) -> object:
    """A value for an attribute of type `kind`, often an extreme one."""
    if kind == AttributeProto.INT:
        return rng.choice(INTS)
    if kind == AttributeProto.FLOAT:
        return rng.choice(FLOATS)
    if kind == AttributeProto.STRING:
        return rng.choice(STRINGS)
    if kind == AttributeProto.INTS:
        return rng.choice(
            [
                [],
                [rng.choice(INTS)],
                [rng.choice(INTS) for _ in range(rng.randint(2, 8))],
                [0] * 1000,
            ]
        )
    if kind == AttributeProto.FLOATS:
        return rng.choice([[], [rng.choice(FLOATS) for _ in range(rng.randint(1, 8))]])
    if kind == AttributeProto.STRINGS:
        return rng.choice([[], ["a"], [b"\xff"], ["é", ""]])
    if kind == AttributeProto.TENSOR:
        return _odd_tensor(rng, "")
    if kind == AttributeProto.GRAPH:
        return helper.make_graph([], "empty", [], [])
    return rng.choice(INTS)


def _odd_tensor(rng: random.Random, name: str) -> onnx.TensorProto:
    """A small tensor of a random type and shape, sometimes of extreme values."""
    dtype = rng.choice([np.int64, np.int32, np.float32, np.uint8, np.bool_, np.float16])
    shape = rng.choice([[], [0], [1], [3], [2, 2], [1, 0, 2]])
    if np.dtype(dtype).kind == "f":
        values = np.array([rng.choice(FLOATS) for _ in range(int(np.prod(shape)))])
    else:
        values = np.array([rng.choice(INTS) for _ in range(int(np.prod(shape)))])
    with np.errstate(all="ignore"):
        array = values.astype(dtype).reshape(shape)
    return numpy_helper.from_array(array, name)


def _set_attribute(node: onnx.NodeProto, name: str, value: object) -> None:
    kept = [a for a in node.attribute if a.name != name]
    if isinstance(value, bytes):
        attribute = AttributeProto(name=name, type=AttributeProto.STRING, s=value)
    elif isinstance(value, list) and any(isinstance(v, bytes) for v in value):
        encoded = [v if isinstance(v, bytes) else str(v).encode() for v in value]
        attribute = AttributeProto(name=name, type=AttributeProto.STRINGS, strings=encoded)
    else:
        attribute = helper.make_attribute(name, value)
    del node.attribute[:]
    node.attribute.extend([*kept, attribute])


def change_attribute(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """An attribute's value changed: an extreme one of its type, or one of
    another type."""
    nodes = [n for n in _nodes(model) if n.attribute]
    if not nodes:
        return None
    node = rng.choice(nodes)
    attribute = rng.choice(list(node.attribute))
    kind = attribute.type if rng.random() < 0.7 else rng.choice(list(range(1, 11)))
    value = _odd_value(rng, kind)
    _set_attribute(node, attribute.name, value)
    return f"attribute {_label(node)}.{attribute.name} = {_short(value)}"


def delete_attribute(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    nodes = [n for n in _nodes(model) if n.attribute]
    if not nodes:
        return None
    node = rng.choice(nodes)
    index = rng.randrange(len(node.attribute))
    name = node.attribute[index].name
    del node.attribute[index]
    return f"attribute {_label(node)}.{name} deleted"


_SCHEMA_KINDS = {
    getattr(onnx.defs.OpSchema.AttrType, name): getattr(AttributeProto, name)
    for name in ("FLOAT", "INT", "STRING", "TENSOR", "GRAPH", "FLOATS", "INTS", "STRINGS")
}
"""The attribute types of schemas, as AttributeProto's."""


def add_attribute(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """An attribute the node's schema has and the node does not set (of the
    schema's type or another), or an unknown one."""
    nodes = _nodes(model)
    if not nodes:
        return None
    node = rng.choice(nodes)
    present = {a.name for a in node.attribute}
    try:
        schema = onnx.defs.get_schema(node.op_type, domain=node.domain)
        missing = {k: v for k, v in schema.attributes.items() if k not in present}
    except onnx.defs.SchemaError:
        missing = {}
    if missing and rng.random() < 0.8:
        name = rng.choice(sorted(missing))
        schema_kind = _SCHEMA_KINDS.get(missing[name].type, AttributeProto.INT)
        kind = schema_kind if rng.random() < 0.7 else rng.choice(list(range(1, 11)))
    else:
        name, kind = rng.choice(["bogus", "axis", "value"]), rng.choice(list(range(1, 11)))
    value = _odd_value(rng, kind)
    _set_attribute(node, name, value)
    return f"attribute {_label(node)}.{name} added = {_short(value)}"


def change_element_type(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """A declared element type, a tensor's data type, or a Cast's `to`."""
    new = rng.choice(ELEMENT_TYPES)
    where = rng.choice(["value", "tensor", "to"])
    if where == "value" and _values(model):
        value = rng.choice(_values(model))
        value.type.tensor_type.elem_type = new
        return f"elem_type of {value.name} = {new}"
    if where == "tensor" and _tensors(model):
        tensor = rng.choice(_tensors(model))
        tensor.data_type = new
        return f"data_type of tensor {tensor.name!r} = {new}"
    casts = [n for n in _nodes(model) if any(a.name in ("to", "dtype") for a in n.attribute)]
    if not casts:
        return None
    node = rng.choice(casts)
    name = next(a.name for a in node.attribute if a.name in ("to", "dtype"))
    _set_attribute(node, name, new)
    return f"attribute {_label(node)}.{name} = {new}"


def wrong_raw_data(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """A tensor's data of the wrong length: raw bytes cut or added, or typed
    values dropped or added."""
    tensors = _tensors(model)
    if not tensors:
        return None
    tensor = rng.choice(tensors)
    if tensor.HasField("raw_data") or rng.random() < 0.5:
        data = tensor.raw_data
        if not data and not external_data_helper.uses_external_data(tensor):
            with contextlib.suppress(Exception):
                data = numpy_helper.to_array(tensor).tobytes()
        cut = rng.choice([0, 1, len(data) // 2, max(len(data) - 1, 0)])
        new = data[:cut] if rng.random() < 0.5 else data + bytes(rng.randint(1, 13))
        for name in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
            tensor.ClearField(name)  # type: ignore[arg-type]
        tensor.raw_data = new
        return f"raw_data of tensor {tensor.name!r}: {len(data)} -> {len(new)} bytes"
    if tensor.int64_data:
        tensor.int64_data.append(rng.choice(INTS))
    elif tensor.float_data:
        del tensor.float_data[-1]
    else:
        tensor.int32_data.extend([1, 2, 3])
    return f"typed data of tensor {tensor.name!r} changed in length"


def change_tensor_dims(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """A tensor's dims changed (its data not)."""
    tensors = _tensors(model)
    if not tensors:
        return None
    tensor = rng.choice(tensors)
    dims = list(tensor.dims)
    choice = rng.random()
    if dims and choice < 0.5:
        dims[rng.randrange(len(dims))] = rng.choice(DIMS)
    elif choice < 0.75:
        dims.insert(rng.randint(0, len(dims)), rng.choice([1, 0, 2]))
    elif dims:
        del dims[rng.randrange(len(dims))]
    tensor.ClearField("dims")
    tensor.dims.extend(dims)
    return f"dims of tensor {tensor.name!r} = {_short(dims)}"


def change_declared_dims(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """A declared shape: a dim extreme, a dim_param odd, a dim added or
    removed, the dim unknown, or no shape at all."""
    values = _values(model)
    if not values:
        return None
    inputs = [v for v in values if v in model.graph.input]
    value = rng.choice(inputs if inputs and rng.random() < 0.6 else values)
    shape = value.type.tensor_type.shape
    dims = list(shape.dim)
    choice = rng.random()
    if choice < 0.1:
        value.type.tensor_type.ClearField("shape")
        return f"shape of {value.name} removed"
    if choice < 0.25 or not dims:
        shape.dim.add().dim_value = rng.choice([1, 2, 0])
        return f"a dim added to {value.name}"
    if choice < 0.35:
        del shape.dim[rng.randrange(len(dims))]
        return f"a dim removed from {value.name}"
    dim = shape.dim[rng.randrange(len(dims))]
    if choice < 0.65:
        dim.dim_value = rng.choice(DIMS)
        return f"dim of {value.name} = {dim.dim_value}"
    if choice < 0.9:
        dim.dim_param = rng.choice(DIM_PARAMS)
        return f"dim of {value.name} = {_short(dim.dim_param)}"
    dim.Clear()
    return f"dim of {value.name} unknown"


def change_node_inputs(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    nodes = [n for n in _nodes(model) if n.input]
    if not nodes:
        return None
    node = rng.choice(nodes)
    index = rng.randrange(len(node.input))
    choice = rng.randrange(5)
    if choice == 0:
        del node.input[index]
        return f"input {index} of {_label(node)} dropped"
    if choice == 1:
        node.input[index] = "undefined_value"
        return f"input {index} of {_label(node)} undefined"
    if choice == 2:
        node.input[index] = ""
        return f"input {index} of {_label(node)} omitted"
    if choice == 3:
        node.input.append(rng.choice(list(node.input)))
        return f"input of {_label(node)} repeated"
    others = [o for n in _nodes(model) for o in n.output if o]
    node.input[index] = rng.choice(others or ["x"])
    return f"input {index} of {_label(node)} = {node.input[index]}"


def change_node_outputs(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    nodes = [n for n in _nodes(model) if n.output]
    if not nodes:
        return None
    node = rng.choice(nodes)
    index = rng.randrange(len(node.output))
    choice = rng.randrange(4)
    if choice == 0:
        del node.output[index]
        return f"output {index} of {_label(node)} dropped"
    if choice == 1:
        names = [i.name for i in model.graph.input] + [o for n in _nodes(model) for o in n.output]
        node.output[index] = rng.choice(names)
        return f"output {index} of {_label(node)} = {node.output[index]} (a duplicate)"
    if choice == 2:
        node.output[index] = "renamed_output"
        return f"output {index} of {_label(node)} renamed"
    node.output.append(rng.choice(["extra_output", ""]))
    return f"an output added to {_label(node)}"


def duplicate_names(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """A node, initializer or graph output twice, or a graph input named as
    an initializer."""
    graph = model.graph
    choice = rng.randrange(4)
    if choice == 0 and graph.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(rng.choice(list(graph.node)))
        graph.node.insert(rng.randint(0, len(graph.node)), copy)
        return f"node {_label(copy)} twice"
    if choice == 1 and graph.initializer:
        graph.initializer.append(rng.choice(list(graph.initializer)))
        return "an initializer twice"
    if choice == 2 and graph.initializer:
        tensor = rng.choice(list(graph.initializer))
        graph.input.append(helper.make_tensor_value_info(tensor.name, TensorProto.FLOAT, [7]))
        return f"input named as initializer {tensor.name}"
    if graph.output:
        graph.output.append(rng.choice(list(graph.output)))
        return "a graph output twice"
    return None


def change_opset(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """The default opset's version, no opset, an unknown domain, a node's
    domain or op_type."""
    choice = rng.randrange(5)
    if choice == 0:
        version = rng.choice(OPSETS) if rng.random() < 0.6 else rng.randint(1, 28)
        for opset in model.opset_import:
            if opset.domain in ("", "ai.onnx"):
                opset.version = version
        return f"opset version {version}"
    if choice == 1:
        del model.opset_import[:]
        return "no opset_import"
    if choice == 2:
        model.opset_import.append(helper.make_opsetid("com.example.unknown", 1))
        return "an unknown domain imported"
    nodes = _nodes(model)
    if not nodes:
        return None
    node = rng.choice(nodes)
    if choice == 3:
        node.domain = rng.choice(["com.example.unknown", "ai.onnx.ml", "ai.onnx.preview.training"])
        return f"domain of {_label(node)} = {node.domain}"
    names = sorted({s.name for s in onnx.defs.get_all_schemas() if s.domain == ""})
    node.op_type = rng.choice([*names, "NotAnOperator", ""])
    return f"op_type of {_label(node)} = {node.op_type!r}"


def change_ir_version(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    model.ir_version = rng.choice(IR_VERSIONS)
    return f"ir_version {model.ir_version}"


def external_data(rng: random.Random, model: onnx.ModelProto, mutant: Mutant) -> str | None:
    """A tensor's data moved to a file beside the model, its entries often
    wrong: locations outside the folder, missing, empty or with NUL; offsets
    and lengths of -1, "x" or huge."""
    tensors = _tensors(model)
    if not tensors:
        return None
    tensor = rng.choice(tensors)
    data = tensor.raw_data
    if not data and not external_data_helper.uses_external_data(tensor):
        try:
            data = numpy_helper.to_array(tensor).tobytes()
        except Exception:  # noqa: BLE001 - a tensor another mutation broke
            data = bytes(8)
    data = data or bytes(8)
    padding = rng.choice([0, 0, 16])
    if rng.random() < 0.8:
        mutant.files["weights.bin"] = bytes(padding) + data
    tensor.ClearField("raw_data")
    for name in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        tensor.ClearField(name)  # type: ignore[arg-type]
    tensor.data_location = TensorProto.EXTERNAL
    entries = {"location": rng.choice(LOCATIONS)}
    offset = rng.choice([None, str(padding), "-1", "x", str(2**62), "", "1"])
    length = rng.choice([None, str(len(data)), "-1", "x", str(2**62), "0", str(len(data) + 4)])
    if offset is not None:
        entries["offset"] = offset
    if length is not None:
        entries["length"] = length
    if rng.random() < 0.1:
        entries["checksum"] = "0"
    if rng.random() < 0.1:
        entries["__class__"] = "x"
    for key, value in entries.items():
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    return f"tensor {tensor.name!r} external: {_short(entries)}"


def change_subgraph(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """A subgraph's inputs or outputs added, removed or retyped."""
    found = _subgraph_nodes(model)
    if not found:
        return None
    node, body = rng.choice(found)
    where = f"body of {_label(node)}"
    choice = rng.randrange(6)
    if choice == 0:
        body.input.append(helper.make_tensor_value_info("extra_in", TensorProto.FLOAT, [2]))
        return f"{where}: an input added"
    if choice == 1 and body.input:
        del body.input[rng.randrange(len(body.input))]
        return f"{where}: an input removed"
    if choice == 2 and body.input:
        value = rng.choice(list(body.input))
        value.type.tensor_type.elem_type = rng.choice(ELEMENT_TYPES)
        value.type.tensor_type.shape.dim.add().dim_value = rng.choice([2, 0])
        return f"{where}: input {value.name} retyped"
    if choice == 3:
        inner = [o for n in body.node for o in n.output if o] or ["nothing"]
        name = rng.choice(inner)
        body.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
        return f"{where}: output {name} added"
    if choice == 4 and body.output:
        del body.output[rng.randrange(len(body.output))]
        return f"{where}: an output removed"
    if body.output:
        value = rng.choice(list(body.output))
        value.type.tensor_type.elem_type = rng.choice(ELEMENT_TYPES)
        return f"{where}: output {value.name} retyped"
    return None


def _extreme_array(rng: random.Random, elem: int, shape: Sequence[int]) -> np.ndarray:
    dtype = helper.tensor_dtype_to_np_dtype(elem)
    count = int(np.prod(shape))
    if dtype.kind == "f":
        values = np.array([rng.choice(FLOATS) for _ in range(count)], np.float64)
    elif dtype.kind == "b":
        values = np.array([rng.random() < 0.5 for _ in range(count)])
    else:
        info = np.iinfo(dtype)
        extremes = [v for v in INTS if info.min <= v <= info.max] + [info.min, info.max]
        values = np.array([rng.choice(extremes) for _ in range(count)], dtype)
    with np.errstate(all="ignore"):
        return values.astype(dtype).reshape(shape)


NUMERIC = {
    TensorProto.INT64,
    TensorProto.INT32,
    TensorProto.INT8,
    TensorProto.UINT8,
    TensorProto.FLOAT,
    TensorProto.DOUBLE,
    TensorProto.BOOL,
}


def constant_input(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """A graph input (an integer one first: shapes, axes, k) made a constant
    initializer of extreme values, and no longer an input (or kept as one,
    with the constant as its default)."""
    graph = model.graph
    taken = {t.name for t in graph.initializer}
    inputs = [
        v for v in graph.input if v.name not in taken and v.type.tensor_type.elem_type in NUMERIC
    ]
    if not inputs:
        return None
    ints = [v for v in inputs if v.type.tensor_type.elem_type == TensorProto.INT64]
    value = rng.choice(ints if ints and rng.random() < 0.8 else inputs)
    tensor_type = value.type.tensor_type
    declared = [d.dim_value if d.HasField("dim_value") else -1 for d in tensor_type.shape.dim]
    shape = declared if all(0 <= d <= 16 for d in declared) else [rng.randint(0, 4)]
    if rng.random() < 0.2:
        shape = rng.choice([[], [1], [0], [2, 2]])
    array = _extreme_array(rng, tensor_type.elem_type, shape)
    graph.initializer.append(numpy_helper.from_array(array, value.name))
    if rng.random() < 0.7:
        graph.input.remove(value)
    return f"input {value.name} constant {_short(array.tolist())}"


def extreme_constant(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    """The values of a small numeric constant made extreme (its type and
    shape kept)."""
    tensors = [
        t
        for t in _tensors(model)
        if t.data_type in NUMERIC and int(np.prod(t.dims)) <= 64 and all(d >= 0 for d in t.dims)
    ]
    if not tensors:
        return None
    tensor = rng.choice(tensors)
    array = _extreme_array(rng, tensor.data_type, list(tensor.dims))
    tensor.CopyFrom(numpy_helper.from_array(array, tensor.name))
    return f"tensor {tensor.name!r} = {_short(array.tolist())}"


def drop_or_move_node(rng: random.Random, model: onnx.ModelProto, _: Mutant) -> str | None:
    graph = rng.choice(list(_graphs(model.graph)))
    if not graph.node:
        return None
    index = rng.randrange(len(graph.node))
    node = graph.node[index]
    if rng.random() < 0.5:
        del graph.node[index]
        return f"node {_label(node)} removed"
    copy = onnx.NodeProto()
    copy.CopyFrom(node)
    del graph.node[index]
    graph.node.insert(rng.randint(0, len(graph.node)), copy)
    return f"node {_label(copy)} moved"


STRUCTURAL: tuple[Mutator, ...] = (
    change_attribute,
    change_attribute,
    delete_attribute,
    add_attribute,
    change_element_type,
    wrong_raw_data,
    change_tensor_dims,
    change_declared_dims,
    change_declared_dims,
    change_node_inputs,
    change_node_outputs,
    duplicate_names,
    change_opset,
    change_ir_version,
    external_data,
    change_subgraph,
    constant_input,
    constant_input,
    extreme_constant,
    drop_or_move_node,
)
"""The structural mutators, the likelier ones listed twice."""


def mutate_bytes(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """Truncated, bits flipped, bytes set or bytes inserted."""
    if not data:
        return data, "empty"
    choice = rng.randrange(4)
    if choice == 0:
        cut = rng.randrange(len(data))
        return data[:cut], f"truncated to {cut} bytes"
    buffer = bytearray(data)
    if choice == 1:
        count = rng.randint(1, 8)
        for _ in range(count):
            bit = rng.randrange(len(buffer) * 8)
            buffer[bit // 8] ^= 1 << (bit % 8)
        return bytes(buffer), f"{count} bits flipped"
    if choice == 2:
        count = rng.randint(1, 4)
        for _ in range(count):
            buffer[rng.randrange(len(buffer))] = rng.choice([0x00, 0xFF, 0x7F, 0x80, 0x01])
        return bytes(buffer), f"{count} bytes set"
    at = rng.randrange(len(buffer) + 1)
    inserted = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return bytes(buffer[:at] + inserted + buffer[at:]), f"{len(inserted)} bytes inserted at {at}"


def make_mutant(seed: int, index: int) -> Mutant:
    """Mutant `index` of campaign `seed`: the same every time."""
    rng = random.Random(f"onnxc-mutant/{seed}/{index}")
    models = seed_models()
    name, original = models[0] if rng.random() < 0.1 else rng.choice(models[1:])
    model = onnx.ModelProto()
    model.CopyFrom(original)
    mutant = Mutant(index, name)
    bytes_only = rng.random() < 0.08
    wanted = 0 if bytes_only else rng.choice([1, 1, 1, 2, 2, 3])
    attempts = 0
    while len(mutant.steps) < wanted and attempts < 20:
        attempts += 1
        mutator = rng.choice(STRUCTURAL)
        if _subgraph_nodes(model) and rng.random() < 0.3:  # few seeds have bodies
            mutator = change_subgraph
        try:
            step = mutator(rng, model, mutant)
        except (ValueError, TypeError, OverflowError, KeyError):  # refused by protobuf: again
            step = None
        if step is not None:
            mutant.steps.append(f"{mutator.__name__}: {step}")
    mutant.data = model.SerializeToString()
    if bytes_only or rng.random() < 0.1:
        mutant.data, step = mutate_bytes(rng, mutant.data)
        mutant.steps.append(f"mutate_bytes: {step}")
    return mutant


# --- running ------------------------------------------------------------------


@dataclass
class Outcome:
    """How a mutant's compilation ended: `kind` is one of GOOD or BAD;
    `cause` names a bad one (innermost frame and exception type)."""

    kind: str
    cause: str = ""
    output: str = ""

    @property
    def bad(self) -> bool:
        return self.kind in BAD


def write_mutant(mutant: Mutant, folder: Path) -> Path:
    """The mutant's files in `folder` (emptied first); the model's path."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    path = folder / "model.onnx"
    path.write_bytes(mutant.data)
    for name, data in mutant.files.items():
        (folder / name).write_bytes(data)
    return path


def _child(path: Path, out: Path, log: Path) -> NoReturn:
    """In the forked child: compile, exit with main's status; never returns."""
    status = 1
    try:
        os.setpgid(0, 0)
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
        os.dup2(os.open(log.with_name("stdout.txt"), flags), 1)
        os.dup2(os.open(log, flags), 2)
        # the streams of the files now at 1 and 2 (pytest's capture replaces sys's)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), line_buffering=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), line_buffering=True)
        faulthandler.enable(file=sys.stderr)
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=False)
        from onnxc.tools.cli import main

        status = main(["compile", str(path), "-o", str(out)])
    except SystemExit as exit_:
        status = exit_.code if isinstance(exit_.code, int) else 2
    except BaseException:  # noqa: BLE001 - as Python prints an uncaught exception
        traceback.print_exc()
        status = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(status)


def _wait(pid: int, timeout: float) -> int | None:
    """The child's wait status, or None when it outlived `timeout`."""
    deadline = time.monotonic() + timeout
    if hasattr(os, "pidfd_open"):
        fd = os.pidfd_open(pid)
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
        finally:
            os.close(fd)
        if not ready:
            return None
        return os.waitpid(pid, 0)[1]
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        time.sleep(0.01)
    return None


def run_mutant(mutant: Mutant, folder: Path, timeout: float = TIMEOUT) -> Outcome:
    """Compile the mutant in a forked child (see the module docstring)."""
    path = write_mutant(mutant, folder)
    log = folder / "stderr.txt"
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        _child(path, folder / "out", log)
    status = _wait(pid, timeout)
    if status is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGUSR1)  # faulthandler: where it hangs
        time.sleep(1.0)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    else:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # anything the child left running
    output = log.read_text(errors="replace") if log.exists() else ""
    return classify(status, output)


_FRAME = re.compile(r'File "([^"]+)", line (\d+)(?:,)? in (\S+)')


def _frame(match: re.Match[str]) -> str:
    path, line, function = match.groups()
    for prefix in (str(ROOT) + "/", "site-packages/"):
        if prefix in path:
            path = path.split(prefix, 1)[1]
    return f"{path}:{line} {function}"


def classify(status: int | None, output: str) -> Outcome:
    """The outcome of a child that ended with wait status `status` (None:
    timed out) and wrote `output` on stderr."""
    lines = [line for line in output.splitlines() if line.strip()]
    # one-line warnings (a dropped declaration) may precede the outcome
    lines = [line for line in lines if not line.startswith("onnxc: warning:")]
    frames = list(_FRAME.finditer(output))
    if status is None:  # faulthandler's dump: most recent call first
        where = _frame(frames[0]) if frames else "no Python frame"
        return Outcome("timeout", f"timeout at {where}", output)
    if os.WIFSIGNALED(status):
        where = _frame(frames[0]) if frames else "no Python frame"
        return Outcome("signal", f"signal {os.WTERMSIG(status)} at {where}", output)
    code = os.WEXITSTATUS(status)
    if "Traceback (most recent call last)" in output:
        # Python prints a chain of exceptions from its first: the root cause
        first = output[output.index("Traceback (most recent call last)") :]
        first = re.split(r"\n(?:The above exception|During handling of)", first)[0]
        inner = list(_FRAME.finditer(first))
        after = first[inner[-1].end() :] if inner else first
        exception = next(  # the first line after the frames: "Type: message"
            (line.split(":")[0] for line in after.splitlines() if line[:1].isalpha()), "?"
        )
        where = _frame(inner[-1]) if inner else "?"
        return Outcome("traceback", f"{exception} at {where}", output)
    if code == 0:
        return Outcome("ok", "", output)
    if code == 1 and len(lines) == 1 and lines[0].startswith("onnxc: error:"):
        return Outcome("error", "", output)
    if code == 1 and lines and lines[-1].startswith("onnxc: error:"):
        first = re.sub(r"\d+", "N", lines[0])[:100]
        return Outcome("noise", f"noise: {first}", output)
    return Outcome("exit-status", f"exit status {code}: {lines[-1][:100] if lines else ''}", output)


# --- campaigns ----------------------------------------------------------------


@contextlib.contextmanager
def fuzz_environment() -> Iterator[Path]:
    """A scratch folder, the children's cache turned off (and in the scratch
    folder), and onnxc imported and warmed up in this process, so that each
    forked child starts compiling at once."""
    saved = {k: os.environ.get(k) for k in ("ONNXC_CACHE_DIR", "ONNXC_NO_CACHE")}
    with tempfile.TemporaryDirectory(prefix="onnxc-mutants-") as scratch:
        os.environ["ONNXC_CACHE_DIR"] = str(Path(scratch) / "cache")
        os.environ["ONNXC_NO_CACHE"] = "1"
        try:
            from onnxc.tools.cli import main

            with contextlib.redirect_stdout(io.StringIO()):
                main(["compile", str(DIGITS), "-o", str(Path(scratch) / "warm"), "--quiet"])
            yield Path(scratch)
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


@dataclass
class Tally:
    """Counts per outcome kind, and the mutants of each bad cause."""

    counts: dict[str, int] = field(default_factory=dict[str, int])
    causes: dict[str, list[Mutant]] = field(default_factory=dict[str, list[Mutant]])
    outcomes: dict[str, Outcome] = field(default_factory=dict[str, Outcome])

    def add(self, mutant: Mutant, outcome: Outcome) -> None:
        self.counts[outcome.kind] = self.counts.get(outcome.kind, 0) + 1
        if outcome.bad:
            found = self.causes.setdefault(outcome.cause, [])
            found.append(mutant)
            smallest = min(found, key=lambda m: len(m.data))
            if smallest is mutant:
                self.outcomes[outcome.cause] = outcome

    @property
    def bad(self) -> int:
        return sum(self.counts.get(kind, 0) for kind in BAD)

    def summary(self) -> str:
        return ", ".join(f"{k} {self.counts.get(k, 0)}" for k in (*GOOD, *BAD))


def run_range(
    seed: int,
    indices: Sequence[int],
    scratch: Path,
    timeout: float = TIMEOUT,
    progress: Callable[[int, Tally], None] | None = None,
) -> Tally:
    """Mutants `indices` of campaign `seed`, each compiled in a child."""
    tally = Tally()
    for done, index in enumerate(indices, 1):
        mutant = make_mutant(seed, index)
        tally.add(mutant, run_mutant(mutant, scratch / "mutant", timeout))
        if progress is not None:
            progress(done, tally)
    return tally


def write_reproducers(tally: Tally, seed: int, folder: Path) -> None:
    """One folder per bad cause: its smallest mutant's files, the child's
    stderr, and how to run it again."""
    folder.mkdir(parents=True, exist_ok=True)
    lines: list[str] = []
    for number, (cause, mutants) in enumerate(sorted(tally.causes.items()), 1):
        smallest = min(mutants, key=lambda m: len(m.data))
        where = folder / f"cause-{number:02d}"
        write_mutant(smallest, where)
        (where / "stderr.txt").write_text(tally.outcomes[cause].output)
        command = f"python -m tests.fuzz.mutants --seed {seed} --only {smallest.index}"
        (where / "README.txt").write_text(
            f"{cause}\n{len(mutants)} mutants, e.g. {[m.index for m in mutants[:10]]}\n"
            f"seed model {smallest.source}: {'; '.join(smallest.steps)}\n{command}\n"
        )
        lines.append(f"{len(mutants):5d}  {cause}\n       {command}  ({where})")
    (folder / "causes.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def campaign(seed: int, count: int, start: int, timeout: float, out: Path) -> int:
    began = time.monotonic()

    def progress(done: int, tally: Tally) -> None:
        if done % 100 == 0 or done == count:
            took = time.monotonic() - began
            print(f"[{took:.0f} s] {done}/{count}: {tally.summary()}", flush=True)

    seed_models()
    with fuzz_environment() as scratch:
        tally = run_range(seed, range(start, start + count), scratch, timeout, progress)
    print(f"{count} mutants of seed {seed} in {time.monotonic() - began:.0f} s")
    print(tally.summary())
    print(f"{len(tally.causes)} bad causes")
    if tally.causes:
        write_reproducers(tally, seed, out)
    return 1 if tally.bad else 0


def only(seed: int, index: int, timeout: float, keep: Path | None) -> int:
    mutant = make_mutant(seed, index)
    print(f"mutant {index} of seed {seed}, from {mutant.source}:")
    for step in mutant.steps:
        print(f"  {step}")
    with fuzz_environment() as scratch:
        outcome = run_mutant(mutant, scratch / "mutant", timeout)
    if keep is not None:
        path = write_mutant(mutant, keep)
        print(f"written: {path}")
    print(f"outcome: {outcome.kind}{f' ({outcome.cause})' if outcome.cause else ''}")
    if outcome.output:
        print(outcome.output.rstrip())
    return 1 if outcome.bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.fuzz.mutants",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seed", type=int, default=1, help="the campaign's seed (default 1)")
    parser.add_argument("--count", type=int, default=1000, help="mutants to run (default 1000)")
    parser.add_argument("--start", type=int, default=0, help="index of the first mutant")
    parser.add_argument("--only", type=int, metavar="N", help="run mutant N alone and show it")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="with --only: write its files")
    parser.add_argument("--timeout", type=float, default=TIMEOUT, help="seconds per mutant")
    parser.add_argument(
        "--out",
        type=Path,
        help="where reproducers go (default: onnxc-mutants-SEED in the temp folder)",
    )
    args = parser.parse_args(argv)
    if args.only is not None:
        return only(args.seed, args.only, args.timeout, args.keep)
    out = args.out or Path(tempfile.gettempdir()) / f"onnxc-mutants-{args.seed}"
    return campaign(args.seed, args.count, args.start, args.timeout, out)


if __name__ == "__main__":
    sys.exit(main())
