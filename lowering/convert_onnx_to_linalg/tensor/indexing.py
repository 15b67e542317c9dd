"""Indexing by data: GatherElements, GatherND, ScatterElements, ScatterND and
OneHot, whose positions come from an index tensor.

An index may be negative (counted from the end of its axis). One outside
[-size, size) is ONNXC_ERR_SHAPE at run time, as onnxruntime refuses it
(never a read or write out of bounds); OneHot is the exception the spec
makes: an index outside [-depth, depth) gives a row of `off` values.
Gathers are one generic over the output whose body loads the data element
at the position the indices give. Scatters copy the data into the output,
then walk the updates in order with explicit loops (so with duplicate
indices and no reduction the last update wins, as in onnxruntime), storing
or combining (add, mul, max, min; on bool add is `or` and mul is `and`, as
numpy and onnx.reference compute them) each update into the output.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import CheckOp
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    check,
    comment_for,
    constant_value,
    copy,
    element_type,
    identity_map,
    indexed_generic,
    normalize_axis,
    shape_of,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, index, nest
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size


def position_in(b: Builder, op: onnx.OnnxOp, raw: SSAValue, size: SSAValue, what: str) -> SSAValue:
    """An element of an index tensor (int32 or int64) as a position along an
    axis of `size`: a negative one counts from the end; one outside
    [-size, size) stops the model with ONNXC_ERR_SHAPE."""
    position = b.insert(arith.IndexCastOp(raw, IndexType())).result
    negative = b.insert(arith.CmpiOp(position, index(b, 0), "slt")).result
    wrapped = b.insert(arith.AddiOp(position, size)).result
    position = b.insert(arith.SelectOp(negative, wrapped, position)).result
    inside = b.insert(arith.CmpiOp(position, size, "ult")).result
    b.insert(CheckOp(inside, f"{comment_for(op).data}: {what} is in range"))
    return position


def require_sizes(
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    shapes: Shapes,
    inner: Sequence[Size],
    outer: Sequence[Size],
    what: str,
    at_most: bool = False,
) -> None:
    """The sizes of `inner` are those of `outer` (or, `at_most`, no larger:
    an index tensor must not reach past the data): an error now where both
    are known (the ranks too), else checked at run time."""
    if len(inner) != len(outer):
        raise unsupported(op, f"{what}: rank {len(inner)} where {len(outer)} is needed")
    for d, (a, b) in enumerate(zip(inner, outer, strict=True)):
        if isinstance(a, int) and isinstance(b, int):
            if a > b or (a != b and not at_most):
                raise unsupported(op, f"{what}: size {a} of axis {d} does not fit {b}")
        elif not shapes.same(a, b):
            fits = shapes.equal(shapes.min(a, b) if at_most else b, a)
            check(rewriter, op, fits, f"{what} fits axis {d}")


def along_axis(
    op: onnx.GatherElementsOp | onnx.ScatterElementsOp, rewriter: PatternRewriter, shapes: Shapes
) -> tuple[list[Size], list[Size], int]:
    """The data's and the indices' sizes and the axis of an ...Elements op,
    checked: the same rank, and indices reaching no further than the data
    along the other axes."""
    sizes = shapes.sizes(op.data)
    index_sizes = shapes.sizes(op.indices)
    rank = len(sizes)
    if rank == 0 or len(index_sizes) != rank:
        raise unsupported(op, "data and indices must have the same rank (at least 1)")
    axis = normalize_axis(op, op.attr("axis"), rank)
    others = [d for d in range(rank) if d != axis]
    inner, outer = [index_sizes[d] for d in others], [sizes[d] for d in others]
    require_sizes(op, rewriter, shapes, inner, outer, "indices", at_most=True)
    return sizes, index_sizes, axis


def _combine(op: onnx.OnnxOp, reduction: str, t: Attribute) -> scalar.ScalarOp | None:
    """The scalar operation of a scatter's `reduction` on elements of type
    `t` (None for "none")."""
    if reduction == "none":
        return None
    boolean = scalar.kind(t) is Kind.BOOL
    table = {
        "add": scalar.OR if boolean else scalar.ADD,
        "mul": scalar.AND if boolean else scalar.MUL,
        "max": scalar.MAX,
        "min": scalar.MIN,
    }
    if reduction not in table:
        raise unsupported(op, f"reduction '{reduction}'")
    return table[reduction]


def _update(
    b: Builder,
    combine: scalar.ScalarOp | None,
    value: SSAValue,
    output: SSAValue,
    target: list[SSAValue],
) -> None:
    """Store `value` at `target` of `output`, or combine it with what is there."""
    if combine is not None:
        old = b.insert(memref.LoadOp.get(output, target)).res
        value = combine(b, old, value)
    b.insert(memref.StoreOp.get(value, output, target))


class GatherElementsOpLowering(OnnxLowering[onnx.GatherElementsOp]):
    """`onnx.GatherElements`: output[p] = data[p with p[axis] = indices[p]]."""

    def rewrite(self, op: onnx.GatherElementsOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes, index_sizes, axis = along_axis(op, rewriter, shapes)
        output = self.result_buffer(rewriter, op.output, index_sizes)
        data, indices = buffer_of(rewriter, op.data), buffer_of(rewriter, op.indices)
        size = shapes.index(sizes[axis])

        def body(b: Builder, position: list[SSAValue], args: Sequence[SSAValue]) -> SSAValue:
            reads = list(position)
            reads[axis] = position_in(b, op, args[0], size, "an index")
            return b.insert(memref.LoadOp.get(data, reads)).res

        indexed_generic(rewriter, op, output, body, [indices], [identity_map(len(sizes))])
        self.replace(rewriter, op, [output])


def _tuple_length(op: onnx.OnnxOp, indices: SSAValue, data_rank: int, batch: int) -> int:
    """The length k of the index tuples (the last axis of `indices`), which
    must be known at compile time and at most the data's rank past the
    batch axes."""
    index_shape = shape_of(indices)
    if not index_shape:
        raise unsupported(op, "indices must have rank 1 or more")
    k = index_shape[-1]
    if k < 0:
        raise unsupported(op, "the last axis of indices must be known at compile time")
    if not 1 <= k <= data_rank - batch:
        raise unsupported(op, f"index tuples of length {k} for data of rank {data_rank}")
    return k


def _tuple(
    b: Builder,
    op: onnx.OnnxOp,
    indices: SSAValue,
    prefix: Sequence[SSAValue],
    sizes: Sequence[SSAValue],
) -> list[SSAValue]:
    """The positions that the index tuple at `prefix` of `indices` gives
    along axes of `sizes`, each checked."""
    positions: list[SSAValue] = []
    for j, size in enumerate(sizes):
        raw = b.insert(memref.LoadOp.get(indices, [*prefix, index(b, j)])).res
        positions.append(position_in(b, op, raw, size, f"index {j} of a tuple"))
    return positions


class GatherNDOpLowering(OnnxLowering[onnx.GatherNDOp]):
    """`onnx.GatherND`: each index tuple (the last axis of `indices`, of
    length k known at compile time) picks a slice of data; the first
    `batch_dims` axes of data and indices go together."""

    def rewrite(self, op: onnx.GatherNDOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.data)
        index_sizes = shapes.sizes(op.indices)
        batch = op.attr("batch_dims") or 0
        if not 0 <= batch < min(len(sizes), len(index_sizes)):
            raise unsupported(op, f"batch_dims {batch}")
        k = _tuple_length(op, op.indices, len(sizes), batch)
        require_sizes(op, rewriter, shapes, index_sizes[:batch], sizes[:batch], "batch axes")
        q = len(index_sizes)
        output = self.result_buffer(rewriter, op.output, [*index_sizes[:-1], *sizes[batch + k :]])
        data, indices = buffer_of(rewriter, op.data), buffer_of(rewriter, op.indices)
        bounds = [shapes.index(s) for s in sizes[batch : batch + k]]

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            picked = _tuple(b, op, indices, position[: q - 1], bounds)
            reads = [*position[:batch], *picked, *position[q - 1 :]]
            return b.insert(memref.LoadOp.get(data, reads)).res

        if not any(isinstance(s, int) and s == 0 for s in shapes.sizes(output)):
            indexed_generic(rewriter, op, output, body)
        self.replace(rewriter, op, [output])


def copied_data(
    lowering: OnnxLowering[onnx.ScatterElementsOp] | OnnxLowering[onnx.ScatterNDOp],
    op: onnx.ScatterElementsOp | onnx.ScatterNDOp,
    rewriter: PatternRewriter,
) -> SSAValue:
    """The output of a scatter, holding a copy of its data."""
    sizes = lowering.shapes.sizes(op.data)
    output = lowering.result_buffer(rewriter, op.output, sizes)
    if not any(isinstance(s, int) and s == 0 for s in sizes):
        rank = len(sizes)
        data = buffer_of(rewriter, op.data)
        copy(rewriter, op, data, output, identity_map(rank), identity_map(rank))
    return output


class ScatterElementsOpLowering(OnnxLowering[onnx.ScatterElementsOp]):
    """`onnx.ScatterElements`: a copy of data where each update u at position
    p goes to p with p[axis] = indices[p] (see the module docstring)."""

    def rewrite(self, op: onnx.ScatterElementsOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes, index_sizes, axis = along_axis(op, rewriter, shapes)
        combine = _combine(op, op.attr("reduction") or "none", element_type(op.data))
        require_sizes(op, rewriter, shapes, shapes.sizes(op.updates), index_sizes, "updates")
        output = copied_data(self, op, rewriter)
        indices, updates = buffer_of(rewriter, op.indices), buffer_of(rewriter, op.updates)
        size = shapes.index(sizes[axis])

        def scatter(b: Builder, position: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            raw = b.insert(memref.LoadOp.get(indices, position)).res
            target = list(position)
            target[axis] = position_in(b, op, raw, size, "an index")
            value = b.insert(memref.LoadOp.get(updates, position)).res
            _update(b, combine, value, output, target)
            return []

        nest(builder_before(op), index_sizes, [], scatter)
        self.replace(rewriter, op, [output])


class ScatterNDOpLowering(OnnxLowering[onnx.ScatterNDOp]):
    """`onnx.ScatterND`: a copy of data where the slice each index tuple (of
    length k known at compile time) names gets its updates."""

    def rewrite(self, op: onnx.ScatterNDOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.data)
        index_sizes = shapes.sizes(op.indices)
        k = _tuple_length(op, op.indices, len(sizes), 0)
        combine = _combine(op, op.attr("reduction") or "none", element_type(op.data))
        update_sizes = shapes.sizes(op.updates)
        expected = [*index_sizes[:-1], *sizes[k:]]
        if len(update_sizes) != len(expected):
            raise unsupported(op, f"updates of rank {len(update_sizes)}, not {len(expected)}")
        require_sizes(op, rewriter, shapes, update_sizes, expected, "updates")
        output = copied_data(self, op, rewriter)
        indices, updates = buffer_of(rewriter, op.indices), buffer_of(rewriter, op.updates)
        bounds = [shapes.index(s) for s in sizes[:k]]
        slice_sizes = [shapes.index(s) for s in sizes[k:]]

        def scatter(b: Builder, prefix: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            picked = _tuple(b, op, indices, prefix, bounds)

            def element(b: Builder, rest: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
                value = b.insert(memref.LoadOp.get(updates, [*prefix, *rest])).res
                _update(b, combine, value, output, [*picked, *rest])
                return []

            nest(b, slice_sizes, [], element)
            return []

        nest(builder_before(op), index_sizes[:-1], [], scatter)
        self.replace(rewriter, op, [output])


class OneHotOpLowering(OnnxLowering[onnx.OneHotOp]):
    """`onnx.OneHot`: a new axis of `depth` (a scalar of any numeric type,
    possibly computed at run time, truncated to an integer) inserted at
    `axis`; output is `on` where its position along that axis is the index
    (negative ones counted from depth; non-integer ones truncated) and
    `off` elsewhere, also for indices outside [-depth, depth). Non-integer
    indices are cast to int64 first, as the spec says (onnx.reference
    compares them unconverted, so 0.5 matches nothing there)."""

    def rewrite(self, op: onnx.OneHotOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        index_sizes = shapes.sizes(op.indices)
        rank = len(index_sizes) + 1
        axis = normalize_axis(op, op.attr("axis"), rank)
        here = builder_before(op)
        depth = self._depth(op, rewriter, here)
        output = self.result_buffer(
            rewriter, op.output, [*index_sizes[:axis], depth, *index_sizes[axis:]]
        )
        values = buffer_of(rewriter, op.values)
        off, on = (here.insert(memref.LoadOp.get(values, [index(here, k)])).res for k in (0, 1))
        depth_index = shapes.index(depth)
        reads = AffineMap(rank, 0, tuple(AffineDimExpr(d) for d in range(rank) if d != axis))
        i64 = IntegerType(64)
        unsigned = scalar.kind(element_type(op.indices)) is Kind.UNSIGNED

        def body(b: Builder, position: list[SSAValue], args: Sequence[SSAValue]) -> SSAValue:
            wide = scalar.convert(b, args[0], i64)
            found = b.insert(arith.IndexCastOp(wide, IndexType())).result
            if not unsigned:  # an unsigned index past INT64_MAX stays out of range
                negative = b.insert(arith.CmpiOp(found, index(b, 0), "slt")).result
                wrapped = b.insert(arith.AddiOp(found, depth_index)).result
                found = b.insert(arith.SelectOp(negative, wrapped, found)).result
            hit = b.insert(arith.CmpiOp(found, position[axis], "eq")).result
            return b.insert(arith.SelectOp(hit, on, off)).result

        if not any(isinstance(s, int) and s == 0 for s in shapes.sizes(output)):
            indices = buffer_of(rewriter, op.indices)
            indexed_generic(rewriter, op, output, body, [indices], [reads])
        self.replace(rewriter, op, [output])

    def _depth(self, op: onnx.OneHotOp, rewriter: PatternRewriter, here: Builder) -> Size:
        known = constant_value(op.depth)
        if known is not None:
            depth = int(known.reshape(-1)[0])
            if depth < 0:
                raise unsupported(op, f"depth {depth} is negative")
            return depth
        buffer = buffer_of(rewriter, op.depth)
        zeros = [index(here, 0)] * len(shape_of(buffer))
        loaded = here.insert(memref.LoadOp.get(buffer, zeros)).res
        depth = self.shapes.from_integer(scalar.convert(here, loaded, IntegerType(64)))
        check(rewriter, op, self.shapes.equal(self.shapes.max(depth, 0), depth), "depth >= 0")
        return depth
