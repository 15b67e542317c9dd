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

- If (`branch.py`) -> `scf.if` on the condition's element.
- Loop (`loop.py`) -> `scf.for` when the condition cannot change inside the body (there
  is none, the body passes its condition input through, or yields a constant
  true); its trip count is M (0 when the initial condition is false).
  Otherwise `scf.while`, whose `before` region tests the condition (and the
  trip count M if given) and whose `after` region is the body. Scan outputs
  need a bound on their length: with `scf.for` they are M rows; with an
  effective condition they are written into M rows of their own, and the rows
  the run made (the `scf.while`'s result) are copied out after the loop, into
  outputs whose size comes from data. Without M they are an `unsupported` error.
- Scan (`scan.py`) -> `scf.for` over the scan axis: each trip copies the slice of every
  scan input (at `scan_input_axes`, read backwards for direction 1) into a
  buffer the body reads, and writes each scan output's slice (at
  `scan_output_axes`, backwards for direction 1).

This module holds the helpers the three share (taking a subgraph's block,
binding its arguments to buffers, writing yielded values). A carried value
whose body input the importer typed with the sizes of its initial value
keeps them throughout (its buffer is allocated once): a body that yields
another size is stopped at run time (`onnxc.check`) or refused at compile
time when the sizes are static. One whose sizes change from trip to trip
(the importer left them unknown) lives in loop storage at its current sizes
(`loop_storage.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    MemRefType,
    StringAttr,
    TensorType,
    UnrealizedConversionCastOp,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import onnx
from onnxc.dialects.dims import dims_of
from onnxc.dialects.onnxc import CheckOp, InputOp, OutputOp
from onnxc.errors import InternalError, UnsupportedError
from onnxc.ir_names import COMMENT
from onnxc.lowering.buffer_uses import VIEWS
from onnxc.lowering.convert_onnx_to_linalg.common import (
    alloc,
    buffer_of,
    comment_for,
    memref_type,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index, nest
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

INDEX = IndexType()

# --- regions ---------------------------------------------------------------------


def subgraph_block(op: onnx.OnnxOp, region: Region, inputs: int, outputs: int, what: str) -> Block:
    """The one block of subgraph `region`, checked to take `inputs`
    arguments and yield `outputs` values."""
    if len(region.blocks) != 1:
        raise unsupported(op, f"the {what} is not one block")
    block = region.block
    if len(block.args) != inputs:
        raise unsupported(op, f"the {what} takes {len(block.args)} inputs, not {inputs}")
    if len(yield_of(block).values) != outputs:
        raise unsupported(
            op, f"the {what} has {len(yield_of(block).values)} outputs, not {outputs}"
        )
    for arg in block.args:
        if not isinstance(arg.type, TensorType):
            raise unsupported(op, f"a {what} input of type {arg.type} (sequences, optionals)")
    return block


def yield_of(block: Block) -> onnx.YieldOp:
    last = block.last_op
    if not isinstance(last, onnx.YieldOp):
        raise InternalError("internal error: a subgraph does not end in onnx.Yield")
    return last


def take_block(region: Region) -> Block:
    return region.detach_block(region.block)


Binding = SSAValue | Callable[[Builder], SSAValue]
"""What a subgraph's argument becomes: a buffer, or a function building at
the start of the block the view it is on each trip."""


def _bind_argument(shapes: Shapes, arg: SSAValue, binding: Binding) -> None:
    """Replace block argument `arg` (a tensor) by the buffer of `binding`,
    seen as that tensor at the start of its block; its symbols get the
    buffer's sizes."""
    block = arg.owner
    assert isinstance(block, Block)
    first = block.first_op
    if isinstance(binding, SSAValue):
        buffer = binding
        point = InsertPoint.before(first) if first else InsertPoint.at_end(block)
    else:
        b = Builder(InsertPoint.before(first) if first else InsertPoint.at_end(block))
        buffer = binding(b)
        point = b.insertion_point
    cast = UnrealizedConversionCastOp.get([buffer], [arg.type])
    Rewriter.insert_op(cast, point)
    shapes.result_sizes(cast.results[0], shapes.sizes(buffer))
    arg.replace_all_uses_with(cast.results[0])


def trip_block(shapes: Shapes, body: Region, bindings: Sequence[Binding]) -> tuple[Block, SSAValue]:
    """The body's block, taken out of its region, as the block of one trip
    of a loop: its arguments replaced by the buffers of `bindings`, and one
    new argument, the trip's `index`."""
    block = take_block(body)
    for arg, binding in zip(block.args, bindings, strict=True):
        _bind_argument(shapes, arg, binding)
    for arg in list(block.args):
        block.erase_arg(arg)
    iv = block.insert_arg(INDEX, 0)
    iv.name_hint = "iteration"
    return block, iv


def sizes_known(shapes: Shapes, value: SSAValue) -> list[Size] | None:
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


def initialised(
    shapes: Shapes, rewriter: PatternRewriter, op: Operation, value: SSAValue
) -> SSAValue:
    """A new buffer holding a copy of tensor `value` (a carried value's
    buffer: the body overwrites it, the input stays as it was)."""
    source = buffer_of(rewriter, value)
    sizes = shapes.sizes(value)
    buffer = alloc(rewriter, value.type, sizes)
    copy_elements(Builder(InsertPoint.before(op)), source, buffer, sizes)
    return buffer


# --- writing yielded values ------------------------------------------------------------


def _root(buffer: SSAValue) -> SSAValue:
    """The buffer whose bytes `buffer` views."""
    while isinstance(buffer.owner, VIEWS):
        buffer = buffer.owner.operands[0]
    return buffer


def memref_sizes(b: Builder, buffer: SSAValue) -> list[Size]:
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
                b.insert(memref.DimOp.from_source_and_index(buffer, index(b, axis))).result
            )
    return sizes


def same_sizes(
    b: Builder, op: Operation, got: Sequence[Size], want: Sequence[Size], what: str
) -> None:
    """`got` equals `want`, size by size: an error now where both are
    static, else a run-time check."""
    if len(got) != len(want):
        raise UnsupportedError(f"{_label(op)}: {what} has rank {len(got)}, not {len(want)}")
    for g, w in zip(got, want, strict=True):
        if isinstance(g, int) and isinstance(w, int):
            if g != w:
                raise UnsupportedError(
                    f"{_label(op)}: {what} has size {list(got)}, not {list(want)}"
                )
        elif g is not w:
            lhs = index(b, g)
            rhs = index(b, w)
            same = b.insert(arith.CmpiOp(lhs, rhs, "eq")).result
            b.insert(CheckOp(same, f"{comment_for(op).data}: {what} keeps its size"))


def _label(op: Operation) -> str:
    """'node NAME (OpType)' of an onnx op, or of the `scf` op it became."""
    if isinstance(op, onnx.OnnxOp):
        return op.node_label()
    comment = op.attributes.get(COMMENT)
    kind, _, name = (comment.data if isinstance(comment, StringAttr) else op.name).partition(" ")
    return f"node '{name or '<unnamed>'}' ({kind})"


def copy_elements(
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


def with_index(axis: int, at: SSAValue) -> Callable[[Builder, list[SSAValue]], list[SSAValue]]:
    """Positions of a slice, as positions of the whole tensor at `at` along `axis`."""
    return lambda _, p: [*p[:axis], at, *p[axis:]]


class Resized(Protocol):
    """A carried value whose sizes change from trip to trip (`loop_storage.py`)."""

    @property
    def storage(self) -> SSAValue:
        """The bytes it lives in."""
        ...

    @property
    def entry(self) -> SSAValue:
        """The view of it the trip read."""
        ...

    def write(self, b: Builder, source: SSAValue) -> None:
        """Store `source`, at its sizes, as the value."""
        ...


def write_carried(
    b: Builder,
    op: Operation,
    sources: Sequence[SSAValue],
    targets: Sequence[SSAValue | Resized],
) -> None:
    """Write the yielded values `sources` into the carried buffers (or loop
    storage) `targets`: a value read from one of the carried buffers (a
    swap, a rotation) first goes to a temporary, so that no write overwrites
    what a later one reads."""
    carried = {_root(t) if isinstance(t, SSAValue) else t.storage for t in targets}
    staged: list[SSAValue] = []
    for source, target in zip(sources, targets, strict=True):
        if source is (target if isinstance(target, SSAValue) else target.entry):
            staged.append(source)
        elif _root(source) in carried:
            sizes = memref_sizes(b, source)
            shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
            dynamic = [s for s in sizes if isinstance(s, SSAValue)]
            t = memref_type(source.type)
            temp = b.insert(memref.AllocOp.get(t.element_type, shape=shape, dynamic_sizes=dynamic))
            copy_elements(b, source, temp.memref, sizes)
            staged.append(temp.memref)
        else:
            staged.append(source)
    for source, target in zip(staged, targets, strict=True):
        if not isinstance(target, SSAValue):
            if source is not target.entry:
                target.write(b, source)
            continue
        sizes = memref_sizes(b, target)
        same_sizes(b, op, memref_sizes(b, source), sizes, "a loop-carried value")
        if source is not target:
            copy_elements(b, source, target, sizes)
