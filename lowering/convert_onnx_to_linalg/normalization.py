"""Normalization: `onnx.BatchNormalization` (inference) and
`onnx.LayerNormalization`.

BatchNormalization's constant statistics are folded at compile time, with
numpy, into one multiplier and one addend per channel, stored as
`memref.global` weights. LayerNormalization computes its statistics per row:
a sum, the mean, a sum of squared deviations, the inverse standard deviation,
then the normalized, scaled and shifted output.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    accumulator_type,
    alloc,
    broadcast_into,
    buffer_of,
    constant_value,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    normalize_axis,
    shape_of,
    tensor_type,
    unsupported,
    weight,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, number
from onnxc.lowering.convert_onnx_to_linalg.views import view
from onnxc.lowering.index_arith import Size

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
        known = [p for p in params if p is not None]
        if len(known) == len(params):
            scale, bias, mean, var = (np.asarray(p, dtype=np.float64) for p in known)
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


class LayerNormalizationOpLowering(OnnxLowering[onnx.LayerNormalizationOp]):
    """`onnx.LayerNormalization`: X normalized over its axes from `axis` on
    (negative counts from the end), Y = (X - mean) * InvStdDev * Scale + B,
    InvStdDev = 1 / sqrt(variance + epsilon) (the population variance), Scale
    and B broadcast to X. The statistics are computed in float (double for
    double inputs): `stash_type` 1, the only one onnxruntime implements. The
    optional Mean and InvStdDev outputs have X's rank with size-1 normalized
    axes."""

    def rewrite(self, op: onnx.LayerNormalizationOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        shape = shapes.sizes(op.X)
        rank = len(shape)
        if rank == 0:
            raise unsupported(op, "scalar input")
        axis = normalize_axis(op, op.attr("axis"), rank)
        epsilon = float(op.attr("epsilon"))
        element = element_type(op.X)
        wide = accumulator_type(element)
        outer = shape[:axis]
        count = shapes.product(shape[axis:])
        stats_type = MemRefType(wide, [s if isinstance(s, int) else DYNAMIC_INDEX for s in outer])
        to_stats = AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in range(axis)))
        over_rows = [PARALLEL] * axis + [REDUCTION] * (rank - axis)
        stats = identity_map(axis)
        x = buffer_of(rewriter, op.X)
        mean = alloc(rewriter, stats_type, outer)
        fill(rewriter, op, mean, 0.0)

        def add_x(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            return scalar.ADD(b, args[-1], *widened(b, args[:1], wide))

        generic(rewriter, op, [x], [mean], [identity_map(rank), to_stats], over_rows, add_x)

        def per_element(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            return scalar.DIV(b, args[0], number(b, count, wide))

        generic(rewriter, op, [], [mean], [stats], [PARALLEL] * axis, per_element)
        inverse = alloc(rewriter, stats_type, outer)
        fill(rewriter, op, inverse, 0.0)

        def add_square(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            (value,) = widened(b, args[:1], wide)
            deviation = scalar.SUB(b, value, args[1])
            return scalar.ADD(b, args[2], scalar.MUL(b, deviation, deviation))

        generic(
            rewriter,
            op,
            [x, mean],
            [inverse],
            [identity_map(rank), to_stats, to_stats],
            over_rows,
            add_square,
        )

        def inverse_std(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            variance = scalar.DIV(b, args[0], number(b, count, wide))
            shifted = scalar.ADD(b, variance, constant(b, epsilon, wide))
            root = b.insert(math_dialect.SqrtOp(shifted)).result
            return scalar.DIV(b, constant(b, 1.0, wide), root)

        generic(rewriter, op, [], [inverse], [stats], [PARALLEL] * axis, inverse_std)
        y = self.result_buffer(rewriter, op.Y, shape)
        tensors = [op.X, op.Scale] + ([] if is_none(op.B) else [op.B])

        def normalized(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            *values, m, inv = args
            value, scale, *bias = widened(b, values, wide)
            result = scalar.MUL(b, scalar.MUL(b, scalar.SUB(b, value, m), inv), scale)
            if bias:
                result = scalar.ADD(b, result, bias[0])
            return scalar.convert(b, result, element)

        extra = [(mean, to_stats), (inverse, to_stats)]
        broadcast_into(rewriter, shapes, op, normalized, tensors, y, extra)
        kept = [*outer, *[1] * (rank - axis)]
        statistics = [
            self._statistic(rewriter, op, result, buffer, kept)
            for result, buffer in ((op.Mean, mean), (op.InvStdDev, inverse))
        ]
        self.replace(rewriter, op, [y, *statistics])

    def _statistic(
        self,
        rewriter: PatternRewriter,
        op: onnx.LayerNormalizationOp,
        result: SSAValue,
        buffer: SSAValue,
        sizes: Sequence[Size],
    ) -> SSAValue | None:
        """The Mean or InvStdDev output from its statistics buffer: None when
        omitted, else converted to its element type and seen at X's rank."""
        if is_none(result):
            return None
        target = tensor_type(result).get_element_type()
        if target != element_type(buffer):
            outer = self.shapes.sizes(buffer)
            converted = alloc(rewriter, MemRefType(target, shape_of(buffer)), outer)
            rank = len(outer)
            generic(
                rewriter,
                op,
                [buffer],
                [converted],
                [identity_map(rank)] * 2,
                [PARALLEL] * rank,
                lambda b, args: scalar.convert(b, args[0], target),
            )
            buffer = converted
        return view(rewriter, self.shapes, op, buffer, self.shapes.result_sizes(result, sizes))
