"""MaxRoiPool: each region of interest (a row of rois: batch index, x1, y1,
x2, y2 in X's coordinates times spatial_scale) cut into pooled_shape bins,
each bin the maximum of the elements of X it covers.

As onnxruntime's kernel (Caffe's RoI pooling; onnx.reference has none)
computes it, in the element type (float for 16-bit floats): the corners are
rounded to whole elements, half away from zero (C's `round`); a region
spans end - start + 1 elements per axis (at least 1); bin p of `pooled`
covers [floor(p * size / pooled), ceil((p + 1) * size / pooled)) from the
region's start, clipped to X. A bin with no element (the region outside
X) is 0. The batch index is truncated toward zero and must then lie in
[0, N): otherwise ONNXC_ERR_SHAPE. Coordinates that are NaN or beyond the
integers clamp like the others and read nothing outside X. The maximum is
scalar Max's (a NaN propagates, as in MaxPool).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import CheckOp
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    accumulator_type,
    buffer_of,
    comment_for,
    element_type,
    indexed_generic,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.interpolation import to_index
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, number
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes


def _clamped(b: Builder, x: SSAValue, extent: SSAValue) -> SSAValue:
    """Whole number x clamped into [0, extent], as an index (NaN gives 0)."""
    low = scalar.MAX(b, x, constant(b, 0.0, x.type))
    return to_index(b, scalar.MIN(b, low, extent))


class MaxRoiPoolOpLowering(OnnxLowering[onnx.MaxRoiPoolOp]):
    """`onnx.MaxRoiPool` (see the module docstring): one parallel generic
    over Y [num_rois, C, pooled_h, pooled_w] whose body checks the region's
    batch index, computes its bin and loops over the bin's elements."""

    def rewrite(self, op: onnx.MaxRoiPoolOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.X)
        rois = shapes.sizes(op.rois)
        if len(sizes) != 4 or len(rois) != 2:
            raise unsupported(op, f"X {sizes} must be [N, C, H, W], rois 2-D")
        require_sizes(op, rewriter, shapes, rois[1:], [5], "rois")
        pooled = [int(p) for p in op.attr("pooled_shape")]
        if len(pooled) != 2 or min(pooled) < 1:
            raise unsupported(op, f"pooled_shape {pooled}")
        output = self.result_buffer(rewriter, op.Y, [rois[0], sizes[1], *pooled])
        x, boxes = buffer_of(rewriter, op.X), buffer_of(rewriter, op.rois)
        element = element_type(output)
        wide = accumulator_type(element)
        here = builder_before(op)
        batches, *extents = (number(here, size, wide) for size in (sizes[0], *sizes[2:]))
        scale = float(op.attr("spatial_scale"))
        label = f"{comment_for(op).data}: a batch index is in range"

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            r, c, *bin_at = position

            def roi(k: int) -> SSAValue:
                loaded = b.insert(memref.LoadOp.get(boxes, [r, index(b, k)])).res
                return widened(b, [loaded], wide)[0]

            batch = roi(0)
            above = scalar.GREATER(b, batch, constant(b, -1.0, wide))
            inside = b.insert(arith.AndIOp(above, scalar.LESS(b, batch, batches))).result
            b.insert(CheckOp(inside, label))
            n = to_index(b, batch)
            # Per axis (y, then x): the bin's first element and the one past its last.
            lows: list[SSAValue] = []
            highs: list[SSAValue] = []
            for a in range(2):
                start, end = (self._corner(b, roi(k), scale, wide) for k in (2 - a, 4 - a))
                one = constant(b, 1.0, wide)
                length = scalar.MAX(b, scalar.ADD(b, scalar.SUB(b, end, start), one), one)
                size = scalar.DIV(b, length, constant(b, float(pooled[a]), wide))
                p = number(b, bin_at[a], wide)
                low = scalar.FLOOR(b, scalar.MUL(b, p, size))
                high = scalar.CEIL(b, scalar.MUL(b, scalar.ADD(b, p, one), size))
                lows.append(_clamped(b, scalar.ADD(b, low, start), extents[a]))
                highs.append(_clamped(b, scalar.ADD(b, high, start), extents[a]))

            def row(b: Builder, h: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                def column(b: Builder, w: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                    value = b.insert(memref.LoadOp.get(x, [n, c, h, w])).res
                    return [scalar.MAX(b, acc[0], value)]

                return for_range(b, lows[1], highs[1], acc, column)

            lowest = constant(b, scalar.lowest(element), element)
            (largest,) = for_range(b, lows[0], highs[0], [lowest], row)
            empty = [
                b.insert(arith.CmpiOp(high, low, "ule")).result
                for low, high in zip(lows, highs, strict=True)
            ]
            nothing = b.insert(arith.OrIOp(empty[0], empty[1])).result
            zero = constant(b, 0.0, element)
            return b.insert(arith.SelectOp(nothing, zero, largest)).result

        indexed_generic(rewriter, op, output, body)
        self.replace(rewriter, op, [output])

    @staticmethod
    def _corner(b: Builder, coordinate: SSAValue, scale: float, wide: Attribute) -> SSAValue:
        """round(coordinate * spatial_scale), half away from zero."""
        scaled = scalar.MUL(b, coordinate, constant(b, scale, wide))
        return b.insert(math_dialect.RoundOp(scaled)).result
