"""An independent check of a planned module: recompute every arena view's byte
range and lifetime from the IR and prove no two live buffers overlap."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import AnyFloat, IntegerAttr, IntegerType, MemRefType, ModuleOp
from xdsl.ir import Operation, SSAValue

ALIASES = (memref.CollapseShapeOp, memref.ExpandShapeOp)


@dataclass
class View:
    name: str
    offset: int
    size: int
    start: int
    end: int


def _bytes(t: MemRefType) -> int:
    et = t.element_type
    assert isinstance(et, IntegerType | AnyFloat), et
    bits = et.width.data if isinstance(et, IntegerType) else et.bitwidth
    n = 1
    for d in t.get_shape():
        n *= d
    return n * max(1, bits // 8)


def planned_views(module: ModuleOp) -> tuple[int, list[View]]:
    """(the arena's size, every accessed view of it) of the module's function."""
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    body = {op: i for i, op in enumerate(fn.body.block.ops)}

    def top(op: Operation) -> int:
        while op not in body:
            parent = op.parent_op()
            assert parent is not None
            op = parent
        return body[op]

    arenas = [op for op in fn.body.block.ops if "onnxc.arena" in op.attributes]
    if not arenas:
        return 0, []
    (arena,) = arenas
    arena_type = arena.results[0].type
    assert isinstance(arena_type, MemRefType)
    size = arena_type.get_shape()[0]
    views: list[View] = []
    for use in arena.results[0].uses:
        view = use.operation
        assert isinstance(view, memref.ViewOp)
        shift = view.byte_shift.owner
        assert isinstance(shift, arith.ConstantOp) and isinstance(shift.value, IntegerAttr)
        steps: list[int] = []
        values: list[SSAValue] = [view.result]
        while values:
            for u in values.pop().uses:
                if isinstance(u.operation, ALIASES):
                    values.append(u.operation.results[0])
                else:
                    steps.append(top(u.operation))
        if steps:
            t = view.result.type
            assert isinstance(t, MemRefType)
            name = view.result.name_hint or "?"
            views.append(View(name, shift.value.value.data, _bytes(t), min(steps), max(steps)))
    return size, views


def check_plan(module: ModuleOp) -> int:
    """Assert the plan is sound; return the arena size. Buffers may overlap in
    bytes only when their lifetimes are disjoint, or when one is born at the
    very op where the other dies and they coincide exactly (in place)."""
    size, views = planned_views(module)
    for v in views:
        assert 0 <= v.offset and v.offset + v.size <= size, v
    for i, a in enumerate(views):
        for b in views[i + 1 :]:
            bytes_overlap = a.offset < b.offset + b.size and b.offset < a.offset + a.size
            if not bytes_overlap:
                continue
            shared = min(a.end, b.end) - max(a.start, b.start)
            if shared < 0:
                continue
            assert shared == 0 and (a.offset, a.size) == (b.offset, b.size), (a, b)
    return size
