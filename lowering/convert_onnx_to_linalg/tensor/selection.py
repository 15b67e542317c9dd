"""Selection: TopK and NonZero, whose work is sequential and whose output
sizes come from data (TopK's k, NonZero's count of nonzero elements).

TopK keeps, for every position outside `axis`, the k best elements seen so
far, sorted, in the outputs themselves: each element of the row goes after
the kept ones at least as good (so equal elements keep their order, the
lower index first, as the spec asks), the rest move one place back and the
last falls off. That is O(n k) per row. NonZero counts the nonzero elements,
then walks the input again writing the coordinates of each into the next
column of its output.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    alloc,
    buffer_of,
    check,
    element_type,
    normalize_axis,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import (
    builder_before,
    for_range,
    index,
    nest,
    when,
)
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_scalar


class TopKOpLowering(OnnxLowering[onnx.TopKOp]):
    """`onnx.TopK`: the k largest (or, with largest=0, smallest) elements
    along `axis` and their int64 indices, sorted (also when sorted=0, which
    leaves the order open). k comes from the K tensor, possibly computed at
    run time; k outside [0, size of axis] is ONNXC_ERR_SHAPE."""

    def rewrite(self, op: onnx.TopKOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.X)
        rank = len(sizes)
        if rank == 0:
            raise unsupported(op, "scalar input")
        axis = normalize_axis(op, op.attr("axis"), rank)
        k = shape_scalar(op, rewriter, shapes, op.K, "K")
        n = sizes[axis]
        if isinstance(k, int) and isinstance(n, int) and not 0 <= k <= n:
            raise unsupported(op, f"k = {k} is outside [0, {n}]")
        if not (isinstance(k, int) and isinstance(n, int)):
            bounded = shapes.clamp(k, 0, n)  # k itself, once checked; bounded by n
            check(rewriter, op, shapes.equal(bounded, k), "0 <= k <= the size of axis")
            k = bounded
        out_sizes = [k if d == axis else s for d, s in enumerate(sizes)]
        values = self.result_buffer(rewriter, op.Values, out_sizes)
        indices = alloc(rewriter, op.Indices.type, shapes.sizes(values))
        shapes.result_sizes(op.Indices, shapes.sizes(values))
        x = buffer_of(rewriter, op.X)
        better = scalar.GREATER if op.attr("largest") else scalar.LESS
        outer = [s for d, s in enumerate(sizes) if d != axis]
        limit = shapes.index(k)
        # With k = 0 there is nothing to keep (and nowhere to write).
        row_length = shapes.index(shapes.min(n, shapes.mul(n, k)))
        here = builder_before(op)

        def row(b: Builder, position: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            zero, one = index(b, 0), index(b, 1)

            def at(i: SSAValue) -> list[SSAValue]:
                return [*position[:axis], i, *position[axis:]]

            def consider(b: Builder, i: SSAValue, kept: list[SSAValue]) -> list[SSAValue]:
                value = b.insert(memref.LoadOp.get(x, at(i))).res

                def count_ahead(b: Builder, t: SSAValue, ahead: list[SSAValue]) -> list[SSAValue]:
                    other = b.insert(memref.LoadOp.get(values, at(t))).res
                    step = b.insert(arith.SelectOp(better(b, value, other), zero, one)).result
                    return [b.insert(arith.AddiOp(ahead[0], step)).result]

                (place,) = for_range(b, 0, kept[0], [zero], count_ahead)
                last = b.insert(arith.SubiOp(limit, one)).result
                top = b.insert(arith.MinSIOp(kept[0], last)).result

                def insert(b: Builder) -> None:
                    moves = b.insert(arith.SubiOp(top, place)).result

                    def shift(b: Builder, u: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                        t = b.insert(arith.SubiOp(top, u)).result
                        before = b.insert(arith.SubiOp(t, one)).result
                        for buffer in (values, indices):
                            moved = b.insert(memref.LoadOp.get(buffer, at(before))).res
                            b.insert(memref.StoreOp.get(moved, buffer, at(t)))
                        return []

                    for_range(b, 0, moves, [], shift)
                    b.insert(memref.StoreOp.get(value, values, at(place)))
                    position_value = b.insert(arith.IndexCastOp(i, IntegerType(64))).result
                    b.insert(memref.StoreOp.get(position_value, indices, at(place)))

                when(b, b.insert(arith.CmpiOp(place, limit, "slt")).result, insert)
                grown = b.insert(arith.AddiOp(kept[0], one)).result
                return [b.insert(arith.MinSIOp(grown, limit)).result]

            for_range(b, 0, row_length, [zero], consider)
            return []

        nest(here, outer, [], row)
        self.replace(rewriter, op, [values, indices])


class NonZeroOpLowering(OnnxLowering[onnx.NonZeroOp]):
    """`onnx.NonZero`: the coordinates of the nonzero elements, [rank, count]
    int64, in row-major order; the count is known only after reading X."""

    def rewrite(self, op: onnx.NonZeroOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.X)
        rank = len(sizes)
        x = buffer_of(rewriter, op.X)
        element = element_type(op.X)
        here = builder_before(op)

        def nonzero(b: Builder, position: list[SSAValue]) -> SSAValue:
            value = b.insert(memref.LoadOp.get(x, position)).res
            return scalar.NOT(b, scalar.EQUAL(b, value, constant(b, 0, element)))

        def count(b: Builder, position: list[SSAValue], total: list[SSAValue]) -> list[SSAValue]:
            step = b.insert(arith.SelectOp(nonzero(b, position), index(b, 1), index(b, 0)))
            return [b.insert(arith.AddiOp(total[0], step.result)).result]

        (found,) = nest(here, sizes, [index(here, 0)], count)
        # No more than X has elements: a bound the planner and the C can use.
        found = shapes.min(found, shapes.product(sizes))
        output = self.result_buffer(rewriter, op.Y, [rank, found])

        def write(b: Builder, position: list[SSAValue], column: list[SSAValue]) -> list[SSAValue]:
            def store(b: Builder) -> None:
                for axis, coordinate in enumerate(position):
                    value = b.insert(arith.IndexCastOp(coordinate, IntegerType(64))).result
                    b.insert(memref.StoreOp.get(value, output, [index(b, axis), column[0]]))

            keep = nonzero(b, position)
            when(b, keep, store)
            step = b.insert(arith.SelectOp(keep, index(b, 1), index(b, 0))).result
            return [b.insert(arith.AddiOp(column[0], step)).result]

        nest(here, sizes, [index(here, 0)], write)
        self.replace(rewriter, op, [output])
