"""Normalization with given statistics or local windows:
`onnx.BatchNormalization`, `onnx.LpNormalization`, `onnx.LRN`.
(Normalizations that compute mean and variance are in `moments.py`, whose
statistics BatchNormalization's training mode uses.)

BatchNormalization's constant statistics are folded at compile time, with
numpy, into one multiplier and one addend per channel, stored as
`memref.global` weights.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.dialects.linalg.ops import IndexOp
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
    buffer_of,
    constant_value,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    normalize_axis,
    unsupported,
    weight,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.normalization.moments import (
    finish,
    inverse_root,
    normalize_channels,
    statistics,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import for_range, index
from onnxc.lowering.index_arith import Size

# --------------------------------------------------------------------------
# Normalization


class BatchNormalizationOpLowering(OnnxLowering[onnx.BatchNormalizationOp]):
    """`onnx.BatchNormalization` on X [N, C, ...].

    Inference (training_mode=0): with constant scale, B, mean and var it is
    folded at compile time into `x * a[c] + b[c]` (a = scale / sqrt(var +
    epsilon), b = B - mean * a, two weights); otherwise one elementwise
    generic computes `(x - mean) / sqrt(var + epsilon) * scale + B`.

    Training (training_mode=1, opset 14 and 15): Y is normalized with the
    batch's own mean and population variance per channel (over every axis but
    1; computed in float for 16-bit floats, as the spec says), and the
    optional running_mean and running_var are input_mean * momentum +
    current_mean * (1 - momentum) and input_var * momentum + current_var *
    (1 - momentum), current_var being that same population variance (the
    spec, onnx.reference and onnxruntime's CPU kernel agree)."""

    def rewrite(self, op: onnx.BatchNormalizationOp, rewriter: PatternRewriter) -> None:
        x_value = op.operands[0]
        x_shape = self.shapes.sizes(x_value)
        if len(x_shape) < 2:
            raise unsupported(op, f"X must be [N, C, ...], got {list(x_shape)}")
        for value, name in zip(op.operands[1:], ("scale", "B", "mean", "var"), strict=True):
            sizes = self.shapes.sizes(value)
            if len(sizes) != 1 or not self.shapes.same(sizes[0], x_shape[1]):
                raise unsupported(op, f"{name} of shape {sizes} is not [C={x_shape[1]}]")
        if op.attr("training_mode"):
            self._training(op, rewriter, x_shape)
            return
        rank = len(x_shape)
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

    def _training(
        self, op: onnx.BatchNormalizationOp, rewriter: PatternRewriter, x_shape: Sequence[Size]
    ) -> None:
        """training_mode=1: the batch's statistics, the running ones from
        them, then Y."""
        x = buffer_of(rewriter, op.X)
        stats = statistics(rewriter, self.shapes, op, x, set(range(len(x_shape))) - {1})
        if stats.mean is None:
            raise unsupported(op, "no batch mean")  # statistics() centers by default
        momentum = float(op.attr("momentum"))
        running = [
            self._running(rewriter, op, result, given, current, momentum)
            for result, given, current in (
                (op.running_mean, op.input_mean, stats.mean),
                (op.running_var, op.input_var, stats.factor),  # still the variance
            )
        ]
        finish(rewriter, op, stats, inverse_root(float(op.attr("epsilon"))))
        y = self.result_buffer(rewriter, op.Y, x_shape)
        normalize_channels(rewriter, self.shapes, op, op.X, (op.scale, op.B), y, stats)
        self.replace(rewriter, op, [y, *running])

    def _running(
        self,
        rewriter: PatternRewriter,
        op: onnx.BatchNormalizationOp,
        result: SSAValue,
        given: SSAValue,
        current: SSAValue,
        momentum: float,
    ) -> SSAValue | None:
        """The running statistic `result` (None when omitted): `given` *
        momentum + `current` * (1 - momentum), in float for 16-bit floats."""
        if is_none(result):
            return None
        output = self.result_buffer(rewriter, result, self.shapes.sizes(given))
        target = element_type(output)
        wide = accumulator_type(target)

        def update(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            given_value, current_value = widened(b, args[:2], wide)
            kept = scalar.MUL(b, given_value, constant(b, momentum, wide))
            added = scalar.MUL(b, current_value, constant(b, 1.0 - momentum, wide))
            return scalar.convert(b, scalar.ADD(b, kept, added), target)

        maps = [identity_map(1)] * 3
        inputs = [buffer_of(rewriter, given), current]
        generic(rewriter, op, inputs, [output], maps, [PARALLEL], update)
        return output


class LpNormalizationOpLowering(OnnxLowering[onnx.LpNormalizationOp]):
    """`onnx.LpNormalization`: x / ||x||_p along `axis`, p 1 (sum of
    magnitudes) or 2 (Euclidean); where the norm is zero (every element
    along the axis zero) the output is zero, as the spec (opset 22) defines
    it."""

    def rewrite(self, op: onnx.LpNormalizationOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        shape = shapes.sizes(op.input)
        rank = len(shape)
        axis = normalize_axis(op, op.attr("axis"), rank)
        p = int(op.attr("p"))
        if p not in (1, 2):
            raise unsupported(op, f"p = {p} (the spec allows 1 and 2)")
        element = element_type(op.input)
        wide = accumulator_type(element)
        kept = [s for d, s in enumerate(shape) if d != axis]
        norms = alloc(rewriter, MemRefType(wide, _dynamic(kept)), kept)
        fill(rewriter, op, norms, 0.0)
        to_norm = AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in range(rank) if d != axis))
        x = buffer_of(rewriter, op.input)

        def add_term(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            (value,) = widened(b, args[:1], wide)
            term = scalar.ABS(b, value) if p == 1 else scalar.MUL(b, value, value)
            return scalar.ADD(b, args[1], term)

        iterators = [REDUCTION if d == axis else PARALLEL for d in range(rank)]
        generic(rewriter, op, [x], [norms], [identity_map(rank), to_norm], iterators, add_term)
        y = self.result_buffer(rewriter, op.output, shape)

        def divide(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            (value,) = widened(b, args[:1], wide)
            norm = args[1] if p == 1 else b.insert(math_dialect.SqrtOp(args[1])).result
            zero = scalar.constant(b, 0.0, wide)
            quotient = scalar.DIV(b, value, norm)
            is_zero = scalar.EQUAL(b, norm, zero)
            normalized = b.insert(arith.SelectOp(is_zero, zero, quotient)).result
            return scalar.convert(b, normalized, element)

        maps = [identity_map(rank), to_norm, identity_map(rank)]
        generic(rewriter, op, [x, norms], [y], maps, [PARALLEL] * rank, divide)
        self.replace(rewriter, op, [y])


def _dynamic(sizes: Sequence[Size]) -> list[int]:
    return [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]


class LRNOpLowering(OnnxLowering[onnx.LRNOp]):
    """`onnx.LRN` over the channels of X [N, C, ...]: y = x / (bias + alpha /
    size * sum of x^2 over channels c - (size - 1) / 2 .. c + size / 2 inside
    C)^beta."""

    def rewrite(self, op: onnx.LRNOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        shape = shapes.sizes(op.X)
        rank = len(shape)
        if rank < 3:
            raise unsupported(op, f"X must be [N, C, D1, ...], got rank {rank}")
        size = int(op.attr("size"))
        alpha, beta, bias = (float(op.attr(a)) for a in ("alpha", "beta", "bias"))
        element = element_type(op.X)
        wide = accumulator_type(element)
        x = buffer_of(rewriter, op.X)
        y = self.result_buffer(rewriter, op.Y, shape)
        channels = shapes.index(shape[1])
        before, after = (size - 1) // 2, size - 1 - (size - 1) // 2

        def body(b: Builder, _: Sequence[SSAValue]) -> SSAValue:
            at = [b.insert(IndexOp(d)).result for d in range(rank)]
            low = b.insert(arith.SubiOp(at[1], index(b, before))).result
            low = b.insert(arith.MaxSIOp(low, index(b, 0))).result
            high = b.insert(arith.AddiOp(at[1], index(b, after + 1))).result
            high = b.insert(arith.MinSIOp(high, channels)).result

            def add_square(ib: Builder, c: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                loaded = ib.insert(memref.LoadOp.get(x, [at[0], c, *at[2:]])).res
                (value,) = widened(ib, [loaded], wide)
                return [scalar.ADD(ib, acc[0], scalar.MUL(ib, value, value))]

            (total,) = for_range(b, low, high, [constant(b, 0.0, wide)], add_square)
            scaled = scalar.MUL(b, total, constant(b, alpha / size, wide))
            base = scalar.ADD(b, scaled, constant(b, bias, wide))
            power = scalar.POW(b, base, constant(b, beta, wide))
            center = b.insert(memref.LoadOp.get(x, at)).res
            (value,) = widened(b, [center], wide)
            return scalar.convert(b, scalar.DIV(b, value, power), element)

        generic(rewriter, op, [], [y], [identity_map(rank)], [PARALLEL] * rank, body)
        self.replace(rewriter, op, [y])
