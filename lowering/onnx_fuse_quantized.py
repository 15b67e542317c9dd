"""`onnx-fuse-quantized`: DequantizeLinear -> Conv ->
QuantizeLinear chains, the QDQ form of a quantized convolution, as the one
QLinearConv they stand for, so that the convolution runs on integers
(`kernel.qconv`, see `select_kernels/quantized.py`) and its activations stay
int8 in the arena and its weights int8 in the C.

Precondition: onnx-level IR as imported, before `onnx-fold-constants` (which
would fold the weights' DequantizeLinear into float). Postcondition: every
chain `QuantizeLinear(Conv(DequantizeLinear(x), DequantizeLinear(w),
DequantizeLinear(b)?))` whose Conv result has no other use, where x and the
QuantizeLinear's result are int8 or uint8 with one scale and zero point
each, w a constant int8 tensor with zero points 0 (per tensor or per output
channel), b absent or a constant int32 tensor with zero point 0 and scale
`x_scale * w_scale` (in float, as onnxruntime's quantizer writes it), and
whose geometry the integer kernels take (`quantized.fits`), is a
QLinearConv of the same inputs, on every target. A Gemm in such a chain
(a fully connected layer: no transposed A, alpha and beta 1, int8 B per
tensor or per output channel) is the 1x1 convolution of a 1x1 image it
stands for, between two Reshapes.

Then every `QuantizeLinear(Add(DequantizeLinear(a), DequantizeLinear(b)))`
whose Add result has no other use, with a, b and the result int8 or uint8 of
one shape and every scale and zero point one constant element, is a
`kernel.qadd`: the same arithmetic, element by element, with no float tensor
in the arena (a residual connection's). And every
`QuantizeLinear(AveragePool(DequantizeLinear(x)))` whose AveragePool result
has no other use, x and the result int8 or uint8 and every scale and zero
point one constant element, is a `kernel.qaverage_pool`: the taps
dequantized as the window sums them, so the arena holds no float copy of x
(DS-CNN's pooling of its last 64 x 25 x 5 activations: 32,000 bytes).

This is onnxruntime's own rewrite of such chains (its QDQ selectors): it
runs them as QLinearConv, so the fused chain gives its results to the bit,
where the float chain differs from them when a value lands within rounding
error of a half step. (On x86 it takes int8 activations only from
QuantizeLinear -> DequantizeLinear pairs that nothing else reads, and runs
the other convolutions in float, in an order of its own: there the results
may differ by one step at such near-ties, as any float order may. onnxc
computes every quantized convolution exactly, the same on every target.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import kernel, onnx
from onnxc.dialects.constants import numpy_dtype
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.select_kernels import quantized
from onnxc.lowering.select_kernels.building_blocks import constant_of, constant_op, ints, reshaped


@dataclass(frozen=True)
class OnnxFuseQuantizedPass(ModulePass):
    name = "onnx-fuse-quantized"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                block = function.body.block
                for quantize in [o for o in block.ops if isinstance(o, onnx.QuantizeLinearOp)]:
                    _fuse(quantize)
                for quantize in [o for o in block.ops if isinstance(o, onnx.QuantizeLinearOp)]:
                    _fuse_add(quantize)
                for quantize in [o for o in block.ops if isinstance(o, onnx.QuantizeLinearOp)]:
                    _fuse_average_pool(quantize)


def _dequantized(value: SSAValue) -> onnx.DequantizeLinearOp | None:
    owner = value.owner
    return owner if isinstance(owner, onnx.DequantizeLinearOp) else None


def _float_scale(value: SSAValue) -> np.ndarray | None:
    """A constant float32 scale, else None (QLinearConv's scales are float)."""
    array = constant_of(value)
    return None if array is None or array.dtype != np.float32 else array


def _point(value: SSAValue, like: SSAValue, point: InsertPoint) -> SSAValue | None:
    """A zero point operand: `value`, or 0 of `like`'s element type when it
    is absent; None when it is not one constant element."""
    if isinstance(value.owner, onnx.NoValueOp):
        like_type = like.type
        assert isinstance(like_type, TensorType)
        zero = np.zeros((), numpy_dtype(like_type.get_element_type()))
        return constant_op(zero, "zero_point", point)
    return value if quantized.one_constant(value) is not None else None


def _plain_gemm(gemm: onnx.GemmOp) -> bool:
    """Whether `gemm` is A B^T (+ C) or A B (+ C): no transposed A, no scaling."""
    alpha, beta = gemm.attr("alpha"), gemm.attr("beta")
    return not gemm.attr("transA") and alpha in (None, 1.0) and beta in (None, 1.0)


def _fuse(quantize: onnx.QuantizeLinearOp) -> None:
    product = quantize.x.owner
    if isinstance(product, onnx.ConvOp):
        x_value, w_value, b_value, out_axis = product.X, product.W, product.B, 0
    elif isinstance(product, onnx.GemmOp) and _plain_gemm(product):
        # a fully connected layer is a 1x1 convolution of a 1x1 image
        x_value, w_value, b_value = product.A, product.B, product.C
        out_axis = 0 if product.attr("transB") else 1
    else:
        return
    if len(list(product.results[0].uses)) != 1:
        return
    y_scale = _float_scale(quantize.y_scale)
    if (quantize.attr("block_size") or 0) != 0 or y_scale is None or y_scale.size != 1:
        return
    x, w = _dequantized(x_value), _dequantized(w_value)
    if x is None or w is None:
        return
    x_scale = _float_scale(x.x_scale)
    if x_scale is None or x_scale.size != 1:
        return
    weights = constant_of(w.x)
    w_scale = _float_scale(w.x_scale)
    if weights is None or weights.dtype != np.int8 or w_scale is None or weights.ndim < 2:
        return
    channels = weights.shape[out_axis]
    if (w.attr("block_size") or 0) != 0 or w_scale.size not in (1, channels):
        return
    if w_scale.size > 1 and w.attr("axis") not in (out_axis, out_axis - weights.ndim):
        return
    if not isinstance(w.x_zero_point.owner, onnx.NoValueOp):
        w_point = constant_of(w.x_zero_point)
        if w_point is None or w_point.any():
            return
    if isinstance(product, onnx.ConvOp):
        if not quantized.fits(product, x.x.type, quantize.y.type, weights.shape):
            return
    elif not _fits_gemm(x.x.type, quantize.y.type, weights, out_axis):
        return
    bias = _bias(b_value, x_scale, w_scale)
    if bias is None:
        return
    point = InsertPoint.before(quantize)
    x_point = _point(x.x_zero_point, x.x, point)
    y_point = _point(quantize.y_zero_point, quantize.y, point)
    if x_point is None or y_point is None:
        return
    w_point_value = constant_op(np.zeros(w_scale.shape, np.int8), "w_zero_point", point)
    x_in, w_in, y_type = x.x, w.x, quantize.y.type
    flat: list[int] | None = None  # a Gemm's [N, M], viewed back from [N, M, 1, 1]
    properties = dict(product.properties)
    if isinstance(product, onnx.GemmOp):
        rows = weights if out_axis == 0 else weights.T
        w_in = constant_op(np.ascontiguousarray(rows)[:, :, None, None], "fc_weights", point)
        x_type = x.x.type
        assert isinstance(x_type, TensorType) and isinstance(y_type, TensorType)
        x_in = reshaped(x.x, [*x_type.get_shape(), 1, 1], point)
        flat = list(y_type.get_shape())
        y_type = TensorType(y_type.get_element_type(), [*flat, 1, 1])
        properties = {"kernel_shape": ints([1, 1])}
    fused = onnx.QLinearConvOp.create(
        operands=[
            x_in,
            x.x_scale,
            x_point,
            w_in,
            w.x_scale,
            w_point_value,
            quantize.y_scale,
            y_point,
            bias,
        ],
        result_types=[y_type],
        properties=properties,
        attributes={ONNX_NODE_NAME: StringAttr(onnx.node_name(product) or "conv")},
    )
    Rewriter.insert_op(fused, point)
    result = fused.y
    if flat is not None:
        result = reshaped(fused.y, flat, point)
    result.name_hint = quantize.y.name_hint
    quantize.y.replace_all_uses_with(result)
    dead: list[Operation] = [quantize, product]
    dead += [d for d in (x, w, _dequantized(b_value)) if d is not None]
    for op in dead:
        if all(not r.uses for r in op.results):
            Rewriter.erase_op(op)


def _fits_gemm(x_type: Attribute, y_type: Attribute, weights: np.ndarray, out_axis: int) -> bool:
    """Whether a Gemm from x into y by 2-D `weights` (outputs along
    `out_axis`) is a 1x1 convolution the integer kernels take: x and y 2-D
    int8 or uint8 of static shapes."""
    x, y = quantized.static_int8(x_type), quantized.static_int8(y_type)
    if x is None or y is None or weights.ndim != 2 or len(x.get_shape()) != 2:
        return False
    (n, k), y_shape = x.get_shape(), y.get_shape()
    return y_shape == (n, weights.shape[out_axis]) and k == weights.shape[1 - out_axis]


def _bias(value: SSAValue, x_scale: np.ndarray, w_scale: np.ndarray) -> SSAValue | None:
    """The int32 bias operand of the QLinearConv (an absent bias as is), or
    None when the bias `value` is not the DequantizeLinear of an int32
    constant at scale x_scale * w_scale with zero point 0."""
    if isinstance(value.owner, onnx.NoValueOp):
        return value
    dequantized = _dequantized(value)
    if dequantized is None:
        return None
    values, scale = constant_of(dequantized.x), _float_scale(dequantized.x_scale)
    if values is None or values.dtype != np.int32 or scale is None:
        return None
    if not isinstance(dequantized.x_zero_point.owner, onnx.NoValueOp):
        zero = constant_of(dequantized.x_zero_point)
        if zero is None or zero.any():
            return None
    expected = np.float32(x_scale.reshape(())) * w_scale.astype(np.float32).reshape(-1)
    if scale.size not in (1, expected.size) or not np.array_equal(
        np.broadcast_to(scale.astype(np.float32).reshape(-1), expected.shape), expected
    ):
        return None
    return dequantized.x


def _fuse_add(quantize: onnx.QuantizeLinearOp) -> None:
    add = quantize.x.owner
    if not isinstance(add, onnx.AddOp) or len(list(add.C.uses)) != 1:
        return
    a, b = _dequantized(add.A), _dequantized(add.B)
    if a is None or b is None or (quantize.attr("block_size") or 0) != 0:
        return
    shapes = {
        str(v.type.get_shape()) for v in (a.x, b.x, quantize.y) if isinstance(v.type, TensorType)
    }
    if len(shapes) != 1 or any(
        quantized.static_int8(v.type) is None for v in (a.x, b.x, quantize.y)
    ):
        return
    if any(
        _float_scale(s) is None or quantized.one_constant(s) is None
        for s in (a.x_scale, b.x_scale, quantize.y_scale)
    ):
        return
    point = InsertPoint.before(quantize)
    points = [
        _point(a.x_zero_point, a.x, point),
        _point(b.x_zero_point, b.x, point),
        _point(quantize.y_zero_point, quantize.y, point),
    ]
    if any(p is None for p in points):
        return
    a_point, b_point, y_point = points
    assert a_point is not None and b_point is not None and y_point is not None
    fused = kernel.QaddOp.create(
        operands=[a.x, a.x_scale, a_point, b.x, b.x_scale, b_point, quantize.y_scale, y_point],
        result_types=[quantize.y.type],
        attributes={ONNX_NODE_NAME: StringAttr(onnx.node_name(add) or "add")},
    )
    Rewriter.insert_op(fused, point)
    fused.Y.name_hint = quantize.y.name_hint
    quantize.y.replace_all_uses_with(fused.Y)
    for op in (quantize, add, a, b):
        if all(not r.uses for r in op.results):
            Rewriter.erase_op(op)


def _fuse_average_pool(quantize: onnx.QuantizeLinearOp) -> None:
    pool = quantize.x.owner
    if not isinstance(pool, onnx.AveragePoolOp) or len(list(pool.Y.uses)) != 1:
        return
    dequantize = _dequantized(pool.X)
    if dequantize is None or (quantize.attr("block_size") or 0) != 0:
        return
    if dequantize.attr("block_size") or any(
        quantized.static_int8(v.type) is None for v in (dequantize.x, quantize.y)
    ):
        return
    point = InsertPoint.before(quantize)
    scales = [_float_scale(s) for s in (dequantize.x_scale, quantize.y_scale)]
    points = [
        _point(dequantize.x_zero_point, dequantize.x, point),
        _point(quantize.y_zero_point, quantize.y, point),
    ]
    numbers = [quantized.one_constant(p) for p in points if p is not None]
    if any(s is None or s.size != 1 for s in scales) or len(numbers) != 2:
        return
    x_scale, y_scale = (float(s.reshape(())) for s in scales if s is not None)
    x_point, y_point = (int(n) for n in numbers if n is not None)
    fused = kernel.QaveragePoolOp.create(
        operands=[dequantize.x],
        result_types=[quantize.y.type],
        properties={
            **pool.properties,
            "x_scale": FloatAttr(x_scale, f32),
            "x_zero_point": IntegerAttr(x_point, i64),
            "y_scale": FloatAttr(y_scale, f32),
            "y_zero_point": IntegerAttr(y_point, i64),
        },
        attributes={ONNX_NODE_NAME: StringAttr(onnx.node_name(pool) or "average_pool")},
    )
    Rewriter.insert_op(fused, point)
    fused.Y.name_hint = quantize.y.name_hint
    quantize.y.replace_all_uses_with(fused.Y)
    for op in (quantize, pool, dequantize, *(p.owner for p in points if p is not None)):
        if isinstance(op, Operation) and all(not r.uses for r in op.results):
            Rewriter.erase_op(op)
