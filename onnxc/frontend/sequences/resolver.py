"""Sequences and optionals resolved at compile time (and optionals' presence
decided at run time).

onnxc compiles a sequence whose length is known at compile time, and an
optional whose presence is, into the tensors they hold: the importer, on the
ONNX graph (`prepare_model`, before shapes are inferred), follows each
sequence as the list of its tensors' names and each optional as its value or
none, and rewrites the nodes that use them into tensor nodes (SequenceAt into
an Identity of the element, ConcatFromSequence into Concat, SplitToSequence
into Split, SequenceLength and OptionalHasElement into constants, SequenceMap
into one copy of its body per element). What makes the length known:

- the graph's own nodes, with positions that are constants (an initializer
  that is also a graph input is fixed to its value: see `Containers.fixed`);
- for a sequence graph input, the shapes of its tensors, given at compile time
  (`shapes={"s": [(3,), (3,)]}`: a list of shapes is a sequence of that many
  tensors); for an optional graph input, whether it is given
  (`shapes={"o": None}` compiles it absent; by default it is present).

A sequence graph input becomes one tensor input per element, named `s[0]`,
`s[1]`, ..., and a sequence graph output one tensor output per element; an
absent optional output has no tensor (see `Containers`: Python's `run` groups
them back). An optional that an If makes present in one branch only is
followed with its presence as a bool tensor the branches set (`Opt.present`;
the empty branch yields zeros of the value's static shape), which
OptionalHasElement reads and a graph output gains as a tensor output
`NAME?present`. What only the run can tell (a Loop of run-time trips that
grows a sequence, a run-time position among tensors of different shapes, a
split given at run time, an If whose branches make sequences of different
lengths) makes a sequence known at run time, its data and its shapes as two
tensors (`sequences/ragged.py`, `carried_loops.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onnxc import element_types
from onnxc.containers import (
    Container,
    Containers,
    InputShape,
    Maps,
    Opt,
    Ragged,
    Seq,
    Shape,
    ShapeArgument,
    Value,
    input_shape,
    presence_flags,
    rebuilt,
    structure,
    tensor_names,
)
from onnxc.dialects.onnx import TARGET_OPSET
from onnxc.element_types import Kind
from onnxc.errors import OnnxcError
from onnxc.frontend.graphs import all_names, fix_shape, fresh_name, value_shapes
from onnxc.frontend.sequences.carried_loops import carry
from onnxc.frontend.sequences.operators import HANDLERS, RESOLVED_OPS, node_label
from onnxc.frontend.sequences.ragged import checked_position, ragged_of, width_for
from onnxc.frontend.sequences.unroll_loops import unroll
from onnxc.frontend.state import ModelState, Rewrite

__all__ = [
    "Resolver",
    "has_containers",
    "resolve_containers",
]


def has_containers(model: onnx.ModelProto) -> bool:
    """Whether `model` has a sequence or optional anywhere (inputs, outputs,
    nodes, subgraphs)."""
    graph = model.graph
    if any(not v.type.HasField("tensor_type") for v in [*graph.input, *graph.output]):
        return True
    return _uses_containers(graph)


def _uses_containers(graph: onnx.GraphProto) -> bool:
    return any(
        node.op_type in RESOLVED_OPS.get(node.domain, ())
        or any(_uses_containers(a.g) for a in node.attribute if a.type == onnx.AttributeProto.GRAPH)
        for node in graph.node
    )


def resolve_containers(model: onnx.ModelProto, shapes: Mapping[str, ShapeArgument]) -> Containers:
    """Rewrite `model` in place so that no sequence or optional is left (see
    the module's docstring); what became of its container inputs and outputs."""
    containers = Containers()
    if not has_containers(model):
        return containers
    graph = model.graph
    resolver = Resolver(graph, set(all_names(graph)))
    resolver.expand_inputs({k: input_shape(k, v) for k, v in shapes.items()}, containers)
    inferred = _inferred(model).graph
    for graph_or_body in _graphs(inferred):  # subgraphs' names are unique in the model too
        resolver.shapes.update(value_shapes(graph_or_body))
        resolver.types.update({v.name: v.type for v in graph_or_body.value_info})
    resolver.run()
    resolver.expand_outputs(containers)
    containers.fixed = sorted(resolver.fixed)
    if not any(o.domain in ("", "ai.onnx") for o in model.opset_import):
        # the tensor nodes made here (an ml-only model's ZipMap became an Identity)
        model.opset_import.append(helper.make_opsetid("", TARGET_OPSET))
    untyped = [o for o in graph.output if not o.type.tensor_type.elem_type]
    if untyped:  # a container output of no declared element type: infer it
        found = {o.name: o.type for o in _inferred(model).graph.output}
        for output in untyped:
            output.type.CopyFrom(found.get(output.name, output.type))
    return containers


def _graphs(graph: onnx.GraphProto) -> list[onnx.GraphProto]:
    """`graph` and its subgraphs, at any depth."""
    found = [graph]
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                found += _graphs(attribute.g)
    return found


def _inferred(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` with what shape inference can tell (the static sizes that
    SplitToSequence needs), or as it is when inference fails."""
    try:
        return onnx.shape_inference.infer_shapes(model, data_prop=True)
    except Exception:  # noqa: BLE001 - the strict inference after resolution reports it
        return model


_CARRIED = (
    "{label}: a sequence or optional carried through {op} may change at run time; onnxc "
    "resolves sequences at compile time and has no run-time sequence yet"
)


class Resolver:
    """Resolves one graph's containers (`values` also holds the containers of
    the scopes around it, for a subgraph)."""

    def __init__(
        self, graph: onnx.GraphProto, taken: set[str], outer: Mapping[str, Value] | None = None
    ):
        self.graph = graph
        self.taken = taken
        self.values: dict[str, Value] = dict(outer or {})
        self.types: dict[str, onnx.TypeProto] = {
            v.name: v.type for v in [*graph.input, *graph.value_info, *graph.output]
        }
        self.constants: dict[str, np.ndarray] = {}
        self.inputs_with_default = {v.name for v in graph.input} & {
            t.name for t in graph.initializer
        }
        self.fixed: set[str] = set()
        self.nodes: list[onnx.NodeProto] = []
        self.shapes = value_shapes(graph)
        self.current = ""
        """The name of the node being resolved (what the nodes it becomes are named after)."""
        self.element = onnx.TensorProto.UNDEFINED
        """The element type of the container output being expanded."""

    # graph inputs and outputs

    def expand_inputs(self, shapes: Mapping[str, InputShape], containers: Containers) -> None:
        inputs: list[onnx.ValueInfoProto] = []
        for value in self.graph.input:
            kind = value.type.WhichOneof("value")
            if kind == "tensor_type":
                inputs.append(value)
                continue
            if value.name not in shapes and kind == "sequence_type":
                raise OnnxcError(
                    f"input '{value.name}' is a sequence: give its tensors' shapes at compile "
                    f"time, shapes={{'{value.name}': [shape, ...]}}"
                )
            given = shapes.get(value.name, ())
            container, tensors = self._input_container(value.name, value.type, given)
            containers.inputs[value.name] = container
            self.values[value.name] = container
            inputs += tensors
        del self.graph.input[:]
        self.graph.input.extend(inputs)

    def _input_container(
        self, name: str, type_proto: onnx.TypeProto, given: InputShape
    ) -> tuple[Seq | Opt, list[onnx.ValueInfoProto]]:
        kind = type_proto.WhichOneof("value")
        if kind == "optional_type":
            if given is None:
                return Opt(None), []
            inner = type_proto.optional_type.elem_type
            if inner.HasField("tensor_type"):
                tensor = onnx.ValueInfoProto(name=name)
                tensor.type.CopyFrom(inner)
                if given:
                    fix_shape(tensor, _shape_of(name, given))
                return Opt(name), [tensor]
            sequence, tensors = self._input_container(name, inner, given)
            return Opt(sequence), tensors  # type: ignore[arg-type]
        if kind != "sequence_type":
            raise OnnxcError(f"graph input '{name}' is a {kind}, which onnxc does not support")
        element = type_proto.sequence_type.elem_type
        if not element.HasField("tensor_type"):
            raise OnnxcError(f"graph input '{name}': a sequence of non-tensors is not supported")
        if not isinstance(given, tuple) or any(not isinstance(s, tuple) for s in given):
            raise OnnxcError(
                f"input '{name}' is a sequence: give its tensors' shapes at compile time, "
                f"shapes={{'{name}': [shape, ...]}}"
            )
        tensors: list[onnx.ValueInfoProto] = []
        for index, shape in enumerate(given):
            tensor = onnx.ValueInfoProto(name=fresh_name(f"{name}[{index}]", self.taken))
            tensor.type.tensor_type.elem_type = element.tensor_type.elem_type
            fix_shape(tensor, _shape_of(name, shape))  # type: ignore[arg-type]
            tensors.append(tensor)
        return Seq(tuple(t.name for t in tensors)), tensors

    def expand_outputs(self, containers: Containers) -> None:
        outputs: list[onnx.ValueInfoProto] = []
        for value in self.graph.output:
            found = self.values.get(value.name, value.name)
            if isinstance(found, str):
                outputs.append(value)
                continue
            self.element = _element_type(value.type)
            containers.outputs[value.name] = self._output_container(value.name, found, outputs)
        del self.graph.output[:]
        self.graph.output.extend(outputs)
        containers_names = {n for n, v in self.values.items() if not isinstance(v, str)}
        kept = [v for v in self.graph.value_info if v.name not in containers_names]
        del self.graph.value_info[:]
        self.graph.value_info.extend(kept)

    def _output_container(
        self, name: str, found: Container, outputs: list[onnx.ValueInfoProto]
    ) -> Container:
        if isinstance(found, Maps):
            self.element = onnx.TensorProto.FLOAT
            return Maps(self._output_tensor(name, found.values, outputs), found.keys)
        if isinstance(found, Opt):
            if found.value is None:
                return found
            if isinstance(found.value, Seq | Ragged):
                inner = self._output_container(name, found.value, outputs)
            else:
                inner = self._output_tensor(name, found.value, outputs)
            assert isinstance(inner, str | Seq | Ragged)
            present = None
            if found.present is not None:  # a bool output beside the value's tensors
                element, self.element = self.element, onnx.TensorProto.BOOL
                present = self._output_tensor(f"{name}?present", found.present, outputs)
                self.element = element
            return Opt(inner, present)
        if isinstance(found, Ragged):  # its data, and its shapes as NAME?shapes
            data = self._output_tensor(name, found.data, outputs)
            element, self.element = self.element, onnx.TensorProto.INT64
            shapes = self._output_tensor(f"{name}?shapes", found.shapes, outputs)
            self.element = element
            return Ragged(data, shapes, found.width, found.ranks)
        names = [
            self._output_tensor(f"{name}[{index}]", item, outputs)
            for index, item in enumerate(found.items)
        ]
        return Seq(tuple(names))

    def _output_tensor(self, name: str, source: str, outputs: list[onnx.ValueInfoProto]) -> str:
        """The graph output `name` (or a fresh one like it) holding `source`.
        A container's own name is free to hold a tensor: no node defines it."""
        container = not isinstance(self.values.get(name, name), str)
        output = name if name == source or container else fresh_name(name, self.taken)
        if output != source:
            self.graph.node.append(helper.make_node("Identity", [source], [output]))
        outputs.append(
            helper.make_tensor_value_info(output, self.element, None)
            if self.element
            else onnx.ValueInfoProto(name=output)
        )
        return output

    # nodes

    def run(self) -> None:
        for node in self.graph.node:
            self.resolve(node)
        del self.graph.node[:]
        self.graph.node.extend(self.nodes)

    def resolve(self, node: onnx.NodeProto) -> None:
        """Rewrite `node` into `nodes`, or follow the container it makes."""
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            value = _constant_value(node)
            if value is not None:
                self.constants[node.output[0]] = value
        handler = HANDLERS.get((node.domain or "ai.onnx", node.op_type))
        self.current = node.name or node.op_type
        read = [self.values.get(name, name) for name in node.input]
        if handler is not None:
            handler(self, node, read)
            return
        if node.op_type == "Identity" and not isinstance(read[0], str):
            self.values[node.output[0]] = read[0]
            return
        if any(not isinstance(v, str) for v in read):
            loop = node.op_type == "Loop" and node.domain in ("", "ai.onnx")
            if loop and not unroll(self, node, read):
                carry(self, node, read)  # iterations known only at run time
            if loop:
                return
            if any(a.type == onnx.AttributeProto.GRAPH for a in node.attribute):
                raise OnnxcError(_CARRIED.format(label=node_label(node), op=node.op_type))
            raise OnnxcError(
                f"{node_label(node)}: a sequence or optional input is supported only by the "
                "sequence and optional operators"
            )
        kept = onnx.NodeProto()  # a copy: `run` empties the graph's own list
        kept.CopyFrom(node)
        self._resolve_subgraphs(kept)
        self.nodes.append(kept)

    def _resolve_subgraphs(self, node: onnx.NodeProto) -> None:
        """Resolve the containers inside `node`'s subgraphs. Only an If may
        yield containers, when both branches yield the same structure (then
        each branch yields their tensors, and the If one output per tensor)."""
        yielded: list[list[Value]] = []
        inners: list[Resolver] = []
        for attribute in node.attribute:
            if attribute.type != onnx.AttributeProto.GRAPH:
                continue
            body = attribute.g
            if any(not v.type.HasField("tensor_type") for v in body.input):
                raise OnnxcError(_CARRIED.format(label=node_label(node), op=node.op_type))
            inner = self.inner(body, {})
            inner.run()
            self.fixed |= inner.fixed
            inners.append(inner)
            yielded.append([inner.values.get(v.name, v.name) for v in body.output])
        if all(isinstance(v, str) for values in yielded for v in values):
            return
        if node.op_type == "If":
            self._align_presence(node, yielded)
            _merge_sequences(node, inners, yielded)
        shapes = (
            {structure(v) for v in zip(*yielded, strict=True)} if node.op_type == "If" else set()
        )
        if node.op_type != "If" or any(s is None for s in shapes):
            raise OnnxcError(
                f"{node_label(node)}: a sequence or optional that its {node.op_type} body makes "
                "differs at run time (in length or presence); onnxc resolves sequences at "
                "compile time and has no run-time sequence yet"
            )
        self._split_branch_outputs(node, yielded)

    def _align_presence(self, node: onnx.NodeProto, yielded: list[list[Value]]) -> None:
        """Where the If's branches yield an optional that is empty in one and
        holds a value in the other, make its presence a run-time flag: each
        branch yields the flag (a constant), and the empty one zeros of the
        value's static shapes, read from the If output's declared type."""
        branches = [a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH]
        for index, output in enumerate(node.output):
            values = [branch_values[index] for branch_values in yielded]
            if not all(isinstance(v, Opt) for v in values):
                continue
            options = [v for v in values if isinstance(v, Opt)]
            held = [v.value for v in options if v.value is not None]
            if not held or (len(held) == len(options) and all(o.present is None for o in options)):
                continue  # the same presence in every branch, known now
            zeros = self._zeros(node, output, held[0])
            for k, (branch, option) in enumerate(zip(branches, options, strict=True)):
                flag = option.present or fresh_name(f"{output}_present", self.taken)
                if option.present is None:
                    value = np.array(option.value is not None)
                    branch.node.append(_constant(flag, value))
                inner = option.value
                if inner is None:
                    names = iter([fresh_name(f"{output}_absent", self.taken) for _ in zeros])
                    inner = rebuilt(held[0], names)  # type: ignore[assignment]
                    for name, array in zip(tensor_names(inner), zeros, strict=True):
                        branch.node.append(_constant(name, array))
                assert not isinstance(inner, Opt | Maps)
                yielded[k][index] = Opt(inner, flag)

    def _zeros(
        self, node: onnx.NodeProto, output: str, value: str | Seq | Ragged
    ) -> list[np.ndarray]:
        """Zeros of the tensors of `value` (an optional's value) as the If
        output's declared type gives them: a tensor, or a sequence of
        tensors of one type; an error where that type has no static shape."""
        if isinstance(value, Ragged):
            raise OnnxcError(
                f"{node_label(node)}: an optional that only one branch holds, of a sequence "
                "known only at run time (not supported)"
            )
        declared = self.types.get(output)
        tensor = declared
        while tensor is not None and tensor.WhichOneof("value") in (
            "optional_type",
            "sequence_type",
        ):
            inner = tensor.optional_type if tensor.HasField("optional_type") else None
            tensor = inner.elem_type if inner is not None else tensor.sequence_type.elem_type
        shape = None
        if (
            tensor is not None
            and tensor.HasField("tensor_type")
            and tensor.tensor_type.HasField("shape")
        ):
            dims = tensor.tensor_type.shape.dim
            if all(d.HasField("dim_value") for d in dims):
                shape = tuple(d.dim_value for d in dims)
        row = element_types.by_onnx_code(tensor.tensor_type.elem_type) if tensor else None
        if shape is None or row is None:
            raise OnnxcError(
                f"{node_label(node)}: an optional that only one branch holds needs its "
                f"value's static shape in the output's declared type, which '{output}' lacks"
            )
        zero = "" if row.kind is Kind.STRING else 0  # the zero of strings is ""
        return [np.full(shape, zero, row.numpy_dtype) for _ in tensor_names(value)]

    def _split_branch_outputs(self, node: onnx.NodeProto, yielded: list[list[Value]]) -> None:
        """Give the If `node` one output per tensor of its container outputs."""
        branches = [a.g for a in node.attribute if a.type == onnx.AttributeProto.GRAPH]
        outputs: list[str] = []
        for index, name in enumerate(node.output):
            values = [branch_values[index] for branch_values in yielded]
            if isinstance(values[0], str):
                outputs.append(name)
                continue
            tensors = [tensor_names(v) for v in values]
            fresh = [fresh_name(f"{name}[{k}]", self.taken) for k in range(len(tensors[0]))]
            outputs += fresh
            self.values[name] = rebuilt(values[0], iter(fresh))
        for branch, values in zip(branches, yielded, strict=True):
            made = {o for n in branch.node for o in n.output}
            typed: list[onnx.ValueInfoProto] = []
            for output, value in zip(branch.output, values, strict=True):
                for t in tensor_names(value):
                    element = _tensor_type(t, output, value)
                    if t not in made:  # an outer value: an Identity gives it a shape here
                        inner = fresh_name(f"{t}_yielded", self.taken)
                        branch.node.append(helper.make_node("Identity", [t], [inner]))
                        t = inner
                    typed.append(helper.make_tensor_value_info(t, element, None))
            del branch.output[:]
            branch.output.extend(typed)
        del node.output[:]
        node.output.extend(outputs)

    # what the handlers share

    def inner(self, body: onnx.GraphProto, bound: Mapping[str, Value]) -> Resolver:
        """A resolver for subgraph `body`, which sees this graph's values and
        `bound` (its own inputs that are containers)."""
        inner = Resolver(body, self.taken, {**self.values, **bound})
        inner.shapes = {**self.shapes, **inner.shapes}
        inner.types = {**self.types, **inner.types}
        return inner

    def sequence(self, node: onnx.NodeProto, value: Value) -> Seq | Ragged:
        if isinstance(value, Opt) and isinstance(value.value, Seq | Ragged):
            return value.value
        if not isinstance(value, Seq | Ragged):
            raise OnnxcError(f"{node_label(node)}: expects a sequence")
        return value

    def ragged(self, node: onnx.NodeProto, value: Seq | Ragged, *tensors: str) -> Ragged:
        """`value` as a sequence known at run time, wide enough for its
        tensors and `tensors` (about to join it)."""
        names = [*tensors, *(value.items if isinstance(value, Seq) else ())]
        ranks = [len(self.shape(node, t)) for t in names]
        element = next(
            (_element_type(self.types[t]) for t in names if t in self.types),
            _element_type(self.types[node.input[0]]) if node.input[0] in self.types else 0,
        )
        return ragged_of(self, node, value, width_for(ranks), element)

    def ranks_of(self, node: onnx.NodeProto, value: Seq) -> tuple[int, ...]:
        """The ranks of the tensors of `value`."""
        return tuple(sorted({len(self.shape(node, t)) for t in value.items}))

    def one_shape(self, names: Sequence[str]) -> tuple[int, ...] | None:
        """The one static shape of the tensors `names`, if they have one."""
        shapes = {self.shapes.get(name) for name in names}
        shape = next(iter(shapes)) if len(shapes) == 1 else None
        return None if shape is None or any(size < 0 for size in shape) else shape

    def position(self, node: onnx.NodeProto, index: int, length: int, default: int) -> int | None:
        """The constant position input `index` of `node` (or `default`),
        normalised into 0..length; None when it is known only at run time."""
        name = node.input[index] if len(node.input) > index else ""
        if not name:
            return default
        array = self.scalar(node, name, "the position")
        if array is None:
            return None
        position = int(array.reshape(-1)[0])
        found = position + length if position < 0 else position
        if not 0 <= found <= length:
            raise OnnxcError(
                f"{node_label(node)}: position {position} is out of range for a sequence "
                f"of {length} tensor{'s' if length != 1 else ''}"
            )
        return found

    def run_time_position(self, node: onnx.NodeProto, index: int, length: int, last: bool) -> str:
        """The position input `index` of `node` as an int64 scalar, a negative
        one counted from `length`; the model stops unless it is in
        0..length (0..length - 1 when it must name a tensor: `last`)."""
        scalar = self.emit_constant(np.array([], np.int64))
        position = self.emit("Reshape", [node.input[index], scalar])
        position = self.emit("Cast", [position], to=onnx.TensorProto.INT64)
        return checked_position(self, position, length, last)

    def constant(self, name: str) -> np.ndarray | None:
        if name in self.constants:
            return self.constants[name]
        tensor = next((t for t in self.graph.initializer if t.name == name), None)
        if tensor is None:
            return None
        if name in self.inputs_with_default:
            self.fixed.add(name)
            inputs = [v for v in self.graph.input if v.name != name]
            del self.graph.input[:]
            self.graph.input.extend(inputs)
            self.inputs_with_default.discard(name)
        return numpy_helper.to_array(tensor)

    def scalar(self, node: onnx.NodeProto, name: str, what: str) -> np.ndarray | None:
        """The value of constant `name`, an input of `node` that holds one
        element (`what` names it in the error when it holds another number);
        None when it is known only at run time."""
        array = self.constant(name)
        if array is not None and array.size != 1:
            raise OnnxcError(f"{node_label(node)}: {what} must hold one element, not {array.size}")
        return array

    def emit(self, op_type: str, inputs: Sequence[str], output: str = "", **attrs: object) -> str:
        name = output or fresh_name(f"{op_type}_out", self.taken)
        label = fresh_name(f"{self.current}_{op_type}", self.taken)
        node = helper.make_node(op_type, list(inputs), [name], name=label)
        node.attribute.extend(helper.make_attribute(k, v) for k, v in attrs.items())
        self.nodes.append(node)
        return name

    def emit_constant(self, array: np.ndarray, output: str = "") -> str:
        name = output or fresh_name("sequence_constant", self.taken)
        label = fresh_name(f"{self.current}_Constant", self.taken)
        value = numpy_helper.from_array(array, name=name)
        self.nodes.append(helper.make_node("Constant", [], [name], name=label, value=value))
        self.constants[name] = array
        return name

    def shape(self, node: onnx.NodeProto, name: str) -> tuple[int, ...]:
        """The shape of `name` (-1 for a size known only at run time)."""
        shape = self.shapes.get(name)
        if shape is None:
            raise OnnxcError(f"{node_label(node)}: needs the rank of '{name}'")
        return shape

    def static_size(self, node: onnx.NodeProto, name: str, axis: int) -> int:
        size = self.shape(node, name)[axis]
        if size < 0:
            raise OnnxcError(
                f"{node_label(node)}: the size of '{name}' along axis {axis} is known only at "
                "run time, so is the sequence's length; onnxc resolves sequences at compile "
                "time and has no run-time sequence yet"
            )
        return size


def _tensor_type(tensor: str, output: onnx.ValueInfoProto, value: Value) -> int:
    """The element type of `tensor`, one of the tensors of container `value`
    that stands for `output`: bool for a presence flag, int64 for the shapes
    of a sequence known at run time."""
    if tensor in presence_flags(value):
        return onnx.TensorProto.BOOL
    inner = value.value if isinstance(value, Opt) else value
    if isinstance(inner, Ragged) and tensor == inner.shapes:
        return onnx.TensorProto.INT64
    return _element_type(output.type)


def _merge_sequences(
    node: onnx.NodeProto, inners: Sequence[Resolver], yielded: list[list[Value]]
) -> None:
    """Where the If's branches yield sequences (or optional sequences, present
    in both) of different lengths, or one known only at run time, make each
    branch yield it as a sequence known at run time of the same width and
    ranks (the nodes converting it added to the branch)."""
    for index in range(len(node.output)):
        values = [branch[index] for branch in yielded]
        wrapped = [isinstance(v, Opt) for v in values]
        sequences = [v.value if isinstance(v, Opt) else v for v in values]
        if (
            structure(tuple(values)) is not None
            or len(set(wrapped)) != 1
            or not all(isinstance(v, Seq | Ragged) for v in sequences)
        ):
            continue
        ranks: set[int] = set()
        for inner, value in zip(inners, sequences, strict=True):
            assert isinstance(value, Seq | Ragged)
            ranks |= set(value.ranks if isinstance(value, Ragged) else inner.ranks_of(node, value))
        everything = tuple(sorted(ranks))
        for k, (inner, value) in enumerate(zip(inners, sequences, strict=True)):
            assert isinstance(value, Seq | Ragged)
            start = len(inner.nodes)
            element = (
                _element_type(inner.types[node.output[index]])
                if node.output[index] in inner.types
                else 0
            )
            made = ragged_of(inner, node, value, width_for(everything), element)
            inner.graph.node.extend(inner.nodes[start:])
            merged = Ragged(made.data, made.shapes, made.width, everything)
            yielded[k][index] = Opt(merged) if wrapped[k] else merged


def _constant(name: str, array: np.ndarray) -> onnx.NodeProto:
    """A Constant node defining `name` as `array`."""
    value = numpy_helper.from_array(array, name=name)
    return helper.make_node("Constant", [], [name], name=f"{name}_Constant", value=value)


def _element_type(type_proto: onnx.TypeProto) -> int:
    """The tensor element type a container type holds (UNDEFINED if none)."""
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        return type_proto.tensor_type.elem_type
    if kind == "sequence_type":
        return _element_type(type_proto.sequence_type.elem_type)
    if kind == "optional_type":
        return _element_type(type_proto.optional_type.elem_type)
    return onnx.TensorProto.UNDEFINED


def _constant_value(node: onnx.NodeProto) -> np.ndarray | None:
    found = next((a for a in node.attribute if a.name == "value"), None)
    return None if found is None else numpy_helper.to_array(found.t)


def _shape_of(name: str, shape: object) -> Shape:
    try:
        return tuple(int(v) for v in shape)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise OnnxcError(f"shapes['{name}'] must give shapes, got {shape!r}") from None


def _resolve(state: ModelState) -> bool:
    state.containers = resolve_containers(state.model, state.shapes)
    return True


RESOLVE_CONTAINERS = Rewrite("resolve-containers", _resolve)
