"""The steps of a function body: the code of one ONNX node each.

The top-level operations of a lowered function carry the `onnxc.comment` of
the node they come from ("Conv conv1"); consecutive operations with one
comment form one step, numbered in function order, and an operation without
a comment belongs to the step before it (or the first). The report's arena
map and the profiling marks both count steps this way.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation

from onnxc.ir_names import COMMENT


def comment_of(op: Operation) -> str:
    """The op's `onnxc.comment`, or "" when it has none."""
    comment = op.attributes.get(COMMENT)
    return comment.data if isinstance(comment, StringAttr) else ""


def node_steps(ops: Sequence[Operation]) -> tuple[list[int], list[str]]:
    """The step of each of `ops` (a function body's top-level operations, in
    order), and each step's comment ([""] when none has one)."""
    of_op: list[int] = []
    names: list[str] = []
    for op in ops:
        label = comment_of(op)
        if label and (not names or names[-1] != label):
            names.append(label)
        of_op.append(max(len(names) - 1, 0))
    return of_op, names or [""]
