"""The `kernel` dialect: tensor operations in a channel-blocked layout, chosen
by `select-kernels` for the target and lowered by `convert-onnx-to-linalg`
into register-blocked loops.

A blocked tensor holds an NCHW activation as `[N, ceil(C/b), H, W, b]`: the
channels in blocks of `b` innermost (onnxruntime's NCHWc), so that the `b`
output channels of one pixel are contiguous and a kernel computes them in one
vector loop. Lanes past C in the last block are padding no operation reads.

- `kernel.block`: NCHW -> blocked (block `b` from the result type);
- `kernel.unblock`: blocked -> NCHW (C from the result type); both also of
  int8 and uint8 tensors (requantized results between kernels);
- `kernel.pool`: MaxPool, AveragePool and their global forms, per lane;
- `kernel.conv`: a 2-D convolution of a blocked input by weights packed at
  compile time, with its epilogue fused: `Y = act(X * W + B (+ R))`, where
  `R` is an optional blocked residual of Y's shape and `act` is `activation`
  ("" for none, "Relu", "HardSwish", "Tanh", "Sigmoid", "Swish" (SiLU:
  x * sigmoid(x)), or "Clip" with `clip_min`/`clip_max`). Dense
  weights are packed `[ceil(M/bo), C, KH, KW, w]` (w >= bo lanes: the
  accumulators' width, zero past bo), depthwise ones (`group`
  equals C equals M) `[ceil(C/bo), KH, KW, bo]`; `pixels` is the register
  block: how many output pixels of a row one kernel step computes; with
  `unrolled`, its lane loop is written out (scalar registers, no SIMD); with
  `in_place`, Y is written over R's buffer (R's last use: each output reads
  only its own element of R); with `fma`, each multiply-accumulate is one
  fused multiply-add (one rounding), for targets that have them.
- `kernel.matmul`: a matrix product in row-major layout, `Y = act(A B + D + R)`
  for A `[..., M, K]`, with its epilogue fused. B is either packed at compile
  time as `[ceil(N/b), K, b]` (`packed`, shared by the products) or
  row-major, `[..., K, N]` with A's leading dimensions or `[K, N]` for all;
  Y is `[..., M, N]`. With `a_perm` (`b_perm`), A's (B's) buffer is read as
  its Transpose by that permutation; with `y_perm` the result is written as
  its Transpose (Y's type is the transposed one); each keeps the last axis
  last. `D` is an optional bias of N elements: the accumulators' initial
  value with `bias_first` (Gemm's C), else added to each sum (a MatMul's
  following Add); `R` an optional addend of Y's shape (a residual). `rows`
  is the register block: how many rows of A one kernel step computes, each
  into `b` independent columns (`lanes`); with `fma`, each step of a sum is
  one fused multiply-add (one rounding instead of two). Its activation is
  Relu, HardSwish or Clip (Tanh, Sigmoid and Swish are kernel.conv's alone).

- `kernel.qconv`: an integer 2-D convolution of an int8 or uint8 NCHW X,
  requantized into an int8 or uint8 Y as it is stored:
  `Y = quantize(((X - x_zero_point) * W + B) * S[m], y_zero_point)`, with
  QuantizeLinear's saturation and rounding. W is int8 packed at compile time
  into int32 words, `[ceil(M/2)*2, K4]` for K4 words a row: the reduction
  runs over (kh, kw, c) with c in pairs (C rounded up to even, but for C
  of 1), each word
  holding taps 4q..4q+3 as bytes (4q, 4q+2, 4q+1, 4q+3), so that
  sign-extending bytes 0 and 2 gives the pair (4q, 4q+1) and bytes 1 and 3
  the pair (4q+2, 4q+3); zeros pad it. B is the int32 bias and S the float
  multipliers `x_scale * w_scale[m] / y_scale` (onnxruntime's, in float),
  one per row of W. A depthwise one (`group` equals C equals M) has W its
  int8 taps `[C, KH * KW]` and B the bias less `x_zero_point` times the sum
  of the channel's taps (it sums x * w, a padding tap reading the zero
  point). With `form` "rows" (the hosts'), dense W is int8 instead,
  `[M, Kp]`: one row per output channel over (kh, kw, c), zeros past K up
  to Kp, and B the bias less `u_zero_point` times the row's sum, where
  `u_zero_point` is x's zero point as an unsigned byte (plus 128 for an
  int8 X): the kernel sums X's bytes as unsigned (int8 ones plus 128) times
  W, a padding tap reading the zero point, which is the dot product of
  unsigned and signed bytes that x86's VNNI computes.

- `kernel.qadd`: DequantizeLinear(A) + DequantizeLinear(B), quantized into
  Y (QuantizeLinear), element by element without float tensors between them:
  the QDQ form of a quantized Add (a residual connection), computed in float
  exactly as the three operators are. Scales and zero points are one element
  each; A, B and Y have one shape.

- `kernel.qaverage_pool`: DequantizeLinear(X) -> AveragePool ->
  QuantizeLinear, each window's taps dequantized as they are summed (no
  float tensor of X's size), by the same float steps as the three
  operators; AveragePool's attributes, and X's and Y's scale and zero point
  (one each) as attributes.

The operations share `OnnxOp`'s base, with schemas of their own (domain
`onnxc.kernel`), so that a lowering treats them like any `onnx.*` operation.
"""

from __future__ import annotations

from typing import ClassVar

import onnx
from onnx.defs import OpSchema
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    NoneType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Dialect
from xdsl.irdl import irdl_op_definition, operand_def, opt_prop_def, result_def

from onnxc.dialects.onnx_base import OnnxOp

DOMAIN = "onnxc.kernel"

_FLOAT = [("T", ["tensor(float)"], "the element type")]
_LAYOUT = [("T", ["tensor(float)", "tensor(int8)", "tensor(uint8)"], "the element type")]
_Param = OpSchema.FormalParameter
_Attr = OpSchema.Attribute
_INTS = OpSchema.AttrType.INTS
_OPTIONAL = OpSchema.FormalParameterOption.Optional


def _schema(
    name: str,
    doc: str,
    inputs: list[OpSchema.FormalParameter],
    attributes: list[OpSchema.Attribute] = [],  # noqa: B006 - never mutated
    types: list[tuple[str, list[str], str]] = _FLOAT,
) -> OpSchema:
    return OpSchema(
        name,
        DOMAIN,
        1,
        doc=doc,
        inputs=inputs,
        outputs=[_Param("Y", "T", "the result")],
        type_constraints=types,
        attributes=attributes,
    )


def _default(name: str, value: object, doc: str) -> OpSchema.Attribute:
    return _Attr(name, onnx.helper.make_attribute(name, value), doc)


def _window() -> list[OpSchema.Attribute]:
    """The attributes of a 2-D window (convolution, pooling)."""
    return [
        _Attr("strides", _INTS, "stride per spatial axis"),
        _Attr("dilations", _INTS, "dilation per spatial axis"),
        _Attr("pads", _INTS, "ONNX pads: begins then ends"),
        _Attr("kernel_shape", _INTS, "KH, KW"),
    ]


def _activation() -> list[OpSchema.Attribute]:
    """The attributes of a fused activation."""
    return [
        _default(
            "activation",
            "",
            "'', 'Relu', 'HardSwish', 'Clip', or 'Tanh', 'Sigmoid', 'Swish' (kernel.conv only)",
        ),
        _default("clip_min", float("-inf"), "Clip's minimum"),
        _default("clip_max", float("inf"), "Clip's maximum"),
    ]


class _Epilogue(OnnxOp):
    """Base of the kernels with a fused activation (`_activation()`)."""

    activation = opt_prop_def(StringAttr)
    clip_min = opt_prop_def(FloatAttr)
    clip_max = opt_prop_def(FloatAttr)


@irdl_op_definition
class BlockOp(OnnxOp):
    """`kernel.block`: an NCHW tensor in the channel-blocked layout."""

    name = "kernel.block"
    SCHEMA: ClassVar[OpSchema] = _schema(
        "Block", "NCHW to blocked", [_Param("X", "T", "NCHW")], types=_LAYOUT
    )

    X = operand_def(TensorType)
    Y = result_def(TensorType)


@irdl_op_definition
class UnblockOp(OnnxOp):
    """`kernel.unblock`: a channel-blocked tensor back in NCHW."""

    name = "kernel.unblock"
    SCHEMA: ClassVar[OpSchema] = _schema(
        "Unblock", "blocked to NCHW", [_Param("X", "T", "blocked")], types=_LAYOUT
    )

    X = operand_def(TensorType)
    Y = result_def(TensorType)


@irdl_op_definition
class ConvOp(_Epilogue):
    """`kernel.conv`: a blocked 2-D convolution with a fused epilogue."""

    name = "kernel.conv"
    SCHEMA: ClassVar[OpSchema] = _schema(
        "Conv",
        "blocked convolution, act(X * W + B + R)",
        [
            _Param("X", "T", "blocked input"),
            _Param("W", "T", "packed weights"),
            _Param("B", "T", "bias, padded to whole blocks", param_option=_OPTIONAL),
            _Param("R", "T", "blocked residual", param_option=_OPTIONAL),
        ],
        [
            *_window(),
            _default("group", 1, "1, or the channel count (depthwise)"),
            *_activation(),
            _default("pixels", 1, "output pixels per register block"),
            _default("unrolled", 0, "1: the lane loop written out, one statement per lane"),
            _default("in_place", 0, "1: Y is written over R (its last use)"),
            _default("fma", 0, "1: accumulate with fused multiply-adds"),
            _default("parallel", 0, "1: the output blocks (or rows) may run on threads"),
        ],
    )

    X = operand_def(TensorType)
    W = operand_def(TensorType)
    B = operand_def(TensorType | NoneType)
    R = operand_def(TensorType | NoneType)
    Y = result_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    kernel_shape = opt_prop_def(DenseArrayBase)
    group = opt_prop_def(IntegerAttr)
    pixels = opt_prop_def(IntegerAttr)
    unrolled = opt_prop_def(IntegerAttr)
    in_place = opt_prop_def(IntegerAttr)
    fma = opt_prop_def(IntegerAttr)
    parallel = opt_prop_def(IntegerAttr)


@irdl_op_definition
class PoolOp(OnnxOp):
    """`kernel.pool`: max or average pooling of a blocked tensor."""

    name = "kernel.pool"
    SCHEMA: ClassVar[OpSchema] = _schema(
        "Pool",
        "blocked max or average pooling",
        [_Param("X", "T", "blocked input")],
        [
            _Attr("mode", OpSchema.AttrType.STRING, "'max' or 'average'"),
            *_window(),
            _default("count_include_pad", 0, "an average counts the padding"),
        ],
    )

    X = operand_def(TensorType)
    Y = result_def(TensorType)
    mode = opt_prop_def(StringAttr)
    strides = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    kernel_shape = opt_prop_def(DenseArrayBase)
    count_include_pad = opt_prop_def(IntegerAttr)


@irdl_op_definition
class MatmulOp(_Epilogue):
    """`kernel.matmul`: a register-blocked matrix product with a fused epilogue."""

    name = "kernel.matmul"
    SCHEMA: ClassVar[OpSchema] = _schema(
        "Matmul",
        "row-major matrix product, act(A B + D + R)",
        [
            _Param("A", "T", "[..., M, K]"),
            _Param("B", "T", "packed [N/b, K, b], or row-major [..., K, N] or [K, N]"),
            _Param("D", "T", "bias of N elements", param_option=_OPTIONAL),
            _Param("R", "T", "addend of Y's shape", param_option=_OPTIONAL),
        ],
        [
            _default("packed", 0, "1: B is packed [N/b, K, b]"),
            _default("lanes", 1, "b: the columns of one register block"),
            _default("rows", 1, "rows of A per register block"),
            _default("bias_first", 0, "1: D starts the sums (else it is added to them)"),
            _default("fma", 0, "1: accumulate with fused multiply-adds"),
            _default("parallel", 0, "1: the column blocks (or products) may run on threads"),
            _Attr("a_perm", _INTS, "A is transpose(A's buffer, a_perm)", required=False),
            _Attr("b_perm", _INTS, "B is transpose(B's buffer, b_perm)", required=False),
            _Attr("y_perm", _INTS, "Y's buffer is transpose(Y, y_perm)", required=False),
            *_activation(),
        ],
    )

    A = operand_def(TensorType)
    B = operand_def(TensorType)
    D = operand_def(TensorType | NoneType)
    R = operand_def(TensorType | NoneType)
    Y = result_def(TensorType)
    packed = opt_prop_def(IntegerAttr)
    lanes = opt_prop_def(IntegerAttr)
    rows = opt_prop_def(IntegerAttr)
    bias_first = opt_prop_def(IntegerAttr)
    fma = opt_prop_def(IntegerAttr)
    parallel = opt_prop_def(IntegerAttr)
    a_perm = opt_prop_def(DenseArrayBase)
    b_perm = opt_prop_def(DenseArrayBase)
    y_perm = opt_prop_def(DenseArrayBase)


@irdl_op_definition
class QconvOp(OnnxOp):
    """`kernel.qconv`: an int8 convolution with requantization fused."""

    name = "kernel.qconv"
    SCHEMA: ClassVar[OpSchema] = OpSchema(
        "Qconv",
        DOMAIN,
        1,
        doc="integer convolution, quantize(((X - zx) * W + B) * S, zy)",
        inputs=[
            _Param("X", "T1", "NCHW input"),
            _Param("W", "W", "weights packed in int32 words (depthwise: int8 taps)"),
            _Param("B", "I", "int32 bias, one per row of W"),
            _Param(
                "S",
                "F",
                "requantization multipliers, one per row of W: floats, or int32 "
                "(mantissa, right shift) pairs [rows, 2] (fixed point)",
            ),
        ],
        outputs=[_Param("Y", "T2", "NCHW result")],
        type_constraints=[
            ("T1", ["tensor(int8)", "tensor(uint8)"], "X's type"),
            ("T2", ["tensor(int8)", "tensor(uint8)"], "Y's type"),
            ("W", ["tensor(int32)", "tensor(int8)"], "packed weights"),
            ("I", ["tensor(int32)"], "bias"),
            ("F", ["tensor(float)", "tensor(int32)"], "multipliers"),
        ],
        attributes=[
            *_window(),
            _default("x_zero_point", 0, "X's zero point"),
            _default("y_zero_point", 0, "Y's zero point"),
            _default("group", 1, "1, or the channel count (depthwise)"),
            _default("form", "pairs", "dense W's packing: 'pairs' (int32 words) or 'rows' (int8)"),
        ],
    )

    X = operand_def(TensorType)
    W = operand_def(TensorType)
    B = operand_def(TensorType)
    S = operand_def(TensorType)
    Y = result_def(TensorType)
    strides = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    kernel_shape = opt_prop_def(DenseArrayBase)
    x_zero_point = opt_prop_def(IntegerAttr)
    y_zero_point = opt_prop_def(IntegerAttr)
    group = opt_prop_def(IntegerAttr)
    form = opt_prop_def(StringAttr)


@irdl_op_definition
class QaddOp(OnnxOp):
    """`kernel.qadd`: a quantized Add in QDQ form, fused."""

    name = "kernel.qadd"
    SCHEMA: ClassVar[OpSchema] = OpSchema(
        "Qadd",
        DOMAIN,
        1,
        doc="quantize(dequantize(A) + dequantize(B))",
        inputs=[
            _Param("A", "T1", "first addend"),
            _Param("a_scale", "F", "A's scale"),
            _Param("a_zero_point", "T1", "A's zero point"),
            _Param("B", "T2", "second addend"),
            _Param("b_scale", "F", "B's scale"),
            _Param("b_zero_point", "T2", "B's zero point"),
            _Param("y_scale", "F", "Y's scale"),
            _Param("y_zero_point", "T3", "Y's zero point"),
        ],
        outputs=[_Param("Y", "T3", "the quantized sum")],
        type_constraints=[
            (name, ["tensor(int8)", "tensor(uint8)"], "a quantized type")
            for name in ("T1", "T2", "T3")
        ]
        + [("F", ["tensor(float)"], "scales")],
    )

    A = operand_def(TensorType)
    a_scale = operand_def(TensorType)
    a_zero_point = operand_def(TensorType)
    B = operand_def(TensorType)
    b_scale = operand_def(TensorType)
    b_zero_point = operand_def(TensorType)
    y_scale = operand_def(TensorType)
    y_zero_point = operand_def(TensorType)
    Y = result_def(TensorType)


def _average_pool_attributes() -> list[OpSchema.Attribute]:
    """AveragePool's window attributes (opset 22), its defaults included."""
    schema = onnx.defs.get_schema("AveragePool", 22)
    return [
        _Attr(a.name, a.default_value, a.description)
        if a.default_value.name
        else _Attr(a.name, a.type, a.description, required=a.required)
        for a in schema.attributes.values()
    ]


@irdl_op_definition
class QaveragePoolOp(OnnxOp):
    """`kernel.qaverage_pool`: a quantized AveragePool in QDQ form, fused."""

    name = "kernel.qaverage_pool"
    SCHEMA: ClassVar[OpSchema] = OpSchema(
        "QaveragePool",
        DOMAIN,
        1,
        doc="quantize(AveragePool(dequantize(X)))",
        inputs=[_Param("X", "T", "NCHW input")],
        outputs=[_Param("Y", "T", "NCHW result")],
        type_constraints=[("T", ["tensor(int8)", "tensor(uint8)"], "a quantized type")],
        attributes=[
            *_average_pool_attributes(),
            _default("x_scale", 1.0, "X's scale"),
            _default("x_zero_point", 0, "X's zero point"),
            _default("y_scale", 1.0, "Y's scale"),
            _default("y_zero_point", 0, "Y's zero point"),
        ],
    )

    X = operand_def(TensorType)
    Y = result_def(TensorType)
    auto_pad = opt_prop_def(StringAttr)
    ceil_mode = opt_prop_def(IntegerAttr)
    count_include_pad = opt_prop_def(IntegerAttr)
    strides = opt_prop_def(DenseArrayBase)
    dilations = opt_prop_def(DenseArrayBase)
    pads = opt_prop_def(DenseArrayBase)
    kernel_shape = opt_prop_def(DenseArrayBase)
    x_scale = opt_prop_def(FloatAttr)
    x_zero_point = opt_prop_def(IntegerAttr)
    y_scale = opt_prop_def(FloatAttr)
    y_zero_point = opt_prop_def(IntegerAttr)


KERNEL = Dialect(
    "kernel",
    [BlockOp, UnblockOp, ConvOp, PoolOp, MatmulOp, QconvOp, QaddOp, QaveragePoolOp],
    [],
)

__all__ = [
    "DOMAIN",
    "KERNEL",
    "BlockOp",
    "ConvOp",
    "MatmulOp",
    "PoolOp",
    "QaddOp",
    "QaveragePoolOp",
    "QconvOp",
    "UnblockOp",
]
