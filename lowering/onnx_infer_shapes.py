"""`onnx-infer-shapes`: refine the types of an onnx-level function with onnx's
shape inference, so that every dimension that can be static is.

The importer infers types once, before any folding; a size computed from
values that onnx-fold-constants later turns into constants (an Expand shape
made of Shape and Gather ops, say) stays unknown there. This pass exports the
function as an ONNX graph, with each value's current type (symbols as
dim_params) and small constants' data, runs `onnx.shape_inference` with data
propagation, and takes every dimension it now knows as a size. Symbols are
kept where it knows no more: a type only ever gets more static.

Preconditions: `onnx.*` operations on tensors. Postconditions: the same
operations; result and function types refined (never contradicted: a
refinement that disagrees with a static size is ignored).
"""

from __future__ import annotations

from dataclasses import dataclass

import onnx
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType
from xdsl.ir import Attribute, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from onnxc import element_types
from onnxc.dialects import dims as tensor_dims
from onnxc.dialects.dims import Dim, dims_of
from onnxc.lowering.onnx_export import graph_model


def _refined(current: TensorType[Attribute], inferred: onnx.TypeProto) -> TensorType[Attribute]:
    """`current` with each dynamic dimension that `inferred` gives a size."""
    if not inferred.HasField("tensor_type"):
        return current
    proto = inferred.tensor_type
    row = element_types.of_ir(current.get_element_type())
    if row is None or proto.elem_type != row.onnx_code or not proto.HasField("shape"):
        return current
    old = dims_of(current)
    if len(proto.shape.dim) != len(old):
        return current
    new: list[Dim] = []
    for dim, proto_dim in zip(old, proto.shape.dim, strict=True):
        if isinstance(dim, str) and proto_dim.HasField("dim_value"):
            new.append(proto_dim.dim_value)
        else:
            new.append(dim)
    return current if new == old else tensor_dims.tensor_type(current.get_element_type(), new)


def update_signature(function: func.FuncOp) -> None:
    """Make the function type agree with its arguments and returned values."""
    returned = function.body.block.last_op
    outputs = [v.type for v in returned.operands] if isinstance(returned, func.ReturnOp) else []
    inputs = [a.type for a in function.body.block.args]
    function.function_type = FunctionType.from_lists(inputs, outputs)


def infer_function(function: func.FuncOp) -> bool:
    """Refine `function`'s result types; whether any type changed."""
    model, names = graph_model(function)
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception:  # onnx raises many kinds; no refinement then
        return False
    found = {v.name: v.type for v in [*inferred.graph.value_info, *inferred.graph.output]}
    changed = False
    values: list[SSAValue] = [
        result for op in function.body.block.ops for result in op.results if result in names
    ]
    for value in values:
        current = value.type
        proto = found.get(names[value])
        if not isinstance(current, TensorType) or proto is None:
            continue
        refined = _refined(current, proto)
        if refined != current:
            Rewriter.replace_value_with_new_type(value, refined)
            changed = True
    if changed:
        update_signature(function)
    return changed


def has_dynamic_types(function: func.FuncOp) -> bool:
    for op in function.body.walk():
        for result in op.results:
            t = result.type
            if isinstance(t, TensorType) and any(d < 0 for d in t.get_shape()):
                return True
    return False


@dataclass(frozen=True)
class OnnxInferShapesPass(ModulePass):
    """Refine onnx-level types with onnx shape inference; see the module
    docstring."""

    name = "onnx-infer-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.walk():
            if isinstance(function, func.FuncOp) and has_dynamic_types(function):
                infer_function(function)
