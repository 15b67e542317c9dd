"""Control flow: `onnx.If`, `onnx.Loop` and `onnx.Scan` -> `scf.if`,
`scf.for` and `scf.while` over buffers.

The importer gives each subgraph as a region of one block, its inputs the
block's arguments and its outputs the operands of the `onnx.Yield` ending it.
A pattern here runs before the operations of the region (the walk visits an
operation before the ones nested in it): it allocates the buffers the
results live in (destination passing, as everywhere), moves the region's
block into the `scf` operation, and replaces the block's arguments by the
buffers that hold them (the iteration number, the condition, the carried
values, the slices of the scanned inputs). The walk then lowers the body's
operations where they are. When the walk is over, the `onnx.Yield`s are
finished (`LoweringContext.finishers`): each yielded value is written into
its destination, carried values last and through a temporary when one of them
is read from another's buffer (a swap), so that every write reads what the
iteration computed; the yield of an `If` branch writes its value directly
into the result buffer when the branch computed it into a buffer of its own.

- If -> `scf.if` on the condition's element.
- Loop -> `scf.for` when the condition cannot change inside the body (there
  is none, the body passes its condition input through, or yields a constant
  true); its trip count is M (0 when the initial condition is false).
  Otherwise `scf.while`, whose `before` region tests the condition (and the
  trip count M if given) and whose `after` region is the body. Scan outputs
  need a length known before the loop: they are supported with `scf.for` (M
  rows); with an effective condition they are an `unsupported` error.
- Scan -> `scf.for` over the scan axis: each trip copies the slice of every
  scan input (at `scan_input_axes`, read backwards for direction 1) into a
  buffer the body reads, and writes each scan output's slice (at
  `scan_output_axes`, backwards for direction 1).

Carried values keep one shape throughout (their buffers are allocated once):
a body that yields another size is stopped at run time (`onnxc.check`) or
refused at compile time when the sizes are static.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    MemRefType,
    TensorType,
    UnrealizedConversionCastOp,
    i1,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import onnx
from onnxc.dialects.dims import dims_of
from onnxc.dialects.onnxc import CheckOp, InputOp, OutputOp
from onnxc.errors import InternalError
from onnxc.ir_names import COMMENT
from onnxc.lowering.buffer_uses import VIEWS
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    alloc,
    buffer_behind,
    buffer_of,
    comment_for,
    constant_value,
    is_none,
    load_scalar,
    memref_type,
    normalize_axis,
    shape_of,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.loops import nest
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

INDEX = IndexType()


# --- regions ---------------------------------------------------------------------


def _body(op: onnx.OnnxOp, region: Region, inputs: int, outputs: int, what: str) -> Block:
    """The one block of subgraph `region`, checked to take `inputs`
    arguments and yield `outputs` values."""
    if len(region.blocks) != 1:
        raise unsupported(op, f"the {what} is not one block")
    block = region.block
    if len(block.args) != inputs:
        raise unsupported(op, f"the {what} takes {len(block.args)} inputs, not {inputs}")
    if len(_yield(block).values) != outputs:
        raise unsupported(op, f"the {what} has {len(_yield(block).values)} outputs, not {outputs}")
    for arg in block.args:
        if not isinstance(arg.type, TensorType):
            raise unsupported(op, f"a {what} input of type {arg.type} (sequences, optionals)")
    return block


def _yield(block: Block) -> onnx.YieldOp:
    last = block.last_op
    if not isinstance(last, onnx.YieldOp):
        raise InternalError("internal error: a subgraph does not end in onnx.Yield")
    return last


def _take_block(region: Region) -> Block:
    return region.detach_block(region.block)


def _bind_argument(shapes: Shapes, arg: SSAValue, buffer: SSAValue) -> None:
    """Replace block argument `arg` (a tensor) by `buffer`, seen as that
    tensor at the start of its block; its symbols get the buffer's sizes."""
    block = arg.owner
    assert isinstance(block, Block)
    cast = UnrealizedConversionCastOp.get([buffer], [arg.type])
    first = block.first_op
    Rewriter.insert_op(cast, InsertPoint.before(first) if first else InsertPoint.at_end(block))
    shapes.result_sizes(cast.results[0], shapes.sizes(buffer))
    arg.replace_all_uses_with(cast.results[0])


def _trip_block(
    shapes: Shapes, body: Region, buffers: Sequence[SSAValue]
) -> tuple[Block, SSAValue]:
    """The body's block, taken out of its region, as the block of one trip
    of a loop: its arguments replaced by `buffers`, and one new argument,
    the trip's `index`."""
    block = _take_block(body)
    for arg, buffer in zip(block.args, buffers, strict=True):
        _bind_argument(shapes, arg, buffer)
    for arg in list(block.args):
        block.erase_arg(arg)
    iv = block.insert_arg(INDEX, 0)
    iv.name_hint = "iteration"
    return block, iv


def _sizes_known(shapes: Shapes, value: SSAValue) -> list[Size] | None:
    """The sizes of tensor `value` if its type's symbols are bound yet."""
    t = value.type
    assert isinstance(t, TensorType)
    found: list[Size] = []
    for dim in dims_of(t):
        if isinstance(dim, int):
            found.append(dim)
        elif dim in shapes.symbols:
            found.append(shapes.symbols[dim])
        else:
            return None
    return found


def _initialised(
    shapes: Shapes, rewriter: PatternRewriter, op: Operation, value: SSAValue
) -> SSAValue:
    """A new buffer holding a copy of tensor `value` (a carried value's
    buffer: the body overwrites it, the input stays as it was)."""
    source = buffer_of(rewriter, value)
    sizes = shapes.sizes(value)
    buffer = alloc(rewriter, value.type, sizes)
    _copy_elements(Builder(InsertPoint.before(op)), source, buffer, sizes)
    return buffer


# --- writing yielded values ------------------------------------------------------------


def _root(buffer: SSAValue) -> SSAValue:
    """The buffer whose bytes `buffer` views."""
    while isinstance(buffer.owner, VIEWS):
        buffer = buffer.owner.operands[0]
    return buffer


def _memref_sizes(b: Builder, buffer: SSAValue) -> list[Size]:
    """The sizes of `buffer`: static ones, the size operands of the op
    defining it, else `memref.dim`s built at `b`."""
    t = buffer.type
    assert isinstance(t, MemRefType)
    owner = buffer.owner
    dynamic: list[SSAValue] | None = None
    if isinstance(owner, memref.AllocOp):
        dynamic = list(owner.dynamic_sizes)
    elif isinstance(owner, memref.ViewOp | memref.ReinterpretCastOp | InputOp | OutputOp):
        dynamic = list(owner.sizes)
    elif isinstance(owner, memref.ExpandShapeOp):
        dynamic = list(owner.output_shape)
    given = iter(dynamic or [])
    sizes: list[Size] = []
    for axis, size in enumerate(t.get_shape()):
        if size >= 0:
            sizes.append(size)
        elif dynamic is not None:
            sizes.append(next(given))
        else:
            sizes.append(
                b.insert(memref.DimOp.from_source_and_index(buffer, _index(b, axis))).result
            )
    return sizes


def _same_sizes(
    b: Builder, op: Operation, got: Sequence[Size], want: Sequence[Size], what: str
) -> None:
    """`got` equals `want`, size by size: an error now where both are
    static, else a run-time check."""
    if len(got) != len(want):
        raise unsupported(_onnx(op), f"{what} has rank {len(got)}, not {len(want)}")
    for g, w in zip(got, want, strict=True):
        if isinstance(g, int) and isinstance(w, int):
            if g != w:
                raise unsupported(_onnx(op), f"{what} has size {list(got)}, not {list(want)}")
        elif g is not w:
            lhs = _index(b, g)
            rhs = _index(b, w)
            same = b.insert(arith.CmpiOp(lhs, rhs, "eq")).result
            b.insert(CheckOp(same, f"{comment_for(op).data}: {what} keeps its size"))


def _onnx(op: Operation) -> onnx.OnnxOp:
    assert isinstance(op, onnx.OnnxOp)
    return op


def _index(b: Builder, size: Size) -> SSAValue:
    if isinstance(size, SSAValue):
        return size
    return b.insert(arith.ConstantOp.from_int_and_width(size, INDEX)).result


def _copy_elements(
    b: Builder,
    source: SSAValue,
    target: SSAValue,
    sizes: Sequence[Size],
    read: Callable[[Builder, list[SSAValue]], list[SSAValue]] = lambda _, p: p,
    write: Callable[[Builder, list[SSAValue]], list[SSAValue]] = lambda _, p: p,
) -> None:
    """Loops copying every position `p` of `sizes`: `source[read(p)]` to
    `target[write(p)]` (slices of a tensor to and from a buffer of their own)."""

    def element(inner: Builder, position: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
        loaded = inner.insert(memref.LoadOp.get(source, read(inner, position))).res
        inner.insert(memref.StoreOp.get(loaded, target, write(inner, position)))
        return []

    nest(b, list(sizes), [], element)


def _with_index(axis: int, at: SSAValue) -> Callable[[Builder, list[SSAValue]], list[SSAValue]]:
    """Positions of a slice, as positions of the whole tensor at `at` along `axis`."""
    return lambda _, p: [*p[:axis], at, *p[axis:]]


def _write_carried(
    b: Builder, op: Operation, sources: Sequence[SSAValue], targets: Sequence[SSAValue]
) -> None:
    """Write the yielded values `sources` into the carried buffers `targets`:
    a value read from one of the carried buffers (a swap, a rotation) first
    goes to a temporary, so that no write overwrites what a later one reads."""
    carried = {_root(t) for t in targets}
    staged: list[SSAValue] = []
    for source, target in zip(sources, targets, strict=True):
        if source is target:
            staged.append(source)
        elif _root(source) in carried:
            sizes = _memref_sizes(b, source)
            shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
            dynamic = [s for s in sizes if isinstance(s, SSAValue)]
            t = memref_type(source.type)
            temp = b.insert(memref.AllocOp.get(t.element_type, shape=shape, dynamic_sizes=dynamic))
            _copy_elements(b, source, temp.memref, sizes)
            staged.append(temp.memref)
        else:
            staged.append(source)
    for source, target in zip(staged, targets, strict=True):
        sizes = _memref_sizes(b, target)
        _same_sizes(b, op, _memref_sizes(b, source), sizes, "a loop-carried value")
        if source is not target:
            _copy_elements(b, source, target, sizes)


# --- If --------------------------------------------------------------------------------


class IfOpLowering(OnnxLowering[onnx.IfOp]):
    """`onnx.If` -> `scf.if` on the condition's element, each branch writing
    its outputs into the buffers of the If's results (allocated before it).
    A result whose size only the branch taken knows is not supported."""

    def rewrite(self, op: onnx.IfOp, rewriter: PatternRewriter) -> None:
        count = len(op.results)
        then_block = _body(op, op.then_branch, 0, count, "then_branch")
        else_block = _body(op, op.else_branch, 0, count, "else_branch")
        condition = load_scalar(rewriter, op, op.cond)
        buffers: list[SSAValue] = []
        for k, result in enumerate(op.results):
            if not isinstance(result.type, TensorType):
                raise unsupported(op, f"an output of type {result.type} (sequences, optionals)")
            sizes = _sizes_known(self.shapes, result)
            if sizes is None:
                raise unsupported(op, f"output {k} has a size only the branch taken knows")
            buffers.append(self.result_buffer(rewriter, result, sizes))
        blocks = [_take_block(op.then_branch), _take_block(op.else_branch)]
        if_op = scf.IfOp(condition, [], Region(blocks[0]), Region(blocks[1]))
        if_op.attributes[COMMENT] = comment_for(op)
        rewriter.insert(if_op)
        self.replace(rewriter, op, buffers)
        for block in (then_block, else_block):
            self.context.finishers.append(functools.partial(_finish_branch, if_op, block, buffers))


def _finish_branch(if_op: scf.IfOp, block: Block, buffers: Sequence[SSAValue]) -> None:
    """Write a branch's outputs into the If's result buffers: into the
    buffer itself when the branch computed the value into a static buffer of
    its own, else by a copy."""
    end = _yield(block)
    b = Builder(InsertPoint.before(end))
    claimed: set[Operation] = set()
    for value, target in zip(end.values, buffers, strict=True):
        source = buffer_behind(value)
        owner = source.owner
        if (
            isinstance(owner, memref.AllocOp)
            and owner.parent_block() is block
            and owner not in claimed
            and source.type == target.type
        ):
            claimed.add(owner)
            source.replace_all_uses_with(target)
            Rewriter.erase_op(owner)
            continue
        sizes = _memref_sizes(b, target)
        _same_sizes(b, if_op, _memref_sizes(b, source), sizes, "a branch output")
        _copy_elements(b, source, target, sizes)
    Rewriter.replace_op(end, scf.YieldOp())


# --- Loop ------------------------------------------------------------------------------


def _passes_condition_through(block: Block) -> bool:
    """Whether the body's condition output is its condition input (through
    Identity ops) or a constant true: the loop's condition never changes."""
    value = _yield(block).values[0]
    while isinstance(value.owner, onnx.IdentityOp):
        value = value.owner.operands[0]
    if value is block.args[1]:
        return True
    constant = constant_value(value)
    return constant is not None and constant.size == 1 and bool(constant.reshape(-1)[0])


class LoopOpLowering(OnnxLowering[onnx.LoopOp]):
    """`onnx.Loop` -> `scf.for` (no effective condition) or `scf.while`; see
    the module docstring."""

    def rewrite(self, op: onnx.LoopOp, rewriter: PatternRewriter) -> None:
        carried = len(op.v_initial)
        scans = len(op.results) - carried
        block = _body(op, op.body, 2 + carried, 1 + carried + scans, "body")
        shapes = self.shapes
        trips: Size | None = None
        if not is_none(op.M):
            known = constant_value(op.M)
            if known is not None:
                trips = max(int(known.reshape(-1)[0]), 0)
            else:
                loaded = load_scalar(rewriter, op, op.M)
                trips = shapes.max(shapes.from_integer(loaded), 0)
        start: SSAValue | None = None
        initially = None if is_none(op.cond) else constant_value(op.cond)
        if initially is not None and not bool(initially.reshape(-1)[0]):
            trips = 0
        elif initially is None and not is_none(op.cond):
            start = load_scalar(rewriter, op, op.cond)
        fixed = _passes_condition_through(block)
        if fixed and start is not None and trips is not None:
            trips = shapes.select(start, trips, 0)
        if trips is None and (fixed or scans):
            raise unsupported(
                op, "a loop without a trip count" + (" with scan outputs" if scans else "")
            )
        if scans and not fixed:
            raise unsupported(op, "scan outputs of a loop that its condition may end early")
        buffers = [_initialised(self.shapes, rewriter, op, v) for v in op.v_initial]
        scan_buffers: list[SSAValue] = []
        for k in range(scans):
            result = op.results[carried + k]
            value = _yield(block).values[1 + carried + k]
            slice_sizes = _sizes_known(self.shapes, value)
            whole = _sizes_known(self.shapes, result)
            if slice_sizes is None and whole is not None:
                slice_sizes = whole[1:]
            if slice_sizes is None or not isinstance(result.type, TensorType):
                raise unsupported(op, f"scan output {k} has a size only the body knows")
            assert trips is not None
            scan_buffers.append(self.result_buffer(rewriter, result, [trips, *slice_sizes]))
        number = alloc(rewriter, TensorType(i64, []))
        condition = alloc(rewriter, TensorType(i1, []))
        b = Builder(InsertPoint.before(op))
        true = b.insert(arith.ConstantOp.from_int_and_width(1, i1)).result
        b.insert(memref.StoreOp.get(start if start is not None else true, condition, []))
        taken, iv = _trip_block(self.shapes, op.body, [number, condition, *buffers])
        head = Builder(InsertPoint.at_start(taken))
        as_integer = head.insert(arith.IndexCastOp(iv, i64)).result
        head.insert(memref.StoreOp.get(as_integer, number, []))
        if fixed:
            assert trips is not None
            zero, one = _index(b, 0), _index(b, 1)
            loop: Operation = scf.ForOp(zero, _index(b, trips), one, [], taken)
        else:
            loop = _while(b, taken, condition, trips)
        loop.attributes[COMMENT] = comment_for(op)
        rewriter.insert(loop)
        self.replace(rewriter, op, [*buffers, *scan_buffers])
        self.context.finishers.append(
            lambda: _finish_loop(loop, taken, iv, condition, buffers, scan_buffers, fixed)
        )


def _while(b: Builder, body: Block, condition: SSAValue, trips: Size | None) -> scf.WhileOp:
    """`scf.while` running `body` (whose first argument is the iteration
    number) while the condition buffer holds and, with a trip count, the
    number is below it."""
    before = Block(arg_types=[INDEX])
    test = Builder(InsertPoint.at_end(before))
    going = test.insert(memref.LoadOp.get(condition, [])).res
    if trips is not None:
        below = test.insert(arith.CmpiOp(before.args[0], _index(b, trips), "slt")).result
        going = test.insert(arith.AndIOp(going, below)).result
    test.insert(scf.ConditionOp(going, before.args[0]))
    zero = _index(b, 0)
    return scf.WhileOp([zero], [INDEX], Region(before), Region(body))


def _finish_loop(
    loop: Operation,
    body: Block,
    iv: SSAValue,
    condition: SSAValue,
    buffers: Sequence[SSAValue],
    scan_buffers: Sequence[SSAValue],
    fixed: bool,
) -> None:
    """Write a trip's outputs: scan outputs into row `iv`, the condition
    (read before any carried value is overwritten), then the carried values."""
    end = _yield(body)
    values = [buffer_behind(v) for v in end.values]
    b = Builder(InsertPoint.before(end))
    for source, target in zip(values[1 + len(buffers) :], scan_buffers, strict=True):
        sizes = _memref_sizes(b, source)
        _same_sizes(b, loop, sizes, _memref_sizes(b, target)[1:], "a scan output")
        _copy_elements(b, source, target, sizes, write=_with_index(0, iv))
    if not fixed:
        zeros = [_index(b, 0)] * len(shape_of(values[0]))
        flag = b.insert(memref.LoadOp.get(values[0], zeros)).res
        b.insert(memref.StoreOp.get(flag, condition, []))
    _write_carried(b, loop, values[1 : 1 + len(buffers)], buffers)
    if fixed:
        Rewriter.replace_op(end, scf.YieldOp())
    else:
        one = b.insert(arith.ConstantOp.from_int_and_width(1, INDEX)).result
        following = b.insert(arith.AddiOp(iv, one)).result
        Rewriter.replace_op(end, scf.YieldOp(following))


# --- Scan ------------------------------------------------------------------------------


class ScanOpLowering(OnnxLowering[onnx.ScanOp]):
    """`onnx.Scan` -> `scf.for` over the scan axis; see the module docstring."""

    def rewrite(self, op: onnx.ScanOp, rewriter: PatternRewriter) -> None:
        operands = list(op.initial_state_and_scan_inputs)
        inputs = op.attr("num_scan_inputs")
        states = len(operands) - inputs
        outputs = len(op.results) - states
        if inputs < 1 or states < 0 or outputs < 0:
            raise unsupported(op, f"{inputs} scan inputs of {len(operands)} inputs")
        block = _body(op, op.body, states + inputs, states + outputs, "body")
        in_axes = self._axes(op, "scan_input_axes", operands[states:])
        in_reverse = self._directions(op, "scan_input_directions", inputs)
        out_reverse = self._directions(op, "scan_output_directions", outputs)
        shapes = self.shapes
        scanned = operands[states:]
        trips = shapes.sizes(scanned[0])[in_axes[0]]
        for j, value in enumerate(scanned[1:], start=1):
            length = shapes.sizes(value)[in_axes[j]]
            if isinstance(length, int) and isinstance(trips, int) and length != trips:
                raise unsupported(op, f"scan input {j} has {length} slices, not {trips}")
        buffers = [_initialised(self.shapes, rewriter, op, v) for v in operands[:states]]
        slices: list[SSAValue] = []
        for j, value in enumerate(scanned):
            sizes = shapes.sizes(value)
            slices.append(
                alloc(rewriter, value.type, [*sizes[: in_axes[j]], *sizes[in_axes[j] + 1 :]])
            )
        scan_buffers: list[SSAValue] = []
        results = list(op.results[states:])
        out_axes = self._axes(op, "scan_output_axes", [], [len(shape_of(r)) for r in results])
        for k, result in enumerate(results):
            value = _yield(block).values[states + k]
            slice_sizes = _sizes_known(self.shapes, value)
            if slice_sizes is None:
                whole = _sizes_known(self.shapes, result)
                if whole is None:
                    raise unsupported(op, f"scan output {k} has a size only the body knows")
                slice_sizes = [*whole[: out_axes[k]], *whole[out_axes[k] + 1 :]]
            axis = out_axes[k]
            sizes = [*slice_sizes[:axis], trips, *slice_sizes[axis:]]
            scan_buffers.append(self.result_buffer(rewriter, result, sizes))
        taken, iv = _trip_block(self.shapes, op.body, [*buffers, *slices])
        head = Builder(InsertPoint.at_start(taken))
        last = _index(Builder(InsertPoint.before(op)), shapes.sub(trips, 1))
        backwards = head.insert(arith.SubiOp(last, iv)).result
        for j, (value, target) in enumerate(zip(scanned, slices, strict=True)):
            at = backwards if in_reverse[j] else iv
            source = buffer_of(rewriter, value)
            read = _with_index(in_axes[j], at)
            _copy_elements(head, source, target, shapes.sizes(target), read=read)
        b = Builder(InsertPoint.before(op))
        loop = scf.ForOp(_index(b, 0), _index(b, trips), _index(b, 1), [], taken)
        loop.attributes[COMMENT] = comment_for(op)
        rewriter.insert(loop)
        self.replace(rewriter, op, [*buffers, *scan_buffers])
        rows = [backwards if reverse else iv for reverse in out_reverse]
        self.context.finishers.append(
            lambda: _finish_scan(loop, taken, buffers, scan_buffers, out_axes, rows)
        )

    def _axes(
        self,
        op: onnx.ScanOp,
        name: str,
        values: Sequence[SSAValue],
        ranks: Sequence[int] | None = None,
    ) -> list[int]:
        """Attribute `name` (axes, default 0), normalised against the ranks
        of `values` (or `ranks`)."""
        ranks = [len(shape_of(v)) for v in values] if ranks is None else list(ranks)
        axes = op.attr(name)
        axes = [0] * len(ranks) if axes is None else list(axes)
        if len(axes) != len(ranks):
            raise unsupported(op, f"{name} has {len(axes)} entries, not {len(ranks)}")
        return [normalize_axis(op, axis, rank) for axis, rank in zip(axes, ranks, strict=True)]

    def _directions(self, op: onnx.ScanOp, name: str, count: int) -> list[bool]:
        """Attribute `name` as `count` flags: read (or write) backwards."""
        found = op.attr(name)
        found = [0] * count if found is None else list(found)
        if len(found) != count or any(d not in (0, 1) for d in found):
            raise unsupported(op, f"{name} is {found}")
        return [d == 1 for d in found]


def _finish_scan(
    loop: Operation,
    body: Block,
    buffers: Sequence[SSAValue],
    scan_buffers: Sequence[SSAValue],
    axes: Sequence[int],
    rows: Sequence[SSAValue],
) -> None:
    """Write a trip's outputs: each scan output's slice at its row (before
    the carried values change), then the carried values."""
    end = _yield(body)
    values = [buffer_behind(v) for v in end.values]
    b = Builder(InsertPoint.before(end))
    outputs = values[len(buffers) :]
    for source, target, axis, row in zip(outputs, scan_buffers, axes, rows, strict=True):
        sizes = _memref_sizes(b, source)
        whole = _memref_sizes(b, target)
        _same_sizes(b, loop, sizes, [*whole[:axis], *whole[axis + 1 :]], "a scan output")
        _copy_elements(b, source, target, sizes, write=_with_index(axis, row))
    _write_carried(b, loop, values[: len(buffers)], buffers)
    Rewriter.replace_op(end, scf.YieldOp())
