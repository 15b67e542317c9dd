"""DeformConv: a convolution whose every kernel tap reads X at its regular
position moved by a learned offset, sampled bilinearly (0 outside X), and
scaled by an optional mask.

For output [n, m, o...] and input channel c of m's group, tap k reads X[n, c]
at `o * stride - pad_begin + k * dilation + offset[n, (g * K + k) * r + a,
o...]` along spatial axis a, where g = c / (C / offset_group) is the
channel's offset group, K the number of kernel taps and r the spatial rank;
its weight is W[m, c - first channel of the group, k] times mask[n, g * K +
k, o...]. Any spatial rank (onnx.reference only has 2-D); computed in double,
as GridSample's sampling (grid_sample.py), which this shares.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import f64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    element_type,
    indexed_generic,
    is_none,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.interpolation import add, mul, of_index, real
from onnxc.lowering.convert_onnx_to_linalg.nn.window import require_spatial, window_of
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index, nest
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes
from onnxc.lowering.convert_onnx_to_linalg.vision.grid_sample import (
    SampledAxis,
    filter_taps,
    weighted_sum,
)
from onnxc.lowering.index_arith import is_static, static


def _times(b: Builder, value: SSAValue, factor: int) -> SSAValue:
    if factor == 1:
        return value
    return b.insert(arith.MuliOp(value, index(b, factor))).result


def _divided(b: Builder, value: SSAValue, divisor: int) -> SSAValue:
    if divisor == 1:
        return value
    return b.insert(arith.DivUIOp(value, index(b, divisor))).result


def _load(b: Builder, buffer: SSAValue, at: Sequence[SSAValue]) -> SSAValue:
    """An element of `buffer` as a double."""
    return scalar.convert(b, b.insert(memref.LoadOp.get(buffer, list(at))).res, f64)


class DeformConvOpLowering(OnnxLowering[onnx.DeformConvOp]):
    """`onnx.DeformConv` (see the module docstring): one parallel generic
    over Y [N, M, O...] whose body loops over the group's input channels
    and the kernel taps, starting from B[m] (or 0). Supports group,
    offset_group, strides, dilations and explicit pads; W must have static
    sizes."""

    def rewrite(self, op: onnx.DeformConvOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes, w_sizes = shapes.sizes(op.X), shapes.sizes(op.W)
        require_spatial(op, sizes, "X")
        rank = len(sizes) - 2
        if not is_static(w_sizes) or len(w_sizes) != rank + 2 or not isinstance(sizes[1], int):
            raise unsupported(op, "W and the channels of X must have static sizes")
        m, per_group, *kernel = static(w_sizes)
        if op.attr("kernel_shape") and list(op.attr("kernel_shape")) != kernel:
            raise unsupported(op, f"kernel_shape {op.attr('kernel_shape')} differs from W")
        channels, group, offset_group = sizes[1], op.attr("group"), op.attr("offset_group")
        if (
            min(group, offset_group) < 1
            or per_group * group != channels
            or m % group
            or channels % offset_group
        ):
            raise unsupported(op, f"group {group} and offset_group {offset_group} do not fit")
        window = window_of(op, shapes, sizes[2:], kernel, op.Y)
        strides, dilations, pads = window.strides, window.dilations, window.pads_begin
        out_spatial = list(window.output_shape)
        taps = math.prod(kernel)
        slots = [offset_group * taps * rank, offset_group * taps]
        for value, what, width in ((op.offset, "offset", slots[0]), (op.mask, "mask", slots[1])):
            if not is_none(value):
                wanted = [sizes[0], width, *out_spatial]
                require_sizes(op, rewriter, shapes, shapes.sizes(value), wanted, what)
        if not is_none(op.B):
            require_sizes(op, rewriter, shapes, shapes.sizes(op.B), [m], "B")
        output = self.result_buffer(rewriter, op.Y, [sizes[0], m, *out_spatial])
        x, w, offset = (buffer_of(rewriter, v) for v in (op.X, op.W, op.offset))
        bias = None if is_none(op.B) else buffer_of(rewriter, op.B)
        mask = None if is_none(op.mask) else buffer_of(rewriter, op.mask)
        here = builder_before(op)
        axes = [SampledAxis.of(here, shapes, size, True) for size in sizes[2:]]
        element = element_type(output)

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            n, oc, *outs = position
            group_first = _times(b, _divided(b, oc, m // group), per_group) if group > 1 else None
            starts = [_times(b, outs[a], strides[a]) for a in range(rank)]
            starts = [
                start if pads[a] == 0 else b.insert(arith.SubiOp(start, index(b, pads[a]))).result
                for a, start in enumerate(starts)
            ]
            total = real(b, 0.0) if bias is None else _load(b, bias, [oc])

            def channel(b: Builder, ci: SSAValue, acc: list[SSAValue]) -> list[SSAValue]:
                c = ci if group_first is None else b.insert(arith.AddiOp(group_first, ci)).result
                first_slot = index(b, 0)
                if offset_group > 1:
                    first_slot = _times(b, _divided(b, c, channels // offset_group), taps)

                def tap(b: Builder, k: list[SSAValue], acc: list[SSAValue]) -> list[SSAValue]:
                    slot = first_slot
                    for a in range(rank):  # + the row-major position of k
                        stride = math.prod(kernel[a + 1 :])
                        slot = b.insert(arith.AddiOp(slot, _times(b, k[a], stride))).result
                    axis_taps = []
                    for a, axis in enumerate(axes):
                        moved_by = index(b, a)
                        at = b.insert(arith.AddiOp(_times(b, slot, rank), moved_by)).result
                        moved = _load(b, offset, [n, at, *outs])
                        along = _times(b, k[a], dilations[a])
                        regular = of_index(b, b.insert(arith.AddiOp(starts[a], along)).result)
                        axis_taps.append(
                            filter_taps(b, axis, add(b, regular, moved), "linear", "zeros")
                        )
                    value = weighted_sum(b, x, [n, c], axis_taps)
                    weight = _load(b, w, [oc, ci, *k])
                    if mask is not None:
                        weight = mul(b, weight, _load(b, mask, [n, slot, *outs]))
                    return [add(b, acc[0], mul(b, weight, value))]

                return nest(b, kernel, acc, tap)

            (total,) = for_range(b, 0, per_group, [total], channel)
            return scalar.convert(b, total, element)

        indexed_generic(rewriter, op, output, body)
        self.replace(rewriter, op, [output])
