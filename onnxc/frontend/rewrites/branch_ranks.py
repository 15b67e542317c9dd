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

Where only broadcasting reads the result, its rank does not matter as long
as it is no more than another input's: a branch of lower rank then gets
leading axes of size 1 (AffineGrid's function body yields a step of 0 as a
scalar in one branch and 2 / (D - 1) of shape [1] in the other, and
multiplies it with a [D] range). Every reader must be an elementwise
operator that broadcasts all its inputs together with another input of at
least the larger rank, or a CastLike taking only its element type.
"""

from __future__ import annotations

import onnx

from onnxc.errors import UnsupportedError
from onnxc.frontend.domains import node_label_at
from onnxc.frontend.graphs import all_names, fresh_name
from onnxc.frontend.state import ModelState, Rewrite

BRANCHES = ("then_branch", "else_branch")

BROADCASTING = frozenset(
    {
        "Add",
        "And",
        "BitShift",
        "BitwiseAnd",
        "BitwiseOr",
        "BitwiseXor",
        "Div",
        "Equal",
        "Greater",
        "GreaterOrEqual",
        "Less",
        "LessOrEqual",
        "Max",
        "Mean",
        "Min",
        "Mod",
        "Mul",
        "Or",
        "Pow",
        "Sub",
        "Sum",
        "Where",
        "Xor",
    }
)
"""The elementwise operators that broadcast all their inputs together
(multidirectionally): leading axes of size 1 on one input change nothing
where another has at least as many axes."""


def _rank(value: onnx.ValueInfoProto) -> int | None:
    tensor = value.type.tensor_type if value.type.HasField("tensor_type") else None
    return None if tensor is None or not tensor.HasField("shape") else len(tensor.shape.dim)


def _branch_ranks(node: onnx.NodeProto, index: int) -> dict[str, int | None]:
    """The rank each branch of If `node` gives its output `index`."""
    found = {a.name: _rank(a.g.output[index]) for a in node.attribute if a.name in BRANCHES}
    return {name: found.get(name) for name in BRANCHES}


def _value_ranks(inferred: onnx.GraphProto) -> dict[str, int]:
    """The rank of each value of `inferred` that has one."""
    ranks = {t.name: len(t.dims) for t in inferred.initializer}
    for value in [*inferred.input, *inferred.value_info, *inferred.output]:
        rank = _rank(value)
        if rank is not None:
            ranks[value.name] = rank
    return ranks


def sink_into_branches(state: ModelState) -> bool:
    """Give one If result of different ranks the larger in every branch,
    where only broadcasting reads it, else move its consumer into the If's
    branches; whether one did (one per round: inference follows)."""
    graph = state.model.graph
    inferred = state.types().graph
    ranked = _value_ranks(inferred)
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
            highest = max(rank for rank in ranks.values() if rank is not None)
            if _only_broadcast(graph, result, highest, ranked):
                _lift(graph, node, index, ranks, highest)
                return True
            consumer = _movable_consumer(graph, position, result)
            if isinstance(consumer, str):
                raise UnsupportedError(f"{label}: output '{result}' has rank {shown}; {consumer}")
            _sink(graph, node, index, consumer)
            return True
    return False


def _only_broadcast(
    graph: onnx.GraphProto, result: str, highest: int, ranked: dict[str, int]
) -> bool:
    """Whether every node reading `result` broadcasts it with another input
    of rank `highest` or more, or reads only its element type."""
    readers = [n for n in graph.node if result in n.input or _reads_inside(n, result)]
    for reader in readers:
        if reader.domain not in ("", "ai.onnx") or _reads_inside(reader, result):
            return False
        if reader.op_type == "CastLike" and reader.input[0] != result:
            continue
        others = [ranked.get(i, -1) for i in reader.input if i and i != result]
        if reader.op_type not in BROADCASTING or max(others, default=-1) < highest:
            return False
    return bool(readers)


def _lift(
    graph: onnx.GraphProto,
    node: onnx.NodeProto,
    index: int,
    ranks: dict[str, int | None],
    highest: int,
) -> None:
    """Give output `index` of If `node` rank `highest` in each branch that
    yields it at a lower rank, by leading axes of size 1."""
    taken = set(all_names(graph))
    for attribute in node.attribute:
        rank = ranks.get(attribute.name)
        if attribute.name not in BRANCHES or rank is None or rank == highest:
            continue
        branch = attribute.g
        source = branch.output[index].name
        axes = fresh_name(f"{attribute.name}_{source}_axes", taken)
        lifted = fresh_name(f"{attribute.name}_{source}_lifted", taken)
        leading = list(range(highest - rank))
        branch.node.append(onnx.helper.make_node("Constant", [], [axes], value_ints=leading))
        branch.node.append(onnx.helper.make_node("Unsqueeze", [source, axes], [lifted]))
        branch.output[index].CopyFrom(onnx.helper.make_empty_tensor_value_info(lifted))


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
