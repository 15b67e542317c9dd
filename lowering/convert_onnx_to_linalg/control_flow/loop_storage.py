"""Values whose sizes only the run decides as it goes: a loop-carried value
whose sizes change from trip to trip (a tensor a Loop grows by a Concat
each trip, as `torch.cat` in a scripted loop), an If result whose sizes the
branch taken decides.

The importer leaves the axes where a body gives a carried value back with
other sizes than it was given unknown (`subgraph_types.py`); such a value
cannot live in a buffer allocated once. It lives in loop storage
(`onnxc.loop_storage`: bytes plan-memory takes from the workspace left when
the loop starts, see plan_memory.py) with its current sizes in a small
int64 buffer: each trip reads a `memref.view` of the storage at those sizes,
and the finished trip writes what it yields back at its own sizes, after an
`onnxc.reserve` that stops the model with ONNXC_ERR_WORKSPACE (asking for
more) when the storage is too small. After the loop the value is copied out
into a buffer of its final sizes (`copied_out`). An If result is the same
with one write, by the branch taken; when every branch yields it at static
sizes, its storage is an ordinary buffer of the largest (`bounded`), planned
as any other, and the result is a view of it at the sizes the branch wrote:
no workspace to grow, no copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, TensorType, i8, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from onnxc import element_types
from onnxc.dialects.dims import dims_of
from onnxc.dialects.onnxc import LoopStorageOp, ReserveOp
from onnxc.lowering.convert_onnx_to_linalg.common import OnnxLowering
from onnxc.lowering.convert_onnx_to_linalg.control_flow.regions import (
    INDEX,
    copy_elements,
    memref_sizes,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

STORAGE = MemRefType(i8, [DYNAMIC_INDEX])


def fixed_sizes(shapes: Shapes, body_input: SSAValue) -> list[Size | None] | None:
    """The sizes of a loop body's carried input that stay the same on every
    trip (None for an axis whose size the importer left unknown: a symbol
    no outer value binds), or None when all do."""
    t = body_input.type
    assert isinstance(t, TensorType)
    found: list[Size | None] = []
    for dim in dims_of(t):
        if isinstance(dim, int):
            found.append(dim)
        else:
            found.append(shapes.symbols.get(dim))
    return None if all(s is not None for s in found) else found


@dataclass(eq=False)
class LoopStorage:
    """A carried value in loop storage: `storage` holds its elements,
    `cells` its sizes (int64, one per axis), `fixed` the sizes that stay the
    same (None where they change); `entry` is the view of it each trip
    reads (made by `view_at_entry`)."""

    storage: SSAValue
    cells: SSAValue
    element: Attribute
    fixed: list[Size | None]
    entry_view: SSAValue | None = field(default=None)
    bounded: bool = False
    """The storage is a buffer of the largest value's bytes (no reserve)."""

    @staticmethod
    def before(
        b: Builder, element: Attribute, fixed: list[Size | None], bound: int | None = None
    ) -> LoopStorage:
        """New storage and size cells, built at `b`: loop storage, or a
        buffer of `bound` bytes when the largest value is known."""
        if bound is None:
            storage = b.insert(LoopStorageOp(STORAGE)).result
        else:
            storage = b.insert(memref.AllocOp.get(i8, shape=[max(bound, 1)])).memref
        cells = b.insert(memref.AllocOp.get(i64, shape=[len(fixed)])).memref
        return LoopStorage(storage, cells, element, fixed, bounded=bound is not None)

    @property
    def entry(self) -> SSAValue:
        assert self.entry_view is not None, "the trip's view is made first"
        return self.entry_view

    def sizes(self, b: Builder) -> list[Size]:
        """The current sizes: the fixed ones, the others read from the cells."""
        found: list[Size] = []
        for axis, size in enumerate(self.fixed):
            if size is None:
                cell = b.insert(memref.LoadOp.get(self.cells, [index(b, axis)])).res
                size = b.insert(arith.IndexCastOp(cell, INDEX)).result
            found.append(size)
        return found

    def view(self, b: Builder, sizes: Sequence[Size]) -> SSAValue:
        """The storage seen as the value at `sizes`."""
        shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
        dynamic = [s for s in sizes if isinstance(s, SSAValue)]
        t = MemRefType(self.element, shape)
        return b.insert(memref.ViewOp(self.storage, index(b, 0), dynamic, t)).result

    def view_at_entry(self, b: Builder) -> SSAValue:
        """The view a trip reads: the storage at the current sizes."""
        self.entry_view = self.view(b, self.sizes(b))
        return self.entry_view

    def write(self, b: Builder, source: SSAValue) -> None:
        """Store buffer `source` (not in this storage) as the value."""
        self.store(b, source, memref_sizes(b, source))

    def store(self, b: Builder, source: SSAValue, sizes: Sequence[Size]) -> None:
        """Store buffer `source` of `sizes` as the value: reserve its
        bytes, record its sizes, copy its elements."""
        if not self.bounded:
            needed = index(b, element_types.row_of(self.element).size)
            for size in sizes:
                if size != 1:
                    needed = b.insert(arith.MuliOp(needed, index(b, size))).result
            b.insert(ReserveOp(self.storage, needed))
        for axis, size in enumerate(sizes):
            if self.fixed[axis] is not None:
                continue
            cell = b.insert(arith.IndexCastOp(index(b, size), i64)).result
            b.insert(memref.StoreOp.get(cell, self.cells, [index(b, axis)]))
        copy_elements(b, source, self.view(b, sizes), sizes)


def copied_out(
    pattern: OnnxLowering[Any],
    rewriter: PatternRewriter,
    op: Operation,
    result: SSAValue,
    stored: LoopStorage,
) -> SSAValue:
    """The final value of `stored` (after the loop or branch `op` lowers
    to), copied into a new buffer for `result` of its final sizes; a
    bounded storage is itself that buffer, seen at those sizes."""
    b = Builder(InsertPoint.before(op))
    sizes: list[Size] = list(stored.sizes(b))
    if stored.bounded:
        return stored.view(b, pattern.shapes.result_sizes(result, sizes))
    output = pattern.result_buffer(rewriter, result, sizes)
    copy_elements(b, stored.view(b, sizes), output, sizes)
    return output
