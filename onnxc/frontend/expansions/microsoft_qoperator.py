"""com.microsoft QOperator operators as DequantizeLinear, the float
default-domain operator, and QuantizeLinear with the node's output scale and
zero point: the definition onnxruntime's contrib operator documentation
gives each of them. These are the operators onnxruntime's quantizer writes
with `QuantFormat.QOperator` beside the default-domain QLinearConv and
QLinearMatMul (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
QLinearGlobalAveragePool, QLinearAveragePool, QLinearConcat,
QLinearSoftmax, QLinearWhere, QGemm), and QLinearReduceMean.

They compute in float32 between the two conversions; a QGemm weight that is
an initializer is dequantized by constant folding, so the C holds it as
floats.

An absent optional zero point of an input is 0 of the input's type (the
default DequantizeLinear reads it so); of the output, it is 0 of the data
input's type (CastLike), since QuantizeLinear without one would give uint8.
Scales and zero points may be computed: nothing here reads their values.

onnxruntime's CPU kernels compute some of these another way, so a value
within rounding error of a half step of the output scale can land one step
from this definition: QLinearAdd, QLinearMul and QLinearAveragePool round
y / y_scale + y_zero_point, so an exact tie rounds to even after the zero
point is added (one step away when it is odd; MLAS also groups Add's and
Mul's float arithmetic its own way); QLinearSigmoid builds its table with
MLAS's approximate logistic; QLinearGlobalAveragePool multiplies an integer
sum by x_scale / (y_scale * size); QLinearSoftmax uses a float table of
exponentials and floor(1 / y_scale) for 1 / y_scale (exact for the 1/256
the quantizer writes, not for other scales); QGemm multiplies the
exact integer product by alpha * a_scale * b_scale / y_scale.
QLinearLeakyRelu, QLinearConcat and QLinearWhere requantize through the
same float steps as this definition. `tests/e2e/test_contrib_qoperator.py`
shows each.

Refused with a one-line error: a required input that is absent, more inputs
than the operator takes, QLinearConcat's inputs not in (data, scale, zero
point) triples, QLinearSoftmax without its `opset`, and QGemm's y_zero_point
without y_scale.
"""

from __future__ import annotations

from onnx import TensorProto

from onnxc.frontend.expansions.expander import Expander, Expansion, Expansions


def _arity(x: Expander, most: int) -> None:
    """Refuse a node with more than `most` inputs (a missing required one
    is refused by `needed`)."""
    count = len(x.node.input)
    if count > most:
        raise x.refuse(f"it has {count} inputs, {x.node.op_type} takes at most {most}")


def _dequantized(x: Expander, data: int, what: str, axis: int | None = None) -> str:
    """DequantizeLinear of input `data` (`what`) with the scale and zero
    point that follow it (inputs data + 1 and data + 2)."""
    return x.op(
        "DequantizeLinear",
        x.needed(data, what),
        x.needed(data + 1, f"{what} scale"),
        x.input(data + 2),
        axis=axis,
    )


def _quantized(x: Expander, value: str, scale: int, like: str) -> None:
    """QuantizeLinear of `value` to the node's output with the scale and
    zero point of inputs `scale` and `scale + 1`; without a zero point, 0
    of `like`'s type."""
    zero = x.input(scale + 1) or x.like(0.0, like, "zero_point")
    x.add("QuantizeLinear", [value, x.needed(scale, "output scale"), zero], [x.node.output[0]])


def _binary(op_type: str) -> Expansion:
    """QLinearAdd and QLinearMul: A, A_scale, A_zero_point, B, B_scale,
    B_zero_point, C_scale, C_zero_point (broadcasting as Add and Mul)."""

    def expansion(x: Expander) -> None:
        _arity(x, 8)
        value = x.op(op_type, _dequantized(x, 0, "A"), _dequantized(x, 3, "B"))
        _quantized(x, value, 6, x.needed(0, "A"))

    return expansion


def _unary(x: Expander, op_type: str, **attributes: object) -> None:
    """An operator of one quantized input: X, X_scale, X_zero_point,
    Y_scale, Y_zero_point."""
    _arity(x, 5)
    value = x.op(op_type, _dequantized(x, 0, "X"), **attributes)
    _quantized(x, value, 3, x.needed(0, "X"))


def _leaky_relu(x: Expander) -> None:
    """QLinearLeakyRelu: LeakyRelu with `alpha` (0.01 by default)."""
    _unary(x, "LeakyRelu", alpha=x.float_attribute("alpha", 0.01))


def _sigmoid(x: Expander) -> None:
    """QLinearSigmoid: Sigmoid."""
    _unary(x, "Sigmoid")


def _channels_first(x: Expander, value: str) -> str:
    """`value` (N, D1, ..., Dk, C) as (N, C, D1, ..., Dk): an Einsum, which
    needs no rank."""
    return x.op("Einsum", value, equation="n...c->nc...")


def _pooled(x: Expander, op_type: str, **attributes: object) -> None:
    """QLinearGlobalAveragePool and QLinearAveragePool: the pool over X
    (N, C, D1, ..., Dk), or (N, D1, ..., Dk, C) with channels_last, which
    is moved first and back."""
    _arity(x, 5)
    channels_last = x.int_attribute("channels_last", 0)
    value = _dequantized(x, 0, "X")
    if channels_last:
        value = _channels_first(x, value)
    value = x.op(op_type, value, **attributes)
    if channels_last:
        value = x.op("Einsum", value, equation="nc...->n...c")
    _quantized(x, value, 3, x.needed(0, "X"))


def _global_average_pool(x: Expander) -> None:
    """QLinearGlobalAveragePool: GlobalAveragePool."""
    _pooled(x, "GlobalAveragePool")


def _average_pool(x: Expander) -> None:
    """QLinearAveragePool: AveragePool with the node's kernel_shape,
    strides, pads, auto_pad, ceil_mode and count_include_pad."""
    names = ["auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides"]
    _pooled(x, "AveragePool", **{name: x.attribute(name) for name in names})


def _concat(x: Expander) -> None:
    """QLinearConcat: Y_scale, Y_zero_point, then (X, X_scale,
    X_zero_point) for each input, concatenated along `axis`."""
    triples = len(x.node.input) - 2
    if triples < 3 or triples % 3:
        raise x.refuse(
            f"it has {len(x.node.input)} inputs, not Y_scale, Y_zero_point and "
            "(X, X_scale, X_zero_point) triples"
        )
    parts = [_dequantized(x, index, f"X{index // 3}") for index in range(2, 2 + triples, 3)]
    value = x.op("Concat", *parts, axis=x.int_attribute("axis"))
    _quantized(x, value, 0, x.needed(2, "X0"))


def _softmax(x: Expander) -> None:
    """QLinearSoftmax: Softmax along `axis` (-1 by default, whatever the
    opset: the schema's default, which onnxruntime applies) as the `opset`
    the quantizer recorded defines it: from 13 on along that axis, before
    13 over the input flattened to 2-D there."""
    _arity(x, 5)
    opset, axis = x.int_attribute("opset"), x.int_attribute("axis", -1)
    value = _dequantized(x, 0, "X")
    if opset >= 13:
        value = x.op("Softmax", value, axis=axis)
    else:
        rows = x.op("Flatten", value, axis=axis)
        value = x.op("Reshape", x.op("Softmax", rows, axis=1), x.op("Shape", value))
    _quantized(x, value, 3, x.needed(0, "X"))


def _reduce_mean(x: Expander) -> None:
    """QLinearReduceMean: ReduceMean over `axes` (all when absent), with
    `keepdims` (1 by default)."""
    axes = x.attribute("axes")
    if axes is not None and not isinstance(axes, list):
        raise x.refuse("it needs an integer list attribute 'axes'")
    _arity(x, 5)
    reduced = x.constant(list(axes)) if axes else None
    value = x.op(
        "ReduceMean", _dequantized(x, 0, "data"), reduced, keepdims=x.int_attribute("keepdims", 1)
    )
    _quantized(x, value, 3, x.needed(0, "data"))


def _where(x: Expander) -> None:
    """QLinearWhere: condition, X, x_scale, x_zero_point, Y, y_scale,
    y_zero_point, z_scale, z_zero_point."""
    _arity(x, 9)
    condition = x.needed(0, "condition")
    value = x.op("Where", condition, _dequantized(x, 1, "X"), _dequantized(x, 4, "Y"))
    _quantized(x, value, 7, x.needed(1, "X"))


def _qgemm(x: Expander) -> None:
    """QGemm: Y = alpha * A' @ B' + C' (A', B' transposed as transA and
    transB say), A per tensor, B per tensor or per column (b_scale and
    b_zero_point of N elements), C int32 of scale a_scale * b_scale and
    zero point 0 scaled by alpha like the product (onnxruntime adds it to
    the integer product). Y is quantized with y_scale and y_zero_point;
    without a zero point it stays float (divided by y_scale when there is
    one, as onnxruntime's kernel does)."""
    _arity(x, 9)
    trans_b = x.int_attribute("transB", 0)
    alpha = x.float_attribute("alpha", 1.0)
    a = _dequantized(x, 0, "A")
    b = _dequantized(x, 3, "B", axis=0 if trans_b else 1)
    bias = x.input(6)
    if bias is not None:
        scale = x.op("Mul", x.needed(1, "a_scale"), x.needed(4, "b_scale"))
        bias = x.op("Mul", x.op("Cast", bias, to=TensorProto.FLOAT), scale)
    value = x.op(
        "Gemm",
        a,
        b,
        bias,
        alpha=alpha,
        beta=alpha,
        transA=x.int_attribute("transA", 0),
        transB=trans_b,
    )
    scale, zero = x.input(7), x.input(8)
    if zero is not None:
        x.add("QuantizeLinear", [value, x.needed(7, "y_scale"), zero], [x.node.output[0]])
    elif scale is not None:
        x.add("Div", [value, scale], [x.node.output[0]])
    else:
        x.add("Identity", [value], [x.node.output[0]])


EXPANSIONS: Expansions = {
    "QGemm": _qgemm,
    "QLinearAdd": _binary("Add"),
    "QLinearAveragePool": _average_pool,
    "QLinearConcat": _concat,
    "QLinearGlobalAveragePool": _global_average_pool,
    "QLinearLeakyRelu": _leaky_relu,
    "QLinearMul": _binary("Mul"),
    "QLinearReduceMean": _reduce_mean,
    "QLinearSigmoid": _sigmoid,
    "QLinearSoftmax": _softmax,
    "QLinearWhere": _where,
}
