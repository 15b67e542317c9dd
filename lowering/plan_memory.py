"""plan-memory: every intermediate buffer becomes a slice of one arena.

Input: a module whose `func.func` allocates its intermediate buffers with static
`memref.alloc` ops at the top level of its body (as convert-onnx-to-linalg
leaves it: one op per step, destination-passing linalg on memrefs). Output: one
`memref.alloc` of bytes tagged `onnxc.arena` (the whole workspace) at the top of
the body, and every planned buffer a `memref.view` of it at a constant byte
offset. The C printer turns the arena into the caller's workspace, so
`NAME_WORKSPACE_SIZE` is exactly the planned size.

The plan:
1. Liveness, in the func's op order: a buffer is live from the first to the last
   top-level op that touches it, directly, through a view (collapse/expand
   shape, ...), or from inside a region (a load in a linalg body). The bytes
   of new strings (`onnxc.string_bytes`) live to the end: any string
   computed later may point into them.
2. In place: an all-parallel `linalg.generic` whose output buffer is born at the
   op may reuse an input buffer that dies at the op, when both are read and
   written through the same permutation map with the same shape and element
   type: every element is read before it is overwritten, and by the same
   iteration (Relu after Conv, Add onto a dead operand, ...).
3. Placement: slots (buffers merged in place) get offsets so that slots whose
   lifetimes overlap never overlap in memory. Several greedy orders (by size,
   by lifetime, by start) with first-fit and best-fit are tried and the
   smallest arena wins; TFLite Micro uses the first of these.
Buffers of different element types never share bytes (except 1-byte types),
so generated C never reads memory last written through another type.

Loop storage (`onnxc.loop_storage`, the bytes of a loop-carried value whose
sizes change from trip to trip, or of an If result whose sizes the branch
taken decides) has no size before the loop or branch runs. The
storages of a loop, and the buffers its body sizes from them (which have no
bound), share the workspace left where the loop starts (after every buffer
sized from data before it): n of them get (available - base) / n bytes
each, rounded down to the alignment, in order; `onnxc.reserve` and each such
buffer become a workspace check that asks for base + n * its bytes, so a
caller that retries with what the model asks for gets room for the trip that
failed. After the loop the carried values are copied out, in order, into
buffers bumped from the same base (each copy moves bytes down, never onto
bytes not yet copied), and what follows is planned from there.

The func gets an `onnxc.memory` dictionary: `arena` (planned bytes),
`intermediates` (sum of the buffers' bytes), `max_live` (the most bytes live at
once after in-place merging, a lower bound for any placement), `greedy_by_size`
(TFLite Micro's strategy: greedy by size, first fit, no in-place; applied to each
C storage type apart, since buffers of two types may not share bytes, and the
types' arenas side by side) and
`in_place` (how many buffers reuse an input's bytes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i8,
)
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc import element_types
from onnxc.dialects.onnxc import (
    LoopStorageOp,
    ReserveOp,
    SizeLimits,
    WorkspaceAvailableOp,
    WorkspaceOp,
)
from onnxc.errors import InternalError, UnsupportedError
from onnxc.intervals import INFINITY, UNBOUNDED, Interval, evaluate
from onnxc.ir_names import ARENA as ARENA_ATTR
from onnxc.ir_names import (
    ARENA_ALIGN,
    COMMENT,
    DIMS,
    MAX_DIMS,
    MEMORY,
    STRING_BYTES,
)
from onnxc.lowering.buffer_uses import aliases, all_parallel, top_level_index, touches
from onnxc.lowering.index_arith import IndexArith, Size


def _aligned(n: int) -> int:
    return -(-n // ARENA_ALIGN) * ARENA_ALIGN


def storage_bytes(t: Attribute, count: int) -> int:
    """Bytes of `count` elements of element type `t` (the element-type table;
    packed types round up to whole bytes)."""
    return element_types.row_of(t).storage_bytes(count)


def _type_class(t: Attribute) -> str:
    """Buffers may share bytes only within one class (C's aliasing rules):
    the C storage type, signed and unsigned alike (they may alias), and all
    1-byte types together (char-sized accesses alias everything)."""
    row = element_types.row_of(t)
    if row.size == 1:
        return "byte"
    return row.unsigned_c_type


@dataclass(eq=False)
class Buffer:
    """A planned `memref.alloc`: its size, lifetime (top-level op indices) and
    the (op, operand index) pairs through which each top-level op touches it
    (`start` and `end` are read once `touches` is complete, and kept)."""

    alloc: memref.AllocOp
    size: int
    """Bytes: the size of a static buffer, the upper bound of a buffer whose
    size is known only at run time (0 when unbounded)."""
    type_class: str
    touches: dict[int, list[tuple[Operation, int]]] = field(default_factory=dict)
    kind: str = "static"
    """"static", "dims" (its size depends only on the free dimensions) or
    "data" (it depends on values computed at run time, which may still be
    bounded: NonZero's count by its input's size)."""

    @cached_property
    def start(self) -> int:
        return min(self.touches)

    @cached_property
    def end(self) -> int:
        return max(self.touches)


@dataclass(eq=False)
class Slot:
    """Buffers sharing one place in the arena (one buffer, or a chain merged in place)."""

    buffers: list[Buffer]

    @property
    def start(self) -> int:
        return min(b.start for b in self.buffers)

    @property
    def end(self) -> int:
        return max(b.end for b in self.buffers)

    @property
    def size(self) -> int:
        return max(b.size for b in self.buffers)

    @property
    def type_class(self) -> str:
        return self.buffers[0].type_class


def _conflict(a: tuple[int, int, str], b: tuple[int, int, str]) -> bool:
    """Whether slots of (start, end, type class) `a` and `b` may not share
    bytes: they are live at once, or of different classes (`_type_class`)."""
    if a[0] <= b[1] and b[0] <= a[1]:
        return True
    return "byte" not in (a[2], b[2]) and a[2] != b[2]


def dims_of(fn: func.FuncOp) -> dict[SSAValue, Interval]:
    """The free dimensions of `fn` (its leading `index` arguments) and the
    range of each: 0 to its `max_dims` bound, or unbounded."""
    names = fn.attributes.get(DIMS)
    bounds = fn.attributes.get(MAX_DIMS)
    found: dict[SSAValue, Interval] = {}
    if not isinstance(names, ArrayAttr):
        return found
    for arg, name in zip(fn.body.block.args, names.data, strict=False):
        high: float = INFINITY
        if isinstance(bounds, DictionaryAttr) and isinstance(name, StringAttr):
            bound = bounds.data.get(name.data)
            if isinstance(bound, IntegerAttr):
                high = bound.value.data
        found[arg] = Interval(0, high)
    return found


def find_buffers(fn: func.FuncOp) -> list[Buffer]:
    """The top-level allocs of `fn` (but the arena), their sizes and kinds,
    and where they are touched."""
    body = {op: i for i, op in enumerate(fn.body.block.ops)}
    dims = dims_of(fn)
    limits = SizeLimits.of(fn)
    buffers: list[Buffer] = []
    for op in fn.body.block.ops:
        if not isinstance(op, memref.AllocOp) or ARENA_ATTR in op.attributes:
            continue
        t = op.memref.type
        assert isinstance(t, MemRefType)
        numel = 1
        for d in t.get_shape():
            numel *= max(d, 1)
        kind, size = "static", storage_bytes(t.element_type, numel)
        if op.dynamic_sizes:
            depends = any(evaluate(v, dims) is None for v in op.dynamic_sizes)
            kind = "data" if depends else "dims"
            ranges = [evaluate(v, dims, unknown=UNBOUNDED) for v in op.dynamic_sizes]
            highs = [r.high if r is not None else INFINITY for r in ranges]
            bound = numel * math.prod(max(h, 0) for h in highs)
            # a size only the saturation bounds is refused past it: no bound
            if bound >= limits.elements:
                bound = INFINITY
            size = storage_bytes(t.element_type, int(bound)) if math.isfinite(bound) else 0
        buffer = Buffer(op, size, _type_class(t.element_type), kind=kind)
        for user, operand in touches(op.memref):
            index = top_level_index(user, body)
            if index is None:
                raise InternalError(
                    f"internal error: plan-memory: {user.name} is outside the function body"
                )
            buffer.touches.setdefault(index, []).append((user, operand))
        if STRING_BYTES in op.attributes:  # strings may point into it until the end
            buffer.touches.setdefault(len(body) - 1, [])
        buffers.append(buffer)
    return buffers


@dataclass(eq=False)
class LoopShares:
    """Loop storages that live during the same top-level ops (`during`: the
    loop or branch that writes them and the copies out after it), and the
    buffers inside those ops sized from them: they share the rest of the
    workspace (see the module docstring). `storages` are at the top level
    (their values are copied out after the loop, in order), `nested` inside
    a region (an If's result inside a loop body)."""

    storages: list[LoopStorageOp]
    during: set[Operation]
    nested: list[LoopStorageOp] = field(default_factory=list)
    inner: list[memref.AllocOp] = field(default_factory=list)

    @property
    def members(self) -> int:
        return len(self.storages) + len(self.nested) + len(self.inner)

    def writers(self, block: Block) -> set[Operation]:
        """The ops of `block` that write the storages (the loops or
        branches; not the copies out after them, which only read)."""
        found = {_top_level(s, block) for s in self.nested}
        for storage in self.storages:
            for use in storage.result.uses:
                if isinstance(use.operation, ReserveOp):
                    found.add(_top_level(use.operation, block))
        return found or {op for op in self.during if op.regions}

    def anchor(self, position: dict[Operation, int]) -> Operation:
        """The first top-level op of the group: its shares are computed before."""
        return min([*self.storages, *self.during], key=lambda op: position[op])


def _top_level(op: Operation, block: Block) -> Operation:
    """The op of `block` that is or contains `op`."""
    while op.parent_block() is not block:
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


def loop_shares(fn: func.FuncOp) -> list[LoopShares]:
    """The loop storages of `fn`, grouped by the top-level ops they live
    during."""
    block = fn.body.block
    ops = list(block.ops)
    body = {op: i for i, op in enumerate(ops)}
    groups: list[LoopShares] = []
    nested: list[LoopStorageOp] = []
    for op in block.walk():
        if not isinstance(op, LoopStorageOp):
            continue
        if op.parent_block() is not block:
            nested.append(op)
            continue
        during: set[Operation] = {op}
        for user, _ in touches(op.result):
            index = top_level_index(user, body)
            assert index is not None
            during.add(ops[index])
        merged = LoopShares([op], during)
        for group in [g for g in groups if g.during & during]:
            groups.remove(group)
            merged = LoopShares(group.storages + merged.storages, group.during | merged.during)
        groups.append(merged)
    for group in groups:
        group.storages.sort(key=lambda s: body[s])
    for op in nested:
        top = _top_level(op, block)
        owner = next((g for g in groups if top in g.during), None)
        if owner is None:
            owner = LoopShares([], {top})
            groups.append(owner)
        owner.nested.append(op)
    return groups


def hoist_nested_allocs(fn: func.FuncOp, shares: Sequence[LoopShares] = ()) -> None:
    """Move the allocs nested in regions (the temporaries of a loop body or
    an if branch) to the top level, just before the op containing them, so
    they are planned as any buffer: live throughout that op, one slot that
    every iteration reuses, never sharing bytes with what the loop carries
    or with each other. A buffer whose size the region itself computes (a
    slice at the iteration number) gets the bytes of its upper bound at the
    top level, and is a `memref.view` of them where it was; one whose size
    has no bound is a member of the loop shares of the op containing it
    (`shares`), and refused when there is none."""
    block = fn.body.block
    dims = dims_of(fn)
    for op in list(block.walk()):
        if not isinstance(op, memref.AllocOp) or op.parent_block() is block:
            continue
        top: Operation = op
        while top.parent_block() is not block:
            parent = top.parent_op()
            assert parent is not None
            top = parent
        inside = [
            size
            for size in op.dynamic_sizes
            if (size.owner.parent_block() if isinstance(size.owner, Operation) else size.owner)
            is not block
        ]
        if not inside:
            op.detach()
            block.insert_op_before(op, top)
            continue
        t = op.memref.type
        assert isinstance(t, MemRefType)
        highs = [evaluate(v, dims, unknown=UNBOUNDED) for v in op.dynamic_sizes]
        bound = math.prod(max(d, 1) for d in t.get_shape()) * math.prod(
            max(h.high, 0) if h is not None else INFINITY for h in highs
        )
        if not math.isfinite(bound):
            owner = [g for g in shares if top in g.during]
            if owner:
                owner[0].inner.append(op)
                continue
            raise UnsupportedError(
                f"{_label(top)}: a buffer inside it has a size computed there "
                "without an upper bound (not supported)"
            )
        raw = memref.AllocOp.get(
            i8, ARENA_ALIGN, [max(storage_bytes(t.element_type, int(bound)), 1)]
        )
        Rewriter.insert_op(raw, InsertPoint.before(top))
        zero = arith.ConstantOp.from_int_and_width(0, IndexType())
        Rewriter.insert_op(zero, InsertPoint.before(op))
        view = memref.ViewOp(raw.memref, zero.result, list(op.dynamic_sizes), t)
        Rewriter.replace_op(op, view)


def _label(op: Operation) -> str:
    comment = op.attributes.get(COMMENT)
    return f"'{comment.data}'" if isinstance(comment, StringAttr) else op.name


def _is_permutation(op: GenericOp, operand: int) -> bool:
    amap = op.indexing_maps.data[operand].data
    return amap.num_dims == len(amap.results) and amap.inverse_permutation() is not None


def _run_time_sizes(value: SSAValue) -> list[SSAValue] | None:
    """The size operands of the op defining a buffer (None when it has no
    such list: an argument, a collapse)."""
    owner = value.owner
    if isinstance(owner, memref.AllocOp):
        return list(owner.dynamic_sizes)
    if isinstance(owner, memref.ViewOp | memref.ReinterpretCastOp):
        return list(owner.sizes)
    if isinstance(owner, memref.ExpandShapeOp):
        return list(owner.output_shape)
    return None


def merge_in_place(fn: func.FuncOp, buffers: Sequence[Buffer]) -> list[Slot]:
    """Slots for `buffers`, merging outputs into inputs that die at the same op."""
    slot_of: dict[Buffer, Slot] = {b: Slot([b]) for b in buffers}
    root_of: dict[SSAValue, Buffer] = {}
    for b in buffers:
        for alias in aliases(b.alloc.memref):
            root_of[alias] = b
    ops = list(fn.body.block.ops)
    for index, op in enumerate(ops):
        if not (isinstance(op, GenericOp) and len(op.outputs) == 1 and all_parallel(op)):
            continue
        n_in = len(op.inputs)
        out = root_of.get(op.outputs[0])
        if out is None or out.start != index or len(out.touches[index]) != 1:
            continue
        if len(slot_of[out].buffers) != 1 or not _is_permutation(op, n_in):
            continue
        out_map = op.indexing_maps.data[n_in]
        out_type = op.outputs[0].type
        for k, value in enumerate(op.inputs):
            source = root_of.get(value)
            if (
                source is None
                or source.end != index
                or slot_of[source].end != index
                or len(source.touches[index]) != 1
                or op.indexing_maps.data[k] != out_map
                or not isinstance(value.type, MemRefType)
                or not isinstance(out_type, MemRefType)
                or value.type.get_shape() != out_type.get_shape()
                or _run_time_sizes(value) != _run_time_sizes(op.outputs[0])
                or value.type.element_type != out_type.element_type
                or source.size < out.size
            ):
                continue
            slot = slot_of[source]
            slot.buffers.append(out)
            slot_of[out] = slot
            break
    unique: dict[int, Slot] = {}
    for b in buffers:
        unique.setdefault(id(slot_of[b]), slot_of[b])
    return list(unique.values())


def place(slots: Sequence[Slot], best_fit: bool) -> dict[Slot, int]:
    """Offsets for `slots` in the given order: each at the lowest (first fit) or
    tightest (best fit) aligned gap among the conflicting slots already placed."""
    offsets: dict[Slot, int] = {}
    # a slot's lifetime, class and size, read once (each is a min or max over its buffers)
    lives = {slot: (slot.start, slot.end, slot.type_class) for slot in slots}
    sizes = {slot: _aligned(slot.size) for slot in slots}
    for slot in slots:
        life = lives[slot]
        busy = sorted(
            (offset, offset + sizes[other])
            for other, offset in offsets.items()
            if _conflict(life, lives[other])
        )
        need = sizes[slot]
        gaps: list[tuple[int, int]] = []  # (gap size, offset); the end is an endless gap
        cursor = 0
        for low, high in busy:
            if low - cursor >= need:
                gaps.append((low - cursor, cursor))
            cursor = max(cursor, high)
        if not best_fit and gaps:
            offsets[slot] = gaps[0][1]
        elif gaps:
            offsets[slot] = min(gaps)[1]
        else:
            offsets[slot] = cursor
    return offsets


def greedy_by_size(ranges: Sequence[tuple[int, int, int]]) -> int:
    """The arena TFLite Micro's greedy-by-size planner gets for tensors given as
    (first step, last step, bytes): largest first, each at the lowest aligned
    offset that fits among the already placed tensors it is live with."""
    placed: list[tuple[int, int, int, int]] = []  # (offset, end offset, first, last)
    arena = 0
    for first, last, size in sorted(ranges, key=lambda r: (-r[2], r[0])):
        offset = 0
        for low, high, other_first, other_last in sorted(placed):
            if other_first <= last and first <= other_last:
                if offset + size <= low:
                    break
                offset = max(offset, _aligned(high))
        placed.append((offset, offset + size, first, last))
        arena = max(arena, offset + size)
    return arena


def _greedy_by_type(buffers: Sequence[Buffer]) -> int:
    """`greedy_by_size` of each type class's buffers, the arenas side by side."""
    classes = {b.type_class for b in buffers}
    return sum(
        greedy_by_size([(b.start, b.end, b.size) for b in buffers if b.type_class == c])
        for c in sorted(classes)
    )


def arena_size(offsets: dict[Slot, int]) -> int:
    return max((off + slot.size for slot, off in offsets.items()), default=0)


ORDERS: tuple[tuple[str, Callable[[Slot], tuple[int, ...]]], ...] = (
    ("size", lambda s: (-s.size, s.start)),
    ("lifetime", lambda s: (-(s.end - s.start), -s.size, s.start)),
    ("area", lambda s: (-s.size * (s.end - s.start + 1), s.start)),
    ("start", lambda s: (s.start, -s.size)),
)


def best_placement(candidates: Sequence[Sequence[Slot]]) -> dict[Slot, int]:
    """The smallest arena over the candidate slot sets (with and without in-place
    merging: a merged slot lives longer, which can fit worse) x the greedy
    orders x {first fit, best fit}. Ties keep the earlier candidate."""
    best: dict[Slot, int] | None = None
    for slots in candidates:
        for _, key in ORDERS:
            ordered = sorted(slots, key=key)
            for best_fit in (False, True):
                offsets = place(ordered, best_fit)
                if best is None or arena_size(offsets) < arena_size(best):
                    best = offsets
    return best or {}


def max_live(slots: Sequence[Slot]) -> int:
    """The most bytes live at one step: no placement of `slots` can do better."""
    steps = sorted({s.start for s in slots})
    return max(
        (sum(_aligned(s.size) for s in slots if s.start <= t <= s.end) for t in steps),
        default=0,
    )


def _iter_funcs(module: ModuleOp) -> Iterator[func.FuncOp]:
    for op in module.ops:
        if isinstance(op, func.FuncOp) and op.body.blocks:
            yield op


def plan_function(fn: func.FuncOp) -> None:
    """Plan `fn`'s buffers into one arena and rewrite its allocs as views.

    Buffers of static size, and, when every free dimension is bounded, the
    buffers whose size depends only on free dimensions (planned at their upper
    bound) get constant offsets, placed by liveness with in-place reuse. When
    some free dimension is unbounded, the latter share slots by liveness (the
    largest of a slot's buffers decides its size, at run time) after the
    constant part. Buffers whose size depends on data are placed last, one
    after the other, each with a check that the workspace holds it."""
    dims = dims_of(fn)
    bounded = all(math.isfinite(r.high) for r in dims.values())
    shares = loop_shares(fn)
    hoist_nested_allocs(fn, shares)
    for op in list(fn.body.block.ops):
        if isinstance(op, memref.AllocOp) and not op.memref.uses:
            Rewriter.erase_op(op)  # never touched: nothing to plan
    buffers = [b for b in find_buffers(fn) if b.touches]
    for op in list(fn.body.block.walk()):
        if isinstance(op, memref.DeallocOp) and op.memref.owner in {b.alloc for b in buffers}:
            Rewriter.erase_op(op)  # the arena outlives the call; nothing to free
    # With every free dimension bounded, whatever has a bound gets a constant
    # offset (planned at its bound); the rest slides (dims) or is bumped (data).
    fixed = [b for b in buffers if b.kind == "static" or (bounded and b.size > 0)]
    sliding = [b for b in buffers if b.kind == "dims" and b not in fixed]
    data = [b for b in buffers if b.kind == "data" and b not in fixed]
    slots = merge_in_place(fn, fixed)
    singles = [Slot([b]) for b in fixed]
    offsets = best_placement([slots, singles])
    size = arena_size(offsets)
    in_place = sum(len(s.buffers) - 1 for s in offsets)
    static_buffers = [b for b in fixed if b.kind == "static"]
    fn.attributes[MEMORY] = DictionaryAttr(
        {
            "arena": IntegerAttr(size, 64),
            "intermediates": IntegerAttr(sum(b.size for b in fixed), 64),
            "max_live": IntegerAttr(max_live(slots), 64),
            "greedy_by_size": IntegerAttr(_greedy_by_type(static_buffers), 64),
            "in_place": IntegerAttr(in_place, 64),
        }
    )
    if not buffers and not shares:
        return
    if not shares and len(fixed) == len(buffers) and all(b.kind == "static" for b in buffers):
        arena = _arena(fn, size)
        for slot, offset in offsets.items():
            for b in slot.buffers:
                _replace_with_view(b.alloc, arena, offset)
        return
    _plan_at_run_time(fn, offsets, sliding, data, shares)


class _Sizes(IndexArith):
    """The byte arithmetic of a run-time plan, built after the computations
    its operands come from (or just before `before`)."""

    def __init__(
        self, fn: func.FuncOp, after: Operation | None, before: Operation | None = None
    ) -> None:
        super().__init__()
        self.block = fn.body.block
        self.limits = SizeLimits.of(fn)
        self.after = after
        self.before = before

    def _insert(self, op: Operation, operands: Sequence[SSAValue]) -> SSAValue:
        if self.before is not None:
            Rewriter.insert_op(op, InsertPoint.before(self.before))
            return op.results[0]
        if self.after is None:
            first = self.block.first_op
            point = InsertPoint.before(first) if first else InsertPoint.at_end(self.block)
        else:
            point = InsertPoint.after(self.after)
        Rewriter.insert_op(op, point)
        self.after = op
        return op.results[0]

    def max(self, a: Size, b: Size) -> Size:
        if a == 0 or b == 0:  # byte counts are never negative
            return b if a == 0 else a
        return super().max(a, b)

    def available(self) -> SSAValue:
        """The bytes of workspace the caller gave."""
        return self._insert(WorkspaceAvailableOp(), [])

    def bytes(self, alloc: memref.AllocOp) -> Size:
        return self.bytes_of(alloc.memref.type, alloc.dynamic_sizes)

    def bytes_of(self, t: Attribute, dynamic_sizes: Sequence[SSAValue]) -> Size:
        """The bytes of a buffer of memref type `t` and those run-time sizes."""
        assert isinstance(t, MemRefType)
        row = element_types.row_of(t.element_type)
        total: Size = row.size
        for d in t.get_shape():
            total *= max(d, 1)
        # saturating: sizes past the limits are refused, never wrapped
        count = self.saturating_product([total, *dynamic_sizes], self.limits.buffer_bytes + 1)
        return count if row.packing == 1 else self.ceildiv(count, row.packing)


def _hoist(fn: func.FuncOp, values: Sequence[SSAValue]) -> None:
    """Move the arithmetic computing `values` (sizes that depend only on the
    free dimensions: pure `arith` ops over arguments) to the start of `fn`,
    keeping its order, so the arena can be sized before any buffer is used."""
    block = fn.body.block
    found: set[Operation] = set()
    stack = list(values)
    while stack:
        owner = stack.pop().owner
        if isinstance(owner, Operation) and owner not in found:
            if not owner.name.startswith("arith.") or owner.parent_block() is not block:
                raise InternalError(f"internal error: a size computed by {owner.name}")
            found.add(owner)
            stack.extend(owner.operands)
    first = block.first_op
    assert first is not None
    for op in [op for op in block.ops if op in found]:
        if op is not first:
            op.detach()
            block.insert_op_before(op, first)
        else:
            first = op.next_op or first


def _last_definition(fn: func.FuncOp, buffers: Sequence[Buffer]) -> Operation | None:
    """The last top-level op defining a size operand of `buffers`."""
    body = {op: i for i, op in enumerate(fn.body.block.ops)}
    best: Operation | None = None
    for b in buffers:
        for size in b.alloc.dynamic_sizes:
            owner = size.owner
            if isinstance(owner, Operation) and owner in body:
                if best is None or body[owner] > body[best]:
                    best = owner
    return best


def _plan_at_run_time(
    fn: func.FuncOp,
    offsets: dict[Slot, int],
    sliding: Sequence[Buffer],
    data: Sequence[Buffer],
    shares: Sequence[LoopShares] = (),
) -> None:
    """Rewrite the allocs of a plan with run-time sizes: constant offsets for
    `offsets`, slots by liveness for `sliding`, one after the other for
    `data`, and the rest of the workspace at that point for each of
    `shares`; the arena's size is what the sizes given at run time need."""
    sized = [b for slot in offsets for b in slot.buffers if b.kind != "data"] + list(sliding)
    _hoist(fn, [v for b in sized for v in b.alloc.dynamic_sizes])
    sizes = _Sizes(fn, _last_definition(fn, sized))
    end: Size = 0
    for slot, offset in offsets.items():
        for b in slot.buffers:
            # A buffer sized from data is planned at its bound: the arena holds that.
            used = b.size if b.kind == "data" else sizes.bytes(b.alloc)
            end = sizes.max(end, sizes.add(offset, used))
    slot_offsets: list[tuple[list[Buffer], Size]] = []
    base = sizes.align(end, ARENA_ALIGN) if sliding else end
    for members in _slots_by_liveness(sliding):
        largest: Size = 0
        for b in members:
            largest = sizes.max(largest, sizes.bytes(b.alloc))
        slot_offsets.append((members, base))
        base = sizes.align(sizes.add(base, largest), ARENA_ALIGN)
    end = sizes.max(end, base) if sliding else end
    arena = _arena(fn, end)
    for slot, offset in offsets.items():
        for b in slot.buffers:
            _replace_with_view(b.alloc, arena, offset)
    for members, offset in slot_offsets:
        for b in members:
            _replace_with_view(b.alloc, arena, offset)
    current = end
    position = {op: k for k, op in enumerate(fn.body.block.ops)}
    for group in shares:
        loop = max(position[op] for op in group.writers(fn.body.block))
        if any(position[group.anchor(position)] < position[b.alloc] < loop for b in data):
            raise InternalError("internal error: a buffer sized from data is made in loop storage")
    steps: list[tuple[Operation, Buffer | LoopShares]] = [(b.alloc, b) for b in data]
    steps += [(g.anchor(position), g) for g in shares]
    for op, step in sorted(steps, key=lambda s: position[s[0]]):  # each size follows the last
        here = _Sizes(fn, op.prev_op)
        offset = here.align(current, ARENA_ALIGN)
        if isinstance(step, LoopShares):
            _share(fn, step, arena, offset, position)  # after the loop, bytes start there again
            current = offset
            continue
        current = here.add(offset, here.bytes(step.alloc))
        Rewriter.insert_op(WorkspaceOp(here.index(current)), InsertPoint.before(op))
        _replace_with_view(step.alloc, arena, offset)


def _share(
    fn: func.FuncOp,
    group: LoopShares,
    arena: SSAValue,
    base: Size,
    position: dict[Operation, int],
) -> None:
    """Give each member of `group` (n of them) an equal share of the
    workspace after `base`, with checks of what each write needs."""
    first = group.anchor(position)
    here = _Sizes(fn, None, before=first)
    Rewriter.insert_op(WorkspaceOp(here.index(base)), InsertPoint.before(first))
    count = group.members
    left = here.sub(here.available(), base)
    share = here.mul(here.floordiv(here.floordiv(left, count), ARENA_ALIGN), ARENA_ALIGN)

    def need(before: Operation, t: Attribute, sizes: Sequence[SSAValue]) -> None:
        """A check before `before` that the workspace holds `count` shares
        of a buffer of type `t` and `sizes`."""
        there = _Sizes(fn, None, before=before)
        used = there.align(there.bytes_of(t, sizes), ARENA_ALIGN)
        total = there.index(there.add(base, there.mul(used, count)))
        Rewriter.insert_op(WorkspaceOp(total), InsertPoint.before(before))

    offsets = [here.index(here.add(base, here.mul(share, k))) for k in range(count)]
    storages = [*group.storages, *group.nested]
    for storage, offset in zip(storages, offsets, strict=False):
        for use in list(storage.result.uses):
            reserve = use.operation
            if isinstance(reserve, ReserveOp):
                need(reserve, MemRefType(i8, [DYNAMIC_INDEX]), [reserve.bytes])
                Rewriter.erase_op(reserve)
        view = memref.ViewOp(arena, offset, [here.index(share)], storage.result.type)
        Rewriter.replace_op(storage, view)
    for alloc, offset in zip(group.inner, offsets[len(storages) :], strict=True):
        need(alloc, alloc.memref.type, alloc.dynamic_sizes)
        _replace_with_view(alloc, arena, offset)


def _slots_by_liveness(buffers: Sequence[Buffer]) -> list[list[Buffer]]:
    """Buffers grouped into slots whose members never live at once (interval
    coloring by start, same type class), so a slot needs its largest member's
    bytes."""
    slots: list[list[Buffer]] = []
    for b in sorted(buffers, key=lambda b: (b.start, b.end)):
        free = [s for s in slots if s[-1].end < b.start and s[-1].type_class == b.type_class]
        if free:
            free[0].append(b)
        else:
            slots.append([b])
    return slots


def _arena(fn: func.FuncOp, size: Size) -> SSAValue:
    """The arena alloc of `size` bytes: first in the function when static,
    else right after `size` is computed."""
    block = fn.body.block
    first = block.first_op
    assert first is not None
    point = InsertPoint.before(first)
    if isinstance(size, int):
        arena = memref.AllocOp.get(i8, ARENA_ALIGN, [size])
    else:
        arena = memref.AllocOp.get(i8, ARENA_ALIGN, [DYNAMIC_INDEX], dynamic_sizes=[size])
        if isinstance(size.owner, Operation):
            point = InsertPoint.after(size.owner)
    arena.attributes[ARENA_ATTR] = UnitAttr()
    arena.memref.name_hint = "arena"
    Rewriter.insert_op(arena, point)
    return arena.memref


def _replace_with_view(alloc: memref.AllocOp, arena: SSAValue, offset: Size) -> None:
    if isinstance(offset, int):
        shift_op = arith.ConstantOp.from_int_and_width(offset, IndexType())
        Rewriter.insert_op(shift_op, InsertPoint.before(alloc))
        shift = shift_op.result
    else:
        shift = offset
    view = memref.ViewOp(arena, shift, list(alloc.dynamic_sizes), alloc.memref.type)
    for key, value in alloc.attributes.items():
        view.attributes[key] = value
    Rewriter.replace_op(alloc, view)


class PlanMemoryPass(ModulePass):
    """Give every intermediate buffer an offset in one arena, by liveness, with
    in-place reuse; see the module docstring."""

    name = "plan-memory"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in _iter_funcs(op):
            plan_function(fn)
