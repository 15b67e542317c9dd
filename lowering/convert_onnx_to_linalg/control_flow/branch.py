"""`onnx.If` -> `scf.if` on the condition's element (the scheme is the one
`regions.py` describes).

Each branch writes its outputs into the buffers of the If's results,
allocated before it. A result whose size only the branch taken knows (a
sequence known at run time that the branches build differently, a tensor of
a data-dependent size, branches that yield different shapes) lives in loop
storage instead (`loop_storage.py`): each branch writes its value there at
its own sizes, and after the `scf.if` it is copied out into a buffer of the
sizes the branch recorded. When every branch yields it at static sizes, the
storage is a buffer of the largest, and the result a view of it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import memref, scf
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc import element_types
from onnxc.dialects import onnx
from onnxc.ir_names import COMMENT
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_behind,
    comment_for,
    load_scalar,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.control_flow.loop_storage import (
    LoopStorage,
    copied_out,
    fixed_sizes,
)
from onnxc.lowering.convert_onnx_to_linalg.control_flow.regions import (
    copy_elements,
    memref_sizes,
    same_sizes,
    sizes_known,
    subgraph_block,
    take_block,
    yield_of,
)


class IfOpLowering(OnnxLowering[onnx.IfOp]):
    """`onnx.If` -> `scf.if` on the condition's element, each branch writing
    its outputs into the buffers of the If's results (or, for a result whose
    size only the branch taken knows, into loop storage); see the module
    docstring."""

    def rewrite(self, op: onnx.IfOp, rewriter: PatternRewriter) -> None:
        count = len(op.results)
        then_block = subgraph_block(op, op.then_branch, 0, count, "then_branch")
        else_block = subgraph_block(op, op.else_branch, 0, count, "else_branch")
        condition = load_scalar(rewriter, op, op.cond)
        targets: list[SSAValue | LoopStorage] = []
        for result in op.results:
            if not isinstance(result.type, TensorType):
                raise unsupported(op, f"an output of type {result.type} (sequences, optionals)")
            sizes = sizes_known(self.shapes, result)
            if sizes is not None:
                targets.append(self.result_buffer(rewriter, result, sizes))
                continue
            element = result.type.element_type
            if element_types.row_of(element).packing != 1:
                raise unsupported(op, f"a {element} output whose size the branch taken decides")
            fixed = fixed_sizes(self.shapes, result)
            assert fixed is not None
            bound = _largest_bytes(result, [then_block, else_block])
            targets.append(
                LoopStorage.before(Builder(InsertPoint.before(op)), element, fixed, bound)
            )
        blocks = [take_block(op.then_branch), take_block(op.else_branch)]
        if_op = scf.IfOp(condition, [], Region(blocks[0]), Region(blocks[1]))
        if_op.attributes[COMMENT] = comment_for(op)
        rewriter.insert(if_op)
        buffers = [
            target
            if isinstance(target, SSAValue)
            else copied_out(self, rewriter, op, result, target)
            for target, result in zip(targets, op.results, strict=True)
        ]
        self.replace(rewriter, op, buffers)
        for block in (then_block, else_block):
            self.context.finishers.append(functools.partial(_finish_branch, if_op, block, targets))


def _largest_bytes(result: OpResult, blocks: Sequence[Block]) -> int | None:
    """The bytes of the largest value the branches yield for `result`, when
    each yields it at static sizes; else None."""
    largest = 0
    for block in blocks:
        t = yield_of(block).values[result.index].type
        if not isinstance(t, TensorType) or not t.has_static_shape():
            return None
        row = element_types.row_of(t.element_type)
        largest = max(largest, row.storage_bytes(math.prod(t.get_shape())))
    return largest


def _finish_branch(
    if_op: scf.IfOp, block: Block, targets: Sequence[SSAValue | LoopStorage]
) -> None:
    """Write a branch's outputs into the If's result buffers: into the
    buffer itself when the branch computed the value into a static buffer of
    its own, else by a copy (into loop storage, at the value's sizes)."""
    end = yield_of(block)
    b = Builder(InsertPoint.before(end))
    claimed: set[Operation] = set()
    for value, target in zip(end.values, targets, strict=True):
        source = buffer_behind(value)
        if not isinstance(target, SSAValue):
            target.write(b, source)
            continue
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
        sizes = memref_sizes(b, target)
        same_sizes(b, if_op, memref_sizes(b, source), sizes, "a branch output")
        copy_elements(b, source, target, sizes)
    Rewriter.replace_op(end, scf.YieldOp())
