"""ONNX model -> `builtin.module` holding `func.func @main` of `onnx.*` operations.

`import_model` loads the model (`load.py`), runs the front end's rewrites on
the proto (`prepare.py`: checked, inlined, upgraded to the dialect's
`TARGET_OPSET`, dimensions bound, sequences and optionals resolved into the
tensors they hold, shapes inferred so that every value has a type whose
sizes are static or symbols, see `dialects/dims.py`), and then builds the IR:
nodes of the default domain import into the onnx dialect, those of
`ai.onnx.ml` into the onnx_ml dialect (`domains.py`).

Initializers become `onnx.Constant` operations (large ones as `dense_resource`);
an initializer that is also a graph input stays an input, and its value is kept as
that input's default. Omitted optional inputs become `onnx.NoValue`. Every
operation keeps its node's name in the `onnx_node_name` attribute.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.defs import OpSchema
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    NoneType,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue

from onnxc import element_types
from onnxc.containers import Containers, ShapeArgument
from onnxc.dialects import dims as tensor_dims
from onnxc.dialects import onnx as onnx_dialect
from onnxc.dialects.constants import constant_attr
from onnxc.dialects.dims import Dim
from onnxc.errors import OnnxcError, UnsupportedError
from onnxc.frontend.domains import DOMAINS, node_label_at
from onnxc.frontend.load import ModelLike, load_model
from onnxc.frontend.prepare import prepare_model
from onnxc.ir_names import DIMS, INPUT_NAMES, MAX_DIMS, ONNX_NODE_NAME, OUTPUT_NAMES

MAX_TENSOR_BYTES = 1 << 40
"""The largest tensor (by its static sizes) onnxc compiles: 1 TiB. Only a
corrupt or hostile model declares more (a size of 2^62), and the byte sizes
and offsets the passes compute, summed over every tensor, must stay far from
the 2^63 of their 64-bit integers."""


@dataclass
class ImportedModel:
    """The result of an import: the IR and what the runtime side needs to know."""

    module: ModuleOp
    input_names: list[str]
    output_names: list[str]
    input_defaults: dict[str, np.ndarray] = field(default_factory=dict[str, np.ndarray])
    """Inputs that are also initializers, with the initializer as default value."""
    free_dims: list[str] = field(default_factory=list[str])
    """Dimensions given at run time (dim_params not bound), in input order."""
    max_dims: dict[str, int] = field(default_factory=dict[str, int])
    """Upper bounds of free dimensions."""
    opset: int = onnx_dialect.TARGET_OPSET
    containers: Containers = field(default_factory=Containers)
    """The sequence and optional inputs and outputs, as the tensors they became."""


def import_model(
    model: ModelLike,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    max_dims: Mapping[str, int] | None = None,
    on_node: Callable[[int, int], None] | None = None,
    skip_rewrites: Collection[str] = (),
) -> ImportedModel:
    """Import an ONNX model (a path or a ModelProto) into the onnx dialect.
    Dimensions not bound by `dims` or `shapes` stay free (sizes given at run
    time); `max_dims` bounds free dimensions. `on_node(done, total)` is called
    after each node is imported (a progress bar's hook). `skip_rewrites`
    leaves front-end rewrites out (debugging; see `prepare_model`)."""
    loaded = load_model(model)
    proto, free, containers = prepare_model(loaded, dims, shapes, skip=skip_rewrites)
    bounds = dict(max_dims or {})
    for name, bound in bounds.items():
        if name not in free:
            raise OnnxcError(
                f"max_dims names '{name}', which is not a free dimension "
                f"(free: {', '.join(free) or 'none'})"
            )
        if bound < 0:
            raise OnnxcError(f"max_dims['{name}'] is {bound}; a dimension is 0 or more")
    imported = _GraphImporter(proto, on_node).run()
    main = imported.module.body.block.first_op
    assert isinstance(main, func.FuncOp)
    if free:
        main.attributes[DIMS] = ArrayAttr([StringAttr(d) for d in free])
    if bounds:
        main.attributes[MAX_DIMS] = DictionaryAttr(
            {k: IntegerAttr(v, i64) for k, v in sorted(bounds.items())}
        )
    imported.free_dims = free
    imported.max_dims = bounds
    imported.containers = containers
    return imported


@dataclass
class _Scope:
    """The names one graph defines (values and their inferred types), and the
    scope of the graph around it: a subgraph sees the names of its outer
    scopes, unless it defines the same name itself (the IR spec)."""

    types: dict[str, onnx.TypeProto]
    values: dict[str, SSAValue] = field(default_factory=dict[str, SSAValue])
    outer: _Scope | None = None

    @staticmethod
    def of(graph: onnx.GraphProto, outer: _Scope | None = None) -> _Scope:
        # a graph input that is also an output keeps its input type (an
        # output may be declared with less: unknown sizes)
        values = [*graph.value_info, *graph.output, *graph.input]
        types = {v.name: v.type for v in values if v.type.WhichOneof("value")}
        return _Scope(types, outer=outer)

    def chain(self) -> Iterator[_Scope]:
        """This scope, then the scopes around it, innermost first."""
        scope: _Scope | None = self
        while scope is not None:
            yield scope
            scope = scope.outer

    def value(self, name: str) -> SSAValue | None:
        return next((s.values[name] for s in self.chain() if name in s.values), None)

    def type(self, name: str) -> onnx.TypeProto | None:
        return next((s.types[name] for s in self.chain() if name in s.types), None)


class _GraphImporter:
    def __init__(self, model: onnx.ModelProto, on_node: Callable[[int, int], None] | None = None):
        self.model = model
        self.on_node = on_node
        self.graph = model.graph
        self.scope = _Scope.of(self.graph)
        self.block = Block()
        self.no_value: SSAValue | None = None

    def run(self) -> ImportedModel:
        graph = self.graph
        initializers = {t.name: t for t in graph.initializer}
        inputs = [v for v in graph.input if v.name not in initializers]
        defaults = [v for v in graph.input if v.name in initializers]
        input_values = [*inputs, *defaults]
        arg_types = [self._value_type(v.name, "graph input") for v in input_values]
        self.block = Block(arg_types=arg_types)
        for value, arg in zip(input_values, self.block.args, strict=True):
            arg.name_hint = _ssa_name(value.name)
            self.scope.values[value.name] = arg
        for tensor in graph.initializer:
            if tensor.name not in self.scope.values:
                self.scope.values[tensor.name] = self._constant(tensor)
        for index, node in enumerate(graph.node):
            self._node(node, index)
            if self.on_node is not None:
                self.on_node(index + 1, len(graph.node))
        outputs = [self._lookup(v.name, "graph output") for v in graph.output]
        self.block.add_op(func.ReturnOp(*outputs))
        main = func.FuncOp(
            "main",
            (arg_types, [o.type for o in outputs]),
            Region(self.block),
        )
        input_names = [v.name for v in input_values]
        output_names = [v.name for v in graph.output]
        main.attributes[INPUT_NAMES] = ArrayAttr([StringAttr(n) for n in input_names])
        main.attributes[OUTPUT_NAMES] = ArrayAttr([StringAttr(n) for n in output_names])
        module = ModuleOp([main])
        return ImportedModel(
            module,
            input_names,
            output_names,
            {t.name: numpy_helper.to_array(initializers[t.name]) for t in defaults},
        )

    def _lookup(self, name: str, what: str) -> SSAValue:
        value = self.scope.value(name)
        if value is None:
            raise OnnxcError(f"{what} '{name}' is not produced by any node") from None
        return value

    def _value_type(self, name: str, what: str, node: str = "") -> TensorType:
        type_proto = self.scope.type(name)
        where = f"{node}: " if node else ""
        if type_proto is None or not type_proto.HasField("tensor_type"):
            raise OnnxcError(f"{where}{what} '{name}' has no inferred tensor type") from None
        tensor_type = type_proto.tensor_type
        element = _element_type(tensor_type.elem_type, f"{where}{what} '{name}'")
        if not tensor_type.HasField("shape"):
            raise OnnxcError(
                f"{where}{what} '{name}' has an unknown rank after shape inference"
            ) from None
        found: list[Dim] = []
        for axis, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value"):
                found.append(dim.dim_value)
            elif dim.dim_param:
                found.append(dim.dim_param)
            else:  # a size shape inference could not name: give it one
                found.append(f"{name}:{axis}")
        static = [d for d in found if isinstance(d, int)]
        count = math.prod(static) if all(d >= 0 for d in static) else 0
        row = element_types.by_onnx_code(tensor_type.elem_type)
        if row is not None and row.storage_bytes(count) > MAX_TENSOR_BYTES:
            raise OnnxcError(
                f"{where}{what} '{name}' has {count} elements of {row.name}: more than "
                f"{MAX_TENSOR_BYTES >> 40} TiB, the largest tensor onnxc compiles"
            )
        return tensor_dims.tensor_type(element, found)

    def _constant(self, tensor: onnx.TensorProto) -> SSAValue:
        array = numpy_helper.to_array(tensor)
        element = _element_type(tensor.data_type, f"initializer '{tensor.name}'")
        tensor_type = TensorType(element, array.shape)
        op = onnx_dialect.ConstantOp.create(
            result_types=[tensor_type],
            properties={"value": constant_attr(array, tensor_type, tensor.name)},
            attributes={ONNX_NODE_NAME: StringAttr(tensor.name)},
        )
        op.results[0].name_hint = _ssa_name(tensor.name)
        self.block.add_op(op)
        return op.results[0]

    def _none(self) -> SSAValue:
        if self.no_value is None:
            op = onnx_dialect.NoValueOp()
            self.block.add_op(op)
            self.no_value = op.result
        return self.no_value

    def _node(self, node: onnx.NodeProto, index: int) -> None:
        label = node_label_at(node, index)
        op_class = DOMAINS.get(node.domain, {}).get(node.op_type)
        if op_class is None:
            raise OnnxcError(f"{label}: unknown operator '{node.op_type}'") from None
        schema = op_class.SCHEMA
        operands = [
            self._none() if name == "" else self._lookup(name, f"{label}: input")
            for name in node.input
        ]
        optional = OpSchema.FormalParameterOption.Optional
        formals = list(schema.inputs)
        while len(operands) < len(formals) and formals[len(operands)].option == optional:
            operands.append(self._none())
        try:
            result_types: list[Attribute] = [
                NoneType() if name == "" else self._value_type(name, "output", label)
                for name in node.output
            ]
        except OnnxcError as error:
            raise OnnxcError(f"{error}{_rank_hint(node)}") from None
        formal_outputs = list(schema.outputs)
        while (
            len(result_types) < len(formal_outputs)
            and formal_outputs[len(result_types)].option == optional
        ):
            result_types.append(NoneType())
        properties: dict[str, Attribute] = {}
        subgraphs: dict[str, Region] = {}
        for attribute in node.attribute:
            if attribute.name not in schema.attributes:
                raise OnnxcError(f"{label}: unknown attribute '{attribute.name}'") from None
            if attribute.type == onnx.AttributeProto.GRAPH:
                subgraphs[attribute.name] = self._subgraph(
                    attribute.g, f"{label}: {attribute.name}"
                )
                continue
            if attribute.type == onnx.AttributeProto.GRAPHS:
                raise OnnxcError(
                    f"{label}: attribute '{attribute.name}' (a list of graphs) is not supported"
                )
            properties[attribute.name] = self._attribute(attribute, node, label)
        region_names = [name for name, _ in op_class.get_irdl_definition().regions]
        if set(subgraphs) != set(region_names):
            missing = ", ".join(sorted(set(region_names) - set(subgraphs)))
            raise OnnxcError(f"{label}: missing subgraph attribute {missing}")
        names = node.name or f"{node.op_type}_{index}"
        op = op_class.create(
            operands=operands,
            result_types=result_types,
            properties=properties,
            regions=[subgraphs[name] for name in region_names],
            attributes={ONNX_NODE_NAME: StringAttr(names)},
        )
        self.block.add_op(op)
        for name, result in zip(node.output, op.results, strict=False):
            if name:
                result.name_hint = _ssa_name(name)
                self.scope.values[name] = result

    def _subgraph(self, graph: onnx.GraphProto, label: str) -> Region:
        """A subgraph as a region of one block: its inputs are the block's
        arguments, its nodes the block's operations (names of the outer
        scopes visible, as `_Scope` says), its outputs `onnx.Yield`'s
        operands."""
        outer = (self.scope, self.block, self.no_value)
        self.scope = _Scope.of(graph, self.scope)
        self.no_value = None
        arg_types = [self._value_type(v.name, "subgraph input", label) for v in graph.input]
        self.block = Block(arg_types=arg_types)
        try:
            for value, arg in zip(graph.input, self.block.args, strict=True):
                arg.name_hint = _ssa_name(value.name)
                self.scope.values[value.name] = arg
            for tensor in graph.initializer:
                self.scope.values[tensor.name] = self._constant(tensor)
            for index, node in enumerate(graph.node):
                self._node(node, index)
            outputs = [self._lookup(v.name, f"{label}: subgraph output") for v in graph.output]
            self.block.add_op(onnx_dialect.YieldOp(outputs))
            return Region(self.block)
        finally:
            self.scope, self.block, self.no_value = outer

    def _attribute(
        self, attribute: onnx.AttributeProto, node: onnx.NodeProto, label: str
    ) -> Attribute:
        kind = onnx.AttributeProto
        value = onnx.helper.get_attribute_value(attribute)
        if attribute.type == kind.INT:
            return IntegerAttr(int(value), i64)
        if attribute.type == kind.FLOAT:
            return FloatAttr(float(value), f32)
        if attribute.type == kind.STRING:
            return StringAttr(_text(attribute.s, f"{label}: attribute '{attribute.name}'"))
        if attribute.type == kind.INTS:
            return DenseArrayBase.from_list(i64, [int(v) for v in value])
        if attribute.type == kind.FLOATS:
            return DenseArrayBase.from_list(f32, [float(v) for v in value])
        if attribute.type == kind.STRINGS:
            where = f"{label}: attribute '{attribute.name}'"
            return ArrayAttr([StringAttr(_text(v, where)) for v in attribute.strings])
        if attribute.type == kind.TENSOR:
            element = _element_type(value.data_type, f"{label}: attribute '{attribute.name}'")
            array = numpy_helper.to_array(value)
            hint = node.output[0] if node.output else attribute.name
            return constant_attr(array, TensorType(element, array.shape), hint)
        raise OnnxcError(
            f"{label}: attribute '{attribute.name}' of type "
            f"{kind.AttributeType.Name(attribute.type)} is not supported"
        )


def _text(data: bytes, what: str) -> str:
    """A string attribute's bytes as text (the spec says UTF-8)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise OnnxcError(f"{what} is not valid UTF-8 text") from None


def _element_type(code: int, what: str) -> Attribute:
    """The IR element type of a TensorProto data type, or an error naming `what`."""
    row = element_types.by_onnx_code(code)
    if row is None:
        why = ": string tensors are not supported yet" if code == onnx.TensorProto.STRING else ""
        raise UnsupportedError(
            f"{what} has unsupported element type {element_types.onnx_type_name(code)}{why}"
        )
    return row.ir_type


def _rank_hint(node: onnx.NodeProto) -> str:
    """Why an output of `node` may have no rank before run time."""
    if node.op_type == "Squeeze" and len(node.input) < 2 and not node.attribute:
        return (
            " (Squeeze without axes removes every dimension of size 1, and one "
            "known only at run time may be 1: the rank depends on data; give axes)"
        )
    return ""


def _ssa_name(name: str) -> str | None:
    """An SSA name hint from an ONNX name, when it makes a valid one."""
    cleaned = "".join(c if (c.isascii() and c.isalnum()) or c in "_$." else "_" for c in name)
    if not cleaned or cleaned[0].isdigit() or cleaned[0] == ".":
        cleaned = "v" + cleaned
    return cleaned
