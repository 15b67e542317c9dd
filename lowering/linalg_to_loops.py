"""`convert-linalg-to-commented-loops`: xDSL's `convert-linalg-to-loops`, keeping
each structured operation's `onnxc.comment` on the loop nest it becomes.

Preconditions: linalg structured operations on statically shaped buffers.
Postconditions: no linalg operation is left; each loop nest (or the first
operation a structured op turned into) carries the op's comment, so the C printer
can name the ONNX node above its loops.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.convert_linalg_to_loops import LowerLinalgStructuredOpPattern

from onnxc.lowering.onnx_to_linalg.common import COMMENT


class CommentedStructuredOpLowering(RewritePattern):
    """A linalg structured op -> its loop nest, moving the op's comment onto the
    first operation of the nest."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LinalgStructuredOperation, rewriter: PatternRewriter) -> None:
        comment = op.attributes.get(COMMENT)
        before, after = op.prev_op, op.next_op
        block = op.parent_block()
        LowerLinalgStructuredOpPattern().match_and_rewrite(op, rewriter)
        if comment is None or block is None:
            return
        new_ops: list[Operation] = []
        current = before.next_op if before is not None else block.first_op
        while current is not None and current is not after:
            new_ops.append(current)
            current = current.next_op
        # The loop nest itself, not the index constants before it, gets the comment.
        target = next((o for o in new_ops if o.regions), new_ops[0] if new_ops else None)
        if target is not None and COMMENT not in target.attributes:
            target.attributes[COMMENT] = comment


@dataclass(frozen=True)
class ConvertLinalgToCommentedLoopsPass(ModulePass):
    """Lower linalg structured ops to scf loops, keeping their comments."""

    name = "convert-linalg-to-commented-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            CommentedStructuredOpLowering(), apply_recursively=False
        ).rewrite_module(op)
