"""`sink-into-branches`: an If result whose branches yield it at different
ranks takes its consumer into both branches.

Exporters of scripted control flow write such Ifs (one branch flattens, the
other keeps the axes), and what follows often makes the ranks agree again: a
reduction over every axis, a Reshape to a fixed shape, a Flatten. onnx's
inference leaves the result's rank unknown, and the IR needs one. When the
result has one consumer whose other inputs exist before the If, the
consumer moves into each branch, applied there to the branch's value, and
its results become the If's results in place of the one it consumed; the
rounds of inference then give them a rank where the branches agree, and
sink again where they still do not. When the consumer cannot move (several
consumers, or an input computed after the If) or the result is a graph
output, the model is refused naming what needs the rank.
"""

from __future__ import annotations

import onnx

from onnxc.errors import UnsupportedError
from onnxc.frontend.domains import node_label_at
from onnxc.frontend.graphs import all_names, fresh_name
from onnxc.frontend.state import ModelState, Rewrite

BRANCHES = ("then_branch", "else_branch")


def _rank(value: onnx.ValueInfoProto) -> int | None:
    tensor = value.type.tensor_type if value.type.HasField("tensor_type") else None
    return None if tensor is None or not tensor.HasField("shape") else len(tensor.shape.dim)


def _branch_ranks(node: onnx.NodeProto, index: int) -> dict[str, int | None]:
    """The rank each branch of If `node` gives its output `index`."""
    found = {a.name: _rank(a.g.output[index]) for a in node.attribute if a.name in BRANCHES}
    return {name: found.get(name) for name in BRANCHES}


def _ranked(inferred: onnx.GraphProto) -> set[str]:
    values = [*inferred.input, *inferred.value_info, *inferred.output]
    return {v.name for v in values if _rank(v) is not None}


def sink_into_branches(state: ModelState) -> bool:
    """Move the consumer of one If result of different ranks into the If's
    branches; whether one moved (one per round: inference follows)."""
    graph = state.model.graph
    inferred = state.types().graph
    ranked = _ranked(inferred)
    outputs = {o.name for o in graph.output}
    for position, (node, typed) in enumerate(zip(graph.node, inferred.node, strict=True)):
        if node.op_type != "If" or node.domain not in ("", "ai.onnx"):
            continue
        for index, result in enumerate(node.output):
            if not result or result in ranked:
                continue
            ranks = _branch_ranks(typed, index)
            if None in ranks.values() or len(set(ranks.values())) < 2:
                continue  # not a matter of ranks that differ
            label = node_label_at(node, position)
            shown = " and ".join(f"{r} in {b}" for b, r in ranks.items())
            if result in outputs:
                raise UnsupportedError(
                    f"{label}: output '{result}' has rank {shown}; as a graph output it "
                    "needs one rank"
                )
            consumer = _movable_consumer(graph, position, result)
            if isinstance(consumer, str):
                raise UnsupportedError(f"{label}: output '{result}' has rank {shown}; {consumer}")
            _sink(graph, node, index, consumer)
            return True
    return False


def _movable_consumer(graph: onnx.GraphProto, position: int, result: str) -> onnx.NodeProto | str:
    """The one node reading `result` (of the If at `position`), when its
    other inputs exist before the If; else why it cannot move."""
    readers = [
        (k, n) for k, n in enumerate(graph.node) if result in n.input or _reads_inside(n, result)
    ]
    if len(readers) != 1:
        names = ", ".join(node_label_at(n, k) for k, n in readers)
        return f"its consumers {names} need one rank"
    k, reader = readers[0]
    earlier = {o for n in graph.node[:position] for o in n.output}
    earlier |= {i.name for i in graph.input} | {t.name for t in graph.initializer}
    late = [i for i in reader.input if i and i != result and i not in earlier]
    if late or _reads_inside(reader, result) or any(a.type == a.GRAPH for a in reader.attribute):
        return f"its consumer {node_label_at(reader, k)} needs one rank"
    return reader


def _reads_inside(node: onnx.NodeProto, name: str) -> bool:
    """Whether a subgraph of `node` reads `name` from the outer scope."""
    return any(
        name in set(all_names(a.g)) for a in node.attribute if a.type == onnx.AttributeProto.GRAPH
    )


def _sink(
    graph: onnx.GraphProto, node: onnx.NodeProto, index: int, consumer: onnx.NodeProto
) -> None:
    """Apply `consumer` to output `index` of If `node` inside each branch;
    the consumer's results replace that output among the If's."""
    taken = set(all_names(graph))
    result = node.output[index]
    for attribute in node.attribute:
        if attribute.name not in BRANCHES:
            continue
        branch = attribute.g
        inner = onnx.NodeProto()
        inner.CopyFrom(consumer)
        inner.input[:] = [branch.output[index].name if i == result else i for i in inner.input]
        inner.output[:] = [fresh_name(f"{attribute.name}_{o}", taken) for o in consumer.output]
        if inner.name:
            inner.name = fresh_name(f"{attribute.name}_{inner.name}", taken)
        branch.node.append(inner)
        yielded = list(branch.output)
        moved = [onnx.helper.make_empty_tensor_value_info(o) for o in inner.output]
        del branch.output[:]
        branch.output.extend([*yielded[:index], *moved, *yielded[index + 1 :]])
    outputs = list(node.output)
    node.output[:] = [*outputs[:index], *consumer.output, *outputs[index + 1 :]]
    graph.node.remove(consumer)


SINK_INTO_BRANCHES = Rewrite("sink-into-branches", sink_into_branches)
