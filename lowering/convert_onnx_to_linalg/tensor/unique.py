"""Unique: the distinct slices of X along `axis` (or the distinct elements
of the flattened X, without `axis`), how many there are known only after
reading X.

Three sequential passes over the n slices, each O(n^2) comparisons of
slices (a slice is compared element by element, in row-major order of the
other axes): the first finds for every slice the first slice equal to it
(its own position for the first of a kind, which is then one of the K
distinct ones); the second gives every distinct slice its place among the
K, by first occurrence (sorted=0) or by the number of distinct slices
lexicographically smaller (sorted=1, numpy's order); the third writes each
distinct slice into Y at its place with its first position (indices), and
for every slice the place of its kind (inverse_indices) and one more in the
count of its kind (counts). K is bounded by n, a bound the planner and the
C use (as for NonZero). NaN is equal to nothing, so each NaN is distinct
(numpy merges them).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerType, MemRefType, TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    alloc,
    buffer_of,
    fill,
    normalize_axis,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import (
    builder_before,
    for_range,
    index,
    nest,
    when,
)
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import view
from onnxc.lowering.index_arith import Size

I64 = IntegerType(64)


Step = Callable[[Builder, list[SSAValue], SSAValue, SSAValue], list[SSAValue]]
"""Folds one pair of elements (of slice i, of slice j) into the carried values."""


class _Slices:
    """The n slices of a buffer along one axis, between the `outer` and the
    `inner` axes (index sizes)."""

    def __init__(self, x: SSAValue, outer: list[SSAValue], inner: list[SSAValue]) -> None:
        self.x = x
        self.outer = outer
        self.inner = inner

    def at(self, rest: Sequence[SSAValue], i: SSAValue) -> list[SSAValue]:
        split = len(self.outer)
        return [*rest[:split], i, *rest[split:]]

    def fold(
        self, b: Builder, i: SSAValue, j: SSAValue, init: list[SSAValue], step: Step
    ) -> list[SSAValue]:
        """`step` over the elements of slices i and j, in row-major order."""

        def element(b: Builder, rest: list[SSAValue], values: list[SSAValue]) -> list[SSAValue]:
            a = b.insert(memref.LoadOp.get(self.x, self.at(rest, i))).res
            c = b.insert(memref.LoadOp.get(self.x, self.at(rest, j))).res
            return step(b, values, a, c)

        return nest(b, [*self.outer, *self.inner], init, element)

    def equal(self, b: Builder, i: SSAValue, j: SSAValue) -> SSAValue:
        def step(b: Builder, values: list[SSAValue], a: SSAValue, c: SSAValue) -> list[SSAValue]:
            return [scalar.AND(b, values[0], scalar.EQUAL(b, a, c))]

        return self.fold(b, i, j, [_flag(b, 1)], step)[0]

    def less(self, b: Builder, i: SSAValue, j: SSAValue) -> SSAValue:
        """Slice i < slice j, lexicographically: at the first unequal pair."""

        def step(b: Builder, values: list[SSAValue], a: SSAValue, c: SSAValue) -> list[SSAValue]:
            decided, less = values
            less = b.insert(arith.SelectOp(decided, less, scalar.LESS(b, a, c))).result
            return [scalar.OR(b, decided, scalar.NOT_EQUAL(b, a, c)), less]

        return self.fold(b, i, j, [_flag(b, 0), _flag(b, 0)], step)[1]


def _flag(b: Builder, value: int) -> SSAValue:
    return scalar.constant(b, value, IntegerType(1))


def _as_i64(b: Builder, value: SSAValue) -> SSAValue:
    return b.insert(arith.IndexCastOp(value, I64)).result


def _as_index(b: Builder, value: SSAValue) -> SSAValue:
    return b.insert(arith.IndexCastOp(value, IndexType())).result


def _load(b: Builder, buffer: SSAValue, i: SSAValue) -> SSAValue:
    return _as_index(b, b.insert(memref.LoadOp.get(buffer, [i])).res)


def _store(b: Builder, value: SSAValue, buffer: SSAValue, i: SSAValue) -> None:
    b.insert(memref.StoreOp.get(_as_i64(b, value), buffer, [i]))


def _counted(b: Builder, flag: SSAValue, count: SSAValue) -> SSAValue:
    step = b.insert(arith.SelectOp(flag, index(b, 1), index(b, 0))).result
    return b.insert(arith.AddiOp(count, step)).result


def _wanted(result: SSAValue) -> bool:
    return isinstance(result.type, TensorType) and bool(result.uses)


def _scratch(rewriter: PatternRewriter, n: Size) -> SSAValue:
    shape = [n if isinstance(n, int) else DYNAMIC_INDEX]
    return alloc(rewriter, MemRefType(I64, shape), [n])


class UniqueOpLowering(OnnxLowering[onnx.UniqueOp]):
    """`onnx.Unique` (see the module docstring): two int64 scratch buffers
    of n elements (each slice's first equal slice, each distinct slice's
    place), then the outputs, of which the unused optional ones are not
    computed."""

    def rewrite(self, op: onnx.UniqueOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.X)
        x = buffer_of(rewriter, op.X)
        axis_attr = op.attr("axis")
        if axis_attr is None:
            n = shapes.product(sizes)
            x, outer, inner = view(rewriter, shapes, op, x, [n]), [], []
        else:
            axis = normalize_axis(op, axis_attr, len(sizes))
            n, outer, inner = sizes[axis], sizes[:axis], sizes[axis + 1 :]
        slices = _Slices(x, [shapes.index(s) for s in outer], [shapes.index(s) for s in inner])
        count = shapes.index(n)
        first, place = _scratch(rewriter, n), _scratch(rewriter, n)
        ordered = bool(op.attr("sorted"))
        here = builder_before(op)

        def find_first(b: Builder, i: SSAValue, kinds: list[SSAValue]) -> list[SSAValue]:
            def earlier(b: Builder, j: SSAValue, found: list[SSAValue]) -> list[SSAValue]:
                unset = b.insert(arith.CmpiOp(found[0], i, "eq")).result
                hit = scalar.AND(b, unset, slices.equal(b, j, i))
                return [b.insert(arith.SelectOp(hit, j, found[0])).result]

            (j,) = for_range(b, 0, i, [i], earlier)
            _store(b, j, first, i)
            new = b.insert(arith.CmpiOp(j, i, "eq")).result
            if not ordered:
                when(b, new, lambda inner: _store(inner, kinds[0], place, i))
            return [_counted(b, new, kinds[0])]

        (found,) = for_range(here, 0, count, [index(here, 0)], find_first)
        if ordered:
            self._sort(here, slices, first, place, count)
        distinct = shapes.min(found, n)  # a bound for the planner
        y_sizes = [*outer, distinct, *inner]
        y = self.result_buffer(rewriter, op.Y, y_sizes)
        outputs: list[SSAValue | None] = [y]
        for result, sized in (
            (op.indices, distinct),
            (op.inverse_indices, n),
            (op.counts, distinct),
        ):
            outputs.append(
                self.result_buffer(rewriter, result, [sized]) if _wanted(result) else None
            )
        _, indices, inverse, counts = outputs
        if counts is not None:
            fill(rewriter, op, counts, 0.0)
        copy_out = _Slices(y, slices.outer, slices.inner)

        def write(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            kind = _load(b, first, i)
            at = _load(b, place, kind)
            if inverse is not None:
                _store(b, at, inverse, i)
            if counts is not None:
                more = b.insert(arith.AddiOp(_load(b, counts, at), index(b, 1))).result
                _store(b, more, counts, at)

            def distinct_slice(b: Builder) -> None:
                if indices is not None:
                    _store(b, i, indices, at)

                def element(b: Builder, rest: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
                    value = b.insert(memref.LoadOp.get(x, slices.at(rest, i))).res
                    b.insert(memref.StoreOp.get(value, y, copy_out.at(rest, at)))
                    return []

                nest(b, [*slices.outer, *slices.inner], [], element)

            when(b, b.insert(arith.CmpiOp(kind, i, "eq")).result, distinct_slice)
            return []

        for_range(here, 0, count, [], write)
        self.replace(rewriter, op, outputs)

    def _sort(
        self,
        b: Builder,
        slices: _Slices,
        first: SSAValue,
        place: SSAValue,
        count: SSAValue,
    ) -> None:
        """place[i] = the number of distinct slices smaller than slice i,
        for each distinct slice i."""

        def is_distinct(b: Builder, i: SSAValue) -> SSAValue:
            return b.insert(arith.CmpiOp(_load(b, first, i), i, "eq")).result

        def rank(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            def smaller(b: Builder, j: SSAValue, total: list[SSAValue]) -> list[SSAValue]:
                below = scalar.AND(b, is_distinct(b, j), slices.less(b, j, i))
                return [_counted(b, below, total[0])]

            def distinct(b: Builder) -> None:
                (total,) = for_range(b, 0, count, [index(b, 0)], smaller)
                _store(b, total, place, i)

            when(b, is_distinct(b, i), distinct)
            return []

        for_range(b, 0, count, [], rank)
