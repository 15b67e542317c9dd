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

import onnx
from onnx import helper, numpy_helper

from onnxc.frontend.graphs import all_names, inline_graph
from onnxc.frontend.state import Rewrite

__all__ = ["inline_constant_branches"]


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


INLINE_CONSTANT_BRANCHES = Rewrite(
    "inline-constant-branches", lambda state: inline_constant_branches(state.model.graph)
)
