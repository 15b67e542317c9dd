"""Where a buffer is used, for the passes that reason about buffers over a
function body (fold-add-into-accumulator, plan-memory): uses are followed
through views (a reshaped view is the same bytes) and attributed to the
top-level op of the body that contains them (a load inside a linalg body)."""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects import memref
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Operation, SSAValue

VIEWS = (
    memref.CollapseShapeOp,
    memref.ExpandShapeOp,
    memref.SubviewOp,
    memref.CastOp,
    memref.ReinterpretCastOp,
    memref.ViewOp,
)
"""Ops whose result aliases their memref operand's bytes."""


def aliases(value: SSAValue) -> Iterator[SSAValue]:
    """`value` and every view of it, transitively."""
    yield value
    for use in value.uses:
        if isinstance(use.operation, VIEWS):
            yield from aliases(use.operation.results[0])


def touches(value: SSAValue) -> Iterator[tuple[Operation, int]]:
    """(user, operand index) of every use of `value` or of a view of it, other
    than the views themselves and deallocs."""
    for alias in aliases(value):
        for use in alias.uses:
            if not isinstance(use.operation, (*VIEWS, memref.DeallocOp)):
                yield use.operation, use.index


def top_level_index(op: Operation, body: dict[Operation, int]) -> int | None:
    """The position in `body` (top-level op -> index) of the op containing `op`."""
    current: Operation | None = op
    while current is not None and current not in body:
        current = current.parent_op()
    return None if current is None else body[current]


def all_parallel(op: GenericOp) -> bool:
    return all(str(t.data) == "parallel" for t in op.iterator_types.data)
