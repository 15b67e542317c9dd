"""Views: operators that only reinterpret a contiguous buffer.

Flatten, Reshape, Squeeze and Unsqueeze become `memref.collapse_shape` /
`memref.expand_shape` views (free in C): one of them when the dimensions
group, else a collapse to one dimension followed by an expansion. Sizes known
at run time are `index` operands of the expansion.

Reshape's target shape follows the spec: 0 copies the input's dimension
(unless `allowzero`) and one -1 takes what is left. A shape tensor computed at
run time is read at run time, with a check that the element count matches
(ONNXC_ERR_SHAPE otherwise), unless shape inference already knew each size.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    MemRefType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.dims import symbols_of
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    check,
    insert,
    is_none,
    memref_type,
    normalize_axis,
    tensor_type,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size, is_static


def _groups(shapes: Shapes, big: Sequence[Size], small: Sequence[Size]) -> list[list[int]] | None:
    """Contiguous groups of `big`'s dimensions whose sizes multiply to `small`'s,
    one group per dimension of `small` (the reassociation of a collapse from
    `big` or an expansion to `big`), or None if there is none (or it cannot be
    known before run time)."""
    if not small:
        return [] if all(size == 1 for size in big) else None
    groups: list[list[int]] = []
    position = 0
    for size in small:
        if position >= len(big):
            return None
        group, product = [position], big[position]
        position += 1
        while not shapes.same(product, size) and position < len(big) and product != 0:
            if isinstance(product, int) and isinstance(size, int) and product > size:
                return None
            group.append(position)
            product = shapes.mul(product, big[position])
            position += 1
        if not shapes.same(product, size):
            return None
        groups.append(group)
    for axis in range(position, len(big)):
        if big[axis] != 1:
            return None
        groups[-1].append(axis)
    return groups


def _reassociation(groups: Sequence[Sequence[int]]) -> ArrayAttr:
    return ArrayAttr([ArrayAttr([IntegerAttr(i, i64) for i in g]) for g in groups])


def _memref(element: Attribute, sizes: Sequence[Size]) -> MemRefType:
    shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    return MemRefType(element, shape)


def _collapse(
    rewriter: PatternRewriter,
    source_op: onnx.OnnxOp,
    buffer: SSAValue,
    sizes: Sequence[Size],
    groups: Sequence[Sequence[int]],
) -> SSAValue:
    element = memref_type(buffer.type).get_element_type()
    op = memref.CollapseShapeOp.create(
        operands=[buffer],
        result_types=[_memref(element, sizes)],
        properties={"reassociation": _reassociation(groups)},
    )
    return insert(rewriter, op, source_op).results[0]


def _expand(
    rewriter: PatternRewriter,
    source_op: onnx.OnnxOp,
    buffer: SSAValue,
    sizes: Sequence[Size],
    groups: Sequence[Sequence[int]],
) -> SSAValue:
    element = memref_type(buffer.type).get_element_type()
    static = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    op = memref.ExpandShapeOp.build(
        operands=[buffer, [s for s in sizes if isinstance(s, SSAValue)]],
        result_types=[_memref(element, sizes)],
        properties={
            "reassociation": _reassociation(groups),
            "static_output_shape": DenseArrayBase.from_list(i64, static),
        },
    )
    return insert(rewriter, op, source_op).results[0]


def view(
    rewriter: PatternRewriter,
    shapes: Shapes,
    source_op: onnx.OnnxOp,
    buffer: SSAValue,
    sizes: Sequence[Size],
) -> SSAValue:
    """`buffer` (contiguous, row-major) seen with `sizes` (the same element
    count): itself, one collapse or one expansion when the dimensions group,
    else a collapse to rank 1 followed by an expansion."""
    current = shapes.sizes(buffer)
    target = list(sizes)
    if len(current) == len(target) and all(map(shapes.same, current, target)):
        return buffer
    if len(target) < len(current):
        groups = _groups(shapes, current, target)
        if groups is not None:
            return _collapse(rewriter, source_op, buffer, target, groups)
    if len(target) > len(current):
        groups = _groups(shapes, target, current)
        if groups is not None:
            return _expand(rewriter, source_op, buffer, target, groups)
    flat = buffer
    if len(current) > 1:
        everything = [list(range(len(current)))]
        flat = _collapse(rewriter, source_op, buffer, [shapes.product(current)], everything)
    elif not current:
        flat = _expand(rewriter, source_op, buffer, [1], [])
    if len(target) > 1:
        return _expand(rewriter, source_op, flat, target, [list(range(len(target)))])
    if not target:
        return _collapse(rewriter, source_op, flat, target, [])
    return flat


class ViewLowering(OnnxLowering[onnx.OnnxOp]):
    """Base of the view lowerings: `target` gives the output's sizes, the op
    becomes a view of its data input with them."""

    def target(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> list[Size]:
        raise NotImplementedError

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        target = self.shapes.result_sizes(op.results[0], self.target(op, rewriter))
        buffer = buffer_of(rewriter, op.operands[0])
        self.replace(rewriter, op, [view(rewriter, self.shapes, op, buffer, target)])


class FlattenOpLowering(ViewLowering):
    """`onnx.Flatten` -> a view as the 2-D shape (prod(shape[:axis]),
    prod(shape[axis:])); `axis` may be negative and ranges over [-rank, rank]."""

    source = onnx.FlattenOp

    def target(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> list[Size]:
        shape = self.shapes.sizes(op.operands[0])
        axis = op.attr("axis")
        if not -len(shape) <= axis <= len(shape):
            raise unsupported(op, f"axis {axis} is out of range for rank {len(shape)}")
        axis = axis + len(shape) if axis < 0 else axis
        return [self.shapes.product(shape[:axis]), self.shapes.product(shape[axis:])]


def reshape_target(
    op: onnx.OnnxOp,
    shapes: Shapes,
    rewriter: PatternRewriter,
    in_shape: Sequence[Size],
    shape: Sequence[Size],
    allowzero: int,
) -> list[Size]:
    """The output sizes of Reshape(data of `in_shape`, `shape`): 0 copies the
    input's dimension (unless `allowzero`), one -1 takes what is left. Known
    elements are resolved now; elements known at run time with selects, and
    run-time checks that each is -1 or more, that one at most is -1 and that
    the element count is kept (counts computed without overflow)."""
    limit = shapes.limits.elements + 1
    total = shapes.saturating_product(in_shape, limit)
    resolved: list[Size] = []
    for index, size in enumerate(shape):
        if isinstance(size, int):
            if size < -1:
                raise unsupported(op, f"invalid size {size} in the shape")
            if size == 0 and not allowzero:
                if index >= len(in_shape):
                    raise unsupported(op, f"shape[{index}] = 0 has no input dimension")
                size = in_shape[index]
            resolved.append(size)
            continue
        check(rewriter, op, shapes.less(-2, size), f"shape[{index}] >= -1")
        if not allowzero and index < len(in_shape):
            size = _select(shapes, rewriter, shapes.equal(size, 0), in_shape[index], size)
        resolved.append(size)
    fixed = [s for s in resolved if not (isinstance(s, int) and s == -1)]
    given = sum(1 for s in resolved if isinstance(s, int) and s == -1)
    if given > 1:
        raise unsupported(op, "the shape has more than one -1")
    unknown = [shapes.flag(shapes.equal(s, -1)) for s in resolved if isinstance(s, SSAValue)]
    if unknown:
        minus_ones = _sum(shapes, [given, *unknown])
        check(rewriter, op, shapes.less(minus_ones, 2), "one -1 at most in the shape")
    known = [
        _select(shapes, rewriter, shapes.equal(s, -1), 1, s) if isinstance(s, SSAValue) else s
        for s in fixed
    ]
    rest = shapes.saturating_product(known, limit)
    if isinstance(rest, int) and isinstance(total, int) and rest != 0 and -1 in resolved:
        if total % rest != 0:
            raise unsupported(op, f"cannot infer -1: {total} elements into {list(shape)}")
    inferred = _safe_floordiv(shapes, rewriter, total, rest)
    out: list[Size] = []
    for size in resolved:
        if isinstance(size, int):
            out.append(inferred if size == -1 else size)
        else:
            out.append(_select(shapes, rewriter, shapes.equal(size, -1), inferred, size))
    count = shapes.saturating_product(out, limit)
    if isinstance(count, int) and isinstance(total, int):
        if count != total:
            raise unsupported(op, f"shape {list(shape)} does not hold {total} elements")
    elif not shapes.same(count, total):
        keeps = shapes.equal(count, total)
        check(rewriter, op, keeps, "the shape keeps the count")
    return out


def _sum(shapes: Shapes, sizes: Sequence[Size]) -> Size:
    total: Size = 0
    for size in sizes:
        total = shapes.add(total, size)
    return total


def _select(
    shapes: Shapes, rewriter: PatternRewriter, condition: SSAValue, a: Size, b: Size
) -> SSAValue:
    lhs, rhs = shapes.index(a), shapes.index(b)
    return rewriter.insert(arith.SelectOp(condition, lhs, rhs)).result


def _safe_floordiv(shapes: Shapes, rewriter: PatternRewriter, a: Size, b: Size) -> Size:
    """a // b, or 0 when b is 0 (a count that does not fit is caught by the
    element-count check)."""
    if isinstance(b, int):
        return 0 if b == 0 else shapes.floordiv(a, b)
    is_zero = shapes.equal(b, 0)
    divisor = _select(shapes, rewriter, is_zero, 1, b)
    return _select(shapes, rewriter, is_zero, 0, shapes.floordiv(a, divisor))


class ReshapeOpLowering(ViewLowering):
    """`onnx.Reshape` -> a view of the data buffer with the spec's target shape
    (0 copies a dimension unless `allowzero`, -1 is inferred). The target
    comes from the result type where shape inference knew every size, else
    from the shape tensor (read at run time when it is computed)."""

    source = onnx.ReshapeOp

    def target(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> list[Size]:
        result_type = op.results[0].type
        assert isinstance(result_type, TensorType)
        if all(s in self.shapes.symbols for s in symbols_of(result_type)):
            return self.shapes.sizes(op.results[0])
        shape = shape_elements(op, rewriter, self.shapes, op.operands[1])
        in_shape = self.shapes.sizes(op.operands[0])
        return reshape_target(op, self.shapes, rewriter, in_shape, shape, op.attr("allowzero"))


def distinct_axes(op: onnx.OnnxOp, axes: np.ndarray, rank: int) -> list[int]:
    """`axes` in [0, rank) (negative ones counted from the end); a repeated
    axis is an error naming the node."""
    normalized = [normalize_axis(op, int(a), rank) for a in axes.reshape(-1)]
    if len(set(normalized)) != len(normalized):
        raise unsupported(op, f"repeated axes {axes.tolist()}")
    return normalized


class SqueezeOpLowering(ViewLowering):
    """`onnx.Squeeze` -> a view without the listed size-1 axes (all axes of
    size 1 when `axes` is omitted). Axes computed at run time, or sizes that
    may or may not be 1 without axes, pick the kept sizes at run time (the
    result's rank, from the type, is fixed), checked."""

    source = onnx.SqueezeOp

    def target(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> list[Size]:
        shapes = self.shapes
        in_shape = shapes.sizes(op.operands[0])
        rank = len(in_shape)
        out_rank = len(tensor_type(op.results[0]).get_shape())
        axes_value = op.operands[1]
        if is_none(axes_value):
            if all(isinstance(s, int) for s in in_shape):
                return [s for s in in_shape if s != 1]
            flags: list[Size] = [shapes.flag(shapes.equal(s, 1)) for s in in_shape]
        else:
            axes = shape_elements(op, rewriter, shapes, axes_value)
            if is_static(axes):
                squeezed = distinct_axes(op, np.array(axes), rank)
                if any(isinstance(in_shape[a], int) and in_shape[a] != 1 for a in squeezed):
                    raise unsupported(op, f"cannot squeeze axes {squeezed} of {list(in_shape)}")
                return [s for a, s in enumerate(in_shape) if a not in squeezed]
            flags = axis_flags(shapes, rewriter, op, axes, rank)
            for flag, size in zip(flags, in_shape, strict=True):
                ones = shapes.either(shapes.equal(flag, 0), shapes.equal(size, 1))
                check(rewriter, op, ones, "squeezed axes have size 1")
        removed = shapes.add(0, 0)
        for flag in flags:
            removed = shapes.add(removed, flag)
        check(rewriter, op, shapes.equal(removed, rank - out_rank), "the result's rank")
        return compacted(shapes, in_shape, flags, out_rank)


class UnsqueezeOpLowering(ViewLowering):
    """`onnx.Unsqueeze` -> a view with size-1 axes inserted at `axes`
    (positions in the output, negative ones counted from its end); axes
    computed at run time place the inserted axes at run time, checked."""

    source = onnx.UnsqueezeOp

    def target(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> list[Size]:
        shapes = self.shapes
        in_shape = shapes.sizes(op.operands[0])
        axes = shape_elements(op, rewriter, shapes, op.operands[1])
        out_rank = len(in_shape) + len(axes)
        if is_static(axes):
            inserted = distinct_axes(op, np.array(axes), out_rank)
            remaining = iter(in_shape)
            return [1 if a in inserted else next(remaining) for a in range(out_rank)]
        flags = axis_flags(shapes, rewriter, op, axes, out_rank)
        # Output axis j is new, or input axis j - (new axes before j).
        sizes: list[Size] = []
        before: Size = 0
        for j, flag in enumerate(flags):
            source = shapes.sub(j, before)
            size: Size = in_shape[0] if in_shape else 1
            for i, candidate in enumerate(in_shape[1:], start=1):
                size = shapes.select(shapes.equal(source, i), candidate, size)
            sizes.append(shapes.select(shapes.equal(flag, 1), 1, size))
            before = shapes.add(before, flag)
        return sizes


def axis_flags(
    shapes: Shapes, rewriter: PatternRewriter, op: onnx.OnnxOp, axes: Sequence[Size], rank: int
) -> list[Size]:
    """For each of `rank` axes, 1 if `axes` (known at run time, negative ones
    counted from the end) names it, else 0; each must be in range and named
    at most once (checked)."""
    normalized: list[Size] = []
    for axis in axes:
        wrapped = shapes.select(shapes.less(axis, 0), shapes.add(axis, rank), axis)
        inside = shapes.equal(shapes.clamp(wrapped, 0, rank - 1), wrapped)
        check(rewriter, op, inside, "an axis is in range")
        normalized.append(wrapped)
    flags: list[Size] = []
    for position in range(rank):
        count: Size = 0
        for axis in normalized:
            count = shapes.add(count, shapes.flag(shapes.equal(axis, position)))
        check(rewriter, op, shapes.less(count, 2), "no axis is repeated")
        flags.append(count)
    return flags


def compacted(
    shapes: Shapes, sizes: Sequence[Size], removed: Sequence[Size], out_rank: int
) -> list[Size]:
    """The `sizes` whose flag in `removed` is 0, in order (`out_rank` of them,
    known only at run time which)."""
    found: list[Size] = []
    for j in range(out_rank):
        size: Size = 1
        kept_before: Size = 0
        for i, candidate in enumerate(sizes):
            kept = shapes.equal(removed[i], 0)
            here = shapes.both(kept, shapes.equal(kept_before, j))
            size = shapes.select(here, candidate, size)
            kept_before = shapes.add(kept_before, shapes.sub(1, removed[i]))
        found.append(size)
    return found
