"""Normalization: `onnx.BatchNormalization` (inference).

Constant statistics are folded at compile time, with numpy, into one multiplier
and one addend per channel, stored as `memref.global` weights.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import math as math_dialect
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    accumulator_type,
    buffer_of,
    constant_value,
    element_type,
    generic,
    identity_map,
    unsupported,
    weight,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant

# --------------------------------------------------------------------------
# Normalization


class BatchNormalizationOpLowering(OnnxLowering[onnx.BatchNormalizationOp]):
    """`onnx.BatchNormalization` in inference mode (training_mode=0) on
    X [N, C, ...]. With constant scale, B, mean and var it is folded at
    compile time into `x * a[c] + b[c]` (a = scale / sqrt(var + epsilon),
    b = B - mean * a, two weights); otherwise one elementwise generic
    computes `(x - mean) / sqrt(var + epsilon) * scale + B`. Rejects
    training_mode=1 (and so the running_mean/running_var outputs) and
    non-float types."""

    def rewrite(self, op: onnx.BatchNormalizationOp, rewriter: PatternRewriter) -> None:
        if op.attr("training_mode"):
            raise unsupported(op, "training_mode=1 is not supported (inference only)")
        x_value = op.operands[0]
        x_shape = self.shapes.sizes(x_value)
        if len(x_shape) < 2:
            raise unsupported(op, f"X must be [N, C, ...], got {list(x_shape)}")
        rank = len(x_shape)
        for value, name in zip(op.operands[1:], ("scale", "B", "mean", "var"), strict=True):
            sizes = self.shapes.sizes(value)
            if len(sizes) != 1 or not self.shapes.same(sizes[0], x_shape[1]):
                raise unsupported(op, f"{name} of shape {sizes} is not [C={x_shape[1]}]")
        epsilon = float(op.attr("epsilon"))
        x = buffer_of(rewriter, x_value)
        y = self.result_buffer(rewriter, op.results[0], x_shape)
        element = element_type(x)
        wide = accumulator_type(element)  # 16-bit floats compute in float
        channel_map = AffineMap(rank, 0, (AffineDimExpr(1),))
        params = [constant_value(v) for v in op.operands[1:]]
        folded_parameters = all(p is not None for p in params)
        if folded_parameters:
            scale, bias, mean, var = (np.asarray(p, dtype=np.float64) for p in params)  # type: ignore[arg-type]
            a = scale / np.sqrt(var + epsilon)
            b_fold = bias - mean * a
            multiplier = weight(rewriter, op, a, wide, "multiplier")
            addend = weight(rewriter, op, b_fold, wide, "addend")

            def folded(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
                x_arg, a_arg, b_arg = widened(b, args[:3], wide)
                return scalar.convert(b, scalar.ADD(b, scalar.MUL(b, x_arg, a_arg), b_arg), element)

            generic(
                rewriter,
                op,
                [x, multiplier, addend],
                [y],
                [identity_map(rank), channel_map, channel_map, identity_map(rank)],
                [PARALLEL] * rank,
                folded,
            )
        else:
            buffers = [buffer_of(rewriter, v) for v in op.operands[1:]]

            def formula(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
                x_arg, scale_arg, bias_arg, mean_arg, var_arg = widened(b, args[:5], wide)
                eps = constant(b, epsilon, wide)
                centered = scalar.SUB(b, x_arg, mean_arg)
                shifted = scalar.ADD(b, var_arg, eps)
                std = b.insert(math_dialect.SqrtOp(shifted)).result
                normalized = scalar.DIV(b, centered, std)
                result = scalar.ADD(b, scalar.MUL(b, normalized, scale_arg), bias_arg)
                return scalar.convert(b, result, element)

            generic(
                rewriter,
                op,
                [x, *buffers],
                [y],
                [identity_map(rank), *[channel_map] * 4, identity_map(rank)],
                [PARALLEL] * rank,
                formula,
            )
        self.replace(rewriter, op, [y, None, None])
