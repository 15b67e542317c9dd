"""`insert-profile-marks`: a profiling build's marks between the steps of the
model's function (the code of one ONNX node each, `node_steps`).

Preconditions: loop-level IR whose top-level operations carry the comments of
their nodes (the `loops` stage). Postconditions: before the first operation
of step k of each function body, an `onnxc.profile_mark k, "comment"` with
the step's comment; before each top-level `func.return`, a mark of the step
count with an empty label, which ends the last step. Operations before the
first commented one (the interface's checks) are in no step. Only profiling
builds run this pass (compile option `profile`); the marks change no value.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects.onnxc import ProfileMarkOp
from onnxc.ir_names import COMMENT
from onnxc.lowering.node_steps import comment_of, node_steps


def _mark(function: func.FuncOp) -> None:
    ops = list(function.body.block.ops)
    step_of, names = node_steps(ops)
    count = 0
    for op, step in zip(ops, step_of, strict=True):
        if step == count and comment_of(op) and comment_of(op) == names[step]:
            mark = ProfileMarkOp.at(step, names[step])
            mark.attributes[COMMENT] = StringAttr(names[step])
            Rewriter.insert_op(mark, InsertPoint.before(op))
            count += 1
        if isinstance(op, func.ReturnOp):
            Rewriter.insert_op(ProfileMarkOp.at(count, ""), InsertPoint.before(op))


@dataclass(frozen=True)
class InsertProfileMarksPass(ModulePass):
    """Mark where each node's code starts, for a profiling build."""

    name = "insert-profile-marks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                _mark(function)
