"""Tensor operators: shape views, data movement and type conversion.

Flatten, Reshape, Squeeze and Unsqueeze only reinterpret a contiguous buffer, so
they are `memref.collapse_shape`/`memref.expand_shape` views (free in C).
Transpose, Concat, Slice and Gather copy through a `linalg.generic` whose maps do
the index arithmetic; Cast converts elementwise with `arith` casts. Shape and
Size of static tensors never get here: `onnx-fold-constants` folds them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    MemRefType,
    i64,
)
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
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    alloc,
    buffer_of,
    constant_value,
    copy,
    elementwise,
    generic,
    identity_map,
    insert,
    is_none,
    memref_type,
    normalize_axis,
    replace_with_buffers,
    required_constant,
    shape_of,
    unsupported,
)

# --- views ---------------------------------------------------------------------


def _groups(big: Sequence[int], small: Sequence[int]) -> list[list[int]] | None:
    """Contiguous groups of `big`'s dimensions whose sizes multiply to `small`'s,
    one group per dimension of `small` (the reassociation of a collapse from
    `big` or an expansion to `big`), or None if there is none."""
    if not small:
        return [] if all(size == 1 for size in big) else None
    groups: list[list[int]] = []
    position = 0
    for size in small:
        if position >= len(big):
            return None
        group, product = [position], big[position]
        position += 1
        while product != size and position < len(big) and product != 0:
            group.append(position)
            product *= big[position]
            position += 1
        if product != size:
            return None
        groups.append(group)
    for axis in range(position, len(big)):
        if big[axis] != 1:
            return None
        groups[-1].append(axis)
    return groups


def _reassociation(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in g]) for g in groups])


def _collapse(
    rewriter: PatternRewriter,
    source_op: onnx.OnnxOp,
    buffer: SSAValue,
    shape: Sequence[int],
    groups: Sequence[Sequence[int]],
) -> SSAValue:
    element = memref_type(buffer.type).get_element_type()
    op = memref.CollapseShapeOp.create(
        operands=[buffer],
        result_types=[MemRefType(element, shape)],
        properties={"reassociation": _reassociation(groups)},
    )
    return insert(rewriter, op, source_op).results[0]


def _expand(
    rewriter: PatternRewriter,
    source_op: onnx.OnnxOp,
    buffer: SSAValue,
    shape: Sequence[int],
    groups: Sequence[Sequence[int]],
) -> SSAValue:
    element = memref_type(buffer.type).get_element_type()
    op = memref.ExpandShapeOp.create(
        operands=[buffer],
        result_types=[MemRefType(element, shape)],
        properties={
            "reassociation": _reassociation(groups),
            "static_output_shape": DenseArrayBase.from_list(i64, list(shape)),
        },
    )
    return insert(rewriter, op, source_op).results[0]


def view(
    rewriter: PatternRewriter,
    source_op: onnx.OnnxOp,
    buffer: SSAValue,
    shape: Sequence[int],
) -> SSAValue:
    """`buffer` (contiguous, row-major) seen with `shape` (same element count):
    itself, one collapse or one expansion when the dimensions group, else a
    collapse to rank 1 followed by an expansion."""
    current = shape_of(buffer)
    shape = list(shape)
    if list(current) == shape:
        return buffer
    if len(shape) < len(current):
        groups = _groups(current, shape)
        if groups is not None:
            return _collapse(rewriter, source_op, buffer, shape, groups)
    if len(shape) > len(current):
        groups = _groups(shape, current)
        if groups is not None:
            return _expand(rewriter, source_op, buffer, shape, groups)
    count = int(np.prod(current, dtype=np.int64))
    flat = buffer
    if len(current) > 1:
        everything = [list(range(len(current)))]
        flat = _collapse(rewriter, source_op, buffer, [count], everything)
    elif not current:
        flat = _expand(rewriter, source_op, buffer, [count], [])
    if len(shape) > 1:
        return _expand(rewriter, source_op, flat, shape, [list(range(len(shape)))])
    if not shape:
        return _collapse(rewriter, source_op, flat, shape, [])
    return flat


def _check_shape(op: onnx.OnnxOp, computed: Sequence[int]) -> list[int]:
    expected = list(shape_of(op.results[0]))
    if list(computed) != expected:
        raise unsupported(
            op,
            f"computed output shape {list(computed)} differs from the inferred shape {expected}",
        )
    return expected


def _replace(rewriter: PatternRewriter, op: onnx.OnnxOp, buffer: SSAValue) -> None:
    """Replace `op`'s result by `buffer`. The constants (shapes, axes, bounds)
    only `op` read are dropped at the end of the pass, so they stay out of flash."""
    replace_with_buffers(rewriter, op, [buffer])


def _replace_with_view(rewriter: PatternRewriter, op: onnx.OnnxOp, shape: Sequence[int]) -> None:
    buffer = buffer_of(rewriter, op.operands[0])
    _replace(rewriter, op, view(rewriter, op, buffer, shape))


class FlattenOpLowering(OnnxLowering[onnx.FlattenOp]):
    """`onnx.Flatten` -> a view as the 2-D shape (prod(shape[:axis]),
    prod(shape[axis:])); `axis` may be negative and ranges over [-rank, rank]."""

    def rewrite(self, op: onnx.FlattenOp, rewriter: PatternRewriter) -> None:
        shape = shape_of(op.operands[0])
        axis = op.attr("axis")
        if not -len(shape) <= axis <= len(shape):
            raise unsupported(op, f"axis {axis} is out of range for rank {len(shape)}")
        axis = axis + len(shape) if axis < 0 else axis
        outer = int(np.prod(shape[:axis], dtype=np.int64))
        inner = int(np.prod(shape[axis:], dtype=np.int64))
        _replace_with_view(rewriter, op, _check_shape(op, [outer, inner]))


def reshape_target(
    op: onnx.OnnxOp, in_shape: Sequence[int], shape: Sequence[int], allowzero: int
) -> list[int]:
    """The output shape of Reshape(data of `in_shape`, `shape`): 0 copies the
    input's dimension (unless `allowzero`), one -1 is inferred."""
    out: list[int] = []
    inferred: int | None = None
    for index, size in enumerate(int(s) for s in shape):
        if size == -1:
            if inferred is not None:
                raise unsupported(op, "the shape has more than one -1")
            inferred = index
            out.append(1)
        elif size == 0 and not allowzero:
            if index >= len(in_shape):
                raise unsupported(op, f"shape[{index}] = 0 has no input dimension")
            out.append(in_shape[index])
        elif size < 0:
            raise unsupported(op, f"invalid size {size} in the shape")
        else:
            out.append(size)
    total = int(np.prod(in_shape, dtype=np.int64))
    if inferred is not None:
        if allowzero and 0 in out:
            raise unsupported(op, "allowzero=1 with both 0 and -1 in the shape")
        rest = int(np.prod(out, dtype=np.int64))
        if rest == 0 or total % rest != 0:
            raise unsupported(op, f"cannot infer -1: {total} elements into {shape}")
        out[inferred] = total // rest
    if int(np.prod(out, dtype=np.int64)) != total:
        raise unsupported(op, f"shape {list(shape)} does not hold {total} elements")
    return out


class ReshapeOpLowering(OnnxLowering[onnx.ReshapeOp]):
    """`onnx.Reshape` -> a view of the data buffer. A constant `shape` is checked
    with the spec's rules (0 copies a dimension unless `allowzero`, -1 is
    inferred) against the inferred type; a computed `shape` takes the inferred
    (static) output type."""

    def rewrite(self, op: onnx.ReshapeOp, rewriter: PatternRewriter) -> None:
        shape = constant_value(op.operands[1])
        target = shape_of(op.results[0])
        if shape is not None:
            in_shape = shape_of(op.operands[0])
            allowzero = op.attr("allowzero")
            target = _check_shape(op, reshape_target(op, in_shape, shape.tolist(), allowzero))
        _replace_with_view(rewriter, op, target)


def _axes(op: onnx.OnnxOp, axes: np.ndarray, rank: int) -> list[int]:
    normalized = [normalize_axis(op, int(a), rank) for a in axes.reshape(-1)]
    if len(set(normalized)) != len(normalized):
        raise unsupported(op, f"repeated axes {axes.tolist()}")
    return normalized


class SqueezeOpLowering(OnnxLowering[onnx.SqueezeOp]):
    """`onnx.Squeeze` -> a view without the listed size-1 axes (all size-1 axes
    when `axes` is omitted). A constant `axes` is checked; a computed one takes
    the inferred output type."""

    def rewrite(self, op: onnx.SqueezeOp, rewriter: PatternRewriter) -> None:
        in_shape = shape_of(op.operands[0])
        target = list(shape_of(op.results[0]))
        axes_value = op.operands[1]
        axes = None if is_none(axes_value) else constant_value(axes_value)
        if is_none(axes_value):
            target = _check_shape(op, [s for s in in_shape if s != 1])
        elif axes is not None:
            squeezed = _axes(op, axes, len(in_shape))
            if any(in_shape[a] != 1 for a in squeezed):
                raise unsupported(op, f"cannot squeeze axes {squeezed} of {in_shape}")
            target = _check_shape(op, [s for a, s in enumerate(in_shape) if a not in squeezed])
        _replace_with_view(rewriter, op, target)


class UnsqueezeOpLowering(OnnxLowering[onnx.UnsqueezeOp]):
    """`onnx.Unsqueeze` -> a view with size-1 axes inserted at `axes` (positions
    in the output, negative ones counted from its end). A constant `axes` is
    checked; a computed one takes the inferred output type."""

    def rewrite(self, op: onnx.UnsqueezeOp, rewriter: PatternRewriter) -> None:
        in_shape = list(shape_of(op.operands[0]))
        target = list(shape_of(op.results[0]))
        axes = constant_value(op.operands[1])
        if axes is not None:
            inserted = _axes(op, axes, len(in_shape) + axes.size)
            remaining = iter(in_shape)
            computed = [
                1 if a in inserted else next(remaining)
                for a in range(len(in_shape) + len(inserted))
            ]
            target = _check_shape(op, computed)
        _replace_with_view(rewriter, op, target)


# --- copies ----------------------------------------------------------------------


def _partial(expr: AffineExpr) -> AffineExpr:
    """`expr`, spelled `dN + 0` if it is a bare `dN`: a bare dim result must span
    its operand's whole dimension, and this one covers only part of it."""
    if isinstance(expr, AffineDimExpr):
        return AffineBinaryOpExpr(AffineBinaryOpKind.Add, expr, AffineConstantExpr(0))
    return expr


class TransposeOpLowering(OnnxLowering[onnx.TransposeOp]):
    """`onnx.Transpose` -> a generic copy over the output, reading the input
    through the permuted map; `perm` defaults to reversing the axes."""

    def rewrite(self, op: onnx.TransposeOp, rewriter: PatternRewriter) -> None:
        in_shape = shape_of(op.operands[0])
        rank = len(in_shape)
        perm = op.attr("perm")
        perm = list(range(rank))[::-1] if perm is None else [int(p) for p in perm]
        if sorted(perm) != list(range(rank)):
            raise unsupported(op, f"perm {perm} is not a permutation of {rank} axes")
        _check_shape(op, [in_shape[p] for p in perm])
        buffer = buffer_of(rewriter, op.operands[0])
        if perm == list(range(rank)):
            replace_with_buffers(rewriter, op, [buffer])
            return
        output = alloc(rewriter, op.results[0].type)
        # Output axis i reads input axis perm[i]: input axis j is loop dim inv[j].
        inverse = [perm.index(j) for j in range(rank)]
        read = AffineMap(rank, 0, tuple(AffineDimExpr(inverse[j]) for j in range(rank)))
        copy(rewriter, op, buffer, output, read, identity_map(rank))
        _replace(rewriter, op, output)


class ConcatOpLowering(OnnxLowering[onnx.ConcatOp]):
    """`onnx.Concat` -> one generic copy per (non-empty) input, iterating over the
    input and writing at `d_axis + offset` in the output; `axis` may be
    negative."""

    def rewrite(self, op: onnx.ConcatOp, rewriter: PatternRewriter) -> None:
        out_shape = shape_of(op.results[0])
        rank = len(out_shape)
        if rank == 0:
            raise unsupported(op, "cannot concatenate scalars")
        axis = normalize_axis(op, op.attr("axis"), rank)
        output = alloc(rewriter, op.results[0].type)
        offset = 0
        for value in op.operands:
            shape = shape_of(value)
            others = [s for a, s in enumerate(shape) if a != axis]
            expected = [s for a, s in enumerate(out_shape) if a != axis]
            if len(shape) != rank or others != expected:
                raise unsupported(op, f"input shape {list(shape)} does not fit")
            buffer = buffer_of(rewriter, value)
            if shape[axis] != 0 and 0 not in others:
                shifted = AffineDimExpr(axis) + offset
                if shape[axis] != out_shape[axis]:
                    shifted = _partial(shifted)
                write = AffineMap(
                    rank,
                    0,
                    tuple(shifted if d == axis else AffineDimExpr(d) for d in range(rank)),
                )
                copy(rewriter, op, buffer, output, identity_map(rank), write)
            offset += shape[axis]
        if offset != out_shape[axis]:
            raise unsupported(op, "the inputs do not add up to the output")
        _replace(rewriter, op, output)


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


class SliceOpLowering(OnnxLowering[onnx.SliceOp]):
    """`onnx.Slice` with constant `starts`, `ends` and optional `axes` (negative
    allowed) and `steps` (negative allowed, not 0) -> a generic copy over the
    output reading `start + d * step`; bounds are clamped as the spec says.
    Computed bounds are rejected."""

    def rewrite(self, op: onnx.SliceOp, rewriter: PatternRewriter) -> None:
        data, starts_value, ends_value, axes_value, steps_value = op.operands
        in_shape = shape_of(data)
        rank = len(in_shape)
        starts = required_constant(op, starts_value, "starts").reshape(-1).tolist()
        ends = required_constant(op, ends_value, "ends").reshape(-1).tolist()
        if len(starts) != len(ends):
            raise unsupported(op, "starts and ends differ in length")
        axes = (
            list(range(len(starts)))
            if is_none(axes_value)
            else _axes(op, required_constant(op, axes_value, "axes"), rank)
        )
        steps = (
            [1] * len(starts)
            if is_none(steps_value)
            else required_constant(op, steps_value, "steps").reshape(-1).tolist()
        )
        if not len(axes) == len(steps) == len(starts):
            raise unsupported(op, "starts, ends, axes and steps differ in length")
        if 0 in steps:
            raise unsupported(op, "a step is 0")
        first = [0] * rank
        step_of = [1] * rank
        out_shape = list(in_shape)
        for axis, start, end, step in zip(axes, starts, ends, steps, strict=True):
            first[axis], out_shape[axis] = slice_bounds(
                in_shape[axis], int(start), int(end), int(step)
            )
            step_of[axis] = int(step)
        _check_shape(op, out_shape)
        buffer = buffer_of(rewriter, data)
        output = alloc(rewriter, op.results[0].type)
        if 0 not in out_shape:
            reads = [AffineDimExpr(d) * step_of[d] + first[d] for d in range(rank)]
            read = AffineMap(
                rank,
                0,
                tuple(
                    _partial(e) if in_shape[d] != out_shape[d] else e for d, e in enumerate(reads)
                ),
            )
            copy(rewriter, op, buffer, output, read, identity_map(rank))
        _replace(rewriter, op, output)


class GatherOpLowering(OnnxLowering[onnx.GatherOp]):
    """`onnx.Gather` (any `axis`, indices of any rank) -> a generic copy over the
    output. Constant indices (negative ones normalised; out-of-range ones
    rejected) that form an arithmetic progression, such as a single index, are
    read through an affine map; other indices are read from their buffer and
    the body loads the data element (negative indices wrap, out-of-range ones
    are clamped so the load stays in bounds)."""

    def rewrite(self, op: onnx.GatherOp, rewriter: PatternRewriter) -> None:
        data, indices_value = op.operands
        in_shape = shape_of(data)
        rank = len(in_shape)
        if rank == 0:
            raise unsupported(op, "cannot gather from a scalar")
        axis = normalize_axis(op, op.attr("axis"), rank)
        index_shape = shape_of(indices_value)
        q = len(index_shape)
        out_shape = _check_shape(op, [*in_shape[:axis], *index_shape, *in_shape[axis + 1 :]])
        out_rank = len(out_shape)
        dim = in_shape[axis]
        buffer = buffer_of(rewriter, data)
        output = alloc(rewriter, op.results[0].type)
        if 0 in out_shape:
            _replace(rewriter, op, output)
            return
        indices = constant_value(indices_value)
        if indices is not None:
            if np.any(indices < -dim) or np.any(indices >= dim):
                raise unsupported(op, f"an index is out of range for size {dim}")
            flat = np.where(indices < 0, indices + dim, indices).reshape(-1)
            steps = np.diff(flat)
            if steps.size == 0 or np.all(steps == steps[0]):
                step = int(steps[0]) if steps.size else 0
                strides = [int(np.prod(index_shape[k + 1 :])) for k in range(q)]
                index: AffineExpr | None = None
                for k, stride in enumerate(strides):
                    if step * stride != 0:
                        term = AffineDimExpr(axis + k) * (step * stride)
                        index = term if index is None else index + term
                start = int(flat[0])
                index = AffineConstantExpr(start) if index is None else index + start
                results = [AffineDimExpr(d) for d in range(axis)]
                results.append(index if flat.size == dim else _partial(index))
                results += [AffineDimExpr(d) for d in range(axis + q, out_rank)]
                copy(
                    rewriter,
                    op,
                    buffer,
                    output,
                    AffineMap(out_rank, 0, tuple(results)),
                    identity_map(out_rank),
                )
                _replace(rewriter, op, output)
                return
        index_buffer = buffer_of(rewriter, indices_value)
        index_map = AffineMap(out_rank, 0, tuple(AffineDimExpr(axis + k) for k in range(q)))

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            position = b.insert(arith.IndexCastOp(args[0], IndexType())).result
            size = b.insert(arith.ConstantOp.from_int_and_width(dim, IndexType()))
            zero = b.insert(arith.ConstantOp.from_int_and_width(0, IndexType()))
            last = b.insert(arith.ConstantOp.from_int_and_width(dim - 1, IndexType()))
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
        _replace(rewriter, op, output)


# --- conversions -------------------------------------------------------------------


def _lower_cast(rewriter: PatternRewriter, op: onnx.OnnxOp) -> None:
    source_type = memref_type(op.operands[0].type).get_element_type()
    target_type = memref_type(op.results[0].type).get_element_type()
    if source_type == target_type:
        replace_with_buffers(rewriter, op, [buffer_of(rewriter, op.operands[0])])
        return
    elementwise(
        rewriter,
        op,
        lambda b, args: scalar.convert(b, args[0], target_type),
        inputs=[op.operands[0]],
    )


class CastOpLowering(OnnxLowering[onnx.CastOp]):
    """`onnx.Cast` -> an elementwise conversion (see `scalar.convert`) between
    any two element types of the table; a cast to the same type is the input
    buffer. `saturate` and `round_mode` only concern 8-bit floats, which the
    table does not have yet."""

    def rewrite(self, op: onnx.CastOp, rewriter: PatternRewriter) -> None:
        _lower_cast(rewriter, op)


class CastLikeOpLowering(OnnxLowering[onnx.CastLikeOp]):
    """`onnx.CastLike` -> as `onnx.Cast` to the element type of `target_type`."""

    def rewrite(self, op: onnx.CastLikeOp, rewriter: PatternRewriter) -> None:
        _lower_cast(rewriter, op)
