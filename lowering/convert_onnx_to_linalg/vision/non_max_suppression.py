"""NonMaxSuppression: per batch and class, the boxes taken greedily by
falling score (the lower index first among equal scores), each kept unless
its intersection over union with a box already kept for the class exceeds
iou_threshold, until max_output_boxes_per_class are kept; boxes scoring
no more than score_threshold (when given) are never taken. The output is
[count, 3] int64 rows (batch, class, box) in that order, the count known
only at the end.

Without sorting: for each class, n rounds each scan the scores for the best
box after the one taken last (in the order above), so the work is O(n^2)
per class and needs no scratch beyond the rows, which go into an int64
buffer of batches x classes x min(max_output_boxes_per_class, n) rows (a
bound the planner and the C use, as for NonZero and Unique) and are then
copied into the output. The IoU is computed in float as onnx.reference and
onnxruntime do (center_point_box 0: [y1, x1, y2, x2] corners in either
order; 1: [x_center, y_center, width, height]); a box of no area, or no
overlap, suppresses nothing. A NaN score is never taken (the reference's
order of NaNs is undefined). max_output_boxes_per_class absent, 0 or
negative gives no rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerType, MemRefType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    alloc,
    buffer_of,
    element_type,
    is_none,
    shape_of,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import (
    builder_before,
    for_range,
    index,
    nest,
    when,
)
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes
from onnxc.lowering.index_arith import Size

I64 = IntegerType(64)

Extent = tuple[SSAValue, SSAValue, SSAValue, SSAValue]
"""A box as x_min, x_max, y_min, y_max."""


def _extent(b: Builder, boxes: SSAValue, at: Sequence[SSAValue], centered: bool) -> Extent:
    """The extent of the box at boxes[at..., :]."""
    t = element_type(boxes)
    c = [b.insert(memref.LoadOp.get(boxes, [*at, index(b, k)])).res for k in range(4)]
    if not centered:  # [y1, x1, y2, x2]
        xs, ys = (c[1], c[3]), (c[0], c[2])
        return scalar.MIN(b, *xs), scalar.MAX(b, *xs), scalar.MIN(b, *ys), scalar.MAX(b, *ys)
    two = scalar.constant(b, 2.0, t)
    half_width, half_height = scalar.DIV(b, c[2], two), scalar.DIV(b, c[3], two)
    return (
        scalar.SUB(b, c[0], half_width),
        scalar.ADD(b, c[0], half_width),
        scalar.SUB(b, c[1], half_height),
        scalar.ADD(b, c[1], half_height),
    )


def _area(b: Builder, e: Extent) -> SSAValue:
    return scalar.MUL(b, scalar.SUB(b, e[1], e[0]), scalar.SUB(b, e[3], e[2]))


def _suppresses(b: Builder, one: Extent, other: Extent, threshold: SSAValue) -> SSAValue:
    """Whether the intersection over union of two boxes exceeds `threshold`
    (false where the reference gives up: no overlap, an area <= 0)."""
    t = threshold.type
    zero = scalar.constant(b, 0.0, t)
    x_min, x_max = scalar.MAX(b, one[0], other[0]), scalar.MIN(b, one[1], other[1])
    y_min, y_max = scalar.MAX(b, one[2], other[2]), scalar.MIN(b, one[3], other[3])
    intersection = _area(b, (x_min, x_max, y_min, y_max))
    areas = _area(b, one), _area(b, other)
    union = scalar.SUB(b, scalar.ADD(b, *areas), intersection)
    conditions = [
        scalar.GREATER(b, x_max, x_min),
        scalar.GREATER(b, y_max, y_min),
        *(scalar.GREATER(b, value, zero) for value in (intersection, *areas, union)),
        scalar.GREATER(b, scalar.DIV(b, intersection, union), threshold),
    ]
    result = conditions[0]
    for condition in conditions[1:]:
        result = scalar.AND(b, result, condition)
    return result


def _flag(b: Builder, value: bool) -> SSAValue:
    return scalar.constant(b, int(value), IntegerType(1))


class NonMaxSuppressionOpLowering(OnnxLowering[onnx.NonMaxSuppressionOp]):
    """`onnx.NonMaxSuppression` (see the module docstring): a nest over
    batches and classes whose body takes boxes round by round into an
    int64 row buffer; then the rows found are copied into the output."""

    def rewrite(self, op: onnx.NonMaxSuppressionOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        box_sizes, score_sizes = shapes.sizes(op.boxes), shapes.sizes(op.scores)
        if len(box_sizes) != 3 or box_sizes[2] != 4 or len(score_sizes) != 3:
            raise unsupported(op, f"boxes {box_sizes} and scores {score_sizes} do not fit")
        batches, n = box_sizes[:2]
        classes = score_sizes[1]
        require_sizes(op, rewriter, shapes, score_sizes, [batches, classes, n], "scores")
        centered = op.attr("center_point_box")
        if centered not in (0, 1):
            raise unsupported(op, f"center_point_box {centered}")
        limit: Size = 0
        if self._given(op, op.max_output_boxes_per_class):
            (limit,) = shape_elements(op, rewriter, shapes, op.max_output_boxes_per_class)[:1]
        rows = shapes.product([batches, classes, shapes.min(shapes.max(limit, 0), n)])
        if rows == 0:
            self.replace(rewriter, op, [self.result_buffer(rewriter, op.selected_indices, [0, 3])])
            return
        found = alloc(rewriter, MemRefType(I64, [_static(rows), 3]), [rows, 3])
        boxes, scores = buffer_of(rewriter, op.boxes), buffer_of(rewriter, op.scores)
        here = builder_before(op)
        t = element_type(boxes)
        iou = self._threshold(op, rewriter, here, op.iou_threshold)
        if iou is None:
            iou = scalar.constant(here, 0.0, t)
        least = self._threshold(op, rewriter, here, op.score_threshold)
        size, most = shapes.index(n), shapes.index(limit)

        def per_class(
            b: Builder, position: list[SSAValue], total: list[SSAValue]
        ) -> list[SSAValue]:
            batch, cls = position
            first_row = total[0]

            def scan(b: Builder, j: SSAValue, state: list[SSAValue]) -> list[SSAValue]:
                """Folds box j into the best box after the last one taken."""
                last_score, last, taken, best_score, best, seen = state
                score = b.insert(memref.LoadOp.get(scores, [batch, cls, j])).res
                later = scalar.OR(
                    b,
                    scalar.LESS(b, score, last_score),
                    scalar.AND(
                        b,
                        scalar.EQUAL(b, score, last_score),
                        b.insert(arith.CmpiOp(j, last, "sgt")).result,
                    ),
                )
                wanted = scalar.AND(b, scalar.OR(b, scalar.NOT(b, taken), later), _real(b, score))
                if least is not None:
                    wanted = scalar.AND(b, wanted, scalar.GREATER(b, score, least))
                better = scalar.OR(b, scalar.NOT(b, seen), scalar.GREATER(b, score, best_score))
                take = scalar.AND(b, wanted, better)
                return [
                    b.insert(arith.SelectOp(take, score, best_score)).result,
                    b.insert(arith.SelectOp(take, j, best)).result,
                    scalar.OR(b, seen, take),
                ]

            def round_(b: Builder, _: SSAValue, state: list[SSAValue]) -> list[SSAValue]:
                last_score, last, taken, count = state
                initial = [last_score, index(b, 0), _flag(b, False)]
                best_score, best, seen = for_range(
                    b, 0, size, initial, lambda b, j, s: scan(b, j, [*state[:3], *s])
                )
                kept = b.insert(arith.SubiOp(count, first_row)).result
                room = b.insert(arith.CmpiOp(kept, most, "slt")).result
                box = _extent(b, boxes, [batch, best], bool(centered))

                def against(b: Builder, row: SSAValue, hit: list[SSAValue]) -> list[SSAValue]:
                    loaded = b.insert(memref.LoadOp.get(found, [row, index(b, 2)])).res
                    other = b.insert(arith.IndexCastOp(loaded, IndexType())).result
                    near = _suppresses(
                        b, box, _extent(b, boxes, [batch, other], bool(centered)), iou
                    )
                    return [scalar.OR(b, hit[0], near)]

                (hit,) = for_range(b, first_row, count, [_flag(b, False)], against)
                keep = scalar.AND(b, scalar.AND(b, seen, room), scalar.NOT(b, hit))

                def store(b: Builder) -> None:
                    for k, value in enumerate((batch, cls, best)):
                        number = b.insert(arith.IndexCastOp(value, I64)).result
                        b.insert(memref.StoreOp.get(number, found, [count, index(b, k)]))

                when(b, keep, store)
                step = b.insert(arith.SelectOp(keep, index(b, 1), index(b, 0))).result
                return [
                    b.insert(arith.SelectOp(seen, best_score, last_score)).result,
                    b.insert(arith.SelectOp(seen, best, last)).result,
                    scalar.OR(b, taken, seen),
                    b.insert(arith.AddiOp(count, step)).result,
                ]

            start = [scalar.constant(b, 0.0, t), index(b, 0), _flag(b, False), first_row]
            return [for_range(b, 0, size, start, round_)[3]]

        (total,) = nest(here, [batches, classes], [index(here, 0)], per_class)
        count = shapes.min(total, rows)  # a bound for the planner
        output = self.result_buffer(rewriter, op.selected_indices, [count, 3])

        def copy_row(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            b.insert(memref.StoreOp.get(b.insert(memref.LoadOp.get(found, at)).res, output, at))
            return []

        nest(here, [count, 3], [], copy_row)
        self.replace(rewriter, op, [output])

    @staticmethod
    def _given(op: onnx.NonMaxSuppressionOp, value: SSAValue) -> bool:
        """Whether an optional input is there and not empty (the reference
        takes an empty one as absent)."""
        if is_none(value):
            return False
        sizes = shape_of(value)
        if len(sizes) > 1 or any(size < 0 for size in sizes):
            raise unsupported(op, f"a threshold or count of shape {list(sizes)}")
        return all(sizes)

    def _threshold(
        self, op: onnx.NonMaxSuppressionOp, rewriter: PatternRewriter, b: Builder, value: SSAValue
    ) -> SSAValue | None:
        """The first element of a float input (loaded at `b`), or None
        without it."""
        if not self._given(op, value):
            return None
        buffer = buffer_of(rewriter, value)
        at = [index(b, 0)] if shape_of(value) else []
        return b.insert(memref.LoadOp.get(buffer, at)).res


def _real(b: Builder, value: SSAValue) -> SSAValue:
    """value is not NaN."""
    return scalar.EQUAL(b, value, value)


def _static(size: Size) -> int:
    return size if isinstance(size, int) else DYNAMIC_INDEX
