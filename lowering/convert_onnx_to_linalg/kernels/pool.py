"""`kernel.pool` (chosen by `select-kernels`): max or average pooling of a
channel-blocked tensor, one output pixel at a time, all lanes of its channel
block at once: an accumulator array of `b` lanes, taps in row-major order
with the window clipped to the input (so padding is never read), and a
constant-trip loop over the lanes innermost. A maximum starts from the lowest
float and propagates NaN as MaxPool's plain lowering does; an average divides
the sum by the taps it counts (all of the window's with count_include_pad,
else those inside the input), as AveragePool's does.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import kernel
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import OnnxLowering, buffer_of, shape_of
from onnxc.lowering.convert_onnx_to_linalg.kernels.loops import (
    Arith,
    load,
    loops_over,
    tap_range,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range


class PoolOpLowering(OnnxLowering[kernel.PoolOp]):
    """`kernel.pool` -> loops over output pixels, taps and lanes."""

    def rewrite(self, op: kernel.PoolOp, rewriter: PatternRewriter) -> None:
        n, blocks, out_h, out_w, lanes = shape_of(op.Y)
        height, width = shape_of(op.X)[2:4]
        kh, kw = op.attr("kernel_shape")
        sh, sw = op.attr("strides")
        dh, dw = op.attr("dilations")
        pt, pl = op.attr("pads")[:2]
        average = op.attr("mode") == "average"
        include_pad = bool(op.attr("count_include_pad"))
        x = buffer_of(rewriter, op.X)
        out = self.result_buffer(rewriter, op.Y, [n, blocks, out_h, out_w, lanes])

        def lane_loop(b: Builder, body: object) -> None:
            def trip(inner: Builder, v: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                assert callable(body)
                body(inner, v)
                return []

            for_range(b, 0, lanes, [], trip)

        def pixel(b: Builder, at: list[SSAValue]) -> None:
            batch, block, oh, ow = at
            a = Arith(b)
            top, left = a.sub(a.mul(oh, sh), pt), a.sub(a.mul(ow, sw), pl)
            kh_lo, kh_hi = tap_range(a, top, kh, dh, height)
            kw_lo, kw_hi = tap_range(a, left, kw, dw, width)
            acc = b.insert(memref.AllocaOp.get(f32, shape=[lanes])).memref
            acc.name_hint = "acc"
            start = 0.0 if average else scalar.lowest(f32)
            lane_loop(
                b,
                lambda inner, v: inner.insert(
                    memref.StoreOp.get(scalar.constant(inner, start, f32), acc, [v])
                ),
            )

            def tap_row(row: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                def tap(inner: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                    t = Arith(inner)
                    ih, iw = t.add(top, t.mul(i, dh)), t.add(left, t.mul(j, dw))

                    def lane(lb: Builder, v: SSAValue) -> None:
                        value = load(lb, x, [batch, block, ih, iw, v])
                        combine = scalar.ADD if average else scalar.MAX
                        total = combine(lb, load(lb, acc, [v]), value)
                        lb.insert(memref.StoreOp.get(total, acc, [v]))

                    lane_loop(inner, lane)
                    return []

                for_range(row, kw_lo, kw_hi, [], tap)
                return []

            for_range(b, kh_lo, kh_hi, [], tap_row)
            count = kh * kw if include_pad else a.mul(a.sub(kh_hi, kh_lo), a.sub(kw_hi, kw_lo))
            divisor = scalar.number(b, count, f32) if average else None

            def store(lb: Builder, v: SSAValue) -> None:
                result = load(lb, acc, [v])
                if divisor is not None:
                    result = scalar.DIV(lb, result, divisor)
                lb.insert(memref.StoreOp.get(result, out, [batch, block, oh, ow, v]))

            lane_loop(b, store)

        loops_over(builder_before(op), [n, blocks, out_h, out_w], pixel)
        self.replace(rewriter, op, [out])


__all__ = ["PoolOpLowering"]
