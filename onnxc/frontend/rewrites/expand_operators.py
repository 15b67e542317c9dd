"""`expand-operators`: nodes of other domains that onnxc knows how to
express (onnxruntime's com.microsoft operators, the preview domains)
replaced by default-domain nodes, in the graph and in every subgraph
(`onnxc/frontend/expansions/`). It runs after the opset upgrade, so the
replacements are written in the dialect's opset, and before shape inference,
which knows only the default domains."""

from __future__ import annotations

from collections.abc import Mapping

import onnx

from onnxc.frontend.expansions import Expander, expansion_of
from onnxc.frontend.graphs import all_names
from onnxc.frontend.state import ModelState, Rewrite


def _expand_graph(
    graph: onnx.GraphProto,
    outer: Mapping[str, onnx.TensorProto],
    taken: set[str],
    weights: Mapping[str, bytes],
) -> bool:
    """Expand the nodes of `graph` and of its subgraphs, in place."""
    visible = {**outer, **{t.name: t for t in graph.initializer}}
    changed = False
    replaced: list[onnx.NodeProto] = []
    for node in graph.node:
        for attribute in node.attribute:
            for subgraph in [attribute.g] if attribute.HasField("g") else attribute.graphs:
                changed |= _expand_graph(subgraph, visible, taken, weights)
        expansion = expansion_of(node.domain, node.op_type)
        if expansion is None:
            replaced.append(node)
            continue
        expander = Expander(node, taken, visible, weights, graph=graph)
        expansion(expander)
        replaced.extend(expander.nodes)
        changed = True
    if changed:
        del graph.node[:]
        graph.node.extend(replaced)
    return changed


def expand_operators(state: ModelState) -> bool:
    graph = state.model.graph
    taken = set(all_names(graph))
    return _expand_graph(graph, {}, taken, state.weights)


EXPAND_OPERATORS = Rewrite("expand-operators", expand_operators)
