"""`reduction-ranks`: the rank of a reduction whose axes are computed at run
time, which onnx's inference leaves unknown."""

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


def reduction_ranks(model: onnx.ModelProto, inferred: onnx.ModelProto) -> bool:
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


def _static_length(tensor_type: onnx.TypeProto.Tensor) -> int | None:
    """The length of a 1-D tensor, when its type tells it."""
    if not tensor_type.HasField("shape") or len(tensor_type.shape.dim) != 1:
        return None
    dim = tensor_type.shape.dim[0]
    return dim.dim_value if dim.HasField("dim_value") else None


def _give_rank(graph: onnx.GraphProto, name: str, elem_type: int, rank: int) -> None:
    """Declare value `name` of `graph` a tensor of `elem_type` and `rank`
    unknown sizes."""
    found = [v for v in [*graph.output, *graph.value_info] if v.name == name]
    value = found[0] if found else graph.value_info.add(name=name)
    tensor_type = value.type.tensor_type
    tensor_type.elem_type = elem_type
    tensor_type.shape.Clear()
    for _ in range(rank):
        tensor_type.shape.dim.add()


REDUCTION_RANKS = Rewrite(
    "reduction-ranks", lambda state: reduction_ranks(state.model, state.types())
)
