"""Data movement: Transpose, Concat, Slice and Gather copy elements through a
`linalg.generic`.

Where every offset is known at compile time the generic's indexing maps do
the index arithmetic (a constant start, a constant offset along the
concatenated axis). Where an offset is known only at run time (a dimension
before it is, or the op's bounds are computed), the generic runs over the
output and its body computes the input position from `linalg.index` and
loads it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import CheckOp
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    alloc,
    buffer_of,
    check,
    comment_for,
    constant_value,
    copy,
    generic,
    identity_map,
    indexed_generic,
    is_none,
    normalize_axis,
    shape_of,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, choose, nest
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size, is_static, static


def partial(expr: AffineExpr) -> AffineExpr:
    """`expr`, spelled `dN + 0` if it is a bare `dN`: a bare dim result must span
    its operand's whole dimension, and this one covers only part of it."""
    if isinstance(expr, AffineDimExpr):
        return AffineBinaryOpExpr(AffineBinaryOpKind.Add, expr, AffineConstantExpr(0))
    return expr


def _index(b: Builder, value: int) -> SSAValue:
    return b.insert(arith.ConstantOp.from_int_and_width(value, IndexType())).result


class TransposeOpLowering(OnnxLowering[onnx.TransposeOp]):
    """`onnx.Transpose` -> a generic copy over the output, reading the input
    through the permuted map; `perm` defaults to reversing the axes."""

    def rewrite(self, op: onnx.TransposeOp, rewriter: PatternRewriter) -> None:
        in_shape = self.shapes.sizes(op.operands[0])
        rank = len(in_shape)
        perm = op.attr("perm")
        perm = list(range(rank))[::-1] if perm is None else [int(p) for p in perm]
        if sorted(perm) != list(range(rank)):
            raise unsupported(op, f"perm {perm} is not a permutation of {rank} axes")
        buffer = buffer_of(rewriter, op.operands[0])
        if perm == list(range(rank)):
            self.replace(rewriter, op, [buffer])
            return
        output = self.result_buffer(rewriter, op.results[0], [in_shape[p] for p in perm])
        # Output axis i reads input axis perm[i]: input axis j is loop dim inv[j].
        inverse = [perm.index(j) for j in range(rank)]
        read = AffineMap(rank, 0, tuple(AffineDimExpr(inverse[j]) for j in range(rank)))
        copy(rewriter, op, buffer, output, read, identity_map(rank))
        self.replace(rewriter, op, [output])


class ConcatOpLowering(OnnxLowering[onnx.ConcatOp]):
    """`onnx.Concat` (`axis` may be negative): see `concatenate`."""

    def rewrite(self, op: onnx.ConcatOp, rewriter: PatternRewriter) -> None:
        rank = len(shape_of(op.results[0])) if op.results else 0
        if rank == 0:
            raise unsupported(op, "cannot concatenate scalars")
        axis = normalize_axis(op, op.attr("axis"), rank)
        inputs = [self.shapes.sizes(v) for v in op.operands]
        if any(len(s) != rank for s in inputs):
            raise unsupported(op, "inputs of different ranks")
        computed = list(inputs[0])
        total: Size = 0
        for sizes in inputs:
            total = self.shapes.add(total, sizes[axis])
        computed[axis] = total
        out_shape = self.shapes.result_sizes(op.results[0], computed)
        output = alloc(rewriter, op.results[0].type, out_shape)
        buffers = [buffer_of(rewriter, v) for v in op.operands]
        concatenate(rewriter, self.shapes, op, buffers, inputs, output, out_shape, axis)
        self.replace(rewriter, op, [output])


def concatenate(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    buffers: Sequence[SSAValue],
    inputs: Sequence[Sequence[Size]],
    output: SSAValue,
    out_shape: Sequence[Size],
    axis: int,
) -> None:
    """Copy `buffers` (of sizes `inputs`) one after the other along `axis`
    into `output` (of `out_shape`). With every input's size along the axis
    known at compile time: one generic copy per (non-empty) input, iterating
    over the input and writing at `d_axis + offset`. Otherwise one generic
    over the output whose body picks the input holding each position
    (`scf.if` on the running offsets) and loads from it."""
    concatenation = _Concatenation(shapes, op, buffers, inputs, output, out_shape, axis)
    if all(isinstance(s[axis], int) for s in inputs):
        concatenation.static_offsets(rewriter)
    else:
        concatenation.run_time_offsets(rewriter)


@dataclass
class _Concatenation:
    """The arguments of `concatenate`, and its two ways."""

    shapes: Shapes
    op: onnx.OnnxOp
    buffers: Sequence[SSAValue]
    inputs: Sequence[Sequence[Size]]
    output: SSAValue
    out_shape: Sequence[Size]
    axis: int

    def static_offsets(self, rewriter: PatternRewriter) -> None:
        rank, axis = len(self.out_shape), self.axis
        offset = 0
        for buffer, shape in zip(self.buffers, self.inputs, strict=True):
            size = shape[axis]
            assert isinstance(size, int)
            empty = any(isinstance(s, int) and s == 0 for s in shape)
            if not empty:
                shifted: AffineExpr = AffineDimExpr(axis) + offset
                if not self.shapes.same(size, self.out_shape[axis]):
                    shifted = partial(shifted)
                write = AffineMap(
                    rank, 0, tuple(shifted if d == axis else AffineDimExpr(d) for d in range(rank))
                )
                copy(rewriter, self.op, buffer, self.output, identity_map(rank), write)
            offset += size

    def run_time_offsets(self, rewriter: PatternRewriter) -> None:
        shapes, buffers, axis = self.shapes, self.buffers, self.axis
        rank = len(self.out_shape)
        starts: list[SSAValue] = []
        offset: Size = 0
        for shape in self.inputs:
            starts.append(shapes.index(offset))
            offset = shapes.add(offset, shape[axis])

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            indices = [b.insert(IndexOp(d)).result for d in range(rank)]

            def load(pb: Builder, k: int) -> SSAValue:
                position: list[SSAValue] = list(indices)
                position[axis] = pb.insert(arith.SubiOp(indices[axis], starts[k])).result
                return pb.insert(memref.LoadOp.get(buffers[k], position)).res

            def pick(pb: Builder, k: int) -> SSAValue:
                if k == len(buffers) - 1:
                    return load(pb, k)
                ends_here = shapes.index(shapes.add(starts[k], self.inputs[k][axis]))
                inside = pb.insert(arith.CmpiOp(indices[axis], ends_here, "slt")).result
                return choose(pb, inside, lambda t: load(t, k), lambda t: pick(t, k + 1))

            return pick(b, 0)

        outputs = [self.output]
        generic(rewriter, self.op, [], outputs, [identity_map(rank)], [PARALLEL] * rank, body)


def slice_bounds(dim: int, start: int, end: int, step: int) -> tuple[int, int]:
    """(first index, element count) of a Slice along a dimension of size `dim`,
    with the spec's adjustment of negative bounds and clamping."""
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        start = min(max(start, 0), dim)
        end = min(max(end, 0), dim)
    else:
        start = min(max(start, 0), dim - 1)
        end = min(max(end, -1), dim - 1)
    count = max(0, -(-(end - start) // step))
    return start, count


def _slice_bounds_at_run_time(
    shapes: Shapes, rewriter: PatternRewriter, dim: Size, start: Size, end: Size, step: Size
) -> tuple[Size, Size]:
    """`slice_bounds` with sizes, bounds and step that may be run-time values.
    A bound is first clamped to [-dim - 1, dim] (which changes no result and
    keeps the arithmetic from overflowing on INT64_MAX-style bounds); a step
    known only at run time decides the clamping by its sign."""

    def wrap(value: Size) -> Size:
        if isinstance(value, int):
            return shapes.add(value, dim) if value < 0 else value
        value = shapes.clamp(value, shapes.sub(-1, dim), dim)
        negative = rewriter.insert(arith.CmpiOp(shapes.index(value), shapes.index(0), "slt"))
        wrapped = shapes.index(shapes.add(value, dim))
        return rewriter.insert(arith.SelectOp(negative, wrapped, shapes.index(value))).result

    first, last = wrap(start), wrap(end)
    top = shapes.sub(dim, 1)
    forward = (shapes.clamp(first, 0, dim), shapes.clamp(last, 0, dim))
    backward = (shapes.clamp(first, 0, top), shapes.clamp(last, -1, top))
    if isinstance(step, int):
        first, last = forward if step > 0 else backward
    else:
        up = rewriter.insert(arith.CmpiOp(step, shapes.index(0), "sgt")).result
        first, last = (
            rewriter.insert(arith.SelectOp(up, shapes.index(f), shapes.index(b))).result
            for f, b in zip(forward, backward, strict=True)
        )
    count = shapes.max(shapes.ceildiv(shapes.sub(last, first), step), 0)
    return first, count


def copy_window(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    buffer: SSAValue,
    output: SSAValue,
    first: Sequence[Size],
    step: Sequence[Size],
) -> None:
    """Fill `output` with the elements of `buffer` at `first + d * step` along
    each axis (a slice, a split piece): through the copy's read map when
    every start and step is known, else loaded in the body at the position
    it computes."""
    rank = len(first)
    in_shape, out_shape = shapes.sizes(buffer), shapes.sizes(output)
    if is_static(first) and is_static(step):
        reads = [AffineDimExpr(d) * step[d] + first[d] for d in range(rank)]
        read = AffineMap(
            rank,
            0,
            tuple(
                e if shapes.same(in_shape[d], out_shape[d]) else partial(e)
                for d, e in enumerate(reads)
            ),
        )
        copy(rewriter, op, buffer, output, read, identity_map(rank))
        return
    starts_at = [None if f == 0 else shapes.index(f) for f in first]
    strides = [None if s == 1 else shapes.index(s) for s in step]

    def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
        reads: list[SSAValue] = []
        for d, index in enumerate(position):
            stride, start = strides[d], starts_at[d]
            if stride is not None:
                index = b.insert(arith.MuliOp(index, stride)).result
            if start is not None:
                index = b.insert(arith.AddiOp(start, index)).result
            reads.append(index)
        return b.insert(memref.LoadOp.get(buffer, reads)).res

    indexed_generic(rewriter, op, output, body)


class SliceOpLowering(OnnxLowering[onnx.SliceOp]):
    """`onnx.Slice`: `starts`, `ends`, optional `axes` (negative allowed) and
    `steps` (negative allowed, not 0), each a constant or computed at run
    time; bounds are adjusted and clamped as the spec says. When every start
    and size is known at compile time, a generic copy over the output reads
    `start + d * step` through its map; otherwise its body computes that
    position from `linalg.index` and loads it."""

    def rewrite(self, op: onnx.SliceOp, rewriter: PatternRewriter) -> None:
        data, starts_value, ends_value, axes_value, steps_value = op.operands
        in_shape = self.shapes.sizes(data)
        rank = len(in_shape)
        starts = shape_elements(op, rewriter, self.shapes, starts_value)
        ends = shape_elements(op, rewriter, self.shapes, ends_value)
        if len(starts) != len(ends):
            raise unsupported(op, "starts and ends differ in length")
        axes: list[Size] = list(range(len(starts)))
        if not is_none(axes_value):
            axes = shape_elements(op, rewriter, self.shapes, axes_value)
            if is_static(axes):
                axes = [normalize_axis(op, a, rank) for a in static(axes)]
                if len(set(axes)) != len(axes):
                    raise unsupported(op, f"repeated axes {axes}")
        steps: list[Size] = [1] * len(starts)
        if not is_none(steps_value):
            steps = shape_elements(op, rewriter, self.shapes, steps_value)
        if not len(axes) == len(steps) == len(starts):
            raise unsupported(op, "starts, ends, axes and steps differ in length")
        for k, step in enumerate(steps):
            if step == 0:
                raise unsupported(op, f"steps[{k}] is 0")
            if isinstance(step, SSAValue):
                nonzero = rewriter.insert(arith.CmpiOp(step, self.shapes.index(0), "ne")).result
                check(rewriter, op, nonzero, f"steps[{k}] != 0")
        first: list[Size] = [0] * rank
        step_of: list[Size] = [1] * rank
        counts = list(in_shape)
        for axis, start, end, step in zip(axes, starts, ends, steps, strict=True):
            if isinstance(axis, SSAValue):
                self._run_time_axis(op, rewriter, axis, (start, end, step), first, counts, step_of)
                continue
            dim = in_shape[axis]
            if is_static([dim, start, end, step]):
                first[axis], counts[axis] = slice_bounds(*static([dim, start, end, step]))
            else:
                first[axis], counts[axis] = _slice_bounds_at_run_time(
                    self.shapes, rewriter, dim, start, end, step
                )
            step_of[axis] = step
        out_shape = self.shapes.result_sizes(op.results[0], counts)
        buffer = buffer_of(rewriter, data)
        output = alloc(rewriter, op.results[0].type, out_shape)
        if any(isinstance(s, int) and s == 0 for s in out_shape):
            self.replace(rewriter, op, [output])
            return
        copy_window(rewriter, self.shapes, op, buffer, output, first, step_of)
        self.replace(rewriter, op, [output])

    def _run_time_axis(
        self,
        op: onnx.SliceOp,
        rewriter: PatternRewriter,
        axis: SSAValue,
        bounds: tuple[Size, Size, Size],
        first: list[Size],
        counts: list[Size],
        step_of: list[Size],
    ) -> None:
        """Slice along an axis known only at run time: every dimension the
        axis may be gets its bounds from `bounds` where it is that axis
        (selects), keeping what it had elsewhere."""
        shapes = self.shapes
        rank = len(counts)
        axis = shapes.index(shapes.select(shapes.less(axis, 0), shapes.add(axis, rank), axis))
        inside = shapes.equal(shapes.clamp(axis, 0, rank - 1), axis)
        check(rewriter, op, inside, "an axis is in range")
        in_shape = shapes.sizes(op.operands[0])
        for d in range(rank):
            here = shapes.equal(axis, d)
            start, end, step = bounds
            f, c = _slice_bounds_at_run_time(shapes, rewriter, in_shape[d], start, end, step)
            first[d] = shapes.select(here, f, first[d])
            counts[d] = shapes.select(here, c, counts[d])
            step_of[d] = shapes.select(here, step, step_of[d])


class GatherOpLowering(OnnxLowering[onnx.GatherOp]):
    """`onnx.Gather` (any `axis`, indices of any rank) -> a generic copy over the
    output. Constant indices (negative ones normalised; out-of-range ones
    rejected) that form an arithmetic progression, such as a single index, are
    read through an affine map when the gathered dimension is known; other
    indices are read from their buffer and the body loads the data element
    (negative indices wrap). Indices known only at run time are first
    checked, one pass over them: one out of range (the spec's error) stops
    the model with ONNXC_ERR_SHAPE; the body still clamps, so no load
    leaves the buffer."""

    def rewrite(self, op: onnx.GatherOp, rewriter: PatternRewriter) -> None:
        data, indices_value = op.operands
        in_shape = self.shapes.sizes(data)
        rank = len(in_shape)
        if rank == 0:
            raise unsupported(op, "cannot gather from a scalar")
        axis = normalize_axis(op, op.attr("axis"), rank)
        index_shape = self.shapes.sizes(indices_value)
        q = len(index_shape)
        out_shape = self.shapes.result_sizes(
            op.results[0], [*in_shape[:axis], *index_shape, *in_shape[axis + 1 :]]
        )
        out_rank = len(out_shape)
        dim = in_shape[axis]
        buffer = buffer_of(rewriter, data)
        output = alloc(rewriter, op.results[0].type, out_shape)
        if any(isinstance(s, int) and s == 0 for s in out_shape):
            self.replace(rewriter, op, [output])
            return
        indices = constant_value(indices_value)
        if indices is not None and isinstance(dim, int) and is_static(index_shape):
            if np.any(indices < -dim) or np.any(indices >= dim):
                raise unsupported(op, f"an index is out of range for size {dim}")
            read = _progression(indices, dim, axis, [int(s) for s in index_shape], out_rank)
            if read is not None:
                copy(rewriter, op, buffer, output, read, identity_map(out_rank))
                self.replace(rewriter, op, [output])
                return
        index_buffer = buffer_of(rewriter, indices_value)
        index_map = AffineMap(out_rank, 0, tuple(AffineDimExpr(axis + k) for k in range(q)))
        size = self.shapes.index(dim)
        last = self.shapes.index(self.shapes.sub(dim, 1))
        if indices is None or not isinstance(dim, int):  # constants were checked above
            _check_indices(op, index_buffer, index_shape, size)

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            position = b.insert(arith.IndexCastOp(args[0], IndexType())).result
            zero = _index(b, 0)
            negative = b.insert(arith.CmpiOp(position, zero, "slt")).result
            wrapped = b.insert(arith.AddiOp(position, size)).result
            position = b.insert(arith.SelectOp(negative, wrapped, position)).result
            position = b.insert(arith.MaxSIOp(position, zero)).result
            position = b.insert(arith.MinSIOp(position, last)).result
            loads: list[SSAValue] = [b.insert(IndexOp(d)).result for d in range(axis)]
            loads.append(position)
            loads += [b.insert(IndexOp(d)).result for d in range(axis + q, out_rank)]
            return b.insert(memref.LoadOp.get(buffer, loads)).res

        generic(
            rewriter,
            op,
            [index_buffer],
            [output],
            [index_map, identity_map(out_rank)],
            [PARALLEL] * out_rank,
            body,
        )
        self.replace(rewriter, op, [output])


def _check_indices(
    op: onnx.OnnxOp, indices: SSAValue, sizes: Sequence[Size], size: SSAValue
) -> None:
    """Loops before `op` checking that each of `indices` (of `sizes`) is in
    [-size, size): else the model stops with ONNXC_ERR_SHAPE."""
    message = f"{comment_for(op).data}: an index is in range"

    def verify(b: Builder, position: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
        loaded = b.insert(memref.LoadOp.get(indices, position)).res
        at = b.insert(arith.IndexCastOp(loaded, IndexType())).result
        zero = b.insert(arith.ConstantOp.from_int_and_width(0, IndexType())).result
        low = b.insert(arith.SubiOp(zero, size)).result
        above = b.insert(arith.CmpiOp(at, low, "sge")).result
        below = b.insert(arith.CmpiOp(at, size, "slt")).result
        b.insert(CheckOp(b.insert(arith.AndIOp(above, below)).result, message))
        return []

    nest(builder_before(op), list(sizes), [], verify)


def _progression(
    indices: np.ndarray, dim: int, axis: int, index_shape: list[int], out_rank: int
) -> AffineMap | None:
    """The map reading constant `indices` (within range) that form an
    arithmetic progression in row-major order, or None."""
    q = len(index_shape)
    flat = np.where(indices < 0, indices + dim, indices).reshape(-1)
    steps = np.diff(flat)
    if steps.size and not np.all(steps == steps[0]):
        return None
    step = int(steps[0]) if steps.size else 0
    strides = [int(np.prod(index_shape[k + 1 :])) for k in range(q)]
    index: AffineExpr | None = None
    for k, stride in enumerate(strides):
        if step * stride != 0:
            term = AffineDimExpr(axis + k) * (step * stride)
            index = term if index is None else index + term
    start = int(flat[0])
    index = AffineConstantExpr(start) if index is None else index + start
    results: list[AffineExpr] = [AffineDimExpr(d) for d in range(axis)]
    results.append(index if flat.size == dim else partial(index))
    results += [AffineDimExpr(d) for d in range(axis + q, out_rank)]
    return AffineMap(out_rank, 0, tuple(results))
