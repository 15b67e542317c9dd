"""Inline the taken branch of an `If` whose condition is known at compile time.

Exported models and operator function bodies often branch on something the
compiler already knows: a rank, a static size, an attribute turned constant
(AffineGrid's function body asks whether `size` has 4 elements). Such an `If`
needs no control flow: the importer, while it folds constants on the ONNX
graph (`prepare_model`), replaces it by the nodes of the branch its condition
selects. Names the branch defines get fresh names in the outer graph (the IR
spec lets them coincide with outer names that the subgraph cannot see), the
branch's initializers join the outer graph's, and each of the If's outputs
becomes an Identity of the corresponding branch output (which may also be an
outer value the branch only forwards).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

import onnx
from onnx import helper, numpy_helper

__all__ = ["all_names", "fresh_name", "inline_constant_branches", "inline_graph"]


def inline_constant_branches(graph: onnx.GraphProto) -> bool:
    """Replace each `If` of `graph` (not of its subgraphs) whose condition is
    a constant initializer (not overridable as a graph input) by the branch
    it takes; whether any was."""
    inputs = {i.name for i in graph.input}
    constants = {  # a condition is one element: larger constants are never read
        t.name: numpy_helper.to_array(t)
        for t in graph.initializer
        if t.name not in inputs and math.prod(t.dims) == 1
    }
    taken = set(all_names(graph))
    nodes: list[onnx.NodeProto] = []
    inlined = False
    for node in graph.node:
        condition = constants.get(node.input[0]) if node.op_type == "If" else None
        if node.domain not in ("", "ai.onnx") or condition is None or condition.size != 1:
            nodes.append(node)
            continue
        attributes = {a.name: a.g for a in node.attribute}
        branch = attributes["then_branch" if bool(condition.reshape(-1)[0]) else "else_branch"]
        nodes += _inlined(branch, node, taken, graph)
        inlined = True
    if inlined:
        del graph.node[:]
        graph.node.extend(nodes)
    return inlined


def _inlined(
    branch: onnx.GraphProto, node: onnx.NodeProto, taken: set[str], graph: onnx.GraphProto
) -> list[onnx.NodeProto]:
    """The branch's nodes renamed into the outer graph, its initializers moved
    there, and an Identity per If output."""
    nodes, sources = inline_graph(branch, {}, node.name or "If", taken, graph)
    for result, source in zip(node.output, sources, strict=True):
        if result:
            nodes.append(helper.make_node("Identity", [source], [result]))
    return nodes


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
