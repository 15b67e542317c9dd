"""Epilogue fusion and layout propagation for `select-kernels`: the only user
of a kernel's result (Relu, Tanh, Clip with constant bounds, a residual Add) fused
into the kernel, the result written over a residual that dies there, and
`kernel.block(kernel.unblock(y))` folded to `y`."""

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
from onnxc.lowering.kernel_ir import Made, blocked_type, constant_of, reshaped
from onnxc.targets import Kernels


def _only_user(value: SSAValue) -> Operation | None:
    uses = list(value.uses)
    return uses[0].operation if len(uses) == 1 else None


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
        if _only_user(source) is not owner:
            return None
        owner = source.owner
    return owner if isinstance(owner, kernel.ConvOp) else None


def fuse_user(view: Operation, kernels: Kernels, made: Made) -> bool:
    """Fuse the only user of the result of `view` (an unblock or reshape of
    a kernel's result) into the kernel, if it can."""
    result = view.results[0]
    conv = _conv_behind(result)
    user = _only_user(result)
    if conv is None or user is None or conv.attr("activation"):
        return False
    if isinstance(user, onnx.ReluOp | onnx.TanhOp):
        conv.properties["activation"] = StringAttr(user.SCHEMA.name)
    elif isinstance(user, onnx.ClipOp) and (bounds := _clip_bounds(user)) is not None:
        conv.properties["activation"] = StringAttr("Clip")
        conv.properties["clip_min"] = FloatAttr(bounds[0], f32)
        conv.properties["clip_max"] = FloatAttr(bounds[1], f32)
    elif (
        isinstance(user, onnx.AddOp)
        and isinstance(conv.R.owner, onnx.NoValueOp)
        and view.operands[0].owner is conv
    ):
        a, b = user.operands
        other = b if a is result else a
        if other.type != result.type or a is b:
            return False
        if not defined_before(other, conv):  # e.g. a shortcut computed after it
            for moved in (conv, view):
                moved.detach()
                Rewriter.insert_op(moved, InsertPoint.before(user))
        conv.operands[3] = _residual(other, view, conv, kernels, made)
    else:
        return False
    label = f"{onnx.node_name(conv)}+{onnx.node_name(user) or user.name}"
    conv.attributes[ONNX_NODE_NAME] = StringAttr(label)
    if isinstance(view, kernel.UnblockOp):
        view.attributes[ONNX_NODE_NAME] = StringAttr(f"{label} output")
    user.results[0].replace_all_uses_with(result)
    Rewriter.erase_op(user)
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
