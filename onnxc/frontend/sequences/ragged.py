"""Sequences whose length or tensors' shapes are known only at run time.

Where onnxc cannot follow a sequence as a list of tensor names
(`sequences/resolver.py`): a Loop with a run-time trip count that grows it, an
insert at a run-time position among tensors of different shapes, a split
given at run time. Such a sequence is two tensors (`containers.Ragged`):

- `data`, 1-D: its tensors' elements, one tensor after the other, each in
  row-major order;
- `shapes`, int64 [length, 1 + width]: per tensor its rank, then its sizes,
  padded with 1s to `width` (the most axes its tensors have, at least 1, so
  that the product of a row's sizes is always the tensor's element count).

Each sequence operator becomes standard ONNX operators on these two (Concat,
Slice, Gather, Reshape, CumSum, ...), which the rest of the compiler lowers
like any tensor code with sizes known at run time: no allocation, a Loop
carrying them keeps them in loop storage. A sequence graph output is the two
tensors, `NAME` and `NAME?shapes`, which Python's `run` cuts back into a list
of arrays (`container_io.py`); the C caller reads them the same way.

Not supported, as one-line errors: SequenceAt or ConcatFromSequence on a
sequence whose tensors may have different ranks (the result's rank would
depend on data), ConcatFromSequence along an axis other than the first
without `new_axis`, a split of run-time sizes along an axis other than the
first. ConcatFromSequence takes the trailing sizes of the first tensor and
does not check the others against them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import onnx

from onnxc import element_types
from onnxc.containers import Ragged, Seq
from onnxc.errors import OnnxcError, node_label

if TYPE_CHECKING:
    from onnxc.frontend.sequences.resolver import Resolver

__all__ = [
    "at",
    "checked_position",
    "concat",
    "erase",
    "guard",
    "insert",
    "length",
    "ragged_of",
    "split",
]

INT64 = onnx.TensorProto.INT64
END = np.iinfo(np.int64).max
"""A Slice end past any tensor's end."""


def _int64(r: Resolver, values: Sequence[int] | Sequence[Sequence[int]] | int) -> str:
    return r.emit_constant(np.array(values, np.int64))


def _rank(r: Resolver, node: onnx.NodeProto, tensor: str) -> int:
    return len(r.shape(node, tensor))


def _flat(r: Resolver, tensor: str) -> str:
    return r.emit("Reshape", [tensor, _int64(r, [-1])])


def _row(r: Resolver, node: onnx.NodeProto, tensor: str, width: int) -> str:
    """[1, 1 + width]: the rank of `tensor`, its sizes, then 1s."""
    rank = _rank(r, node, tensor)
    if rank > width:
        raise OnnxcError(f"internal error: {node_label(node)}: a row narrower than its tensor")
    pieces = [_int64(r, [rank])]
    if rank:
        pieces.append(r.emit("Shape", [tensor]))
    if width > rank:
        pieces.append(_int64(r, [1] * (width - rank)))
    row = r.emit("Concat", pieces, axis=0) if len(pieces) > 1 else pieces[0]
    return r.emit("Unsqueeze", [row, _int64(r, [0])])


def width_for(ranks: Sequence[int]) -> int:
    """The width of the shape table of tensors of `ranks`."""
    return max([1, *ranks])


def ragged_of(
    r: Resolver, node: onnx.NodeProto, value: Seq | Ragged, width: int, element: int
) -> Ragged:
    """`value` as a sequence known at run time, its table `width` wide (at
    least its own); `element` is the ONNX element type of its tensors."""
    if isinstance(value, Ragged):
        if width <= value.width:
            return value
        pads = _int64(r, [0, 0, 0, width - value.width])
        shapes = r.emit("Pad", [value.shapes, pads, _int64(r, 1)])
        return Ragged(value.data, shapes, width, value.ranks)
    items = value.items
    if not items:
        row = element_types.by_onnx_code(element)
        if row is None:
            raise OnnxcError(f"{node_label(node)}: a sequence of an unknown element type")
        data = r.emit_constant(np.zeros(0, row.numpy_dtype))
        shapes = r.emit_constant(np.zeros((0, 1 + width), np.int64))
        return Ragged(data, shapes, width, ())
    ranks = tuple(sorted({_rank(r, node, t) for t in items}))
    width = max(width, width_for(ranks))
    flats = [_flat(r, t) for t in items]
    rows = [_row(r, node, t, width) for t in items]
    data = r.emit("Concat", flats, axis=0) if len(flats) > 1 else flats[0]
    shapes = r.emit("Concat", rows, axis=0) if len(rows) > 1 else rows[0]
    return Ragged(data, shapes, width, ranks)


def length(r: Resolver, value: Ragged, output: str = "") -> str:
    """The int64 scalar number of tensors."""
    return r.emit("Gather", [r.emit("Shape", [value.shapes]), _int64(r, 0)], output, axis=0)


def _starts(r: Resolver, value: Ragged) -> str:
    """[length + 1]: where each tensor starts in `data`, then its size."""
    sizes_of = r.emit("Slice", [value.shapes, _int64(r, [1]), _int64(r, [END]), _int64(r, [1])])
    counts = r.emit("ReduceProd", [sizes_of, _int64(r, [1])], keepdims=0)
    ends = r.emit("CumSum", [counts, _int64(r, 0)])
    return r.emit("Concat", [_int64(r, [0]), ends], axis=0)


def guard(r: Resolver, tensor: str, holds: str) -> str:
    """`tensor` (1-D), through a Reshape that stops the model with
    ONNXC_ERR_SHAPE unless the bool scalar `holds` is true (it asks for one
    element more than there is): what the spec calls an error stops the
    model instead of giving an answer."""
    size = r.emit("Shape", [tensor])
    wrong = r.emit("Add", [size, _int64(r, [1])])
    return r.emit("Reshape", [tensor, r.emit("Where", [holds, size, wrong])])


def checked_position(r: Resolver, given: str, count: str | int, last: bool) -> str:
    """The int64 scalar position `given` (an int64 scalar), a negative one
    counted back from `count`; the model stops unless it is in 0..count
    (0..count - 1 when it must name a tensor: `last`)."""
    count = _int64(r, count) if isinstance(count, int) else count
    negative = r.emit("Less", [given, _int64(r, 0)])
    found = r.emit("Where", [negative, r.emit("Add", [given, count]), given])
    low = r.emit("GreaterOrEqual", [found, _int64(r, 0)])
    high = r.emit("Less" if last else "LessOrEqual", [found, count])
    inside = r.emit("And", [low, high])
    checked = guard(r, r.emit("Reshape", [found, _int64(r, [1])]), inside)
    return r.emit("Reshape", [checked, _int64(r, [])])


def position(r: Resolver, node: onnx.NodeProto, index: int, value: Ragged, last: bool) -> str:
    """Position input `index` of `node` as an int64 scalar in 0..length
    (a negative one counted from the end; 0..length - 1 when it must name a
    tensor: `last`); absent, the end (or the last tensor when `last`)."""
    count = length(r, value)
    name = node.input[index] if len(node.input) > index else ""
    if not name:
        return r.emit("Sub", [count, _int64(r, 1)]) if last else count
    given = r.emit("Cast", [r.emit("Reshape", [name, _int64(r, [])])], to=INT64)
    return checked_position(r, given, count, last)


def _from(r: Resolver, table: str, at: str) -> str:
    """table[at:] along the first axis (`at` a [1] tensor)."""
    return r.emit("Slice", [table, at, _int64(r, [END]), _int64(r, [0])])


def _until(r: Resolver, table: str, at: str) -> str:
    """table[:at] along the first axis (`at` a [1] tensor)."""
    return r.emit("Slice", [table, _int64(r, [0]), at, _int64(r, [0])])


def insert(r: Resolver, node: onnx.NodeProto, value: Ragged, tensor: str, at: str | None) -> Ragged:
    """`value` with `tensor` inserted at scalar position `at` (None: at the end)."""
    rank = _rank(r, node, tensor)
    value = ragged_of(r, node, value, rank, onnx.TensorProto.UNDEFINED)
    flat, row = _flat(r, tensor), _row(r, node, tensor, value.width)
    if at is None:
        data = r.emit("Concat", [value.data, flat], axis=0)
        shapes = r.emit("Concat", [value.shapes, row], axis=0)
    else:
        where = r.emit("Unsqueeze", [at, _int64(r, [0])])
        offset = r.emit("Gather", [_starts(r, value), where], axis=0)
        data = r.emit(
            "Concat",
            [_until(r, value.data, offset), flat, _from(r, value.data, offset)],
            axis=0,
        )
        shapes = r.emit(
            "Concat",
            [_until(r, value.shapes, where), row, _from(r, value.shapes, where)],
            axis=0,
        )
    ranks = tuple(sorted({*value.ranks, rank}))
    return Ragged(data, shapes, value.width, ranks)


def erase(r: Resolver, value: Ragged, at: str) -> Ragged:
    """`value` without its tensor at scalar position `at`."""
    where = r.emit("Unsqueeze", [at, _int64(r, [0])])
    after = r.emit("Add", [where, _int64(r, [1])])
    starts = _starts(r, value)
    begin = r.emit("Gather", [starts, where], axis=0)
    end = r.emit("Gather", [starts, after], axis=0)
    data = r.emit("Concat", [_until(r, value.data, begin), _from(r, value.data, end)], axis=0)
    shapes = r.emit(
        "Concat", [_until(r, value.shapes, where), _from(r, value.shapes, after)], axis=0
    )
    return Ragged(data, shapes, value.width, value.ranks)


def _one_rank(node: onnx.NodeProto, value: Ragged) -> int:
    if len(value.ranks) != 1:
        found = ", ".join(map(str, value.ranks)) or "none"
        raise OnnxcError(
            f"{node_label(node)}: the sequence's tensors may have different ranks "
            f"({found}), so the result's rank would depend on data (not supported)"
        )
    return value.ranks[0]


def at(r: Resolver, node: onnx.NodeProto, value: Ragged, where: str, output: str) -> None:
    """`output` = the tensor at scalar position `where`."""
    rank = _one_rank(node, value)
    index = r.emit("Unsqueeze", [where, _int64(r, [0])])
    starts = _starts(r, value)
    begin = r.emit("Gather", [starts, index], axis=0)
    end = r.emit("Gather", [starts, r.emit("Add", [index, _int64(r, [1])])], axis=0)
    flat = r.emit("Slice", [value.data, begin, end, _int64(r, [0])])
    row = r.emit("Gather", [value.shapes, where], axis=0)
    sizes = r.emit("Slice", [row, _int64(r, [1]), _int64(r, [1 + rank]), _int64(r, [0])])
    r.emit("Reshape", [flat, sizes], output)


def concat(
    r: Resolver, node: onnx.NodeProto, value: Ragged, axis: int, new_axis: bool, output: str
) -> None:
    """`output` = the tensors concatenated (stacked with `new_axis`) along `axis`."""
    rank = _one_rank(node, value)
    axis = axis + rank + int(new_axis) if axis < 0 else axis
    if not 0 <= axis < rank + int(new_axis):
        raise OnnxcError(f"{node_label(node)}: axis {axis} is out of range")
    first = r.emit("Gather", [value.shapes, _int64(r, 0)], axis=0)
    if new_axis:
        sizes = r.emit("Slice", [first, _int64(r, [1]), _int64(r, [1 + rank]), _int64(r, [0])])
        count = r.emit("Unsqueeze", [length(r, value), _int64(r, [0])])
        shape = r.emit("Concat", [count, sizes], axis=0)
        if axis == 0:
            r.emit("Reshape", [value.data, shape], output)
            return
        stacked = r.emit("Reshape", [value.data, shape])
        order = [*range(1, axis + 1), 0, *range(axis + 1, rank + 1)]
        r.emit("Transpose", [stacked], output, perm=order)
        return
    if axis != 0:
        raise OnnxcError(
            f"{node_label(node)}: concatenating a sequence known only at run time along "
            f"axis {axis} (not the first) is not supported"
        )
    trailing = r.emit("Slice", [first, _int64(r, [2]), _int64(r, [1 + rank]), _int64(r, [0])])
    shape = r.emit("Concat", [_int64(r, [-1]), trailing], axis=0)
    r.emit("Reshape", [value.data, shape], output)


def split(
    r: Resolver, node: onnx.NodeProto, data: str, sizes: str | None, axis: int, keep: bool
) -> Ragged:
    """The pieces of `data` along `axis`: of the run-time sizes `sizes` (a
    1-D tensor) or, for a scalar, of that size (the last one smaller); of 1
    when None, the axis dropped unless `keep`."""
    rank = _rank(r, node, data)
    scalar = sizes is None or len(r.shape(node, sizes)) == 0
    if not scalar and axis != 0:
        raise OnnxcError(
            f"{node_label(node)}: a split of sizes known only at run time along axis "
            f"{axis} (not the first) is not supported"
        )
    shape = r.emit("Shape", [data])
    whole = r.emit("Gather", [shape, _int64(r, axis)], axis=0)
    if not scalar:
        assert sizes is not None
        counts = r.emit("Cast", [sizes], to=INT64)
        flat = _flat(r, data)
    else:
        step = (
            _int64(r, 1)
            if sizes is None
            else r.emit("Cast", [r.emit("Reshape", [sizes, _int64(r, [])])], to=INT64)
        )
        starts = r.emit("Range", [_int64(r, 0), whole, step])
        counts = r.emit("Min", [r.emit("Sub", [whole, starts]), step])
        flat = _flat(r, data) if axis == 0 else _pieces_in_order(r, data, shape, whole, axis, step)
    kept = keep or sizes is not None
    ranks = rank if kept else rank - 1
    width = width_for([ranks])
    column = r.emit("Unsqueeze", [counts, _int64(r, [1])])
    many = r.emit("Concat", [r.emit("Shape", [counts]), _int64(r, [1])], axis=0)
    columns = [r.emit("Expand", [_int64(r, [[ranks]]), many])]
    for k in range(rank):
        if k == axis:
            if kept:
                columns.append(column)
            continue
        size = r.emit(
            "Reshape", [r.emit("Gather", [shape, _int64(r, k)], axis=0), _int64(r, [1, 1])]
        )
        columns.append(r.emit("Expand", [size, many]))
    if width > ranks:
        columns.append(r.emit("Expand", [_int64(r, [[1] * (width - ranks)]), many]))
    table = r.emit("Concat", columns, axis=1)
    return Ragged(flat, table, width, (ranks,))


def _pieces_in_order(r: Resolver, data: str, shape: str, whole: str, axis: int, step: str) -> str:
    """The pieces of `data` of `step` along `axis` (not the first), each
    flattened in its own row-major order, one after the other: the whole
    pieces by a reshape that splits the axis and a transpose that brings the
    piece number first, then the last, shorter piece."""
    count = r.emit("Div", [whole, step])
    cut = r.emit("Unsqueeze", [r.emit("Mul", [count, step]), _int64(r, [0])])
    axes = _int64(r, [axis])
    head = r.emit("Slice", [data, _int64(r, [0]), cut, axes])
    tail = r.emit("Slice", [data, cut, _int64(r, [END]), axes])
    before = r.emit("Slice", [shape, _int64(r, [0]), _int64(r, [axis])])
    after = r.emit("Slice", [shape, _int64(r, [axis + 1]), _int64(r, [END])])
    middle = [r.emit("Unsqueeze", [v, _int64(r, [0])]) for v in (count, step)]
    split_shape = r.emit("Concat", [before, *middle, after], axis=0)
    rank = len(r.shapes.get(data, ()))
    order = [axis, *range(axis), *range(axis + 1, rank + 1)]
    moved = r.emit("Transpose", [r.emit("Reshape", [head, split_shape])], perm=order)
    return r.emit("Concat", [_flat(r, moved), _flat(r, tail)], axis=0)
