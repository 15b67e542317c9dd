"""Integer convolutions that the hosts' float kernels compute exactly.

On the hosts the integer kernel of "rows" (`kernels/qconv_rows.py`) sums
each output as one dot product of byte rows and reduces it across a vector
register at the end: fast over long rows, but a depthwise window or a short
one (a stem's 3 channels, 16 channels of a 3x3) spends more on those
reductions and on requantizing than on its products. The float kernels have
neither cost (their lanes are output channels), and they compute such a
convolution exactly: its terms (x - x_zero_point) * w are integers of at
most 255 * 128, so when 255 * sum(|w|) + |bias| of every output channel is
below 2^24 every partial sum, in any order and with fused multiply-adds, is
an integer float represents exactly. The QLinearConv then becomes

    y = QuantizeLinear(Conv(DequantizeLinear(x, 1, x_zero_point), w, bias)
                       * multiplier[m], 1, y_zero_point)

with w and bias as floats and the multipliers of `quantized.multipliers`: the
Conv gives the int32 sum exactly, the Mul is the integer kernel's one float
multiply, and QuantizeLinear by 1 rounds, offsets and saturates as its
requantization does; the results are equal to the bit.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import StringAttr, TensorType, f32
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import onnx
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.select_kernels.building_blocks import constant_op

ROWS_FROM = 512
"""The shortest weight row (kh * kw * c terms) that the "rows" kernel runs
faster than the float kernels (measured on ResNet-8's and ResNet-18's
layers)."""

EXACT = 1 << 24
"""Integers up to this magnitude are floats exactly."""


def exact_in_float(weights: np.ndarray, bias: np.ndarray) -> bool:
    """Whether every partial sum of a convolution by int8 `weights` [M, ...]
    with int32 `bias` [M] of bytes x - x_zero_point is below 2^24."""
    magnitude = np.abs(weights.astype(np.int64)).reshape(weights.shape[0], -1).sum(axis=1)
    return bool((255 * magnitude + np.abs(bias.astype(np.int64)) < EXACT).all())


def as_float_conv(
    conv: onnx.QLinearConvOp, weights: np.ndarray, bias: np.ndarray, scale: np.ndarray
) -> None:
    """Replace `conv` (int8 weights, int32 bias, multipliers `scale`) by the
    float chain of the module docstring."""
    point = InsertPoint.before(conv)
    label = onnx.node_name(conv) or "qconv"
    x_type, y_type = conv.x.type, conv.y.type
    assert isinstance(x_type, TensorType) and isinstance(y_type, TensorType)
    one = constant_op(np.array(1.0, np.float32), "one", point)
    hint = conv.w.name_hint or "w"

    def add(
        kind: type[onnx.OnnxOp], operands: list[SSAValue], like: TensorType, name: str
    ) -> SSAValue:
        op = kind.create(
            operands=operands,
            result_types=[TensorType(f32, like.get_shape())],
            properties=dict(conv.properties) if kind is onnx.ConvOp else {},
            attributes={ONNX_NODE_NAME: StringAttr(name)},
        )
        Rewriter.insert_op(op, point)
        return op.results[0]

    x = add(onnx.DequantizeLinearOp, [conv.x, one, conv.x_zero_point], x_type, f"{label} input")
    w = constant_op(weights.astype(np.float32), f"{hint}_float", point)
    b = constant_op(bias.astype(np.float32), f"{hint}_bias_float", point)
    total = add(onnx.ConvOp, [x, w, b], y_type, label)
    shape = (1, -1, *[1] * (weights.ndim - 2))
    multipliers = constant_op(scale.reshape(shape), f"{hint}_multipliers", point)
    scaled = add(onnx.MulOp, [total, multipliers], y_type, f"{label} multipliers")
    quantize = onnx.QuantizeLinearOp.create(
        operands=[scaled, one, conv.y_zero_point],
        result_types=[y_type],
        attributes={ONNX_NODE_NAME: StringAttr(f"{label} requantize")},
    )
    Rewriter.insert_op(quantize, point)
    quantize.y.name_hint = conv.y.name_hint
    conv.y.replace_all_uses_with(quantize.y)
    inputs = {o.owner for o in conv.operands}
    Rewriter.erase_op(conv)
    for owner in inputs:
        if isinstance(owner, onnx.ConstantOp | onnx.NoValueOp) and not owner.results[0].uses:
            Rewriter.erase_op(owner)
