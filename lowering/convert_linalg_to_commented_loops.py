"""`convert-linalg-to-commented-loops`: xDSL's `convert-linalg-to-loops`, keeping
each structured operation's `onnxc.comment` on the code it becomes.

Preconditions: linalg structured operations on buffers.
Postconditions: no linalg operation is left; every operation a structured op
turned into (the loops, and everything inside them) carries the op's comment.
Tagging the whole nest, not just its outermost loop, keeps the comment when a
later canonicalization folds a one-trip loop away; the C printer writes a
comment once above each run of code with the same comment.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
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

from onnxc.ir_names import COMMENT


def _tag(op: Operation, comment: StringAttr) -> None:
    """Put `comment` on `op` and every op nested in it that has none."""
    for inner in op.walk():
        if COMMENT not in inner.attributes:
            inner.attributes[COMMENT] = comment


class CommentedStructuredOpLowering(RewritePattern):
    """A linalg structured op -> its loop nest, every op of which carries the
    structured op's comment."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: LinalgStructuredOperation, rewriter: PatternRewriter) -> None:
        comment = op.attributes.get(COMMENT)
        before, after = op.prev_op, op.next_op
        block = op.parent_block()
        LowerLinalgStructuredOpPattern().match_and_rewrite(op, rewriter)
        if not isinstance(comment, StringAttr) or block is None:
            return
        current = before.next_op if before is not None else block.first_op
        while current is not None and current is not after:
            _tag(current, comment)
            current = current.next_op


@dataclass(frozen=True)
class ConvertLinalgToCommentedLoopsPass(ModulePass):
    """Lower linalg structured ops to scf loops, keeping their comments."""

    name = "convert-linalg-to-commented-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            CommentedStructuredOpLowering(), apply_recursively=False
        ).rewrite_module(op)
