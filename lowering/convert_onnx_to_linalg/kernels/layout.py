"""The layout changes of the `kernel` dialect as `linalg.generic`s.

`kernel.block` and `kernel.unblock` are copies whose maps split the channel
index into block and lane (`c = cb * b + v`); a last block with lanes past C
is zero-filled first. A block of whole blocks loops over the blocked
positions with the lanes innermost: it writes in order and reads `b` streams
(5x faster than writing `b` interleaved streams a channel at a time); an
unblock loops over NCHW (writing `b` streams 4 KB apart was 7x slower)."""

from __future__ import annotations

from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import kernel
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    buffer_of,
    fill,
    generic,
    identity_map,
    shape_of,
)
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import view

__all__ = ["BlockOpLowering", "UnblockOpLowering"]


def _channel_map(block: int) -> AffineMap:
    """(n, c, h, w) -> (n, c floordiv b, h, w, c mod b): where channel c lives
    in the blocked layout."""
    n, c, h, w = (AffineDimExpr(i) for i in range(4))
    return AffineMap(4, 0, (n, c // block, h, w, c % block))


def _lane_map(block: int) -> AffineMap:
    """(n, cb, h, w, v) -> (n, cb * b + v, h, w): the NCHW element of a
    blocked position."""
    n, cb, h, w, v = (AffineDimExpr(i) for i in range(5))
    return AffineMap(5, 0, (n, cb * block + v, h, w))


class BlockOpLowering(OnnxLowering[kernel.BlockOp]):
    """`kernel.block` -> a copy into the blocked layout (padding lanes zeroed)."""

    def rewrite(self, op: kernel.BlockOp, rewriter: PatternRewriter) -> None:
        n, blocks, h, w, lanes = shape_of(op.Y)
        channels = shape_of(op.X)[1]
        if channels == 1:  # one channel: the same bytes in either layout
            self.replace(
                rewriter,
                op,
                [view(rewriter, self.shapes, op, buffer_of(rewriter, op.X), [n, 1, h, w, 1])],
            )
            return
        out = self.result_buffer(rewriter, op.Y, [n, blocks, h, w, lanes])
        if blocks * lanes == channels:  # over the blocked positions, lanes innermost
            maps, rank = [_lane_map(lanes), identity_map(5)], 5
        else:
            fill(rewriter, op, out, 0.0)
            maps, rank = [identity_map(4), _channel_map(lanes)], 4
        source = buffer_of(rewriter, op.X)
        generic(rewriter, op, [source], [out], maps, [PARALLEL] * rank, lambda b, args: args[0])
        self.replace(rewriter, op, [out])


class UnblockOpLowering(OnnxLowering[kernel.UnblockOp]):
    """`kernel.unblock` -> a copy back to NCHW."""

    def rewrite(self, op: kernel.UnblockOp, rewriter: PatternRewriter) -> None:
        lanes = shape_of(op.X)[4]
        if shape_of(op.Y)[1] == 1:  # one channel: the same bytes in either layout
            source = buffer_of(rewriter, op.X)
            self.replace(rewriter, op, [view(rewriter, self.shapes, op, source, shape_of(op.Y))])
            return
        out = self.result_buffer(rewriter, op.Y, list(shape_of(op.Y)))
        generic(
            rewriter,
            op,
            [buffer_of(rewriter, op.X)],
            [out],
            [_channel_map(lanes), identity_map(4)],
            [PARALLEL] * 4,
            lambda b, args: args[0],
        )
        self.replace(rewriter, op, [out])
