"""The same quantized model with its int8 weights stored as uint8, for an
onnxruntime reference that sums integer products exactly on every x86 CPU
(`onnxc run --compare onnxruntime` and the tests).

On x86 CPUs without VNNI (AVX2 only), onnxruntime's uint8 x int8 matrix
kernels add pairs of products in saturating 16-bit arithmetic (`vpmaddubsw`,
as onnxruntime's quantization documentation warns), and it turns int8
activations into uint8 on x86 to use them. Where a pair's sum passes 32767
its result is wrong by many steps, so the reference would differ with the
machine the tests run on. Its uint8 x uint8 kernels widen to 16 bits first
and are exact. Storing each int8 weight w and its zero point z as w + 128
and z + 128 changes no value the model means (w - z is the same), and makes
onnxruntime take those kernels. onnxc compiles the original model.
QOperator nodes change only where the activation is uint8: onnxruntime's
int8 x int8 kernels are exact and it has no int8 x uint8 ones. In QDQ form
it turns int8 activations into uint8 itself, so every int8 weight changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

WEIGHT_OPERANDS = {
    # operator: (weight input, its zero point input, its scale input or None)
    "DequantizeLinear": (0, 2, 1),
    "QLinearConv": (3, 5, 4),
    "QLinearMatMul": (3, 5, 4),
    "QGemm": (3, 5, 4),
    "MatMulInteger": (1, 3, None),
    "ConvInteger": (1, 3, None),
}


def session(model: onnx.ModelProto | Path | str) -> Any:
    """An onnxruntime CPU session of `model` with exact integer products
    (onnxruntime must be installed: it is a test and comparison tool here)."""
    import onnxruntime

    proto = model if isinstance(model, onnx.ModelProto) else onnx.load(str(model))
    if not any(t.data_type == TensorProto.INT8 for t in proto.graph.initializer):
        # nothing to change: a file is opened as it is (it may hold more than 2 GB)
        source = proto.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    else:
        source = exact_integer_products(proto).SerializeToString()
    return onnxruntime.InferenceSession(source, providers=["CPUExecutionProvider"])


def exact_integer_products(model: onnx.ModelProto) -> onnx.ModelProto:
    """A copy of `model` whose int8 weight initializers (and their zero
    points) are uint8 shifted by 128: the same model, exact in onnxruntime."""
    result = onnx.ModelProto()
    result.CopyFrom(model)
    graph = result.graph
    constants = {t.name: t for t in graph.initializer}
    added: dict[str, str] = {}
    zeros: set[str] = set()

    def shifted(name: str) -> str:
        """The name of the uint8 copy of int8 initializer `name`."""
        if name not in added:
            values = numpy_helper.to_array(constants[name]).astype(np.int16) + 128
            added[name] = f"{name}__as_uint8"
            graph.initializer.append(numpy_helper.from_array(values.astype(np.uint8), added[name]))
        return added[name]

    for node in graph.node:
        operands = WEIGHT_OPERANDS.get(node.op_type)
        if operands is None:
            continue
        weight, zero, scale = operands
        tensor = constants.get(node.input[weight]) if len(node.input) > weight else None
        if tensor is None or tensor.data_type != TensorProto.INT8:
            continue
        if node.op_type != "DequantizeLinear" and not _uint8_activation(node, constants):
            continue  # int8 x int8 is exact, and onnxruntime has no int8 x uint8
        if len(node.input) > zero and node.input[zero]:
            if node.input[zero] not in constants:
                continue  # a zero point computed at run time: leave the node alone
            node.input[zero] = shifted(node.input[zero])
        else:
            if scale is not None and node.input[scale] not in constants:
                continue  # a scale computed at run time: its shape is not known here
            shape = () if scale is None else tuple(constants[node.input[scale]].dims)
            name = f"{node.input[weight]}__zero_as_uint8_{len(shape)}"
            if name not in zeros:  # one per weight and rank, however many nodes read it
                zeros.add(name)
                zero_point = np.full(shape, 128, np.uint8)
                graph.initializer.append(numpy_helper.from_array(zero_point, name))
            while len(node.input) <= zero:
                node.input.append("")
            node.input[zero] = name
        node.input[weight] = shifted(node.input[weight])
    return result


def _uint8_activation(node: onnx.NodeProto, constants: dict[str, onnx.TensorProto]) -> bool:
    """Whether the activation operand's zero point (input 2 of every QOperator
    node above) is a uint8 constant."""
    zero = constants.get(node.input[2]) if len(node.input) > 2 else None
    return zero is not None and zero.data_type == TensorProto.UINT8
