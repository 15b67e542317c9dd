"""`prelu-channel-slopes`: PRelu before opset 7 made explicit for the upgrade."""

from __future__ import annotations

import onnx

from onnxc.errors import OnnxcError, first_line
from onnxc.frontend.state import ModelState, Rewrite


def unsqueeze_channel_slopes(model: onnx.ModelProto) -> bool:
    """PRelu before opset 7 has one slope per channel (X's axis 1: "if slope
    is of size 1, the value is shared across different channels", as Caffe2
    and PyTorch define it); from opset 7 the slope broadcasts from the right,
    numpy-style, and onnx's version converter upgrades the node unchanged, so
    a [C] slope against [N, C, D...] would then meet D. Here such a slope
    (1-D, C elements, X of rank 3 or more) gets an Unsqueeze to [C, 1, ...]
    before the upgrade, which means the same in every opset. onnxruntime has
    no PRelu kernel before opset 7 to compare with."""
    graph = model.graph
    if not any(node.op_type == "PRelu" for node in graph.node):
        return False
    try:
        inferred = onnx.shape_inference.infer_shapes(model).graph
    except Exception as error:  # onnx raises InferenceError, and others
        raise OnnxcError(f"shape inference failed: {first_line(error)}") from None
    typed = [*inferred.input, *inferred.value_info, *inferred.output]
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in typed}
    shapes.update({t.name: list(t.dims) for t in graph.initializer})
    nodes: list[onnx.NodeProto] = []
    for index, node in enumerate(graph.node):
        if node.op_type == "PRelu" and len(node.input) == 2:
            x, slope = shapes.get(node.input[0], []), shapes.get(node.input[1], [])
            if len(x) >= 3 and x[1] > 1 and slope == [x[1]]:
                name = f"{node.name or f'PRelu_{index}'}_channel_slope"
                axes = list(range(1, len(x) - 1))
                nodes.append(
                    onnx.helper.make_node(
                        "Unsqueeze", [node.input[1]], [name], name=name, axes=axes
                    )
                )
                node.input[1] = name
        nodes.append(node)
    changed = len(nodes) > len(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    return changed


def prelu_channel_slopes(state: ModelState) -> bool:
    """Before opset 7 only (the version converter keeps the node as it is)."""
    if state.opset is None or state.opset >= 7:
        return False
    return unsqueeze_channel_slopes(state.model)


PRELU_CHANNEL_SLOPES = Rewrite("prelu-channel-slopes", prelu_channel_slopes)
