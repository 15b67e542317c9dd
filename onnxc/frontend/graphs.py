"""Helpers over ONNX graphs that several front-end rewrites share: names
(every name a graph uses, a fresh one), a subgraph's nodes renamed into an
outer graph, and the shapes its values are declared with."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import onnx

from onnxc.containers import Shape, ShapeArgument, input_shape
from onnxc.errors import OnnxcError


def inline_graph(
    body: onnx.GraphProto,
    bindings: Mapping[str, str],
    prefix: str,
    taken: set[str],
    graph: onnx.GraphProto,
) -> tuple[list[onnx.NodeProto], list[str]]:
    """The nodes of subgraph `body` renamed into `graph` (its inputs read the
    outer names `bindings` gives, the names it defines get fresh names that
    start with `prefix`, its initializers move to `graph`), and the outer
    names of its outputs (an output may be an outer value it only forwards)."""
    renamed: dict[str, str] = dict(bindings)
    for name in [t.name for t in body.initializer] + [o for n in body.node for o in n.output]:
        if name:
            renamed[name] = fresh_name(f"{prefix}_{name}", taken)
    for tensor in body.initializer:
        copy = onnx.TensorProto()
        copy.CopyFrom(tensor)
        copy.name = renamed[tensor.name]
        graph.initializer.append(copy)
    nodes: list[onnx.NodeProto] = []
    for inner in body.node:
        copy = onnx.NodeProto()
        copy.CopyFrom(inner)
        _rename(copy, renamed)
        if copy.name:
            copy.name = fresh_name(f"{prefix}_{copy.name}", taken)
        nodes.append(copy)
    return nodes, [renamed.get(v.name, v.name) for v in body.output]


def _rename(node: onnx.NodeProto, renamed: Mapping[str, str]) -> None:
    """Rename `node`'s inputs and outputs, and the outer names its subgraphs
    read (a subgraph's own names are distinct from every name it can see)."""
    node.input[:] = [renamed.get(name, name) for name in node.input]
    node.output[:] = [renamed.get(name, name) for name in node.output]
    for subgraph in _subgraphs(node):
        for inner in subgraph.node:
            _rename(inner, renamed)
        for output in subgraph.output:
            output.name = renamed.get(output.name, output.name)


def _subgraphs(node: onnx.NodeProto) -> Iterator[onnx.GraphProto]:
    for attribute in node.attribute:
        if attribute.type == onnx.AttributeProto.GRAPH:
            yield attribute.g
        elif attribute.type == onnx.AttributeProto.GRAPHS:
            yield from attribute.graphs


def all_nodes(graph: onnx.GraphProto) -> Iterator[onnx.NodeProto]:
    """The nodes of `graph` and of its subgraphs, each before its subgraphs'."""
    for node in graph.node:
        yield node
        for subgraph in _subgraphs(node):
            yield from all_nodes(subgraph)


def all_names(graph: onnx.GraphProto) -> Iterator[str]:
    """Every name `graph` and its subgraphs define or read."""
    yield from (v.name for v in [*graph.input, *graph.output, *graph.value_info])
    yield from (t.name for t in graph.initializer)
    for node in graph.node:
        yield from node.input
        yield from node.output
        for subgraph in _subgraphs(node):
            yield from all_names(subgraph)


def fresh_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_2`, ... : a name not in `taken` (which it joins)."""
    name, k = base, 2
    while name in taken:
        name, k = f"{base}_{k}", k + 1
    taken.add(name)
    return name


def tensor_shapes(model: onnx.ModelProto, shapes: Mapping[str, ShapeArgument]) -> dict[str, Shape]:
    """The entries of `shapes` that give the shapes of tensor inputs (the others
    give sequences and optionals, for `resolve_containers`)."""
    kinds = {v.name: v.type.WhichOneof("value") for v in model.graph.input}
    plain: dict[str, Shape] = {}
    for name, given in shapes.items():
        shape = input_shape(name, given)
        if kinds.get(name, "tensor_type") != "tensor_type":
            continue
        if shape is None or any(not isinstance(v, int) for v in shape):
            raise OnnxcError(f"shapes['{name}'] must be a shape: input '{name}' is a tensor")
        plain[name] = tuple(int(v) for v in shape)  # type: ignore[arg-type]
    return plain


def fix_shape(value: onnx.ValueInfoProto, shape: Sequence[int]) -> None:
    """Give the tensor `value` (a graph input, or a tensor of a sequence
    input) the whole shape `shape` from `shapes=`, which must keep its rank."""
    tensor_type = value.type.tensor_type
    if tensor_type.HasField("shape") and len(tensor_type.shape.dim) != len(shape):
        raise OnnxcError(
            f"shapes['{value.name}'] has rank {len(shape)}, but the "
            f"input has rank {len(tensor_type.shape.dim)}"
        )
    if any(int(size) < 0 for size in shape):
        raise OnnxcError(f"shapes['{value.name}'] has a negative size")
    tensor_type.shape.Clear()
    for size in shape:
        tensor_type.shape.dim.add().dim_value = int(size)


def value_shapes(graph: onnx.GraphProto) -> dict[str, tuple[int, ...]]:
    """The shapes of the values of `graph` whose rank is known, -1 for a size
    known only at run time."""
    shapes: dict[str, tuple[int, ...]] = {}
    for value in [*graph.input, *graph.value_info, *graph.output]:
        tensor_type = value.type.tensor_type if value.type.HasField("tensor_type") else None
        if tensor_type is None or not tensor_type.HasField("shape"):
            continue
        dims = tensor_type.shape.dim
        shapes[value.name] = tuple(d.dim_value if d.HasField("dim_value") else -1 for d in dims)
    for tensor in graph.initializer:
        shapes[tensor.name] = tuple(tensor.dims)
    return shapes
