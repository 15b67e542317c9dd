"""`onnx.QLinearConv` as `kernel.qconv`: integer convolutions on the integer
kernels, their requantization multipliers computed as onnxruntime computes
them and their weights packed at compile time: into int32 words of SMLAD
pairs (`convert_onnx_to_linalg/kernels/qconv.py`), or on targets with
`integer_rows` (the hosts) into int8 rows (`qconv_rows.py`) when the rows
are long; the hosts' shorter and depthwise ones become the float chain that
computes them exactly (`exact_float.py`).

The kernel takes a 2-D (or 1-D, as height 1) convolution, dense or
depthwise, of static shapes whose x and y are int8 or uint8 with one scale and zero point each,
whose weights are a constant int8 tensor with zero points 0 (the symmetric
weights onnxruntime's quantizer writes, per tensor or per output channel)
and whose bias is absent or a constant. `fits` says so from the types and
attributes alone: `onnx-fuse-quantized` asks it before it turns a
DequantizeLinear -> Conv -> QuantizeLinear chain into a QLinearConv, so that
no chain leaves the float kernels for the plain integer loops.

The multiplier of output channel m is `float(float(x_scale * w_scale[m]) /
y_scale)` in single precision, onnxruntime's QLinearConv's: the kernel's
`acc * multiplier`, clamped, rounded half to even and offset by y's zero
point, is then its requantization to the bit. With `requantize="fixed"`
(`onnxc.options.REQUANTIZE`) the Cortex-M kernels take each multiplier as
an int32 mantissa and a shift instead (`fixed_point`) and requantize
without float arithmetic, within one step of the exact result.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, IntegerType, StringAttr, TensorType, i64
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import kernel, onnx
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.select_kernels.building_blocks import (
    Made,
    constant_of,
    constant_op,
    ints,
    reshaped,
    window_fits,
)
from onnxc.lowering.select_kernels.exact_float import ROWS_FROM, as_float_conv, exact_in_float


def _quantized(element_type: Attribute) -> bool:
    return isinstance(element_type, IntegerType) and element_type.width.data == 8


def static_int8(value_type: Attribute) -> TensorType | None:
    """`value_type` if it is an int8 or uint8 tensor type of static shape."""
    if not isinstance(value_type, TensorType) or not _quantized(value_type.get_element_type()):
        return None
    return value_type if all(s >= 0 for s in value_type.get_shape()) else None


def window(
    op: onnx.ConvOp | onnx.QLinearConvOp, w_shape: Sequence[int]
) -> tuple[list[int], list[int], list[int], list[int]] | None:
    """The 2-D window of a convolution by weights of `w_shape`: kernel shape,
    strides, dilations, pads (a 1-D one's of height 1); None for other ranks,
    a kernel_shape the weights contradict, or an auto_pad other than NOTSET
    and VALID."""
    spatial = len(w_shape) - 2
    if spatial not in (1, 2) or op.attr("auto_pad") not in (None, "NOTSET", "VALID"):
        return None
    kernel_shape = list(w_shape[2:])
    if list(op.attr("kernel_shape") or kernel_shape) != kernel_shape:
        return None
    strides = list(op.attr("strides") or [1] * spatial)
    dilations = list(op.attr("dilations") or [1] * spatial)
    pads = list(op.attr("pads") or [0] * (2 * spatial))
    if spatial == 1:
        if not len(strides) == len(dilations) == 1 or len(pads) != 2:
            return None
        return [1, *kernel_shape], [1, *strides], [1, *dilations], [0, pads[0], 0, pads[1]]
    return kernel_shape, strides, dilations, pads


def fits(
    op: onnx.ConvOp | onnx.QLinearConvOp,
    x_type: Attribute,
    y_type: Attribute,
    w_shape: Sequence[int],
) -> bool:
    """Whether `kernel.qconv` takes a convolution of `op`'s attributes from
    x of `x_type` into y of `y_type` by weights of `w_shape` (see the module
    docstring for the rest it needs)."""
    x, y = static_int8(x_type), static_int8(y_type)
    geometry = window(op, w_shape)
    if x is None or y is None or geometry is None:
        return False
    x_shape, y_shape = list(x.get_shape()), list(y.get_shape())
    if len(x_shape) != len(w_shape) or len(y_shape) != len(w_shape) or x_shape[0] != y_shape[0]:
        return False
    group = op.attr("group") or 1
    if group != 1 and not (group == x_shape[1] == w_shape[0] and w_shape[1] == 1):
        return False
    if x_shape[1] != w_shape[1] * group or y_shape[1] != w_shape[0]:
        return False
    if len(w_shape) == 3:
        x_shape, y_shape = [*x_shape[:2], 1, x_shape[2]], [*y_shape[:2], 1, y_shape[2]]
    kernel_shape, strides, dilations, pads = geometry
    return window_fits(
        TensorType(x.get_element_type(), x_shape),
        TensorType(y.get_element_type(), y_shape),
        kernel_shape,
        strides,
        dilations,
        pads,
    )


def one_constant(value: SSAValue) -> np.ndarray | None:
    """The one element of a constant, else None."""
    array = constant_of(value)
    return None if array is None or array.size != 1 else array.reshape(())


def pack_weights(weights: np.ndarray) -> np.ndarray:
    """int8 weights [M, C, KH, KW] as `kernel.qconv`'s int32 words [ceil(M/2)*2,
    K4]: taps in (kh, kw, c) order with C rounded up to even (but for one
    channel), rounded up to a multiple of 4, each 4 as bytes (0, 2, 1, 3)
    of a little-endian word."""
    m, c, kh, kw = weights.shape
    even = c + c % 2 if c > 1 else 1  # one channel: pairs of taps
    taps = np.zeros((m + m % 2, kh, kw, even), np.int8)
    taps[:m, :, :, :c] = weights.transpose(0, 2, 3, 1)
    flat = taps.reshape(taps.shape[0], -1)
    k4 = -(-flat.shape[1] // 4)
    padded = np.zeros((flat.shape[0], k4 * 4), np.int8)
    padded[:, : flat.shape[1]] = flat
    swapped = padded.reshape(-1, k4, 4)[:, :, [0, 2, 1, 3]]
    return np.ascontiguousarray(swapped).view("<i4").reshape(-1, k4).astype(np.int32)


def row_length(taps: int) -> int:
    """The length of a "rows" kernel's weight row of `taps` (kh, kw, c)
    terms: 32, or a multiple of 64 (one AVX-512 register of bytes), so that
    its dot products have no remainder loop; the hsums of a short row cost
    more than the zeros."""
    return 32 if taps <= 32 else -(-taps // 64) * 64


def unsigned_point(x_point: np.ndarray) -> int:
    """x's zero point as the "rows" kernel reads x: an unsigned byte, an
    int8 x's plus 128."""
    return int(x_point) + 128 if x_point.dtype == np.int8 else int(x_point)


def _rows(weights: np.ndarray, bias: np.ndarray, u_point: int) -> tuple[np.ndarray, np.ndarray]:
    """The "rows" kernel's int8 weights [M, row_length(K)] over (kh, kw, c)
    and its bias with x's unsigned zero point folded in (b - u_point * the
    row's sum, wrapping as the int32 sums do)."""
    m = weights.shape[0]
    flat = weights.transpose(0, 2, 3, 1).reshape(m, -1)
    rows = np.zeros((m, row_length(flat.shape[1])), np.int8)
    rows[:, : flat.shape[1]] = flat
    folded = bias.astype(np.int64) - u_point * flat.astype(np.int64).sum(axis=1)
    return rows, folded.astype(np.uint32).astype(np.int32)


def _padded_rows(bias: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bias and multipliers of the dense kernel: one per row of its
    packed weights (zero past the output channels)."""
    rows = bias.size + bias.size % 2
    padded_bias, padded_scale = np.zeros(rows, np.int32), np.zeros(rows, np.float32)
    padded_bias[: bias.size], padded_scale[: scale.size] = bias, scale
    return padded_bias, padded_scale


def _depthwise(
    weights: np.ndarray, bias: np.ndarray, scale: np.ndarray, x_point: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The depthwise kernel's int8 taps [C, KH * KW], its bias with x's zero
    point folded in (b - x_zero_point * sum of the channel's taps, so that
    the kernel sums x * w, reading x_zero_point for a padding tap), and its
    multipliers."""
    taps = weights.reshape(weights.shape[0], -1)
    folded = bias.astype(np.int64) - x_point * taps.astype(np.int64).sum(axis=1)
    return np.ascontiguousarray(taps), folded.astype(np.int32), scale


def multipliers(
    x_scale: np.ndarray, w_scale: np.ndarray, y_scale: np.ndarray, m: int
) -> np.ndarray:
    """onnxruntime's requantization multipliers, one per output channel:
    x_scale * w_scale[m] / y_scale, each step in float."""
    product = np.float32(x_scale) * np.broadcast_to(w_scale.astype(np.float32), (m,))
    return (product / np.float32(y_scale)).astype(np.float32)


def fixed_point(scale: np.ndarray) -> np.ndarray | None:
    """The multipliers `scale` in fixed point, as TFLite's QuantizeMultiplier
    computes them: [channels, 2] int32 (M, n) with scale = M * 2^-n, M a
    31-bit mantissa in [2^30, 2^31) rounded to nearest, n in [1, 62] (a
    multiplier below 2^-32 is 0: it maps every int32 sum below half a
    step). None when one is 2^29 or more (too few bits left to shift),
    negative or not finite: such a convolution keeps the float multiply."""
    values = scale.astype(np.float64)
    if not np.isfinite(values).all() or (values < 0).any() or (values >= 2.0**29).any():
        return None
    mantissa, exponent = np.frexp(values)  # values = mantissa * 2^exponent, mantissa in [0.5, 1)
    words = np.round(mantissa * 2.0**31).astype(np.int64)
    carry = words == 1 << 31
    words[carry] >>= 1
    exponent = exponent + carry
    shift = 31 - exponent.astype(np.int64)
    tiny = (values == 0) | (shift > 62)
    words[tiny], shift[tiny] = 0, 31
    return np.stack([words, shift], axis=1).astype(np.int32)


def select_quantized_convs(block: Block, made: Made, *, rows: bool, fixed: bool = False) -> None:
    """Every QLinearConv `fits` takes, whose parameters are constants of the
    kinds it needs, as a `kernel.qconv`; dense ones of `form` "rows" when
    `rows` (the target's `integer_rows`), else "pairs". With `fixed`, the
    multipliers of the "pairs" kernels are in fixed point (`fixed_point`)."""
    for conv in [o for o in block.ops if isinstance(o, onnx.QLinearConvOp)]:
        _select(conv, made, rows, fixed)


def _select(conv: onnx.QLinearConvOp, made: Made, rows: bool, fixed: bool) -> None:
    weights = constant_of(conv.w)
    if weights is None or weights.dtype != np.int8:
        return
    if not fits(conv, conv.x.type, conv.y.type, weights.shape):
        return
    scales = [one_constant(v) for v in (conv.x_scale, conv.y_scale)]
    points = [one_constant(v) for v in (conv.x_zero_point, conv.y_zero_point)]
    w_scale, w_point = constant_of(conv.w_scale), constant_of(conv.w_zero_point)
    channels = weights.shape[0]
    if any(v is None for v in (*scales, *points, w_scale, w_point)):
        return
    assert w_scale is not None and w_point is not None
    if w_scale.size not in (1, channels) or w_point.size not in (1, channels) or w_point.any():
        return
    bias = np.zeros(channels, np.int32)
    if not isinstance(conv.B.owner, onnx.NoValueOp):
        found = constant_of(conv.B)
        if found is None or found.size != channels:
            return
        bias = found.reshape(-1).astype(np.int32)
    x_scale, y_scale = scales
    x_point, y_point = points
    assert x_scale is not None and y_scale is not None
    assert x_point is not None and y_point is not None
    group = conv.attr("group") or 1
    scale = multipliers(x_scale, w_scale.reshape(-1), y_scale, channels)
    if rows and (group != 1 or weights[0].size < ROWS_FROM) and exact_in_float(weights, bias):
        as_float_conv(conv, weights, bias, scale)
        return
    point = InsertPoint.before(conv)
    label = onnx.node_name(conv) or "qconv"
    geometry = window(conv, weights.shape)
    assert geometry is not None
    if weights.ndim == 3:
        weights = weights[:, :, None, :]
    kernel_shape, strides, dilations, pads = geometry
    form = "rows" if rows and group == 1 else "pairs"
    key = ("qconv", conv.w, conv.w_scale, conv.x_scale, conv.x_zero_point, conv.y_scale, conv.B)
    if key not in made:
        if form == "rows":
            u_point = unsigned_point(x_point)
            arrays = (*_rows(weights, bias, u_point), scale)
        elif group == 1:
            arrays = (pack_weights(weights), *_padded_rows(bias, scale))
        else:
            arrays = _depthwise(weights, bias, scale, int(x_point))
        in_fixed_point = fixed_point(arrays[2]) if fixed and form == "pairs" else None
        if in_fixed_point is not None:
            arrays = (arrays[0], arrays[1], in_fixed_point)
        hint = conv.w.name_hint or "qconv"
        suffix = {"rows": "rows", "pairs": "words"}[form] if group == 1 else "taps"
        made[key] = constant_op(arrays[0], f"{hint}_{suffix}", point)
        made[key + ("bias",)] = constant_op(arrays[1], f"{hint}_bias", point)
        made[key + ("multipliers",)] = constant_op(arrays[2], f"{hint}_multipliers", point)
    operands = [made[key], made[key + ("bias",)], made[key + ("multipliers",)]]
    x_type, y_type = conv.x.type, conv.y.type
    assert isinstance(x_type, TensorType) and isinstance(y_type, TensorType)
    x, flat_result = conv.x, None
    if len(x_type.get_shape()) == 3:
        n, c, length = x_type.get_shape()
        x = reshaped(conv.x, [n, c, 1, length], point)
        flat_result = list(y_type.get_shape())
        n, m, out_length = flat_result
        y_type = TensorType(y_type.get_element_type(), [n, m, 1, out_length])
    new = kernel.QconvOp.create(
        operands=[x, *operands],
        result_types=[y_type],
        properties={
            "strides": ints(strides),
            "dilations": ints(dilations),
            "pads": ints(pads),
            "kernel_shape": ints(kernel_shape),
            "x_zero_point": IntegerAttr(int(x_point), i64),
            "y_zero_point": IntegerAttr(int(y_point), i64),
            "group": IntegerAttr(group, i64),
            **({"form": StringAttr(form)} if form == "rows" else {}),
        },
        attributes={ONNX_NODE_NAME: StringAttr(label)},
    )
    Rewriter.insert_op(new, point)
    new.Y.name_hint = conv.y.name_hint
    result = new.Y if flat_result is None else reshaped(new.Y, flat_result, point)
    conv.y.replace_all_uses_with(result)
    inputs = {o.owner for o in conv.operands}
    Rewriter.erase_op(conv)
    for owner in inputs:  # the int8 weights, now packed
        if isinstance(owner, onnx.ConstantOp | onnx.NoValueOp) and not owner.results[0].uses:
            Rewriter.erase_op(owner)
