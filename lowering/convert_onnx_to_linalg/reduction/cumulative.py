"""Running reductions: `onnx.CumSum` and `onnx.CumProd`.

Each element of the output depends on the one before it along the axis, so
the work is sequential (scf_loops.py): for every position outside the axis, an
`scf.for` walks the axis (backwards with `reverse`) carrying the running sum
or product, and stores it at each step, before adding the element with
`exclusive`, after it otherwise. Integers wrap; float16 and bfloat16 run in
float, each stored value rounded once.

The axis is an input: a constant, or a value read at run time (checked in
range). A run-time axis sees the input and the output as three-dimensional
views (before the axis, the axis, after it) whose sizes are computed from it,
so the same loops serve.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    accumulator_type,
    buffer_of,
    check,
    element_type,
    normalize_axis,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import ScalarOp, constant, convert
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index, nest
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import view
from onnxc.lowering.index_arith import Size


class CumulativeLowering(OnnxLowering[onnx.OnnxOp]):
    """Base of CumSum and CumProd: `combine` from `initial` along the axis
    (attributes `exclusive` and `reverse`, default 0); see the module
    docstring."""

    combine: ClassVar[ScalarOp]
    initial: ClassVar[float]

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        x = op.operands[0]
        sizes = shapes.sizes(x)
        rank = len(sizes)
        if rank == 0:
            raise unsupported(op, "scalar input")
        elements = shape_elements(op, rewriter, shapes, op.operands[1])
        if len(elements) != 1:
            raise unsupported(op, f"an axis input of {len(elements)} elements")
        (axis,) = elements
        result = self.result_buffer(rewriter, op.results[0], sizes)
        source, target = buffer_of(rewriter, x), result
        if isinstance(axis, int):
            axis = normalize_axis(op, axis, rank)
        else:
            wrapped = shapes.select(shapes.less(axis, 0), shapes.add(axis, rank), axis)
            inside = shapes.equal(shapes.clamp(wrapped, 0, rank - 1), wrapped)
            check(rewriter, op, inside, "the axis is in range")
            before: Size = 1
            after: Size = 1
            length: Size = sizes[0]
            for i, size in enumerate(sizes):
                before = shapes.mul(before, shapes.select(shapes.less(i, wrapped), size, 1))
                after = shapes.mul(after, shapes.select(shapes.less(wrapped, i), size, 1))
                if i > 0:
                    length = shapes.select(shapes.equal(wrapped, i), size, length)
            sizes = [before, length, after]
            source = view(rewriter, shapes, op, source, sizes)
            target = view(rewriter, shapes, op, target, sizes)
            axis = 1
        self.scan(op, source, target, sizes, axis)
        self.replace(rewriter, op, [result])

    def scan(
        self, op: onnx.OnnxOp, source: SSAValue, target: SSAValue, sizes: list[Size], axis: int
    ) -> None:
        """The loops writing the running `combine` of `source` along `axis`
        into `target` (both of `sizes`)."""
        element = element_type(target)
        wide = accumulator_type(element)
        reverse, exclusive = bool(op.attr("reverse")), bool(op.attr("exclusive"))
        outer = [s for d, s in enumerate(sizes) if d != axis]
        here = builder_before(op)
        length = sizes[axis]

        def row(b: Builder, position: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            n = index(b, length)
            last = b.insert(arith.SubiOp(n, index(b, 1))).result if reverse else n

            def step(b: Builder, t: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
                i = b.insert(arith.SubiOp(last, t)).result if reverse else t
                at = [*position[:axis], i, *position[axis:]]
                (value,) = widened(b, [b.insert(memref.LoadOp.get(source, at)).res], wide)
                total = self.combine(b, carried[0], value)
                stored = carried[0] if exclusive else total
                b.insert(memref.StoreOp.get(convert(b, stored, element), target, at))
                return [total]

            for_range(b, 0, n, [constant(b, self.initial, wide)], step)
            return []

        nest(here, outer, [], row)


class CumSumOpLowering(CumulativeLowering):
    """`onnx.CumSum`: running sums; see `CumulativeLowering`."""

    source = onnx.CumSumOp
    combine = scalar.ADD
    initial = 0.0


class CumProdOpLowering(CumulativeLowering):
    """`onnx.CumProd`: running products; see `CumulativeLowering`."""

    source = onnx.CumProdOp
    combine = scalar.MUL
    initial = 1.0
