"""RoiAlign: each region of interest (x1, y1, x2, y2 in X's coordinates
times spatial_scale) cut into output_height x output_width bins, each bin
the average (or maximum) of a grid of bilinear samples of X.

Computed in double, following onnx.reference (a port of onnxruntime's
kernel): half_pixel moves the region by -0.5; output_half_pixel does not
and makes regions smaller than 1 x 1 that size. A bin holds
sampling_ratio x sampling_ratio samples, or with sampling_ratio 0
ceil(bin height) x ceil(bin width) (none for an empty region: the bin is
0), at the centres of a regular grid over the bin. A sample more than one
element outside X (y < -1 or y > H) is 0; else it is clamped into X and
its 4 neighbours weighted bilinearly. `avg` divides the sum of the samples
by their count; `max` takes the largest of the weighted neighbours of every
sample (onnxruntime's and the reference's max, not the maximum of the
interpolated values). A batch index outside [0, N) is ONNXC_ERR_SHAPE.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import IndexType, f64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import CheckOp
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    check,
    comment_for,
    element_type,
    indexed_generic,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.interpolation import (
    Real,
    add,
    compare,
    div,
    mul,
    of_index,
    real,
    select,
    sub,
    to_index,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes
from onnxc.lowering.index_arith import Size

MODES = ("avg", "max")
TRANSFORMATIONS = {"half_pixel": 0.5, "output_half_pixel": 0.0}
"""Each coordinate_transformation_mode's shift of the region."""


def _floor(b: Builder, x: SSAValue) -> SSAValue:
    return b.insert(math_dialect.FloorOp(x)).result


def _maximum(b: Builder, x: Real, y: Real) -> SSAValue:
    return b.insert(arith.MaximumfOp(real(b, x), real(b, y))).result


def _minimum(b: Builder, x: Real, y: Real) -> SSAValue:
    return b.insert(arith.MinimumfOp(real(b, x), real(b, y))).result


@dataclass
class _Neighbours:
    """Along one axis, a sample's two neighbours (indices) and weights, and
    whether the sample lies too far outside X to count."""

    low: SSAValue
    high: SSAValue
    low_weight: SSAValue
    high_weight: SSAValue
    outside: SSAValue

    @staticmethod
    def of(b: Builder, x: SSAValue, extent: SSAValue, last: SSAValue) -> _Neighbours:
        """The neighbours of position x along an axis of `extent` elements
        (doubles, `last` = extent - 1): x is clamped into [0, last]; the
        high neighbour is the low one at the last element."""
        below = compare(b, "olt", x, -1.0)
        outside = b.insert(arith.OrIOp(below, compare(b, "ogt", x, extent))).result
        clamped = _minimum(b, _maximum(b, x, 0.0), last)
        low = _floor(b, clamped)
        high = _minimum(b, add(b, low, 1.0), last)
        fraction = sub(b, clamped, low)
        return _Neighbours(
            to_index(b, low), to_index(b, high), sub(b, 1.0, fraction), fraction, outside
        )


def _shifted(b: Builder, corner: SSAValue, scale: float, shift: float) -> SSAValue:
    """corner * scale - shift."""
    scaled = corner if scale == 1.0 else mul(b, corner, scale)
    return scaled if shift == 0.0 else sub(b, scaled, shift)


def _load(b: Builder, buffer: SSAValue, at: Sequence[SSAValue]) -> SSAValue:
    """An element of `buffer` as a double."""
    return scalar.convert(b, b.insert(memref.LoadOp.get(buffer, list(at))).res, f64)


class RoiAlignOpLowering(OnnxLowering[onnx.RoiAlignOp]):
    """`onnx.RoiAlign` (see the module docstring): one parallel generic over
    Y [num_rois, C, output_height, output_width] whose body computes its
    region's bin and loops over the bin's samples."""

    def rewrite(self, op: onnx.RoiAlignOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.X)
        rois = shapes.sizes(op.batch_indices)
        if len(sizes) != 4 or len(rois) != 1:
            raise unsupported(op, f"X {sizes} must be [N, C, H, W], batch_indices 1-D")
        require_sizes(op, rewriter, shapes, shapes.sizes(op.rois), [rois[0], 4], "rois")
        mode, transformation = op.attr("mode"), op.attr("coordinate_transformation_mode")
        ratio = op.attr("sampling_ratio")
        if mode not in MODES or transformation not in TRANSFORMATIONS or ratio < 0:
            raise unsupported(op, f"mode '{mode}', '{transformation}', sampling_ratio {ratio}")
        bins: list[int] = [op.attr("output_height"), op.attr("output_width")]
        if min(bins) < 1:
            raise unsupported(op, f"output size {bins}")
        self._check_not_empty(op, rewriter, [rois[0], sizes[1]], sizes[2:])
        output = self.result_buffer(rewriter, op.Y, [rois[0], sizes[1], *bins])
        x, boxes, batch = (buffer_of(rewriter, v) for v in (op.X, op.rois, op.batch_indices))
        here = builder_before(op)
        extents = [of_index(here, shapes.index(size)) for size in sizes[2:]]
        lasts = [sub(here, extent, 1.0) for extent in extents]
        batches = shapes.index(sizes[0])
        scale, shift = op.attr("spatial_scale"), TRANSFORMATIONS[transformation]
        element = element_type(output)
        label = f"{comment_for(op).data}: a batch index is in range"

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            r, c, *out = position
            raw = b.insert(memref.LoadOp.get(batch, [r])).res
            n = b.insert(arith.IndexCastOp(raw, IndexType())).result
            b.insert(CheckOp(b.insert(arith.CmpiOp(n, batches, "ult")).result, label))
            corners = [_load(b, boxes, [r, index(b, k)]) for k in range(4)]
            # Per axis (y, then x): the first sample, the step between samples, their count.
            starts: list[SSAValue] = []
            steps: list[SSAValue] = []
            counts: list[SSAValue] = []
            for a in range(2):
                start = _shifted(b, corners[1 - a], scale, shift)
                length = sub(b, _shifted(b, corners[3 - a], scale, shift), start)
                if transformation == "output_half_pixel":
                    length = _maximum(b, length, 1.0)
                size = length if bins[a] == 1 else div(b, length, float(bins[a]))
                if ratio > 0:
                    count = real(b, float(ratio))
                else:
                    count = _maximum(b, b.insert(math_dialect.CeilOp(size)).result, 0.0)
                first = add(b, start, mul(b, of_index(b, out[a]), size))
                starts.append(first)
                steps.append(size)
                counts.append(count)

            def sample(b: Builder, a: int, i: SSAValue) -> SSAValue:
                offset = div(b, mul(b, add(b, of_index(b, i), 0.5), steps[a]), counts[a])
                return add(b, starts[a], offset)

            trips = [index(b, ratio) if ratio > 0 else to_index(b, count) for count in counts]

            def row(b: Builder, iy: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                ys = _Neighbours.of(b, sample(b, 0, iy), extents[0], lasts[0])

                def column(b: Builder, ix: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                    xs = _Neighbours.of(b, sample(b, 1, ix), extents[1], lasts[1])
                    terms = [
                        mul(b, mul(b, wy, wx), _load(b, x, [n, c, at_y, at_x]))
                        for at_y, wy in ((ys.low, ys.low_weight), (ys.high, ys.high_weight))
                        for at_x, wx in ((xs.low, xs.low_weight), (xs.high, xs.high_weight))
                    ]
                    combine = add if mode == "avg" else _maximum
                    value = terms[0]
                    for term in terms[1:]:
                        value = combine(b, value, term)
                    outside = b.insert(arith.OrIOp(ys.outside, xs.outside)).result
                    return [combine(b, acc[0], select(b, outside, 0.0, value))]

                return for_range(b, 0, trips[1], acc, column)

            initial = real(b, 0.0 if mode == "avg" else float("-inf"))
            (total,) = for_range(b, 0, trips[0], [initial], row)
            samples = mul(b, counts[0], counts[1])
            if mode == "avg":
                total = div(b, total, _maximum(b, samples, 1.0))
            else:
                total = select(b, compare(b, "ogt", samples, 0.0), total, 0.0)
            return scalar.convert(b, total, element)

        indexed_generic(rewriter, op, output, body)
        self.replace(rewriter, op, [output])

    def _check_not_empty(
        self,
        op: onnx.RoiAlignOp,
        rewriter: PatternRewriter,
        outer: Sequence[Size],
        spatial: Sequence[Size],
    ) -> None:
        """H and W are not 0 (samples read X), unless there is nothing to
        compute."""
        shapes = self.shapes
        nothing = shapes.product(outer)
        present = shapes.min(*spatial)
        if isinstance(nothing, int) and isinstance(present, int):
            if nothing and not present:
                raise unsupported(op, "X has no elements to sample")
        elif not isinstance(present, int) or not present:
            holds = shapes.either(shapes.equal(nothing, 0), shapes.less(0, present))
            check(rewriter, op, holds, "X has elements to sample")
