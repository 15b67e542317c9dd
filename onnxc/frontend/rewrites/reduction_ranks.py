"""`reduction-ranks`: the ranks onnx's inference leaves unknown where the
model still decides them: a reduction whose axes are computed at run time
(its `keepdims` and the number of axes tell the rank), and a Squeeze
without axes of sizes known only at run time whose consumers need every
axis it may keep.

A Squeeze without axes removes every size 1, so a size known only at run
time makes its rank depend on data (a batch of 1 would lose its axis). An
operator function body writes one where the axes it squeezes are the only
sizes of 1 (AffineGrid's squeezes its [N, 1, 3] rows, then splits them
along axis 1): when a consumer needs the rank that keeps every run-time
size (a Split, Concat, Gather or Softmax along an axis only that rank has,
a Transpose of that many axes), a run with one of them 1 could not run the
model at all, so that rank is the result's. The Squeeze's lowering checks
at run time that it removes no more axes than that.
"""

from __future__ import annotations

import onnx

from onnxc.frontend.state import Rewrite

REDUCTIONS = frozenset(
    {
        "ReduceL1",
        "ReduceL2",
        "ReduceLogSum",
        "ReduceLogSumExp",
        "ReduceMax",
        "ReduceMean",
        "ReduceMin",
        "ReduceProd",
        "ReduceSum",
        "ReduceSumSquare",
    }
)
"""The operators whose optional second input lists the axes they reduce."""


AXIS_CONSUMERS: dict[str, tuple[int, bool]] = {
    "ArgMax": (0, False),
    "ArgMin": (0, False),
    "Concat": (0, True),
    "Gather": (0, False),
    "GatherElements": (0, True),
    "Hardmax": (-1, False),
    "LogSoftmax": (-1, False),
    "Softmax": (-1, False),
    "Split": (0, False),
}
"""The operators whose `axis` (default first) must name an axis of their
first input (of every input, second: they all have one rank): a rank
that has it is needed."""


def reduction_ranks(model: onnx.ModelProto, inferred: onnx.ModelProto) -> bool:
    """Give a rank to the results of reductions whose axes are computed at run
    time and of Squeezes without axes that their consumers decide; whether
    any was given one."""
    return _reductions(model, inferred) or _squeezes(model, inferred)


def _reductions(model: onnx.ModelProto, inferred: onnx.ModelProto) -> bool:
    """Give a rank to the results of reductions whose axes are computed at run
    time, which onnx's inference leaves without one although `keepdims` and
    the number of axes tell it: the input's rank with `keepdims` (however
    many axes), or that less the number of axes (every axis when there are
    none, no axis with `noop_with_empty_axes`). Their sizes stay unknown
    (the lowering computes them). Whether any was given one."""
    graph = inferred.graph
    types = {v.name: v.type.tensor_type for v in [*graph.input, *graph.value_info, *graph.output]}
    given = False
    for node in model.graph.node:
        if node.op_type not in REDUCTIONS or len(node.input) < 2 or not node.input[1]:
            continue
        result, data, axes = (types.get(name) for name in (node.output[0], *node.input[:2]))
        if result is not None and result.HasField("shape"):
            continue
        if data is None or not data.HasField("shape") or axes is None:
            continue
        attributes = {a.name: a.i for a in node.attribute}
        rank = len(data.shape.dim)
        count = _static_length(axes)
        if not attributes.get("keepdims", 1):
            if count is None:
                continue
            if count:
                rank -= count
            elif not attributes.get("noop_with_empty_axes", 0):
                rank = 0
        _give_rank(model.graph, node.output[0], data.elem_type, rank)
        given = True
    return given


def _squeezes(model: onnx.ModelProto, inferred: onnx.ModelProto) -> bool:
    """Give a shape to the results of Squeezes without axes whose input has
    sizes known only at run time, when a consumer needs the rank that keeps
    them all: the input's sizes without its static 1s. Whether any was."""
    graph = inferred.graph
    types = {v.name: v.type.tensor_type for v in [*graph.input, *graph.value_info, *graph.output]}
    given = False
    for node in model.graph.node:
        if node.op_type != "Squeeze" or node.domain not in ("", "ai.onnx"):
            continue
        if (len(node.input) > 1 and node.input[1]) or node.attribute:
            continue  # the axes tell the rank (onnx's inference, or the reductions')
        result, data = types.get(node.output[0]), types.get(node.input[0])
        if (result is not None and result.HasField("shape")) or data is None:
            continue
        if not data.HasField("shape"):
            continue
        kept = [d for d in data.shape.dim if not (d.HasField("dim_value") and d.dim_value == 1)]
        if _needed_rank(model.graph, node.output[0]) < len(kept):
            continue
        value = _declared(model.graph, node.output[0])
        value.type.tensor_type.elem_type = data.elem_type
        value.type.tensor_type.shape.Clear()
        for dim in kept:
            value.type.tensor_type.shape.dim.add().CopyFrom(dim)
        given = True
    return given


def _needed_rank(graph: onnx.GraphProto, name: str) -> int:
    """The least rank the nodes of `graph` reading `name` need it to have."""
    needed = 0
    for node in graph.node:
        if node.domain not in ("", "ai.onnx") or name not in node.input:
            continue
        attributes = {a.name: a for a in node.attribute}
        if node.op_type == "Transpose" and "perm" in attributes:
            needed = max(needed, len(attributes["perm"].ints))
        elif node.op_type in AXIS_CONSUMERS:
            default, every_input = AXIS_CONSUMERS[node.op_type]
            if every_input or node.input[0] == name:
                axis = attributes["axis"].i if "axis" in attributes else default
                needed = max(needed, axis + 1 if axis >= 0 else -axis)
    return needed


def _static_length(tensor_type: onnx.TypeProto.Tensor) -> int | None:
    """The length of a 1-D tensor, when its type tells it."""
    if not tensor_type.HasField("shape") or len(tensor_type.shape.dim) != 1:
        return None
    dim = tensor_type.shape.dim[0]
    return dim.dim_value if dim.HasField("dim_value") else None


def _give_rank(graph: onnx.GraphProto, name: str, elem_type: int, rank: int) -> None:
    """Declare value `name` of `graph` a tensor of `elem_type` and `rank`
    unknown sizes."""
    tensor_type = _declared(graph, name).type.tensor_type
    tensor_type.elem_type = elem_type
    tensor_type.shape.Clear()
    for _ in range(rank):
        tensor_type.shape.dim.add()


def _declared(graph: onnx.GraphProto, name: str) -> onnx.ValueInfoProto:
    """The graph output or value_info declaring `name` (a new value_info if
    none does)."""
    found = [v for v in [*graph.output, *graph.value_info] if v.name == name]
    return found[0] if found else graph.value_info.add(name=name)


REDUCTION_RANKS = Rewrite(
    "reduction-ranks", lambda state: reduction_ranks(state.model, state.types())
)
