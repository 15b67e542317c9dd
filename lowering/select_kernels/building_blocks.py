"""The onnx-level building blocks of `select-kernels`: the channel block of
a tensor and its blocked type, constants and reshapes made next to an op,
and the geometry check of a 2-D window."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float32Type,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc import element_types
from onnxc.dialects import onnx
from onnxc.dialects.constants import constant_attr, elements_to_numpy
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.targets import Kernels

Made = dict[tuple[object, ...], SSAValue]
"""What the pass made once per value: packed weights, padded biases, blocked
inputs (keyed by kind and source value)."""


def block_size(channels: int, kernels: Kernels) -> int:
    """The channel block of a tensor of `channels` channels: all of them when
    they fit one block of `kernels.lanes`; else, for vector lanes, the largest
    multiple of 4 up to the lanes dividing them (no padding lanes), else the
    lanes; for unrolled (scalar) lanes, which need no vector width, the
    largest divisor up to the lanes (never padding)."""
    lanes = kernels.lanes
    if channels <= lanes:
        return channels
    step = 1 if kernels.unrolled else 4
    for size in range(lanes, step - 1, -step):
        if channels % size == 0:
            return size
    return lanes


def vector_width(lanes: int, target_lanes: int) -> int:
    """The accumulator lanes of a dense kernel whose output block is `lanes`:
    rounded up to a multiple of 8 (a whole 256-bit vector of floats) on
    targets with blocks of 8 lanes or more, when the block is not one
    already; lanes past the block cost no memory but the weights' padding."""
    if target_lanes < 8 or lanes <= 4 or lanes % 8 == 0:
        return lanes
    return -(-lanes // 8) * 8


def blocked_type(nchw: TensorType, kernels: Kernels) -> TensorType:
    n, c, h, w = nchw.get_shape()
    b = block_size(c, kernels)
    return TensorType(nchw.get_element_type(), [n, -(-c // b), h, w, b])


def static_float(value: SSAValue) -> TensorType | None:
    value_type = value.type
    if not isinstance(value_type, TensorType) or not isinstance(
        value_type.get_element_type(), Float32Type
    ):
        return None
    return value_type if all(s >= 0 for s in value_type.get_shape()) else None


def constant_of(value: SSAValue) -> np.ndarray | None:
    owner = value.owner
    if isinstance(owner, onnx.ConstantOp):
        attr = owner.properties.get("value")
        return None if attr is None else elements_to_numpy(attr)
    return None


def constant_op(array: np.ndarray, hint: str, point: InsertPoint) -> SSAValue:
    """An `onnx.Constant` of `array`, of its element type."""
    row = element_types.of_numpy(array.dtype)
    assert row is not None, f"no element type holds {array.dtype}"
    result_type = TensorType(row.ir_type, array.shape)
    constant = onnx.ConstantOp.create(
        result_types=[result_type],
        properties={"value": constant_attr(array, result_type, hint)},
        attributes={ONNX_NODE_NAME: StringAttr(hint)},
    )
    Rewriter.insert_op(constant, point)
    constant.results[0].name_hint = hint
    return constant.results[0]


def no_value(point: InsertPoint) -> SSAValue:
    absent = onnx.NoValueOp()
    Rewriter.insert_op(absent, point)
    return absent.result


def ints(values: list[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def reshaped(value: SSAValue, shape: list[int], point: InsertPoint) -> SSAValue:
    """`value` as `shape` (same elements, row-major): an onnx.Reshape."""
    target = constant_op(np.array(shape, np.int64), "shape", point)
    value_type = value.type
    element = value_type.get_element_type() if isinstance(value_type, TensorType) else f32
    reshape = onnx.ReshapeOp.create(
        operands=[value, target], result_types=[TensorType(element, shape)]
    )
    Rewriter.insert_op(reshape, point)
    return reshape.reshaped


def window_fits(
    x_type: TensorType,
    y_type: TensorType,
    kernel_shape: list[int],
    strides: list[int],
    dilations: list[int],
    pads: list[int],
) -> bool:
    """Whether the output's spatial size is the window's (floor mode) and the
    window's numbers are sane."""
    if len(strides) != 2 or len(dilations) != 2 or len(pads) != 4:
        return False
    if min(pads) < 0 or min(strides) < 1 or min(dilations) < 1 or min(kernel_shape) < 1:
        return False
    size = x_type.get_shape()[2:]
    expected = [
        (size[i] + pads[i] + pads[i + 2] - dilations[i] * (kernel_shape[i] - 1) - 1) // strides[i]
        + 1
        for i in range(2)
    ]
    return list(y_type.get_shape()[2:]) == expected and min(expected) > 0
