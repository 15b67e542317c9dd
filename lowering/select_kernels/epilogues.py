"""Epilogue fusion and layout propagation for `select-kernels`: the only user
of a kernel's result (Relu, HardSwish, Tanh, Sigmoid, SiLU, Clip with
constant bounds, a residual Add) fused into the kernel, the result written over a residual that
dies there, and `kernel.block(kernel.unblock(y))` folded to `y`."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    FloatAttr,
    IntegerAttr,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import kernel, onnx
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.select_kernels.building_blocks import Made, blocked_type, constant_of, reshaped
from onnxc.targets import Kernels


def only_user(value: SSAValue) -> Operation | None:
    uses = list(value.uses)
    return uses[0].operation if len(uses) == 1 else None


def fuse_activation(op: kernel.ConvOp | kernel.MatmulOp, user: Operation) -> bool:
    """Make `user` `op`'s activation if it is a Relu, a HardSwish, a Clip with
    constant bounds or, for a convolution, a Tanh, a Sigmoid or a Swish with
    alpha 1 (SiLU) (the caller then absorbs `user`)."""
    stored = isinstance(user, onnx.ReluOp | onnx.HardSwishOp)
    row = isinstance(user, onnx.TanhOp | onnx.SigmoidOp) or (
        isinstance(user, onnx.SwishOp) and user.attr("alpha") == 1.0
    )
    if isinstance(user, onnx.OnnxOp) and (stored or (row and isinstance(op, kernel.ConvOp))):
        op.properties["activation"] = StringAttr(user.SCHEMA.name)
    elif isinstance(user, onnx.ClipOp) and (bounds := _clip_bounds(user)) is not None:
        op.properties["activation"] = StringAttr("Clip")
        op.properties["clip_min"] = FloatAttr(bounds[0], f32)
        op.properties["clip_max"] = FloatAttr(bounds[1], f32)
    else:
        return False
    return True


def absorb(op: kernel.ConvOp | kernel.MatmulOp, user: Operation, result: SSAValue) -> str:
    """Replace `user`'s result by `result` (what `op` now computes), erase
    `user` and label `op` after both; returns the label."""
    user_name = onnx.node_name(user) if isinstance(user, onnx.OnnxOp) else ""
    label = f"{onnx.node_name(op)}+{user_name or user.name}"
    op.attributes[ONNX_NODE_NAME] = StringAttr(label)
    user.results[0].replace_all_uses_with(result)
    Rewriter.erase_op(user)
    return label


def addend(user: Operation, result: SSAValue) -> SSAValue | None:
    """What an Add `user` adds to `result`, when it adds something else."""
    if not isinstance(user, onnx.AddOp) or user.operands[0] is user.operands[1]:
        return None
    a, b = user.operands
    return b if a is result else a


def bring_down(ops: list[Operation], other: SSAValue, user: Operation) -> None:
    """Move `ops` (a kernel and the views of its result) down to `user` when
    `other`, which the kernel is to read, is computed after them (e.g. a
    shortcut computed after the convolution it is added to)."""
    if not defined_before(other, ops[0]):
        for moved in ops:
            moved.detach()
            Rewriter.insert_op(moved, InsertPoint.before(user))


def _clip_bounds(clip: onnx.ClipOp) -> tuple[float, float] | None:
    bounds = [float("-inf"), float("inf")]
    for index, operand in enumerate(clip.operands[1:3]):
        if isinstance(operand.owner, onnx.NoValueOp):
            continue
        value = constant_of(operand)
        if value is None or value.size != 1:
            return None
        bounds[index] = float(value.reshape(()))
    return bounds[0], bounds[1]


def _conv_behind(value: SSAValue) -> kernel.ConvOp | None:
    """The kernel whose result `value` is, seen through unblocks and reshapes
    that are each the only use of what they read."""
    owner = value.owner
    while isinstance(owner, kernel.UnblockOp | onnx.ReshapeOp):
        source = owner.operands[0]
        if only_user(source) is not owner:
            return None
        owner = source.owner
    return owner if isinstance(owner, kernel.ConvOp) else None


def fuse_user(view: Operation, kernels: Kernels, made: Made) -> bool:
    """Fuse the only user of the result of `view` (an unblock or reshape of
    a kernel's result) into the kernel, if it can."""
    result = view.results[0]
    conv = _conv_behind(result)
    user = only_user(result)
    if conv is None or user is None or conv.attr("activation"):
        return False
    if not fuse_activation(conv, user):
        other = addend(user, result)
        if other is None or other.type != result.type or view.operands[0].owner is not conv:
            return False
        if not isinstance(conv.R.owner, onnx.NoValueOp):
            return False
        bring_down([conv, view], other, user)
        conv.operands[3] = _residual(other, view, conv, kernels, made)
    label = absorb(conv, user, result)
    if isinstance(view, kernel.UnblockOp):
        view.attributes[ONNX_NODE_NAME] = StringAttr(f"{label} output")
    return True


def _residual(
    other: SSAValue,
    view: Operation,
    conv: kernel.ConvOp,
    kernels: Kernels,
    made: Made,
) -> SSAValue:
    """`other` in `conv`'s blocked layout: blocked like an input, or, when
    `view` is a reshape of the result (a Gemm's), reshaped back."""
    point = InsertPoint.before(conv)
    if isinstance(view, onnx.ReshapeOp):
        result_type = conv.Y.type
        assert isinstance(result_type, TensorType)
        return reshaped(other, list(result_type.get_shape()), point)
    blocked = made.get(("x", other))
    if blocked is None or not defined_before(blocked, conv):
        nchw = other.type
        assert isinstance(nchw, TensorType)
        block = kernel.BlockOp.create(operands=[other], result_types=[blocked_type(nchw, kernels)])
        Rewriter.insert_op(block, point)
        made.setdefault(("x", other), block.Y)
        blocked = block.Y
    return blocked


def residual_in_place(conv: kernel.ConvOp) -> None:
    """Write `conv`'s result over its residual's buffer when that is the
    residual's last use and the buffer is a kernel's own result."""
    residual = conv.R
    if not isinstance(residual.owner, kernel.ConvOp | kernel.PoolOp) or residual is conv.X:
        return  # (the input is read at other pixels than the one written)
    for use in residual.uses:
        user = use.operation
        if user is not conv and not (
            user.parent_block() is conv.parent_block() and user.is_before_in_block(conv)
        ):
            return
    conv.properties["in_place"] = IntegerAttr(1, i64)


def defined_before(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is available at `op` (same block, defined earlier)."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return True
    block = op.parent_block()
    return owner.parent_block() is block and block is not None and owner.is_before_in_block(op)


def pass_layout_on(reblock: kernel.BlockOp) -> None:
    """`kernel.block(kernel.unblock(y))` -> `y`."""
    unblock = reblock.X.owner
    if isinstance(unblock, kernel.UnblockOp) and unblock.X.type == reblock.Y.type:
        reblock.Y.replace_all_uses_with(unblock.X)
        Rewriter.erase_op(reblock)
