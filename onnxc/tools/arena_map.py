"""The planned arena read back from the IR: where each buffer lives and when.

After the `memory` stage every planned buffer is a `memref.view` of the arena
(the `memref.alloc` tagged `onnxc.arena`) at a byte offset. `arena_buffers`
lists them with their offset and bytes, the steps during which they are live,
and the node that writes them, for the report's picture of memory.

A step is the code of one ONNX node (`onnxc.lowering.node_steps`). A buffer is
live from the step of the first operation that touches it to the step of the
last (as the planner's liveness, which works on operations, sees it); the node
writing it is the one of the first operation.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Attribute

from onnxc import element_types
from onnxc.ir_names import ARENA
from onnxc.lowering.buffer_uses import top_level_index, touches
from onnxc.lowering.node_steps import comment_of, node_steps
from onnxc.lowering.plan_memory import storage_bytes


@dataclass(frozen=True)
class ArenaBuffer:
    """A buffer of the arena: `size` bytes at `offset`, live in steps `first`
    to `last` (both included); `node` writes it; `offset` is None when the
    planner places it at run time (its size depends on data)."""

    offset: int | None
    size: int
    first: int
    last: int
    node: str
    element_type: str
    shape: tuple[int, ...]


@dataclass(frozen=True)
class ArenaMap:
    """The arena's buffers and the node of each step."""

    buffers: list[ArenaBuffer]
    steps: list[str]


def _main(module: ModuleOp) -> func.FuncOp | None:
    return next((op for op in module.ops if isinstance(op, func.FuncOp) and op.body.blocks), None)


def _type_name(t: Attribute) -> str:
    found = element_types.of_ir(t)
    return element_types.onnx_type_name(found.onnx_code).lower() if found is not None else str(t)


def _constant_offset(view: memref.ViewOp) -> int | None:
    owner = view.byte_shift.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def arena_buffers(module: ModuleOp) -> ArenaMap:
    """The buffers of the arena of `module`'s function at the memory stage
    (or later, as long as the views remain); empty when nothing is planned."""
    fn = _main(module)
    if fn is None:
        return ArenaMap([], [""])
    ops = list(fn.body.block.ops)
    body = {op: i for i, op in enumerate(ops)}
    step_of, steps = node_steps(ops)
    buffers: list[ArenaBuffer] = []
    for op in ops:
        if not isinstance(op, memref.ViewOp):
            continue
        source = op.source.owner
        if not (isinstance(source, memref.AllocOp) and ARENA in source.attributes):
            continue
        t = op.result.type
        assert isinstance(t, MemRefType)
        shape = tuple(t.get_shape())
        where = sorted(
            i for user, _ in touches(op.result) if (i := top_level_index(user, body)) is not None
        )
        if not where:
            continue
        count = 1
        for d in shape:
            count *= max(d, 0)
        offset = _constant_offset(op)
        buffers.append(
            ArenaBuffer(
                offset=offset if offset is not None and all(d >= 0 for d in shape) else None,
                size=storage_bytes(t.element_type, count) if all(d >= 0 for d in shape) else 0,
                first=step_of[where[0]],
                last=step_of[where[-1]],
                node=comment_of(ops[where[0]]),
                element_type=_type_name(t.element_type),
                shape=shape,
            )
        )
    return ArenaMap(buffers, steps)
