"""Compress: the slices of the input along `axis` (or the elements of the
flattened input, without `axis`) whose entry in the boolean `condition` is
true.

The output's size along the axis comes from data: a first loop counts the
true entries of `condition` (bounded by the axis's size, a bound the planner
and the C use, as for NonZero), a second copies the kept slices into the
next free place of the output. A condition shorter than the axis keeps
nothing past its end (the spec's rule); one longer than the axis is read
only as far as the axis goes (numpy and onnxruntime refuse a true entry
past it; onnxc ignores it).
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    normalize_axis,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import (
    builder_before,
    for_range,
    index,
    nest,
    when,
)


def _counted(b: Builder, flag: SSAValue, count: SSAValue) -> SSAValue:
    """count + 1 where `flag` holds, else count."""
    step = b.insert(arith.SelectOp(flag, index(b, 1), index(b, 0))).result
    return b.insert(arith.AddiOp(count, step)).result


class CompressOpLowering(OnnxLowering[onnx.CompressOp]):
    """`onnx.Compress` (see the module docstring)."""

    def rewrite(self, op: onnx.CompressOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.input)
        condition_sizes = shapes.sizes(op.condition)
        if len(condition_sizes) != 1:
            raise unsupported(op, "condition must be 1-D")
        axis_attr = op.attr("axis")
        rank = len(sizes)
        if axis_attr is None:
            axis = None
            length = shapes.product(sizes)
        else:
            if rank == 0:
                raise unsupported(op, "an axis of a scalar")
            axis = normalize_axis(op, axis_attr, rank)
            length = sizes[axis]
        considered = shapes.index(shapes.min(condition_sizes[0], length))
        source = buffer_of(rewriter, op.input)
        condition = buffer_of(rewriter, op.condition)
        here = builder_before(op)

        def is_kept(b: Builder, i: SSAValue) -> SSAValue:
            return b.insert(memref.LoadOp.get(condition, [i])).res

        def count(b: Builder, i: SSAValue, total: list[SSAValue]) -> list[SSAValue]:
            return [_counted(b, is_kept(b, i), total[0])]

        (found,) = for_range(here, 0, considered, [index(here, 0)], count)
        # No more than the axis (or the input) holds: a bound for the planner.
        found = shapes.min(found, shapes.min(condition_sizes[0], length))
        if axis is None:
            output = self.result_buffer(rewriter, op.output, [found])
            dims = [shapes.index(s) for s in sizes]

            def copy_kept(b: Builder, i: SSAValue, place: SSAValue) -> None:
                position: list[SSAValue] = []
                for size in reversed(dims):  # the row-major position of flat index i
                    position.insert(0, b.insert(arith.RemSIOp(i, size)).result)
                    i = b.insert(arith.DivSIOp(i, size)).result
                value = b.insert(memref.LoadOp.get(source, position)).res
                b.insert(memref.StoreOp.get(value, output, [place]))

        else:
            out_sizes = [found if d == axis else s for d, s in enumerate(sizes)]
            output = self.result_buffer(rewriter, op.output, out_sizes)
            others = [s for d, s in enumerate(sizes) if d != axis]
            at = axis

            def copy_kept(b: Builder, i: SSAValue, place: SSAValue) -> None:
                def element(b: Builder, rest: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
                    value = b.insert(memref.LoadOp.get(source, [*rest[:at], i, *rest[at:]])).res
                    b.insert(memref.StoreOp.get(value, output, [*rest[:at], place, *rest[at:]]))
                    return []

                nest(b, others, [], element)

        def keep(b: Builder, i: SSAValue, place: list[SSAValue]) -> list[SSAValue]:
            flag = is_kept(b, i)
            when(b, flag, lambda inner: copy_kept(inner, i, place[0]))
            return [_counted(b, flag, place[0])]

        for_range(here, 0, considered, [index(here, 0)], keep)
        self.replace(rewriter, op, [output])
