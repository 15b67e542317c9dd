"""Explicit loops, for the lowerings whose work is sequential (a running
count, an insertion into a sorted list) and so is no `linalg.generic`:
`scf.for` over `index` bounds, carrying values from one trip to the next.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, UnitAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint

from onnxc.ir_names import COMMENT, PARALLEL
from onnxc.lowering.convert_onnx_to_linalg.common import comment_for

Body = Callable[[Builder, SSAValue, list[SSAValue]], Sequence[SSAValue]]
"""Builds one trip: gets the induction variable and the carried values,
returns the carried values of the next trip."""

NestBody = Callable[[Builder, list[SSAValue], list[SSAValue]], Sequence[SSAValue]]
"""Builds the innermost trip of a nest: gets every induction variable."""


def builder_before(op: Operation) -> Builder:
    """A builder inserting before `op`, tagging the ops it inserts next to it
    with the ONNX node `op` comes from (nested ones print under that)."""
    builder = Builder(InsertPoint.before(op))
    comment = comment_for(op)

    def tag(new: Operation) -> None:
        if new.parent_block() is op.parent_block():
            new.attributes[COMMENT] = comment

    builder.operation_insertion_handler.append(tag)
    return builder


def when(b: Builder, condition: SSAValue, then: Callable[[Builder], None]) -> None:
    """`scf.if condition { then }`."""
    block = Block()
    inner = Builder(InsertPoint.at_end(block))
    then(inner)
    inner.insert(scf.YieldOp())
    b.insert(scf.IfOp(condition, [], [block]))


def choose(
    b: Builder,
    condition: SSAValue,
    then: Callable[[Builder], SSAValue],
    otherwise: Callable[[Builder], SSAValue],
) -> SSAValue:
    """`scf.if condition { then } else { otherwise }`, yielding the value the
    branch taken builds (the other is not computed: a load there may be out
    of bounds)."""
    blocks: list[Block] = []
    values: list[SSAValue] = []
    for branch in (then, otherwise):
        block = Block()
        inner = Builder(InsertPoint.at_end(block))
        values.append(branch(inner))
        inner.insert(scf.YieldOp(values[-1]))
        blocks.append(block)
    return b.insert(scf.IfOp(condition, [values[0].type], blocks[:1], blocks[1:])).results[0]


def index(b: Builder, value: int | SSAValue) -> SSAValue:
    """`value` as an `index` value built at `b` (a constant for an int)."""
    if isinstance(value, SSAValue):
        return value
    return b.insert(arith.ConstantOp.from_int_and_width(value, IndexType())).result


def for_range(
    b: Builder,
    lo: int | SSAValue,
    hi: int | SSAValue,
    carried: Sequence[SSAValue],
    body: Body,
    step: int = 1,
    parallel: bool = False,
) -> list[SSAValue]:
    """`scf.for i = lo to hi step step` carrying `carried`; returns their
    final values. `parallel` marks a loop whose trips are independent
    (`onnxc.ir_names.PARALLEL`; none may be carried)."""
    assert not (parallel and carried), "a parallel loop carries nothing"
    block = Block(arg_types=[IndexType(), *(v.type for v in carried)])
    inner = Builder(InsertPoint.at_end(block))
    inner.insert(scf.YieldOp(*body(inner, block.args[0], list(block.args[1:]))))
    loop = b.insert(scf.ForOp(index(b, lo), index(b, hi), index(b, step), list(carried), block))
    if parallel:
        loop.attributes[PARALLEL] = UnitAttr()
    return list(loop.results)


def nest(
    b: Builder,
    sizes: Sequence[int | SSAValue],
    carried: Sequence[SSAValue],
    body: NestBody,
    parallel: bool = False,
) -> list[SSAValue]:
    """Loops over every position of `sizes` (row-major), carrying `carried`;
    `parallel` marks the outermost loop (see `for_range`)."""

    def level(builder: Builder, depth: int, outer: list[SSAValue], values: list[SSAValue]):
        if depth == len(sizes):
            return list(body(builder, outer, values))

        def trip(inner: Builder, i: SSAValue, inside: list[SSAValue]) -> list[SSAValue]:
            return level(inner, depth + 1, [*outer, i], inside)

        return for_range(builder, 0, sizes[depth], values, trip, parallel=parallel and not depth)

    return level(b, 0, [], list(carried))
