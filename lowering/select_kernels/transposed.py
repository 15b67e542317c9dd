"""Transposed convolutions as convolutions, for `select-kernels`.

`onnx.ConvTranspose` scatters each input pixel through the kernel into the
output; its plain lowering (`nn/conv_transpose.py`) does that one product at
a time, with a bounds check on each. On targets with kernels it is rewritten
into operators the kernels compute:

- **Stride 1**: a transposed convolution is the convolution of the same
  input with the kernel flipped and its input and output channels swapped
  (per group), padded by `dilation * (k - 1) - pad` on each side (plus
  `output_padding` at the end). It becomes that `onnx.Conv`, which the dense
  or depthwise kernel takes like any other (and the BatchNormalization and
  activation after it fuse as they do after a convolution). Taken when those
  pads are not negative.
- **Otherwise**, group 1: one matrix product and a scatter, as onnxruntime
  and every GEMM-based framework does it. A 1x1 `onnx.Conv` computes, for
  every input pixel, the products with all K = prod(kernel) taps of every
  output channel: Z [N, M * K, H, W] (its output channel m * K + k holds tap
  k of channel m); `onnx.Col2Im` adds each column into the output pixels its
  taps cover (the spec's own definition of the scatter, with the transposed
  convolution's strides, dilations and pads; its end pads less
  `output_padding`). When the taps never overlap (dilation 1, stride equal
  to the kernel, no output padding) each output pixel has exactly one tap,
  so the bias is added by the 1x1 convolution; else by an `onnx.Add` after
  the scatter. Z costs M * K * H * W floats of workspace; on cores without
  SIMD (the microcontrollers, whose memory is scarce) it is taken only when
  Z is no larger than the output.

The sums are a convolution's (bias, then input channels, then taps) or a
matrix product's then the scatter's, not the plain loops' order: results
differ from them by rounding only, within the README's tolerances.

Taken for float32 tensors of static shapes with 1 or 2 spatial axes and
constant weights and bias (a BatchNormalization after the transposed
convolution is folded into them first, `batchnorm.py`); others keep the
plain lowering, which reports what is wrong with them.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType, f32, i64
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import onnx
from onnxc.errors import OnnxcError
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.convert_onnx_to_linalg.nn.conv_transpose import (
    int_attribute,
    output_geometry,
)
from onnxc.lowering.index_arith import IndexArith, static
from onnxc.lowering.select_kernels.building_blocks import (
    constant_of,
    constant_op,
    ints,
    no_value,
    reshaped,
    static_float,
)
from onnxc.targets import Kernels

__all__ = ["rewrite_conv_transposes"]


def rewrite_conv_transposes(block: Block, kernels: Kernels) -> None:
    """Rewrite each transposed convolution of `block` the kernels can take
    (see the module's docstring)."""
    for op in [o for o in block.ops if isinstance(o, onnx.ConvTransposeOp)]:
        _rewrite(op, kernels)


class _Window:
    """A transposed convolution's static geometry: kernel, strides,
    dilations, output padding, and the pads at the start and end of each
    spatial axis as the spec computes them."""

    def __init__(self, op: onnx.ConvTransposeOp, x_shape: list[int], kernel: list[int]) -> None:
        rank = len(kernel)
        self.kernel = kernel
        self.strides = int_attribute(op, "strides", rank, 1)
        self.dilations = int_attribute(op, "dilations", rank, 1)
        self.extra = int_attribute(op, "output_padding", rank, 0)
        out, begins = output_geometry(op, IndexArith(), list(x_shape[2:]), kernel)
        self.out, self.begins = static(out), static(begins)  # all of them ints: static shapes
        # the taps of the last input pixel reach s * (n - 1) + span; the
        # scatter drops what lies past the output at the end (negative when
        # output_padding leaves output pixels no tap reaches)
        self.ends = [
            s * (n - 1) + (k - 1) * d + 1 - o - b
            for s, n, k, d, o, b in zip(
                self.strides,
                x_shape[2:],
                kernel,
                self.dilations,
                self.out,
                self.begins,
                strict=True,
            )
        ]

    @property
    def overlap_free(self) -> bool:
        """Whether each output pixel gets exactly one tap."""
        return (
            all(d == 1 for d in self.dilations)
            and self.strides == self.kernel
            and not any(self.extra)
        )


def _rewrite(op: onnx.ConvTransposeOp, kernels: Kernels) -> None:
    x_type, y_type = static_float(op.X), static_float(op.Y)
    weights = constant_of(op.W)
    no_bias = isinstance(op.B.owner, onnx.NoValueOp)
    bias = None if no_bias else constant_of(op.B)
    if x_type is None or y_type is None or weights is None or (bias is None and not no_bias):
        return
    x_shape, y_shape = list(x_type.get_shape()), list(y_type.get_shape())
    rank = len(x_shape) - 2
    group = int(op.attr("group") or 1)
    if rank not in (1, 2) or weights.ndim != rank + 2 or group < 1:
        return
    channels, per_group = weights.shape[:2]
    given = op.attr("kernel_shape")
    if channels != x_shape[1] or channels % group or (given and given != list(weights.shape[2:])):
        return
    if bias is not None and bias.size != per_group * group:
        return
    try:
        window = _Window(op, x_shape, list(weights.shape[2:]))
    except OnnxcError:
        return  # the plain lowering reports it
    if y_shape != [x_shape[0], per_group * group, *window.out]:
        return
    if all(s == 1 for s in window.strides):
        _as_convolution(op, window, weights, group)
    elif group == 1 and min(window.begins + window.ends) >= 0:
        columns = weights.size * x_shape[0] * int(np.prod(x_shape[2:])) // channels
        if not kernels.unrolled or columns <= int(np.prod(y_shape)):
            _as_columns(op, window, weights, bias, x_shape)


def _as_convolution(
    op: onnx.ConvTransposeOp, window: _Window, weights: np.ndarray, group: int
) -> None:
    """Stride 1: the convolution with the flipped, swapped kernel."""
    reach = [d * (k - 1) for d, k in zip(window.dilations, window.kernel, strict=True)]
    starts = [r - b for r, b in zip(reach, window.begins, strict=True)]
    ends = [r - e for r, e in zip(reach, window.ends, strict=True)]
    if min(starts + ends) < 0:
        return
    channels, per_group = weights.shape[:2]
    spatial = weights.shape[2:]
    # [G, C/G, M/G, k...] -> [G, M/G, C/G, k...], each kernel flipped
    swapped = weights.reshape(group, channels // group, per_group, *spatial).swapaxes(1, 2)
    flipped = swapped[(Ellipsis, *[slice(None, None, -1)] * len(spatial))]
    y_type = op.Y.type
    assert isinstance(y_type, TensorType)
    point = InsertPoint.before(op)
    hint = op.W.name_hint or "weights"
    w = constant_op(
        np.ascontiguousarray(flipped.reshape(group * per_group, channels // group, *spatial)),
        f"{hint}_flipped",
        point,
    )
    _replace(
        op,
        op.X,
        w,
        op.B,
        {
            "kernel_shape": ints(list(spatial)),
            "dilations": ints(window.dilations),
            "pads": ints(starts + ends),
            "group": IntegerAttr(group, i64),
        },
        y_type,
    )


def _as_columns(
    op: onnx.ConvTransposeOp,
    window: _Window,
    weights: np.ndarray,
    bias: np.ndarray | None,
    x_shape: list[int],
) -> None:
    """Group 1, any stride: a 1x1 convolution into columns, then Col2Im."""
    channels, outputs = weights.shape[:2]
    taps = int(np.prod(window.kernel))
    rank = len(window.kernel)
    n, spatial = x_shape[0], x_shape[2:]
    point = InsertPoint.before(op)
    hint = op.W.name_hint or "weights"
    # [C, M, k...] -> [M * K, C, 1...]: column m * K + k is tap k of channel m
    matrix = weights.reshape(channels, outputs * taps).T.reshape(outputs * taps, channels)
    w = constant_op(
        np.ascontiguousarray(matrix.reshape(outputs * taps, channels, *[1] * rank)),
        f"{hint}_columns",
        point,
    )
    inside = window.overlap_free
    b = None
    if bias is not None and inside:
        b = constant_op(
            np.repeat(bias.astype(np.float32).reshape(-1), taps), f"{hint}_taps_bias", point
        )
    label = onnx.node_name(op) or "conv_transpose"
    z_shape = [n, outputs * taps, *spatial]
    z = _replace(
        op,
        op.X,
        w,
        b if b is not None else no_value(point),
        {"kernel_shape": ints([1] * rank)},
        TensorType(f32, z_shape),
        keep=True,
    )
    flat = reshaped(z, [n, outputs * taps, int(np.prod(spatial))], point)
    y_type = op.Y.type
    assert isinstance(y_type, TensorType)
    scatter = onnx.Col2ImOp.create(
        operands=[
            flat,
            constant_op(np.array(window.out, np.int64), "image_shape", point),
            constant_op(np.array(window.kernel, np.int64), "block_shape", point),
        ],
        result_types=[y_type],
        properties={
            "strides": ints(window.strides),
            "dilations": ints(window.dilations),
            "pads": ints(window.begins + window.ends),
        },
        attributes={ONNX_NODE_NAME: StringAttr(f"{label} scatter")},
    )
    Rewriter.insert_op(scatter, point)
    result: SSAValue = scatter.output
    if bias is not None and b is None:
        shift = constant_op(
            bias.astype(np.float32).reshape(outputs, *[1] * rank), f"{hint}_bias", point
        )
        add = onnx.AddOp.create(
            operands=[result, shift],
            result_types=[y_type],
            attributes={ONNX_NODE_NAME: StringAttr(f"{label} bias")},
        )
        Rewriter.insert_op(add, point)
        result = add.C
    op.Y.replace_all_uses_with(result)
    Rewriter.erase_op(op)


def _replace(
    op: onnx.ConvTransposeOp,
    x: SSAValue,
    w: SSAValue,
    b: SSAValue,
    properties: dict[str, Attribute],
    result_type: TensorType,
    keep: bool = False,
) -> SSAValue:
    """An `onnx.Conv` of `x`, `w`, `b` before `op`, named after it; it
    replaces `op` unless `keep`."""
    conv = onnx.ConvOp.create(
        operands=[x, w, b],
        result_types=[result_type],
        properties=properties,
        attributes={ONNX_NODE_NAME: StringAttr(onnx.node_name(op) or "conv_transpose")},
    )
    Rewriter.insert_op(conv, InsertPoint.before(op))
    conv.Y.name_hint = op.Y.name_hint
    if not keep:
        op.Y.replace_all_uses_with(conv.Y)
        Rewriter.erase_op(op)
    return conv.Y
