"""Rearrangements by position: DepthToSpace and SpaceToDepth move blocks of
channels to space and back, Trilu keeps a triangle, EyeLike draws a
diagonal, ReverseSequence reverses the first sequence_lens[b] steps of each
batch entry.

Each is one generic over the output. DepthToSpace and SpaceToDepth read the
input through an indexing map with `floordiv` and `mod` when the channel
count it uses is known at compile time; otherwise the body computes the same
expressions (`affine.apply` with the channel count as a symbol) and loads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import affine, arith, memref
from xdsl.dialects.builtin import AffineMapAttr, IndexType
from xdsl.ir import SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import CheckOp
from onnxc.element_types import by_onnx_code
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    comment_for,
    constant_value,
    copy,
    element_type,
    identity_map,
    indexed_generic,
    is_none,
    normalize_axis,
    shape_of,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

Reads = Callable[[list[AffineExpr], AffineExpr], list[AffineExpr]]
"""The input position an output position reads: gets the output's loop
dimensions and the channel count the expressions use."""


def read_through(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    source: SSAValue,
    output: SSAValue,
    reads: Reads,
    channels: Size,
) -> None:
    """Fill `output` with `source` at the positions `reads` gives: through
    the copy's indexing map when `channels` is known, else computed in the
    body with the channel count as the maps' symbol."""
    rank = len(shape_of(output))
    dims: list[AffineExpr] = [AffineDimExpr(d) for d in range(rank)]
    if isinstance(channels, int):
        read = AffineMap(rank, 0, tuple(reads(dims, AffineConstantExpr(channels))))
        copy(rewriter, op, source, output, read, identity_map(rank))
        return
    exprs = reads(dims, AffineSymExpr(0))
    symbol = shapes.index(channels)

    def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
        indices = [
            b.insert(
                affine.ApplyOp([*position, symbol], AffineMapAttr(AffineMap(rank, 1, (e,))))
            ).result
            for e in exprs
        ]
        return b.insert(memref.LoadOp.get(source, indices)).res

    indexed_generic(rewriter, op, output, body)


def _times(x: AffineExpr, y: AffineExpr) -> AffineExpr:
    """x * y, also for a symbol y (a product the C prints as it is, which
    xDSL's operator refuses as semi-affine)."""
    if isinstance(y, AffineConstantExpr):
        return x * y.value
    return AffineBinaryOpExpr(AffineBinaryOpKind.Mul, x, y)


def _by(kind: AffineBinaryOpKind, x: AffineExpr, y: AffineExpr) -> AffineExpr:
    """x floordiv y or x mod y (`kind`), also for a symbol y."""
    if isinstance(y, AffineConstantExpr):
        return x // y.value if kind is AffineBinaryOpKind.FloorDiv else x % y.value
    return AffineBinaryOpExpr(kind, x, y)


def _block_size(op: onnx.DepthToSpaceOp | onnx.SpaceToDepthOp) -> tuple[int, str]:
    size = op.attr("blocksize")
    mode = op.attr("mode") or "DCR"
    if size < 1:
        raise unsupported(op, f"blocksize {size}")
    if mode not in ("DCR", "CRD"):
        raise unsupported(op, f"mode '{mode}'")
    if len(shape_of(op.input)) != 4:
        raise unsupported(op, "the input must have rank 4")
    return size, mode


def _divisible(
    op: onnx.OnnxOp, rewriter: PatternRewriter, shapes: Shapes, size: Size, by: int, what: str
) -> Size:
    """size / by, which must divide (an error now or ONNXC_ERR_SHAPE later)."""
    quotient = shapes.floordiv(size, by)
    if isinstance(size, int):
        if size % by:
            raise unsupported(op, f"{what} {size} is not a multiple of {by}")
    else:
        rewriter.insert(
            CheckOp(
                shapes.equal(shapes.mul(quotient, by), size),
                f"{comment_for(op).data}: {what} is a multiple of {by}",
            )
        )
    return quotient


class DepthToSpaceOpLowering(OnnxLowering[onnx.DepthToSpaceOp]):
    """`onnx.DepthToSpace` [N, C, H, W] -> [N, C/b², H b, W b]: output
    (n, c, y, x) reads channel ((y mod b) b + x mod b) C/b² + c in DCR mode,
    c b² + (y mod b) b + x mod b in CRD mode, at (y / b, x / b)."""

    def rewrite(self, op: onnx.DepthToSpaceOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        b, mode = _block_size(op)
        n, c, h, w = shapes.sizes(op.input)
        depth = _divisible(op, rewriter, shapes, c, b * b, "the channel count")
        output = self.result_buffer(
            rewriter, op.output, [n, depth, shapes.mul(h, b), shapes.mul(w, b)]
        )

        def reads(d: list[AffineExpr], channels: AffineExpr) -> list[AffineExpr]:
            block = (d[2] % b) * b + d[3] % b
            channel = _times(block, channels) + d[1] if mode == "DCR" else d[1] * (b * b) + block
            return [d[0], channel, d[2] // b, d[3] // b]

        source = buffer_of(rewriter, op.input)
        read_through(rewriter, shapes, op, source, output, reads, depth)
        self.replace(rewriter, op, [output])


class SpaceToDepthOpLowering(OnnxLowering[onnx.SpaceToDepthOp]):
    """`onnx.SpaceToDepth` [N, C, H, W] -> [N, C b², H/b, W/b], the inverse of
    DepthToSpace in the same mode (DCR unless `mode` says CRD)."""

    def rewrite(self, op: onnx.SpaceToDepthOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        b, mode = _block_size(op)
        n, c, h, w = shapes.sizes(op.input)
        height = _divisible(op, rewriter, shapes, h, b, "the height")
        width = _divisible(op, rewriter, shapes, w, b, "the width")
        output = self.result_buffer(rewriter, op.output, [n, shapes.mul(c, b * b), height, width])

        def reads(d: list[AffineExpr], channels: AffineExpr) -> list[AffineExpr]:
            if mode == "DCR":
                block = _by(AffineBinaryOpKind.FloorDiv, d[1], channels)
                channel = _by(AffineBinaryOpKind.Mod, d[1], channels)
            else:
                block, channel = d[1] % (b * b), d[1] // (b * b)
            return [d[0], channel, d[2] * b + block // b, d[3] * b + block % b]

        source = buffer_of(rewriter, op.input)
        read_through(rewriter, shapes, op, source, output, reads, c)
        self.replace(rewriter, op, [output])


def _scalar_input(rewriter: PatternRewriter, value: SSAValue) -> SSAValue | int:
    """A 0-D (or one-element) integer input: its constant value, or its
    element loaded at run time as an index."""
    known = constant_value(value)
    if known is not None:
        return int(known.reshape(-1)[0])
    buffer = buffer_of(rewriter, value)
    zeros = [rewriter.insert(arith.ConstantOp.from_int_and_width(0, IndexType())).result]
    loaded = rewriter.insert(memref.LoadOp.get(buffer, zeros * len(shape_of(buffer)))).res
    return rewriter.insert(arith.IndexCastOp(loaded, IndexType())).result


class TriluOpLowering(OnnxLowering[onnx.TriluOp]):
    """`onnx.Trilu`: the upper (j - i >= k) or lower (j - i <= k) triangle of
    each matrix of the last two axes, zero elsewhere; k (default 0) may be
    computed at run time."""

    def rewrite(self, op: onnx.TriluOp, rewriter: PatternRewriter) -> None:
        sizes = self.shapes.sizes(op.input)
        rank = len(sizes)
        if rank < 2:
            raise unsupported(op, "the input must have rank 2 or more")
        k = 0 if is_none(op.k) else _scalar_input(rewriter, op.k)
        k_value = self.shapes.index(k)
        keep = "sge" if op.attr("upper") else "sle"
        output = self.result_buffer(rewriter, op.output, sizes)
        element = element_type(output)

        def body(b: Builder, position: list[SSAValue], args: Sequence[SSAValue]) -> SSAValue:
            offset = b.insert(arith.SubiOp(position[-1], position[-2])).result
            kept = b.insert(arith.CmpiOp(offset, k_value, keep)).result
            zero = scalar.constant(b, 0, element)
            return b.insert(arith.SelectOp(kept, args[0], zero)).result

        if not any(isinstance(s, int) and s == 0 for s in sizes):
            source = buffer_of(rewriter, op.input)
            indexed_generic(rewriter, op, output, body, [source], [identity_map(rank)])
        self.replace(rewriter, op, [output])


class EyeLikeOpLowering(OnnxLowering[onnx.EyeLikeOp]):
    """`onnx.EyeLike`: ones where j - i = k, zeros elsewhere, of the input's
    2-D shape and of type `dtype` (default: the input's)."""

    def rewrite(self, op: onnx.EyeLikeOp, rewriter: PatternRewriter) -> None:
        sizes = self.shapes.sizes(op.input)
        if len(sizes) != 2:
            raise unsupported(op, "the input must have rank 2")
        code = op.attr("dtype")
        if code is not None and by_onnx_code(code) is None:
            raise unsupported(op, f"dtype {code}")
        output = self.result_buffer(rewriter, op.output, sizes)
        element = element_type(output)
        k = op.attr("k") or 0

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            diagonal = b.insert(arith.AddiOp(position[0], index(b, k))).result
            on = b.insert(arith.CmpiOp(position[1], diagonal, "eq")).result
            one, zero = scalar.constant(b, 1, element), scalar.constant(b, 0, element)
            return b.insert(arith.SelectOp(on, one, zero)).result

        if not any(isinstance(s, int) and s == 0 for s in sizes):
            indexed_generic(rewriter, op, output, body)
        self.replace(rewriter, op, [output])


class ReverseSequenceOpLowering(OnnxLowering[onnx.ReverseSequenceOp]):
    """`onnx.ReverseSequence`: along `time_axis`, the first sequence_lens[b]
    elements of batch entry b (along `batch_axis`) reversed, the rest as
    they are. A length outside [0, time steps] is ONNXC_ERR_SHAPE
    (onnxruntime refuses it)."""

    def rewrite(self, op: onnx.ReverseSequenceOp, rewriter: PatternRewriter) -> None:
        sizes = self.shapes.sizes(op.input)
        rank = len(sizes)
        if rank < 2:
            raise unsupported(op, "the input must have rank 2 or more")
        batch = normalize_axis(op, op.attr("batch_axis"), rank)
        time = normalize_axis(op, op.attr("time_axis"), rank)
        if batch == time:
            raise unsupported(op, "batch_axis and time_axis are the same axis")
        output = self.result_buffer(rewriter, op.Y, sizes)
        source = buffer_of(rewriter, op.input)
        steps = self.shapes.index(self.shapes.add(sizes[time], 1))
        message = f"{comment_for(op).data}: 0 <= sequence_lens[b] <= the time steps"

        def body(b: Builder, position: list[SSAValue], args: Sequence[SSAValue]) -> SSAValue:
            length = b.insert(arith.IndexCastOp(args[0], IndexType())).result
            b.insert(CheckOp(b.insert(arith.CmpiOp(length, steps, "ult")).result, message))
            t = position[time]
            inside = b.insert(arith.CmpiOp(t, length, "slt")).result
            last = b.insert(arith.SubiOp(length, index(b, 1))).result
            mirrored = b.insert(arith.SubiOp(last, t)).result
            reads = list(position)
            reads[time] = b.insert(arith.SelectOp(inside, mirrored, t)).result
            return b.insert(memref.LoadOp.get(source, reads)).res

        if not any(isinstance(s, int) and s == 0 for s in sizes):
            lengths = buffer_of(rewriter, op.sequence_lens)
            by_batch = AffineMap(rank, 0, (AffineDimExpr(batch),))
            indexed_generic(rewriter, op, output, body, [lengths], [by_batch])
        self.replace(rewriter, op, [output])
