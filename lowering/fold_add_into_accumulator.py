"""fold-add-into-accumulator: a residual Add starts its operand's accumulation.

Pattern (linalg on buffers, one op per step at the top of a function): a buffer
P is initialised by an all-parallel op I (a bias broadcast or a fill), then only
accumulated into (used as an `outs` operand, e.g. a convolution), and finally
read once by an elementwise `Q = P + S` (same identity map on P, S and Q). When S
is already complete at I and nothing writes it afterwards, and every
accumulation into P adds to it (a sum, not a max, a product or a scaling),
the Add is folded into the initialisation: I computes `init + S`, the
accumulation runs on top of it, and P is Q.

Why: S no longer lives across the accumulation (plan-memory can then reuse its
bytes for P in place), and one pass over the output disappears. In a ResNet
block this removes one whole activation from the peak. The sum is computed in a
different order, `(init + S) + sum` instead of `(init + sum) + S`: for floats the
result can differ in the last bits, as with any fused bias.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp, StringAttr
from xdsl.dialects.linalg.ops import FillOp, GenericOp, YieldOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from onnxc.ir_names import COMMENT
from onnxc.lowering.buffer_uses import all_parallel, top_level_index, touches


def _identity(op: GenericOp, operand: int) -> bool:
    amap = op.indexing_maps.data[operand].data
    return amap == AffineMap.identity(amap.num_dims)


def _as_add(op: Operation) -> tuple[SSAValue, SSAValue] | None:
    """The two inputs of an elementwise `out = a + b` generic (identity maps)."""
    if not (isinstance(op, GenericOp) and len(op.inputs) == 2 and len(op.outputs) == 1):
        return None
    if not (all_parallel(op) and all(_identity(op, k) for k in range(3))):
        return None
    block = op.body.block
    ops = list(block.ops)
    if len(ops) != 2 or not isinstance(ops[0], arith.AddfOp | arith.AddiOp):
        return None
    if not (isinstance(ops[1], YieldOp) and list(ops[1].operands) == [ops[0].results[0]]):
        return None
    if {ops[0].lhs, ops[0].rhs} != {block.args[0], block.args[1]} or ops[0].lhs == ops[0].rhs:
        return None
    return op.inputs[0], op.inputs[1]


def _is_init(op: Operation, buffer: SSAValue) -> bool:
    """`op` writes every element of `buffer` without reading it."""
    if isinstance(op, FillOp):
        return list(op.outputs) == [buffer]
    if not (isinstance(op, GenericOp) and list(op.outputs) == [buffer] and all_parallel(op)):
        return False
    out_arg = op.body.block.args[len(op.inputs)]
    return _identity(op, len(op.inputs)) and not out_arg.uses


def _adds_into(op: Operation, operand: int) -> bool:
    """`op` only adds into its output `operand`: what it yields there is the
    output's old value plus terms that do not depend on it, through additions
    and the iteration arguments and results of `scf.for` and `scf.if` (the
    windowed convolution's loops) and nothing else. Only then does a sum
    started at `init + S` end at `(init + sum) + S`; a max, a product or a
    scaling of the accumulator (MaxPool, ReduceProd, a mean's division) does
    not commute with the Add."""
    if not (isinstance(op, GenericOp) and operand >= len(op.inputs)):
        return False
    derived: set[SSAValue] = {op.body.block.args[operand]}
    pending: list[SSAValue] = [op.body.block.args[operand]]
    while pending:
        value = pending.pop()
        for use in list(value.uses):
            user, index = use.operation, use.index
            if isinstance(user, arith.AddfOp | arith.AddiOp):
                other = user.operands[1 - index]
                if other in derived or other is value:
                    return False  # out + out: twice the accumulator
                reached = [user.result]
            elif isinstance(user, scf.ForOp) and user.iter_args and index >= 3:
                k = index - 3
                reached = [user.body.block.args[1 + k], user.results[k]]
            elif isinstance(user, scf.YieldOp) and isinstance(user.parent_op(), scf.IfOp):
                branch = user.parent_op()
                assert isinstance(branch, scf.IfOp)
                reached = [branch.results[index]]
            elif isinstance(user, scf.YieldOp | YieldOp):
                continue  # a loop's next iteration (its argument is derived) or the result
            else:
                return False
            for result in reached:
                if result not in derived:
                    derived.add(result)
                    pending.append(result)
    return _yields_derived(op.body.block, operand - len(op.inputs), derived)


def _yields_derived(block: Block, position: int, derived: set[SSAValue]) -> bool:
    """Every yield that makes the accumulator's value (the body's, each loop's
    and each branch's) yields a derived value, so no path resets it."""
    yielded = block.last_op
    assert yielded is not None
    if yielded.operands[position] not in derived:
        return False
    for value in derived:
        owner = value.owner
        if isinstance(owner, scf.ForOp | scf.IfOp) and value in owner.results:
            k = owner.results.index(value)
            regions = [owner.body] if isinstance(owner, scf.ForOp) else list(owner.regions)
            for region in regions:
                last = region.block.last_op
                if last is None or last.operands[k] not in derived:
                    return False
    return True


def _only_reads(op: Operation, operand: int) -> bool:
    if isinstance(op, GenericOp):
        return operand < len(op.inputs)
    return isinstance(op, memref.LoadOp)


def _steps(value: SSAValue, body: dict[Operation, int]) -> list[tuple[int, Operation, int]]:
    """(step, user, operand index) of every touch of `value`, in step order."""
    found: list[tuple[int, Operation, int]] = []
    for user, operand in touches(value):
        step = top_level_index(user, body)
        assert step is not None, "a use outside the function body"
        found.append((step, user, operand))
    return sorted(found, key=lambda t: t[0])


def _in_control_flow(op: Operation) -> bool:
    """Whether `op` is inside an `scf.if`, `scf.for` or `scf.while`."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp):
        if isinstance(parent, scf.IfOp | scf.ForOp | scf.WhileOp):
            return True
        parent = parent.parent_op()
    return False


def _fold(add: GenericOp, body: dict[Operation, int]) -> bool:
    inputs = _as_add(add)
    if inputs is None:
        return False
    out = add.outputs[0]
    if not isinstance(out.owner, memref.AllocOp) and not isinstance(out, BlockArgument):
        return False
    if any(step < body[add] for step, _, _ in _steps(out, body)):
        return False
    for k, partial in enumerate(inputs):
        other = inputs[1 - k]
        if not isinstance(partial.owner, memref.AllocOp) or partial.type != out.type:
            continue
        steps = _steps(partial, body)
        if any(_in_control_flow(user) for _, user, _ in steps):
            continue  # written in a branch or a loop: not one init, then accumulation
        init_at, init, _ = steps[0]
        if steps[-1][1] is not add or any(user is add for _, user, _ in steps[:-1]):
            continue  # not read last by the Add, or P + P
        if not _is_init(init, partial):
            continue
        if not all(_adds_into(user, i) for _, user, i in steps[1:-1]):
            continue
        other_steps = _steps(other, body)
        born_before = isinstance(other, BlockArgument) or other_steps[0][0] < init_at
        later = [(user, i) for step, user, i in other_steps if step >= init_at]
        if not born_before or not all(_only_reads(user, i) for user, i in later):
            continue
        _rewrite(add, init, partial, other, partial_first=k == 0)
        return True
    return False


def _rewrite(
    add: GenericOp, init: Operation, partial: SSAValue, other: SSAValue, partial_first: bool
) -> None:
    """init(P) ; acc(P) ; Q = P + S   ->   init'(P) = init + S ; acc(P) ; Q is P."""
    rank = len(add.indexing_maps.data[0].data.results)
    identity = AffineMapAttr(AffineMap.identity(rank))
    element = add.body.block.args[0].type
    if isinstance(init, FillOp):
        old_inputs: list[SSAValue] = []
        old_maps: list[AffineMapAttr] = []
        old_block = None
    else:
        assert isinstance(init, GenericOp)
        old_inputs = list(init.inputs)
        old_maps = list(init.indexing_maps.data[: len(old_inputs)])
        old_block = init.body.block
    old_args = old_block.args[:-1] if old_block is not None else ()
    block = Block(arg_types=[*(a.type for a in old_args), element, element])
    mapping: dict[SSAValue, SSAValue] = {}
    if old_block is not None:
        for old_arg, new_arg in zip(old_args, block.args[:-2], strict=True):
            mapping[old_arg] = new_arg
        yielded: SSAValue | None = None
        for op in old_block.ops:
            if isinstance(op, YieldOp):
                yielded = mapping.get(op.operands[0], op.operands[0])
                continue
            clone = op.clone(value_mapper=mapping)
            block.add_op(clone)
        assert yielded is not None
    else:
        assert isinstance(init, FillOp)
        yielded = init.inputs[0]
    s = block.args[-2]
    pair = (yielded, s) if partial_first else (s, yielded)
    is_float = isinstance(add.body.block.first_op, arith.AddfOp)
    total = arith.AddfOp(*pair) if is_float else arith.AddiOp(*pair)
    block.add_ops([total, YieldOp(total.result)])
    fused = GenericOp(
        [*old_inputs, other],
        [partial],
        Region(block),
        [*old_maps, identity, identity],
        list(add.iterator_types.data),
    )
    notes = (init.attributes.get(COMMENT), add.attributes.get(COMMENT))
    comments = [c.data for c in notes if isinstance(c, StringAttr)]
    if comments:
        fused.attributes[COMMENT] = StringAttr(" + ".join(comments))
    Rewriter.replace_op(init, fused)
    out = add.outputs[0]
    Rewriter.erase_op(add)
    if isinstance(out.owner, memref.AllocOp):
        alloc = out.owner
        out.replace_all_uses_with(partial)
        Rewriter.erase_op(alloc)
    else:
        alloc = partial.owner
        assert isinstance(alloc, memref.AllocOp)
        partial.replace_all_uses_with(out)
        Rewriter.erase_op(alloc)


def fold_function(fn: func.FuncOp) -> int:
    """Fold every eligible Add of `fn`; returns how many were folded."""
    folded = 0
    changed = True
    while changed:
        changed = False
        body = {op: i for i, op in enumerate(fn.body.block.ops)}
        for op in list(fn.body.block.ops):
            if isinstance(op, GenericOp) and _fold(op, body):
                folded += 1
                changed = True
                break
    return folded


class FoldAddIntoAccumulatorPass(ModulePass):
    """Fold `Q = P + S` into the initialisation of an accumulated P; see the
    module docstring for the exact conditions."""

    name = "fold-add-into-accumulator"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.ops:
            if isinstance(fn, func.FuncOp) and fn.body.blocks:
                fold_function(fn)
