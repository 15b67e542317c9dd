"""`infer-shapes`: onnx shape inference with data propagation, typing the
outputs of the operators whose inference onnx 1.23 gets wrong.

Exporters declare shapes that contradict what their graphs compute (an OCR
model's rank-2 output that is rank 3, an intermediate's stale batch size),
which onnx's strict inference refuses. onnxruntime warns and runs such
models, and so does onnxc: a declared shape of an intermediate value or a
graph output that contradicts inference is dropped from the model with a
one-line `OnnxcWarning`, once (later inferences start from the model
without it). Declarations that only add to inference stay; the graph
inputs' stay authoritative (they are the interface), and so do the
outputs' element types, which onnxruntime refuses to override too.
"""

from __future__ import annotations

import warnings

import onnx

from onnxc.element_types import onnx_type_name
from onnxc.errors import OnnxcError, OnnxcWarning, first_line
from onnxc.frontend.state import ModelState, Rewrite

SAME_TYPE_AS_INPUT = frozenset({"GroupNormalization", "MeanVarianceNormalization"})
"""Operators whose output has their input's type, and whose shape inference
onnx 1.23 gets wrong through their function bodies (MeanVarianceNormalization's
has a Constant without a value, which fails; GroupNormalization's gives no
shape). Their outputs are typed from the spec instead."""


def infer(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model` inferred; when inference fails on declarations that contradict
    it, those are dropped from `model` (in place) and inference runs again."""
    try:
        return _infer(model)
    except OnnxcError:
        if not _drop_contradictions(model):
            raise
    return _infer(model)


def _infer(model: onnx.ModelProto) -> onnx.ModelProto:
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


def _drop_contradictions(model: onnx.ModelProto) -> bool:
    """Drop, with a warning each, the value_info entries and graph outputs'
    shapes of `model` that contradict what inference gives without any of
    them. Says whether one was dropped. An output's contradicting element
    type is an error: the model computes another type than it promises."""
    bare = onnx.ModelProto()
    bare.CopyFrom(model)
    del bare.graph.value_info[:]
    for output in bare.graph.output:
        output.type.Clear()
    try:
        inferred = onnx.shape_inference.infer_shapes(bare, strict_mode=False, data_prop=True)
    except Exception:  # noqa: BLE001 - the caller reports the strict inference's error
        return False
    found = {v.name: v.type for v in [*inferred.graph.value_info, *inferred.graph.output]}
    graph = model.graph
    dropped = False
    for value in list(graph.value_info):
        clash = _clash(value.type, found.get(value.name))
        if clash is not None:
            warnings.warn(
                _dropped("value", value.name, value.type, clash), OnnxcWarning, stacklevel=2
            )
            graph.value_info.remove(value)
            dropped = True
    for output in graph.output:
        clash = _clash(output.type, found.get(output.name))
        if clash is None:
            continue
        declared, computed = output.type.tensor_type.elem_type, clash.tensor_type.elem_type
        if declared and computed and declared != computed:
            raise OnnxcError(
                f"output '{output.name}' is declared {onnx_type_name(declared)}, "
                f"but the graph computes {onnx_type_name(computed)}"
            )
        warnings.warn(
            _dropped("output", output.name, output.type, clash), OnnxcWarning, stacklevel=2
        )
        output.type.tensor_type.ClearField("shape")
        dropped = True
    return dropped


def _clash(declared: onnx.TypeProto, inferred: onnx.TypeProto | None) -> onnx.TypeProto | None:
    """`inferred`, when the tensor type `declared` contradicts it (another
    element type, rank, or size of a dimension both know); else None."""
    if (
        inferred is None
        or declared.WhichOneof("value") != "tensor_type"
        or inferred.WhichOneof("value") != "tensor_type"
    ):
        return None
    ours, theirs = declared.tensor_type, inferred.tensor_type
    if any(d.HasField("dim_value") and d.dim_value < 0 for d in theirs.shape.dim):
        return None  # inference of an invalid model (a negative scale): its error stands
    if ours.elem_type and theirs.elem_type and ours.elem_type != theirs.elem_type:
        return inferred
    if not (ours.HasField("shape") and theirs.HasField("shape")):
        return None
    if len(ours.shape.dim) != len(theirs.shape.dim):
        return inferred
    for a, b in zip(ours.shape.dim, theirs.shape.dim, strict=True):
        if a.HasField("dim_value") and b.HasField("dim_value") and a.dim_value != b.dim_value:
            return inferred
    return None


def _dropped(kind: str, name: str, declared: onnx.TypeProto, inferred: onnx.TypeProto) -> str:
    return (
        f"{kind} '{name}' is declared {_type_text(declared)}, but shape inference gives "
        f"{_type_text(inferred)}: the declaration is dropped"
    )


INFERENCE_SYMBOL = "unk__"
"""How the dim_params onnx's inference makes up for unknown sizes begin."""


def _type_text(type_proto: onnx.TypeProto) -> str:
    """A tensor type as a warning shows it: `FLOAT[1,?,N]`."""
    tensor_type = type_proto.tensor_type
    text = onnx_type_name(tensor_type.elem_type)
    if not tensor_type.HasField("shape"):
        return text
    return f"{text}[{','.join(map(_dim_text, tensor_type.shape.dim))}]"


def _dim_text(dim: onnx.TensorShapeProto.Dimension) -> str:
    """A size, a dim_param, or `?` (for a name inference made up: it means
    nothing to the user)."""
    if dim.HasField("dim_value"):
        return str(dim.dim_value)
    if not dim.dim_param or dim.dim_param.startswith(INFERENCE_SYMBOL):
        return "?"
    return dim.dim_param


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
