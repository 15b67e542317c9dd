"""The softmax family: `onnx.Softmax`, `onnx.LogSoftmax` and `onnx.Hardmax`,
each along the single axis `axis` (default -1; opset 13 semantics, older
models are upgraded by the importer).

Softmax and LogSoftmax are numerically stable: they first reduce the maximum
along the axis into a buffer without it, and exponentiate `x - max`; 16-bit
floats are summed in float and rounded once, and the exponentials of a long
float axis in double (reduction/blocks.py's `sum_type`), the sum rounded once
to float before dividing by it or taking its log. Hardmax is the one-hot of
the first maximum (reduction/blocks.py's `arg_best`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    Accumulator,
    BodyBuilder,
    OnnxLowering,
    accumulator,
    accumulator_type,
    buffer_of,
    element_type,
    fill,
    generic,
    identity_map,
    shape_of,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.reduction.blocks import (
    accumulate,
    arg_best,
    reduce_rows,
    reduced_buffer,
    reduced_map,
    reduction_iterators,
    sizes_and_axis,
    sum_type,
)
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size


@dataclass
class AlongAxis:
    """What the lowerings of this module share: the input's buffer, the maps
    from its loops to itself and to a buffer without `axis`, the sizes of
    such a buffer, the output buffer and its sizes, and whether long sums
    accumulate in double (`sum_type`)."""

    rank: int
    axis: int
    input: SSAValue
    identity: AffineMap
    reduced: AffineMap
    kept: list[Size]
    result: SSAValue
    sizes: list[Size]
    shapes: Shapes
    double_sums: bool

    def accumulator(self, rewriter: PatternRewriter) -> Accumulator:
        return accumulator(rewriter, self.result, self.sizes)

    def sum_type(self, element: Attribute) -> Attribute:
        """The type a sum of `element`s along the axis accumulates in."""
        size = self.sizes[self.axis]
        return sum_type(element, size if isinstance(size, int) else None, self.double_sums)


def along_axis(
    lowering: OnnxLowering[Any], op: onnx.OnnxOp, rewriter: PatternRewriter
) -> AlongAxis:
    """The `AlongAxis` of `op` (its output allocated); scalars are rejected."""
    shape, axis = sizes_and_axis(op, lowering.shapes)
    input_buffer = buffer_of(rewriter, op.operands[0])
    result = lowering.result_buffer(rewriter, op.results[0], shape)
    return axis_of(lowering, input_buffer, axis, result)


def axis_of(
    lowering: OnnxLowering[Any], input_buffer: SSAValue, axis: int, result: SSAValue
) -> AlongAxis:
    """The `AlongAxis` of `input_buffer` along `axis`, into `result` (a
    buffer of its sizes)."""
    shapes = lowering.shapes
    rank = len(shape_of(input_buffer))
    out_sizes = shapes.sizes(result)
    return AlongAxis(
        rank,
        axis,
        input_buffer,
        identity_map(rank),
        reduced_map(rank, {axis}, keepdims=False),
        [size for index, size in enumerate(out_sizes) if index != axis],
        result,
        out_sizes,
        shapes,
        lowering.context.double_sums,
    )


def axis_maximum(rewriter: PatternRewriter, op: onnx.OnnxOp, along: AlongAxis) -> SSAValue:
    """A new buffer holding the maximum along the axis (NaN if any is)."""
    element = element_type(along.input)
    maximum = reduced_buffer(rewriter, element, along.kept)
    fill(rewriter, op, maximum, scalar.lowest(element))
    reduce_along(rewriter, op, along, along.input, maximum, accumulate(scalar.MAX))
    return maximum


def reduce_along(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    along: AlongAxis,
    source: SSAValue,
    target: SSAValue,
    body: BodyBuilder,
) -> None:
    """`target` (a buffer without the axis) accumulates `source` (one of the
    input's shape) along the axis with `body` (`reduce_rows` when the axis is
    the last one)."""
    if along.axis == along.rank - 1:
        reduce_rows(rewriter, along.shapes, op, [(source, True)], target, body)
        return
    generic(
        rewriter,
        op,
        [source],
        [target],
        [along.identity, along.reduced],
        reduction_iterators(along.rank, {along.axis}),
        body,
    )


def _shifted(b: Builder, x: SSAValue, top: SSAValue, t: Attribute) -> SSAValue:
    """x - top, computed in `t`."""
    return scalar.SUB(b, *widened(b, [x, top], t))


class SoftmaxOpLowering(OnnxLowering[onnx.SoftmaxOp]):
    """`onnx.Softmax`: the maximum along the axis (a -inf fill and a
    max-reduction), exp(x - max) into the output, its sum along the axis (a
    zero fill and an add-reduction, in double along a long float axis), and
    an in-place division of the output by the sum (rounded to the output's
    compute type)."""

    def rewrite(self, op: onnx.SoftmaxOp, rewriter: PatternRewriter) -> None:
        along = along_axis(self, op, rewriter)
        maximum = axis_maximum(rewriter, op, along)
        out = along.accumulator(rewriter)
        output = out.buffer
        wide = element_type(output)
        generic(
            rewriter,
            op,
            [along.input, maximum],
            [output],
            [along.identity, along.reduced, along.identity],
            [PARALLEL] * along.rank,
            lambda b, args: scalar.EXP(b, _shifted(b, args[0], args[1], wide)),
        )
        total = reduced_buffer(rewriter, along.sum_type(element_type(along.input)), along.kept)
        fill(rewriter, op, total, 0.0)
        reduce_along(rewriter, op, along, output, total, accumulate(scalar.ADD))
        generic(
            rewriter,
            op,
            [total],
            [output],
            [along.reduced, along.identity],
            [PARALLEL] * along.rank,
            lambda b, args: scalar.DIV(b, args[1], scalar.convert(b, args[0], wide)),
        )
        out.finish(rewriter, op)
        self.replace(rewriter, op, [along.result])


class LogSoftmaxOpLowering(OnnxLowering[onnx.LogSoftmaxOp]):
    """`onnx.LogSoftmax`: see `log_softmax_into`."""

    def rewrite(self, op: onnx.LogSoftmaxOp, rewriter: PatternRewriter) -> None:
        along = along_axis(self, op, rewriter)
        out = along.accumulator(rewriter)
        log_softmax_into(rewriter, op, along, out.buffer)
        out.finish(rewriter, op)
        self.replace(rewriter, op, [along.result])


def log_softmax_into(
    rewriter: PatternRewriter, op: onnx.OnnxOp, along: AlongAxis, output: SSAValue
) -> None:
    """Write the log-softmax of `along.input` into `output` (a buffer of the
    accumulator type): the maximum along the axis, the sum of exp(x - max)
    along it (one add-reduction reading x and the maximum; in double along a
    long float axis), and (x - max) - log(sum), the sum rounded to the
    accumulator type first."""
    maximum = axis_maximum(rewriter, op, along)
    wide = accumulator_type(element_type(along.input))
    total = reduced_buffer(rewriter, along.sum_type(element_type(along.input)), along.kept)
    fill(rewriter, op, total, 0.0)

    def add_exp(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        term = scalar.EXP(b, _shifted(b, args[0], args[1], wide))
        return scalar.ADD(b, args[2], *widened(b, [term], args[2].type))

    generic(
        rewriter,
        op,
        [along.input, maximum],
        [total],
        [along.identity, along.reduced, along.reduced],
        reduction_iterators(along.rank, {along.axis}),
        add_exp,
    )

    def log_softmax(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x, top, sum_ = args[:3]
        shifted = _shifted(b, x, top, wide)
        return scalar.SUB(b, shifted, scalar.LOG(b, scalar.convert(b, sum_, wide)))

    generic(
        rewriter,
        op,
        [along.input, maximum, total],
        [output],
        [along.identity, along.reduced, along.reduced, along.identity],
        [PARALLEL] * along.rank,
        log_softmax,
    )


class HardmaxOpLowering(OnnxLowering[onnx.HardmaxOp]):
    """`onnx.Hardmax`: 1 at the first maximum along the axis, 0 elsewhere
    (`arg_best`, then a one-hot generic). As onnxruntime, a row whose first
    element is NaN has no 1 (NaN elsewhere is never the maximum)."""

    def rewrite(self, op: onnx.HardmaxOp, rewriter: PatternRewriter) -> None:
        along = along_axis(self, op, rewriter)
        element = element_type(along.input)
        values = reduced_buffer(rewriter, element, along.kept)
        indices = reduced_buffer(rewriter, IntegerType(64), along.kept)
        arg_best(rewriter, op, op.operands[0], along.axis, scalar.GREATER, values, indices, False)
        target = element_type(along.result)

        def one_hot(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            best, best_index = args[:2]
            here = b.insert(IndexOp(along.axis)).result
            position = b.insert(arith.IndexCastOp(here, IntegerType(64))).result
            hit = scalar.AND(b, scalar.EQUAL(b, position, best_index), scalar.EQUAL(b, best, best))
            return scalar.convert(b, hit, target)

        generic(
            rewriter,
            op,
            [values, indices],
            [along.result],
            [along.reduced, along.reduced, along.identity],
            [PARALLEL] * along.rank,
            one_hot,
        )
        self.replace(rewriter, op, [along.result])
