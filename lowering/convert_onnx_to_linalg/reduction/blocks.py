"""Reductions: the building blocks the reducing operators share.

A reduction initialises its accumulator buffer (`linalg.fill`), then one
`linalg.generic` reads the input with the identity map (so every loop dimension
is bare) and writes the accumulator with a map that drops (or pins to 0) the
reduced dimensions, whose iterators are `reduction` (`reduce_rows`, along a
last axis, reads views that put 8 rows in the innermost loop instead). The
Reduce* family is in reduce.py, the softmax family in softmax.py, ArgMax and
ArgMin in arg_extrema.py; all build on the helpers here.

On a target whose cores add doubles in hardware (`Target.double_sums`: the
host targets) a long float sum accumulates in double (`sum_type`): added in the order the
loops run, n float terms lose up to (n - 1) float roundings, and the terms
that are small beside the running total are lost or rounded the same way
together (a 6625-class Softmax whose top class is near 1 summed exp(x - max)
with a relative error of 6e-5, onnxruntime's vector lanes 4e-6). In double
the sum of up to 2^20 float terms is off by at most 2^-33 times the sum of
their magnitudes, so the result, rounded once to float, is the float nearest
the exact sum but for cancellation. The terms themselves are computed in
float, and the sum is rounded to float before anything else is done with it
(a division, a log, a sqrt): only conversions and additions are in double.
On a microcontroller without a double FPU those are library calls (a
1000-class Softmax took 71% more instructions, a ReduceMean over 120 values
16 times more), so sums stay in float there (see README's "Accuracy").
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, Float32Type, Float64Type, IntegerType, MemRefType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    BodyBuilder,
    accumulator_type,
    alloc,
    buffer_of,
    fill,
    generic,
    identity_map,
    normalize_axis,
    shape_of,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import ScalarOp
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import view
from onnxc.lowering.index_arith import Size, is_static


def reduced_map(rank: int, axes: set[int], keepdims: bool) -> AffineMap:
    """The map from the input's loops to an accumulator over the other axes
    (reduced axes kept as size-1 dims when `keepdims`)."""
    results: list[AffineExpr] = []
    for axis in range(rank):
        if axis not in axes:
            results.append(AffineDimExpr(axis))
        elif keepdims:
            results.append(AffineConstantExpr(0))
    return AffineMap(rank, 0, tuple(results))


def reduction_iterators(rank: int, axes: set[int]) -> list[IteratorTypeAttr]:
    return [REDUCTION if axis in axes else PARALLEL for axis in range(rank)]


ROW_BLOCK = 8
"""Rows reduced together along a last axis (see `reduce_rows`)."""


def reduce_rows(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    inputs: Sequence[tuple[SSAValue, bool]],
    target: SSAValue,
    body: BodyBuilder,
) -> None:
    """One reduction along the last axis into `target` (a buffer without
    it): `inputs` are buffers of the full shape (flag True) or of `target`'s
    (False). When the rows come in whole blocks of `ROW_BLOCK` (static
    sizes), they are seen as [rows / 8, 8] and the 8 rows of a block reduced
    in one loop nest, the loop over them innermost: 8 independent chains
    instead of one dependent chain, each summed in its own order (the results
    are the same)."""
    full = next(buffer for buffer, whole in inputs if whole)
    sizes = shapes.sizes(full)
    rank = len(sizes)
    rows = sizes[-2] if rank > 1 else 0
    if not is_static(sizes) or not isinstance(rows, int) or not rows or rows % ROW_BLOCK:
        inner = reduced_map(rank, {rank - 1}, keepdims=False)
        maps = [identity_map(rank) if whole else inner for _, whole in inputs]
        iterators = reduction_iterators(rank, {rank - 1})
        generic(rewriter, op, [b for b, _ in inputs], [target], [*maps, inner], iterators, body)
        return
    blocked = [*sizes[:-2], rows // ROW_BLOCK, ROW_BLOCK, sizes[-1]]
    loops = len(blocked)  # the rows' blocks (and what precedes them), k, the row
    outer = [AffineDimExpr(i) for i in range(loops - 2)]
    k, row = AffineDimExpr(loops - 2), AffineDimExpr(loops - 1)
    whole_map = AffineMap(loops, 0, (*outer, row, k))
    kept_map = AffineMap(loops, 0, (*outer, row))
    generic(
        rewriter,
        op,
        [view(rewriter, shapes, op, b, blocked if whole else blocked[:-1]) for b, whole in inputs],
        [view(rewriter, shapes, op, target, blocked[:-1])],
        [*(whole_map if whole else kept_map for _, whole in inputs), kept_map],
        [PARALLEL] * (loops - 2) + [REDUCTION, PARALLEL],
        body,
    )


LONG_SUM = 16
"""Float sums of at least this many terms accumulate in double (`sum_type`)."""


def sum_type(element: Attribute, terms: int | None, double: bool) -> Attribute:
    """The type a sum of `terms` values of `element` accumulates in: with
    `double` (the target's `double_sums`), double
    for float (32-bit) values when there are at least `LONG_SUM` of them or
    their number is known only at run time (None; see the module
    docstring), else `accumulator_type`: float for the 16-bit floats (whose
    sums lose far less than their own precision there), the element type
    itself otherwise, so shorter float sums keep float (at most 14
    roundings)."""
    if double and element == Float32Type() and (terms is None or terms >= LONG_SUM):
        return Float64Type()
    return accumulator_type(element)


def reduced_sizes(sizes: Sequence[Size], axes: set[int], keepdims: bool) -> list[Size]:
    """The sizes of a reduction over `axes` of a tensor of `sizes`."""
    return [1 if a in axes else s for a, s in enumerate(sizes) if keepdims or a not in axes]


def reduced_buffer(
    rewriter: PatternRewriter, element: Attribute, sizes: Sequence[Size]
) -> SSAValue:
    """A new buffer of `element`s and `sizes` (a temporary of a reduction)."""
    shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    return alloc(rewriter, MemRefType(element, shape), sizes)


def sizes_and_axis(op: onnx.OnnxOp, shapes: Shapes) -> tuple[list[Size], int]:
    """The sizes of `op`'s first input and its attribute `axis` (negative
    counted from the end); a scalar input is an error."""
    sizes = shapes.sizes(op.operands[0])
    if not sizes:
        raise unsupported(op, "scalar input")
    return sizes, normalize_axis(op, op.attr("axis"), len(sizes))


def accumulate(operation: ScalarOp) -> BodyBuilder:
    """Body `acc = operation(acc, x)` of a reduction generic (x widened to the
    accumulator's type)."""

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return operation(b, args[-1], *widened(b, args[:1], args[-1].type))

    return body


def arg_best(
    rewriter: PatternRewriter,
    source: Operation,
    data: SSAValue,
    axis: int,
    better: ScalarOp,
    values: SSAValue,
    indices: SSAValue,
    keepdims: bool,
) -> None:
    """Write into `values` and `indices` (int64) the best element of `data`
    along `axis` and its position: position 0 first, then each later one
    replaces it when `better(x, best)` holds (a strict comparison keeps the
    first of equal elements, a non-strict one the last). This is what
    onnxruntime does, NaN included: a NaN never replaces the best, and a NaN
    at position 0 stays best."""
    rank = len(shape_of(data))
    fill(rewriter, source, values, 0.0)
    fill(rewriter, source, indices, 0.0)
    axes = {axis}
    target = reduced_map(rank, axes, keepdims)

    def body(b: Builder, args: Sequence[SSAValue]) -> Sequence[SSAValue]:
        x, best, best_index = args
        here = b.insert(IndexOp(axis)).result
        position = b.insert(arith.IndexCastOp(here, IntegerType(64))).result
        first = scalar.EQUAL(b, position, scalar.constant(b, 0, position.type))
        replaces = scalar.OR(b, first, better(b, x, best))
        return [
            b.insert(arith.SelectOp(replaces, x, best)).result,
            b.insert(arith.SelectOp(replaces, position, best_index)).result,
        ]

    generic(
        rewriter,
        source,
        [buffer_of(rewriter, data)],
        [values, indices],
        [identity_map(rank), target, target],
        reduction_iterators(rank, axes),
        body,
    )
