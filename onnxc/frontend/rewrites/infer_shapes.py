"""`infer-shapes`: onnx shape inference with data propagation, typing the
outputs of the operators whose inference onnx 1.23 gets wrong."""

from __future__ import annotations

import onnx

from onnxc.errors import OnnxcError, first_line
from onnxc.frontend.state import ModelState, Rewrite

SAME_TYPE_AS_INPUT = frozenset({"GroupNormalization", "MeanVarianceNormalization"})
"""Operators whose output has their input's type, and whose shape inference
onnx 1.23 gets wrong through their function bodies (MeanVarianceNormalization's
has a Constant without a value, which fails; GroupNormalization's gives no
shape). Their outputs are typed from the spec instead."""


def infer(model: onnx.ModelProto) -> onnx.ModelProto:
    around = any(node.op_type in SAME_TYPE_AS_INPUT for node in model.graph.node)
    try:
        inferred = onnx.shape_inference.infer_shapes(
            model, check_type=True, strict_mode=True, data_prop=True
        )
    except Exception as error:
        if not around:
            raise OnnxcError(f"shape inference failed: {first_line(error)}") from None
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    return _infer_around(inferred) if around else inferred


def _infer_around(inferred: onnx.ModelProto) -> onnx.ModelProto:
    """Type the outputs of SAME_TYPE_AS_INPUT nodes that inference left
    untyped, and infer again from there, until nothing changes."""
    for _ in range(len(inferred.graph.node) + 1):
        graph = inferred.graph
        typed = {v.name: v for v in [*graph.input, *graph.value_info, *graph.output]}
        added = False
        for node in graph.node:
            if node.op_type not in SAME_TYPE_AS_INPUT or not node.input or not node.output:
                continue
            source, target = typed.get(node.input[0]), typed.get(node.output[0])
            if source is None or (
                target is not None
                and target.type.HasField("tensor_type")
                and target.type.tensor_type.HasField("shape")
            ):
                continue
            info = onnx.ValueInfoProto(name=node.output[0], type=source.type)
            graph.value_info.append(info)
            added = True
        if not added:
            return inferred
        inferred = onnx.shape_inference.infer_shapes(inferred, strict_mode=False, data_prop=True)
    return inferred


def all_ranks_known(model: onnx.ModelProto) -> bool:
    graph = model.graph
    typed = {v.name: v.type for v in [*graph.value_info, *graph.output]}
    return all(
        name in typed and typed[name].tensor_type.HasField("shape")
        for node in graph.node
        for name in node.output
        if name and (name not in typed or typed[name].HasField("tensor_type"))
    )


def infer_shapes(state: ModelState) -> bool:
    """`state.inferred` from `state.model`."""
    state.inferred = infer(state.model)
    return True


INFER_SHAPES = Rewrite("infer-shapes", infer_shapes, shows="inferred")


def settled(state: ModelState) -> bool:
    """Every value has a rank and no subgraph is left to type: nothing more
    for the fold-and-infer rounds to do."""
    graph = state.model.graph
    subgraphs = any(a.type == onnx.AttributeProto.GRAPH for n in graph.node for a in n.attribute)
    return all_ranks_known(state.types()) and not subgraphs
