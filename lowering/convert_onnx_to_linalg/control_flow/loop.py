"""`onnx.Loop` -> `scf.for` when its condition cannot change inside the body,
else `scf.while`; the scheme (buffers, block arguments, finishing the
`onnx.Yield`) is the one `regions.py` describes. Scan outputs of a
`scf.while` fill M rows and keep the rows that ran. A carried value whose
sizes change from trip to trip lives in loop storage (`loop_storage.py`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import TensorType, i1, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc import element_types
from onnxc.dialects import onnx
from onnxc.ir_names import COMMENT
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    alloc,
    buffer_behind,
    buffer_of,
    comment_for,
    constant_value,
    is_none,
    load_scalar,
    shape_of,
    tensor_type,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.control_flow.loop_storage import (
    LoopStorage,
    copied_out,
    fixed_sizes,
)
from onnxc.lowering.convert_onnx_to_linalg.control_flow.regions import (
    INDEX,
    Binding,
    Resized,
    copy_elements,
    initialised,
    memref_sizes,
    same_sizes,
    sizes_known,
    subgraph_block,
    trip_block,
    with_index,
    write_carried,
    yield_of,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index
from onnxc.lowering.index_arith import Size


def _passes_condition_through(block: Block) -> bool:
    """Whether the body's condition output is its condition input (through
    Identity ops) or a constant true: the loop's condition never changes."""
    value = yield_of(block).values[0]
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
        block = subgraph_block(op, op.body, 2 + carried, 1 + carried + scans, "body")
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
        scan_buffers: list[SSAValue] = []
        slices: list[list[Size]] = []
        for k in range(scans):
            result = op.results[carried + k]
            value = yield_of(block).values[1 + carried + k]
            slice_sizes = sizes_known(self.shapes, value)
            whole = sizes_known(self.shapes, result)
            if slice_sizes is None and whole is not None:
                slice_sizes = whole[1:]
            if slice_sizes is None or not isinstance(result.type, TensorType):
                raise unsupported(op, f"scan output {k} has a size only the body knows")
            assert trips is not None
            slices.append(slice_sizes)
            if fixed:
                scan_buffers.append(self.result_buffer(rewriter, result, [trips, *slice_sizes]))
            else:  # rows for every trip M allows; the rows run are copied out after
                scan_buffers.append(alloc(rewriter, result.type, [trips, *slice_sizes]))
        # After the scan outputs: buffers sized from data come before loop storage.
        buffers: list[SSAValue | LoopStorage] = []
        for initial, arg in zip(op.v_initial, block.args[2:], strict=True):
            steady = fixed_sizes(shapes, arg)
            if steady is None:
                buffers.append(initialised(shapes, rewriter, op, initial))
            else:
                buffers.append(self._storage(op, rewriter, initial, steady))
        number = alloc(rewriter, TensorType(i64, []))
        condition = alloc(rewriter, TensorType(i1, []))
        b = Builder(InsertPoint.before(op))
        true = b.insert(arith.ConstantOp.from_int_and_width(1, i1)).result
        b.insert(memref.StoreOp.get(start if start is not None else true, condition, []))
        bindings: list[Binding] = [
            v if isinstance(v, SSAValue) else v.view_at_entry for v in buffers
        ]
        taken, iv = trip_block(self.shapes, op.body, [number, condition, *bindings])
        head = Builder(InsertPoint.at_start(taken))
        as_integer = head.insert(arith.IndexCastOp(iv, i64)).result
        head.insert(memref.StoreOp.get(as_integer, number, []))
        if fixed:
            assert trips is not None
            zero, one = index(b, 0), index(b, 1)
            loop: Operation = scf.ForOp(zero, index(b, trips), one, [], taken)
        else:
            loop = _while(b, taken, condition, trips)
        loop.attributes[COMMENT] = comment_for(op)
        rewriter.insert(loop)
        scanned = scan_buffers
        if not fixed and scans:
            assert trips is not None
            ran = shapes.min(loop.results[0], trips)  # the trips run: at most M (a bound)
            scanned = [
                self._rows_run(op, rewriter, result, capacity, ran, sizes)
                for result, capacity, sizes in zip(
                    op.results[carried:], scan_buffers, slices, strict=True
                )
            ]
        finals = [
            v if isinstance(v, SSAValue) else copied_out(self, rewriter, op, result, v)
            for v, result in zip(buffers, op.results, strict=False)
        ]
        self.replace(rewriter, op, [*finals, *scanned])
        self.context.finishers.append(
            lambda: _finish_loop(loop, taken, iv, condition, buffers, scan_buffers, fixed)
        )

    def _storage(
        self,
        op: onnx.LoopOp,
        rewriter: PatternRewriter,
        initial: SSAValue,
        fixed: list[Size | None],
    ) -> LoopStorage:
        """Loop storage for a carried value whose sizes change from trip to
        trip (those not `fixed`), holding `initial`."""
        element = tensor_type(initial).element_type
        if element_types.row_of(element).packing != 1:
            raise unsupported(op, f"a carried {element} tensor whose size changes")
        b = Builder(InsertPoint.before(op))
        stored = LoopStorage.before(b, element, fixed)
        stored.store(b, buffer_of(rewriter, initial), self.shapes.sizes(initial))
        return stored

    def _rows_run(
        self,
        op: onnx.LoopOp,
        rewriter: PatternRewriter,
        result: SSAValue,
        capacity: SSAValue,
        ran: Size,
        sizes: Sequence[Size],
    ) -> SSAValue:
        """The scan output `result` of a loop its condition may end early:
        the first `ran` rows of `capacity` (one row per trip M allows), in a
        buffer of the size the run gave."""
        output = self.result_buffer(rewriter, result, [ran, *sizes])
        b = Builder(InsertPoint.before(op))
        copy_elements(b, capacity, output, [ran, *sizes])
        return output


def _while(b: Builder, body: Block, condition: SSAValue, trips: Size | None) -> scf.WhileOp:
    """`scf.while` running `body` (whose first argument is the iteration
    number) while the condition buffer holds and, with a trip count, the
    number is below it."""
    before = Block(arg_types=[INDEX])
    test = Builder(InsertPoint.at_end(before))
    going = test.insert(memref.LoadOp.get(condition, [])).res
    if trips is not None:
        below = test.insert(arith.CmpiOp(before.args[0], index(b, trips), "slt")).result
        going = test.insert(arith.AndIOp(going, below)).result
    test.insert(scf.ConditionOp(going, before.args[0]))
    zero = index(b, 0)
    return scf.WhileOp([zero], [INDEX], Region(before), Region(body))


def _finish_loop(
    loop: Operation,
    body: Block,
    iv: SSAValue,
    condition: SSAValue,
    buffers: Sequence[SSAValue | Resized],
    scan_buffers: Sequence[SSAValue],
    fixed: bool,
) -> None:
    """Write a trip's outputs: scan outputs into row `iv`, the condition
    (read before any carried value is overwritten), then the carried values."""
    end = yield_of(body)
    values = [buffer_behind(v) for v in end.values]
    b = Builder(InsertPoint.before(end))
    for source, target in zip(values[1 + len(buffers) :], scan_buffers, strict=True):
        sizes = memref_sizes(b, source)
        same_sizes(b, loop, sizes, memref_sizes(b, target)[1:], "a scan output")
        copy_elements(b, source, target, sizes, write=with_index(0, iv))
    if not fixed:
        zeros = [index(b, 0)] * len(shape_of(values[0]))
        flag = b.insert(memref.LoadOp.get(values[0], zeros)).res
        b.insert(memref.StoreOp.get(flag, condition, []))
    write_carried(b, loop, values[1 : 1 + len(buffers)], buffers)
    if fixed:
        Rewriter.replace_op(end, scf.YieldOp())
    else:
        one = b.insert(arith.ConstantOp.from_int_and_width(1, INDEX)).result
        following = b.insert(arith.AddiOp(iv, one)).result
        Rewriter.replace_op(end, scf.YieldOp(following))
