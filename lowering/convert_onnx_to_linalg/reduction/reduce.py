"""The Reduce* family: ReduceSum, ReduceMean, ReduceProd, ReduceMax,
ReduceMin, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum and
ReduceLogSumExp, one implementation given each operator's `Reduction`.

All take opset 18's form (older models are upgraded by the importer): the
reduced axes are the optional `axes` input (negative ones counted from the
end), `keepdims` (default 1) keeps them as size-1 dimensions, and no axes
means every axis, unless `noop_with_empty_axes` is set: then nothing is
reduced, and the operator applies only its per-element and final steps
(ReduceSumSquare squares, ReduceL1 takes |x|, ...), as onnxruntime and the
reference do.

Axes known at compile time (constants, or followed shape values) give
`linalg.generic`s with `reduction` iterators (reduction/blocks.py). Axes computed at
run time still give a result whose rank is known (from `keepdims` and the
number of axes); which axes are reduced is data. Then each reduced axis gets
size 1 (or is dropped from the result, which is a view of the same
elements), and one parallel generic over the output loops, in its body, over
the reduced extents (`scf.for`, extent 1 for a kept axis), reading the input
with `memref.load`.

Sums and products of integers wrap; float16 and bfloat16 accumulate in float
and round once; long float sums accumulate in double (reduction/blocks.py's
`sum_type`), their terms (x * x, |x|, exp(x - shift)) computed in float, and
the sum is rounded to float before the final step (ReduceMean's division,
ReduceL2's sqrt, a log), so no double division or function is called.

A reduction over no element gives the identity of its combination: 0 for
sums, 1 for products, the lowest value for ReduceMax (-inf for floats), the
highest for ReduceMin, and so -inf for ReduceLogSum(Exp) (log 0). ReduceMax
and ReduceMin propagate NaN, as the spec's numpy definition does
(onnxruntime ignores a NaN after the first element).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import Float64Type
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    Accumulator,
    OnnxLowering,
    accumulator_type,
    buffer_of,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    shape_of,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.reduction.blocks import (
    reduced_buffer,
    reduced_map,
    reduced_sizes,
    reduction_iterators,
    sum_type,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import ScalarOp, constant, convert, number
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import nest
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import (
    axis_flags,
    compacted,
    distinct_axes,
    view,
)
from onnxc.lowering.index_arith import Size, is_static

Term = Callable[[Builder, SSAValue, SSAValue | None], SSAValue]
"""What one element adds to the accumulation: gets the element (in the
accumulator's type) and the shift (ReduceLogSumExp's maximum, else None)."""

Final = Callable[[Builder, SSAValue, Size, SSAValue | None], SSAValue]
"""The result from the accumulated value: gets it, the number of reduced
elements and the shift."""


@dataclass(frozen=True)
class Reduction:
    """How a Reduce* operator reduces: `combine` (Add, Mul, Max, Min) of the
    `term`s of the elements (the element itself when None), from `initial`
    (the identity of `combine` on the accumulator's type), then `final`
    (none when None). A `shifted` reduction first finds the largest finite
    element (0 when there is none), the shift, which `term` and `final`
    get: log-sum-exp sums exp(x - shift) and adds the shift back, so large
    elements do not overflow."""

    combine: ScalarOp
    initial: Callable[[Attribute], float]
    term: Term | None = None
    final: Final | None = None
    shifted: bool = False
    single: bool = True
    """Whether the reduction of one element is the element (so that reducing
    no axis is a copy)."""

    def accumulates_in(self, element: Attribute, count: int | None, double: bool) -> Attribute:
        """The type a reduction of `count` values of `element` (None: a number
        known only at run time) accumulates in (`double`: see `sum_type`)."""
        if self.combine is scalar.ADD:
            return sum_type(element, count, double)
        return accumulator_type(element)

    def step(
        self,
        b: Builder,
        acc: SSAValue,
        x: SSAValue,
        shift: SSAValue | None,
        compute: Attribute,
    ) -> SSAValue:
        """The accumulator after element `x` (of any type: widened to
        `compute` first, the term computed there, then widened to the
        accumulator's type)."""
        (x,) = widened(b, [x], compute)
        term = x if self.term is None else self.term(b, x, shift)
        return self.combine(b, acc, *widened(b, [term], acc.type))

    def result(
        self, b: Builder, acc: SSAValue, count: Size, shift: SSAValue | None, compute: Attribute
    ) -> SSAValue:
        """The result from the accumulated value rounded to `compute` (the
        element's compute type)."""
        acc = convert(b, acc, compute)
        return acc if self.final is None else self.final(b, acc, count, shift)


def _finite_maximum(b: Builder, best: SSAValue, x: SSAValue) -> SSAValue:
    """max(best, x) over the finite x only (the shift's step)."""
    (x,) = widened(b, [x], best.type)
    finite = scalar.LESS(b, scalar.ABS(b, x), constant(b, float("inf"), x.type))
    return b.insert(arith.SelectOp(finite, scalar.MAX(b, best, x), best)).result


def _usable_shift(b: Builder, shift: SSAValue) -> SSAValue:
    """The shift, 0 when no element was finite (it is still -inf)."""
    none = scalar.EQUAL(b, shift, constant(b, float("-inf"), shift.type))
    return b.insert(arith.SelectOp(none, constant(b, 0, shift.type), shift)).result


def _in_float(operation: ScalarOp, b: Builder, value: SSAValue) -> SSAValue:
    """`operation` of a float value, or of an integer computed in double and
    truncated back, as onnxruntime does."""
    if scalar.kind(value.type) is Kind.FLOAT:
        return operation(b, value)
    return convert(b, operation(b, convert(b, value, Float64Type())), value.type)


def _mean(b: Builder, acc: SSAValue, count: Size, _: SSAValue | None) -> SSAValue:
    return scalar.DIV(b, acc, number(b, count, acc.type))


def _log_sum_exp(b: Builder, acc: SSAValue, _: Size, shift: SSAValue | None) -> SSAValue:
    assert shift is not None
    return scalar.ADD(b, scalar.LOG(b, acc), _usable_shift(b, shift))


def _exp_shifted(b: Builder, x: SSAValue, shift: SSAValue | None) -> SSAValue:
    assert shift is not None
    return scalar.EXP(b, scalar.SUB(b, x, _usable_shift(b, shift)))


def _zero(_: Attribute) -> float:
    return 0.0


def _one(_: Attribute) -> float:
    return 1.0


def _square(b: Builder, x: SSAValue, _: SSAValue | None) -> SSAValue:
    return scalar.MUL(b, x, x)


class ReduceLowering(OnnxLowering[onnx.OnnxOp]):
    """Base of the Reduce* lowerings: `reduction` says how the operator
    reduces; see the module docstring for what the lowering builds."""

    reduction: ClassVar[Reduction]

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        data, axes_value = op.operands[:2]
        rank = len(shape_of(data))
        keepdims = bool(op.attr("keepdims"))
        axes: list[Size] = []
        if not is_none(axes_value):
            axes = shape_elements(op, rewriter, self.shapes, axes_value)
        if not axes and op.attr("noop_with_empty_axes"):
            if self.reduction.single:
                self.replace(rewriter, op, [buffer_of(rewriter, data)])
            else:
                self.reduce(op, rewriter, set(), keepdims)
        elif is_static(axes):
            reduced = set(distinct_axes(op, np.array(axes, np.int64), rank))
            self.reduce(op, rewriter, reduced or set(range(rank)), keepdims)
        else:
            self.reduce_at_run_time(op, rewriter, axes, keepdims)

    def reduce(
        self, op: onnx.OnnxOp, rewriter: PatternRewriter, axes: set[int], keepdims: bool
    ) -> None:
        """Reduce `axes`, known at compile time: fills and generics."""
        data = op.operands[0]
        reduction = self.reduction
        shape = self.shapes.sizes(data)
        rank = len(shape)
        result = self.result_buffer(rewriter, op.results[0], reduced_sizes(shape, axes, keepdims))
        out_sizes = self.shapes.sizes(result)
        element = element_type(result)
        compute = accumulator_type(element)
        reduced = [shape[a] for a in axes]
        count = math.prod(reduced) if is_static(reduced) else None
        wide = reduction.accumulates_in(element, count, self.context.double_sums)
        if wide == element:
            acc = Accumulator(result, result)
        else:
            acc = Accumulator(reduced_buffer(rewriter, wide, out_sizes), result)
        maps = [identity_map(rank), reduced_map(rank, axes, keepdims)]
        iterators = reduction_iterators(rank, axes)
        input_buffer = buffer_of(rewriter, data)
        shifts: list[SSAValue] = []
        if reduction.shifted:
            shift = reduced_buffer(rewriter, compute, out_sizes)
            fill(rewriter, op, shift, float("-inf"))
            generic(
                rewriter,
                op,
                [input_buffer],
                [shift],
                maps,
                iterators,
                lambda b, args: _finite_maximum(b, args[1], args[0]),
            )
            shifts.append(shift)
        fill(rewriter, op, acc.buffer, reduction.initial(wide))

        def step(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            return reduction.step(b, args[-1], args[0], args[1] if shifts else None, compute)

        generic(
            rewriter,
            op,
            [input_buffer, *shifts],
            [acc.buffer],
            [*maps, *(maps[1] for _ in shifts)],
            iterators,
            step,
        )
        if reduction.final is not None:
            count = self.shapes.product(reduced)
            out_rank = len(out_sizes)

            def final(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
                value = reduction.result(b, args[-1], count, args[0] if shifts else None, compute)
                return widened(b, [value], args[-1].type)[0]

            generic(
                rewriter,
                op,
                shifts,
                [acc.buffer],
                [identity_map(out_rank)] * (len(shifts) + 1),
                [PARALLEL] * out_rank,
                final,
            )
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [result])

    def reduce_at_run_time(
        self, op: onnx.OnnxOp, rewriter: PatternRewriter, axes: Sequence[Size], keepdims: bool
    ) -> None:
        """Reduce the `axes` known at run time (checked in range and not
        repeated): one parallel generic over the output (seen with the
        reduced axes kept), looping over the reduced extents in its body."""
        data = op.operands[0]
        reduction = self.reduction
        shapes = self.shapes
        shape = shapes.sizes(data)
        rank = len(shape)
        out_rank = len(shape_of(op.results[0]))
        if out_rank != (rank if keepdims else rank - len(axes)):
            raise unsupported(op, f"a result of rank {out_rank} for {len(axes)} axes")
        flags = axis_flags(shapes, rewriter, op, axes, rank)
        reduced = [shapes.equal(flag, 1) for flag in flags]
        kept = [shapes.select(r, 1, s) for r, s in zip(reduced, shape, strict=True)]
        extents = [shapes.select(r, s, 1) for r, s in zip(reduced, shape, strict=True)]
        count = shapes.product(extents)
        computed = kept if keepdims else compacted(shapes, shape, flags, out_rank)
        result = self.result_buffer(rewriter, op.results[0], computed)
        output = result if keepdims else view(rewriter, shapes, op, result, kept)
        input_buffer = buffer_of(rewriter, data)
        element = element_type(result)
        compute = accumulator_type(element)
        wide = reduction.accumulates_in(element, None, self.context.double_sums)

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            at = [b.insert(IndexOp(a)).result for a in range(rank)]

            def load(b: Builder, offsets: Sequence[SSAValue]) -> SSAValue:
                indices = [
                    b.insert(arith.AddiOp(i, o)).result for i, o in zip(at, offsets, strict=True)
                ]
                return b.insert(memref.LoadOp.get(input_buffer, indices)).res

            shift: SSAValue | None = None
            if reduction.shifted:
                lowest = constant(b, float("-inf"), compute)
                (shift,) = nest(
                    b, extents, [lowest], lambda b, r, c: [_finite_maximum(b, c[0], load(b, r))]
                )
            start = constant(b, reduction.initial(wide), wide)
            (total,) = nest(
                b,
                extents,
                [start],
                lambda b, r, c: [reduction.step(b, c[0], load(b, r), shift, compute)],
            )
            return convert(b, reduction.result(b, total, count, shift, compute), element)

        generic(rewriter, op, [], [output], [identity_map(rank)], [PARALLEL] * rank, body)
        self.replace(rewriter, op, [result])


class ReduceSumOpLowering(ReduceLowering):
    """`onnx.ReduceSum`: the sum (0 fill, add-reduction)."""

    source = onnx.ReduceSumOp
    reduction = Reduction(scalar.ADD, _zero)


class ReduceMeanOpLowering(ReduceLowering):
    """`onnx.ReduceMean`: the sum divided by the number of reduced elements
    (on integers truncated toward zero; the sum wraps)."""

    source = onnx.ReduceMeanOp
    reduction = Reduction(scalar.ADD, _zero, final=_mean)


class ReduceProdOpLowering(ReduceLowering):
    """`onnx.ReduceProd`: the product (1 fill, mul-reduction)."""

    source = onnx.ReduceProdOp
    reduction = Reduction(scalar.MUL, _one)


class ReduceMaxOpLowering(ReduceLowering):
    """`onnx.ReduceMax`: the largest element (bool: any)."""

    source = onnx.ReduceMaxOp
    reduction = Reduction(scalar.MAX, scalar.lowest)


class ReduceMinOpLowering(ReduceLowering):
    """`onnx.ReduceMin`: the smallest element (bool: all)."""

    source = onnx.ReduceMinOp
    reduction = Reduction(scalar.MIN, scalar.highest)


class ReduceSumSquareOpLowering(ReduceLowering):
    """`onnx.ReduceSumSquare`: the sum of x * x."""

    source = onnx.ReduceSumSquareOp
    reduction = Reduction(scalar.ADD, _zero, term=_square, single=False)


class ReduceL1OpLowering(ReduceLowering):
    """`onnx.ReduceL1`: the sum of |x|."""

    source = onnx.ReduceL1Op
    reduction = Reduction(scalar.ADD, _zero, term=lambda b, x, _: scalar.ABS(b, x), single=False)


class ReduceL2OpLowering(ReduceLowering):
    """`onnx.ReduceL2`: the square root of the sum of x * x (of integers: the
    sum wraps, its root is taken in double and truncated)."""

    source = onnx.ReduceL2Op
    reduction = Reduction(
        scalar.ADD,
        _zero,
        term=_square,
        final=lambda b, acc, n, s: _in_float(scalar.SQRT, b, acc),
        single=False,
    )


class ReduceLogSumOpLowering(ReduceLowering):
    """`onnx.ReduceLogSum`: the log of the sum."""

    source = onnx.ReduceLogSumOp
    reduction = Reduction(
        scalar.ADD, _zero, final=lambda b, acc, n, s: scalar.LOG(b, acc), single=False
    )


class ReduceLogSumExpOpLowering(ReduceLowering):
    """`onnx.ReduceLogSumExp`: log(sum(exp(x - shift))) + shift, where the
    shift is the largest finite element (as onnxruntime computes it), so large
    elements do not overflow; +inf and NaN elements give +inf and NaN."""

    source = onnx.ReduceLogSumExpOp
    reduction = Reduction(scalar.ADD, _zero, _exp_shifted, _log_sum_exp, shifted=True)
