"""Normalizations by statistics computed over some axes of X:
LayerNormalization, InstanceNormalization, GroupNormalization,
MeanVarianceNormalization and RMSNormalization.

Each computes, per position of the kept axes, the mean and the spread of X
over the reduced axes (`statistics`: a sum, the mean, a sum of squared
deviations, in float for 16-bit floats, as the specs' stash_type 1 says),
turns the spread into the factor that normalizes (`finish`), and writes
Y = (X - mean) * factor * scale + bias in one generic, reading the
statistics through a map that drops the reduced axes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

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
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    normalize_axis,
    shape_of,
    tensor_type,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.reduction.blocks import reduce_rows
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, number
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import view
from onnxc.lowering.index_arith import Size


@dataclass(frozen=True)
class Statistics:
    """Per position of the kept axes: `mean` (None when not centered) and
    `factor` (the spread, then what `finish` makes of it), both read from X's
    loops through `to_stats`; `count` elements per position."""

    mean: SSAValue | None
    factor: SSAValue
    to_stats: AffineMap
    kept: list[Size]
    count: Size
    wide: Attribute


def statistics(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    x: SSAValue,
    reduced: set[int],
    *,
    center: bool = True,
) -> Statistics:
    """The mean of buffer `x` over the `reduced` axes and the mean squared
    deviation from it (or, not centered, the mean square)."""
    sizes = shapes.sizes(x)
    rank = len(sizes)
    kept_axes = [d for d in range(rank) if d not in reduced]
    kept = [sizes[d] for d in kept_axes]
    count = shapes.product([sizes[d] for d in sorted(reduced)])
    wide = accumulator_type(element_type(x))
    stats_type = MemRefType(wide, [s if isinstance(s, int) else DYNAMIC_INDEX for s in kept])
    to_stats = AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in kept_axes))
    iterators = [REDUCTION if d in reduced else PARALLEL for d in range(rank)]
    last_only = reduced == {rank - 1}  # rows: see `reduce_rows`
    over_stats = [PARALLEL] * len(kept)

    def mean_of(buffer: SSAValue) -> None:
        def divide(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            return scalar.DIV(b, args[0], number(b, count, wide))

        generic(rewriter, op, [], [buffer], [identity_map(len(kept))], over_stats, divide)

    mean: SSAValue | None = None
    if center:
        mean = alloc(rewriter, stats_type, kept)
        fill(rewriter, op, mean, 0.0)

        def add_x(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            return scalar.ADD(b, args[-1], *widened(b, args[:1], wide))

        if last_only:
            reduce_rows(rewriter, shapes, op, [(x, True)], mean, add_x)
        else:
            generic(rewriter, op, [x], [mean], [identity_map(rank), to_stats], iterators, add_x)
        mean_of(mean)
    spread = alloc(rewriter, stats_type, kept)
    fill(rewriter, op, spread, 0.0)

    def add_square(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        (value,) = widened(b, args[:1], wide)
        deviation = scalar.SUB(b, value, args[1]) if mean is not None else value
        return scalar.ADD(b, args[-1], scalar.MUL(b, deviation, deviation))

    inputs = [x] if mean is None else [x, mean]
    if last_only:
        flagged = [(buffer, buffer is x) for buffer in inputs]
        reduce_rows(rewriter, shapes, op, flagged, spread, add_square)
    else:
        maps = [identity_map(rank), *([to_stats] if mean is not None else []), to_stats]
        generic(rewriter, op, inputs, [spread], maps, iterators, add_square)
    mean_of(spread)
    return Statistics(mean, spread, to_stats, kept, count, wide)


def finish(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    stats: Statistics,
    factor: Callable[[Builder, SSAValue], SSAValue],
) -> None:
    """Turn the spread into the normalizing factor, in place."""
    rank = len(stats.kept)
    generic(
        rewriter,
        op,
        [],
        [stats.factor],
        [identity_map(rank)],
        [PARALLEL] * rank,
        lambda b, args: factor(b, args[0]),
    )


def inverse_root(epsilon: float) -> Callable[[Builder, SSAValue], SSAValue]:
    """1 / sqrt(variance + epsilon)."""

    def factor(b: Builder, variance: SSAValue) -> SSAValue:
        shifted = scalar.ADD(b, variance, constant(b, epsilon, variance.type))
        root = b.insert(math_dialect.SqrtOp(shifted)).result
        return scalar.DIV(b, constant(b, 1.0, variance.type), root)

    return factor


Body = Callable[[Builder, Sequence[SSAValue]], SSAValue]


def normalized(stats: Statistics, element: Attribute, scaled: int, shifted: int) -> Body:
    """The body of Y = (X - mean) * factor [* scale] [+ bias]: it gets X's
    element, then `scaled` scale and `shifted` bias elements (0 or 1 each),
    then the statistics' mean (when centered) and factor."""

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        values = widened(b, args[: 1 + scaled + shifted], stats.wide)
        value, rest = values[0], values[1:]
        *_, factor = args
        if stats.mean is not None:
            value = scalar.SUB(b, value, args[-2])
        result = scalar.MUL(b, value, factor)
        if scaled:
            result = scalar.MUL(b, result, rest[0])
        if shifted:
            result = scalar.ADD(b, result, rest[-1])
        return scalar.convert(b, result, element)

    return body


def statistic_maps(stats: Statistics) -> list[tuple[SSAValue, AffineMap]]:
    """The statistics as extra operands of `broadcast_into`."""
    found = [] if stats.mean is None else [(stats.mean, stats.to_stats)]
    return [*found, (stats.factor, stats.to_stats)]


def _axes_from(op: onnx.LayerNormalizationOp | onnx.RMSNormalizationOp, rank: int) -> set[int]:
    """The axes Layer- and RMSNormalization normalize: from `axis` (negative
    counts from the end) to the last."""
    if rank == 0:
        raise unsupported(op, "scalar input")
    return set(range(normalize_axis(op, op.attr("axis"), rank), rank))


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
        x = buffer_of(rewriter, op.X)
        axes = _axes_from(op, len(shape))
        stats = statistics(rewriter, shapes, op, x, axes)
        finish(rewriter, op, stats, inverse_root(float(op.attr("epsilon"))))
        y = self.result_buffer(rewriter, op.Y, shape)
        tensors = [op.X, op.Scale] + ([] if is_none(op.B) else [op.B])
        body = normalized(stats, element_type(op.X), 1, int(not is_none(op.B)))
        broadcast_into(rewriter, shapes, op, body, tensors, y, statistic_maps(stats))
        kept = [*stats.kept, *[1] * len(axes)]
        outputs = [
            self._statistic(rewriter, op, result, buffer, kept)
            for result, buffer in ((op.Mean, stats.mean), (op.InvStdDev, stats.factor))
        ]
        self.replace(rewriter, op, [y, *outputs])

    def _statistic(
        self,
        rewriter: PatternRewriter,
        op: onnx.LayerNormalizationOp,
        result: SSAValue,
        buffer: SSAValue | None,
        sizes: Sequence[Size],
    ) -> SSAValue | None:
        """The Mean or InvStdDev output from its statistics buffer: None when
        omitted, else converted to its element type and seen at X's rank."""
        if is_none(result) or buffer is None:
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


def _per_channel(rank: int, channel: AffineExpr) -> AffineMap:
    return AffineMap(rank, 0, (channel,))


class InstanceNormalizationOpLowering(OnnxLowering[onnx.InstanceNormalizationOp]):
    """`onnx.InstanceNormalization`: X [N, C, ...] normalized over its spatial
    axes, per (n, c), times scale[c] plus B[c]."""

    def rewrite(self, op: onnx.InstanceNormalizationOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        shape = shapes.sizes(op.input)
        rank = len(shape)
        if rank < 3:
            raise unsupported(op, f"input must be [N, C, D1, ...], got rank {rank}")
        x = buffer_of(rewriter, op.input)
        stats = statistics(rewriter, shapes, op, x, set(range(2, rank)))
        finish(rewriter, op, stats, inverse_root(float(op.attr("epsilon"))))
        y = self.result_buffer(rewriter, op.output, shape)
        normalize_channels(rewriter, shapes, op, op.input, (op.scale, op.B), y, stats)
        self.replace(rewriter, op, [y])


def normalize_channels(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    x: SSAValue,
    parameters: tuple[SSAValue, SSAValue],
    y: SSAValue,
    stats: Statistics,
) -> None:
    """Y = (X - mean) * factor * scale[c] + bias[c] into buffer `y`, for
    tensor X [N, C, ...] and `parameters` (scale, bias) [C] (the statistics
    kept X's axis 1, and maybe axis 0)."""
    channel = _per_channel(len(shapes.sizes(x)), AffineDimExpr(1))
    extra = [(buffer_of(rewriter, v), channel) for v in parameters]
    body = _reordered(normalized(stats, element_type(x), 1, 1), stats)
    broadcast_into(rewriter, shapes, op, body, [x], y, [*statistic_maps(stats), *extra])


def _reordered(body: Body, stats: Statistics) -> Body:
    """`normalized`'s body for operands given as X, statistics, scale, bias
    (extras after the statistics)."""
    count = 1 if stats.mean is None else 2

    def reordered(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        value, *rest = args
        stats_args, parameters = rest[:count], rest[count:]
        return body(b, [value, *parameters, *stats_args])

    return reordered


class GroupNormalizationOpLowering(OnnxLowering[onnx.GroupNormalizationOp]):
    """`onnx.GroupNormalization` (opset 21: scale and bias per channel): X
    [N, C, ...] seen as [N, G, C/G, ...], normalized per (n, g) over the rest,
    then times scale[c] plus bias[c]. C must be known at compile time."""

    def rewrite(self, op: onnx.GroupNormalizationOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        shape = shapes.sizes(op.X)
        rank = len(shape)
        groups = int(op.attr("num_groups"))
        channels = shape[1] if rank >= 2 else None
        if rank < 3 or not isinstance(channels, int):
            raise unsupported(op, "X must be [N, C, D1, ...] with C known at compile time")
        if groups <= 0 or channels % groups:
            raise unsupported(op, f"{channels} channels do not split into {groups} groups")
        per_group = channels // groups
        x = buffer_of(rewriter, op.X)
        grouped_sizes = [shape[0], groups, per_group, *shape[2:]]
        grouped = view(rewriter, shapes, op, x, grouped_sizes)
        stats = statistics(rewriter, shapes, op, grouped, set(range(2, rank + 1)))
        finish(rewriter, op, stats, inverse_root(float(op.attr("epsilon"))))
        y = self.result_buffer(rewriter, op.Y, shape)
        y_grouped = view(rewriter, shapes, op, y, grouped_sizes)
        channel = _per_channel(rank + 1, AffineDimExpr(1) * per_group + AffineDimExpr(2))
        parameters = [(buffer_of(rewriter, v), channel) for v in (op.scale, op.bias)]
        body = _reordered(normalized(stats, element_type(op.X), 1, 1), stats)
        extra = [*statistic_maps(stats), *parameters]
        broadcast_into(
            rewriter, shapes, op, body, [], y_grouped, [(grouped, identity_map(rank + 1)), *extra]
        )
        self.replace(rewriter, op, [y])


class MeanVarianceNormalizationOpLowering(OnnxLowering[onnx.MeanVarianceNormalizationOp]):
    """`onnx.MeanVarianceNormalization`: (X - mean) / (sqrt(variance) + 1e-9)
    over `axes` (default [0, 2, 3]), as the spec's function body computes it
    (its epsilon goes after the root)."""

    def rewrite(self, op: onnx.MeanVarianceNormalizationOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        shape = shapes.sizes(op.X)
        rank = len(shape)
        axes = {normalize_axis(op, int(a), rank) for a in op.attr("axes")}
        x = buffer_of(rewriter, op.X)
        stats = statistics(rewriter, shapes, op, x, axes)

        def factor(b: Builder, variance: SSAValue) -> SSAValue:
            root = b.insert(math_dialect.SqrtOp(variance)).result
            shifted = scalar.ADD(b, root, constant(b, 1e-9, variance.type))
            return scalar.DIV(b, constant(b, 1.0, variance.type), shifted)

        finish(rewriter, op, stats, factor)
        y = self.result_buffer(rewriter, op.Y, shape)
        body = normalized(stats, element_type(op.X), 0, 0)
        broadcast_into(rewriter, shapes, op, body, [op.X], y, statistic_maps(stats))
        self.replace(rewriter, op, [y])


class RMSNormalizationOpLowering(OnnxLowering[onnx.RMSNormalizationOp]):
    """`onnx.RMSNormalization`: X / sqrt(mean(X^2) + epsilon) * scale over the
    axes from `axis` on; scale broadcasts to X."""

    def rewrite(self, op: onnx.RMSNormalizationOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        shape = shapes.sizes(op.X)
        x = buffer_of(rewriter, op.X)
        stats = statistics(rewriter, shapes, op, x, _axes_from(op, len(shape)), center=False)
        finish(rewriter, op, stats, inverse_root(float(op.attr("epsilon"))))
        y = self.result_buffer(rewriter, op.Y, shape)
        body = normalized(stats, element_type(op.X), 1, 0)
        broadcast_into(rewriter, shapes, op, body, [op.X, op.scale], y, statistic_maps(stats))
        self.replace(rewriter, op, [y])
