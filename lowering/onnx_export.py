"""The onnx dialect back to protobuf, for the tools onnx already has: one node
for its reference evaluator (constant folding), a whole function as a graph
for its shape inference (refining types after folding)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from xdsl.dialects import func
from xdsl.dialects.builtin import NoneType, TensorType
from xdsl.ir import Attribute, SSAValue

from onnxc import element_types
from onnxc.dialects import onnx as onnx_dialect
from onnxc.dialects import onnx_ml
from onnxc.dialects.constants import elements_to_numpy
from onnxc.dialects.dims import dims_of
from onnxc.folding import SMALL_CONSTANT


def _attribute_proto(op: onnx_dialect.OnnxOp, name: str) -> onnx.AttributeProto:
    schema_attribute = op.SCHEMA.attributes[name]
    value: Any = op.attr(name)
    if isinstance(value, np.ndarray):
        value = numpy_helper.from_array(value)
    attr_type = schema_attribute.type
    # OpSchema.AttrType is an IntEnum (AttributeProto's numbering); its stub omits the int base.
    assert isinstance(attr_type, int)
    return helper.make_attribute(name, value, attr_type=int(attr_type))


def node_proto(
    op: onnx_dialect.OnnxOp,
    inputs: Sequence[str] | None = None,
    outputs: Sequence[str] | None = None,
) -> onnx.NodeProto:
    """A NodeProto for `op` with the attributes it sets; its inputs and outputs
    are named `inputs` and `outputs`, by default `in0`, `in1`, ... and `out0`,
    ... (empty names for `none` values)."""
    if inputs is None:
        inputs = [
            "" if isinstance(v.type, NoneType) else f"in{i}" for i, v in enumerate(op.operands)
        ]
    if outputs is None:
        outputs = [
            "" if isinstance(r.type, NoneType) else f"out{i}" for i, r in enumerate(op.results)
        ]
    attributes = [
        _attribute_proto(op, name) for name in sorted(op.SCHEMA.attributes) if name in op.properties
    ]
    node = helper.make_node(op.SCHEMA.name, list(inputs), list(outputs), domain=op.SCHEMA.domain)
    node.attribute.extend(attributes)
    return node


def evaluate(op: onnx_dialect.OnnxOp, inputs: list[np.ndarray | None]) -> list[Any]:
    """Run `op` on numpy inputs (None for `none`) with onnx's reference
    implementation; one entry per result, None for `none` results."""
    node = node_proto(op)
    feeds = {
        name: array
        for name, array in zip(node.input, inputs, strict=True)
        if name and array is not None
    }
    names = [name for name in node.output if name]
    with np.errstate(all="ignore"):  # IEEE results (log(0) = -inf) are the answer, not news
        values = ReferenceEvaluator(node).run(names, feeds)
    by_name = dict(zip(names, values, strict=True))
    return [by_name.get(name) if name else None for name in node.output]


def value_info(name: str, value_type: Attribute) -> onnx.ValueInfoProto | None:
    """The ValueInfoProto of a tensor value (symbols as dim_params), or None
    for values that are not tensors of the element-type table."""
    if not isinstance(value_type, TensorType):
        return None
    row = element_types.of_ir(value_type.get_element_type())
    if row is None:
        return None
    return helper.make_tensor_value_info(name, row.onnx_code, dims_of(value_type))


def graph_model(function: func.FuncOp) -> tuple[onnx.ModelProto, dict[SSAValue, str]]:
    """The function as an ONNX model (inputs, small constants as initializers,
    large ones as inputs of their type, nodes, every result's type as
    value_info), and the name each value got."""
    names: dict[SSAValue, str] = {}
    inputs: list[onnx.ValueInfoProto] = []
    initializers: list[onnx.TensorProto] = []
    infos: list[onnx.ValueInfoProto] = []
    nodes: list[onnx.NodeProto] = []

    def name_of(value: SSAValue) -> str:
        if isinstance(value.type, NoneType):
            return ""
        return names.setdefault(value, f"v{len(names)}")

    for arg in function.body.block.args:
        info = value_info(name_of(arg), arg.type)
        if info is not None:
            inputs.append(info)
    for op in function.body.block.ops:
        if isinstance(op, onnx_dialect.ConstantOp) and "value" in op.properties:
            result = op.results[0]
            tensor = op.properties["value"]
            info = value_info(name_of(result), result.type)
            if info is None:
                continue
            array = elements_to_numpy(tensor)
            if array.size <= SMALL_CONSTANT:
                initializers.append(numpy_helper.from_array(array, name_of(result)))
            else:
                inputs.append(info)
            continue
        if not isinstance(op, onnx_dialect.OnnxOp):
            continue
        node_inputs = [name_of(v) for v in op.operands]
        node_outputs = [name_of(r) for r in op.results]
        nodes.append(node_proto(op, node_inputs, node_outputs))
        for result, name in zip(op.results, node_outputs, strict=True):
            info = value_info(name, result.type) if name else None
            if info is not None:
                infos.append(info)
    returned = function.body.block.last_op
    outputs: list[onnx.ValueInfoProto] = []
    if isinstance(returned, func.ReturnOp):
        for value in returned.operands:
            info = value_info(name_of(value), value.type)
            if info is not None:
                outputs.append(info)
    graph = helper.make_graph(nodes, "main", inputs, outputs, initializers, value_info=infos)
    opsets = [
        helper.make_opsetid("", onnx_dialect.TARGET_OPSET),
        helper.make_opsetid(onnx_ml.DOMAIN, onnx_ml.TARGET_OPSET),
    ]
    model = helper.make_model(graph, opset_imports=opsets)
    return model, names
