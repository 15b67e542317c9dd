"""`select-kernels{target=NAME}`: convolutions into the target's blocked
kernels, with their weights packed, their epilogues fused and the blocked
layout kept between them.

Precondition: onnx-level IR with static shapes where it matters (the pass
leaves alone what it cannot take). Postcondition: every float32 2-D `onnx.Conv`
with constant weights (group 1 or depthwise) is a `kernel.conv` between a
`kernel.block` of its input and a `kernel.unblock` of its result (see the
`kernel` dialect); then

- a Relu, or a Clip with constant bounds, that is the only user of a
  convolution's result becomes the convolution's `activation`;
- an Add of a convolution's result (its only use, no activation yet) and a
  tensor of the same shape becomes the convolution's residual `R` (a
  following Relu then fuses too: `act(X * W + B + R)`);
- `kernel.block(kernel.unblock(y))` is `y`: consecutive kernels pass the
  blocked layout on, and reorders stay only at the edges of a run of kernels.

The channel block of a tensor depends only on its channel count (`block_size`),
so a producer's blocked result always fits its blocked consumers. This is
onnxruntime's NCHWc transformation, done on the onnx level where SSA values
make layout propagation and epilogue fusion local rewrites; the register
blocking itself is in the lowering (`convert_onnx_to_linalg/kernel_conv.py`).
Targets without `kernels` (`onnxc/targets.py`) are left as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    Builtin,
    DenseArrayBase,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import kernel, onnx
from onnxc.dialects.constants import constant_attr, elements_to_numpy
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.targets import Kernels, get_target


def block_size(channels: int, lanes: int) -> int:
    """The channel block of a tensor of `channels` channels: all of them when
    they fit one block, else the largest multiple of 4 up to `lanes` dividing
    them (no padding lanes), else `lanes`."""
    if channels <= lanes:
        return channels
    for size in range(lanes, 3, -4):
        if channels % size == 0:
            return size
    return lanes


def blocked_type(nchw: TensorType, lanes: int) -> TensorType:
    n, c, h, w = nchw.get_shape()
    b = block_size(c, lanes)
    return TensorType(nchw.get_element_type(), [n, -(-c // b), h, w, b])


@dataclass(frozen=True)
class SelectKernelsPass(ModulePass):
    name = "select-kernels"

    target: str = "host"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kernels = get_target(self.target).kernels
        if kernels is None:
            return
        if all(d.name != "builtin" for d in ctx.loaded_dialects):
            ctx.load_registered_dialect(Builtin.name)  # packed weights are builtin resources
        for function in op.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                _select(function.body.block, kernels)


def _select(block: Block, kernels: Kernels) -> None:
    made: dict[tuple[object, ...], SSAValue] = {}  # one packing, one block per value
    for conv in [o for o in block.ops if isinstance(o, onnx.ConvOp)]:
        _block_conv(conv, kernels, made)
    for gemm in [o for o in block.ops if isinstance(o, onnx.GemmOp)]:
        _block_gemm(gemm, kernels, made)
    changed = True
    while changed:
        changed = False
        for view in [o for o in block.ops if isinstance(o, kernel.UnblockOp | onnx.ReshapeOp)]:
            changed |= _fuse_user(view, kernels, made)
        for pool in [o for o in block.ops if isinstance(o, _POOLS)]:
            changed |= _block_pool(pool)
    for reblock in [o for o in block.ops if isinstance(o, kernel.BlockOp)]:
        _pass_layout_on(reblock)
    for conv in [o for o in block.ops if isinstance(o, kernel.ConvOp)]:
        _residual_in_place(conv)
    for dead in reversed(list(block.ops)):
        if isinstance(dead, kernel.UnblockOp | kernel.BlockOp | onnx.ConstantOp | onnx.NoValueOp):
            if not dead.results[0].uses:
                Rewriter.erase_op(dead)


# --------------------------------------------------------------------------
# Convolutions


def _static(value: SSAValue) -> TensorType | None:
    value_type = value.type
    if not isinstance(value_type, TensorType) or not isinstance(
        value_type.get_element_type(), Float32Type
    ):
        return None
    return value_type if all(s >= 0 for s in value_type.get_shape()) else None


def _constant(value: SSAValue) -> np.ndarray | None:
    owner = value.owner
    if isinstance(owner, onnx.ConstantOp):
        attr = owner.properties.get("value")
        return None if attr is None else elements_to_numpy(attr)
    return None


def _const_op(array: np.ndarray, hint: str, point: InsertPoint) -> SSAValue:
    """An `onnx.Constant` of `array` (float32, or int64 for a shape)."""
    result_type = TensorType(i64 if array.dtype == np.int64 else f32, array.shape)
    constant = onnx.ConstantOp.create(
        result_types=[result_type],
        properties={"value": constant_attr(array, result_type, hint)},
        attributes={ONNX_NODE_NAME: StringAttr(hint)},
    )
    Rewriter.insert_op(constant, point)
    constant.results[0].name_hint = hint
    return constant.results[0]


def _none(point: InsertPoint) -> SSAValue:
    absent = onnx.NoValueOp()
    Rewriter.insert_op(absent, point)
    return absent.result


def _ints(values: list[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, values)


def _block_conv(
    conv: onnx.ConvOp, kernels: Kernels, made: dict[tuple[object, ...], SSAValue]
) -> None:
    x_type, y_type = _static(conv.X), _static(conv.Y)
    weights = _constant(conv.W)
    bias = None if isinstance(conv.B.owner, onnx.NoValueOp) else _constant(conv.B)
    if x_type is None or y_type is None or weights is None or weights.ndim != 4:
        return
    if bias is None and not isinstance(conv.B.owner, onnx.NoValueOp):
        return
    if conv.attr("auto_pad") not in (None, "NOTSET", "VALID"):
        return
    channels, outputs = x_type.get_shape()[1], y_type.get_shape()[1]
    group = conv.attr("group") or 1
    depthwise = group == channels == outputs and group > 1 and weights.shape[1] == 1
    if group != 1 and not depthwise:
        return
    kernel_shape = list(weights.shape[2:])
    pads = conv.attr("pads") or [0, 0, 0, 0]
    strides = conv.attr("strides") or [1, 1]
    dilations = conv.attr("dilations") or [1, 1]
    if not _consistent(x_type, y_type, weights.shape, group, kernel_shape, conv):
        return  # the plain lowering says what is wrong
    point = InsertPoint.before(conv)
    label = onnx.node_name(conv) or "conv"
    w, b = _packed(conv.W, conv.B, weights, bias, depthwise, kernels, made, point, label)
    if ("x", conv.X) not in made:
        block = kernel.BlockOp.create(
            operands=[conv.X],
            result_types=[blocked_type(x_type, kernels.lanes)],
            attributes={ONNX_NODE_NAME: StringAttr(f"{label} input")},
        )
        Rewriter.insert_op(block, point)
        made["x", conv.X] = block.Y
    blocked_result = blocked_type(y_type, kernels.lanes)
    properties = _conv_properties(
        list(strides), list(dilations), list(pads), kernel_shape, group, kernels
    )
    new = kernel.ConvOp.create(
        operands=[made["x", conv.X], w, b, _none(point)],
        result_types=[blocked_result],
        properties=properties,
        attributes={ONNX_NODE_NAME: StringAttr(label)},
    )
    unblock = kernel.UnblockOp.create(
        operands=[new.Y],
        result_types=[y_type],
        attributes={ONNX_NODE_NAME: StringAttr(f"{label} output")},
    )
    Rewriter.insert_op([new, unblock], point)
    new.Y.name_hint = conv.Y.name_hint
    conv.Y.replace_all_uses_with(unblock.Y)
    Rewriter.erase_op(conv)


def _block_gemm(
    gemm: onnx.GemmOp, kernels: Kernels, made: dict[tuple[object, ...], SSAValue]
) -> None:
    """`Y = A B + C` with constant B (and C of N elements) -> a 1x1 kernel.conv:
    A [M, K] is, byte for byte, a blocked [1, 1, 1, M, K] tensor (one block of
    K channels, M pixels of one row). Taken when the result needs no
    transposition: one output block (N up to the lanes) or one row (M = 1)."""
    a_type, y_type = _static(gemm.A), _static(gemm.Y)
    weights = _constant(gemm.B)
    has_bias = not isinstance(gemm.C.owner, onnx.NoValueOp)
    bias = _constant(gemm.C) if has_bias else None
    if a_type is None or y_type is None or weights is None or weights.ndim != 2:
        return
    if gemm.attr("transA") or gemm.attr("alpha") != 1.0:
        return
    rows, depth = a_type.get_shape()
    matrix = weights if gemm.attr("transB") else weights.T  # [N, K]
    outputs = matrix.shape[0]
    if has_bias and (bias is None or bias.size != outputs or gemm.attr("beta") != 1.0):
        return  # (a C of one element or of [M, N] stays with the plain lowering)
    lanes = block_size(outputs, kernels.lanes)
    if matrix.shape[1] != depth or (rows != 1 and lanes != outputs):
        return
    point = InsertPoint.before(gemm)
    label = onnx.node_name(gemm) or "gemm"
    w, b = _packed(
        gemm.B, gemm.C, matrix[:, :, None, None], bias, False, kernels, made, point, label
    )
    x = _reshaped(gemm.A, [1, 1, 1, rows, depth], point)
    blocks = -(-outputs // lanes)
    new = kernel.ConvOp.create(
        operands=[x, w, b, _none(point)],
        result_types=[TensorType(f32, [1, blocks, 1, rows, lanes])],
        properties=_conv_properties([1, 1], [1, 1], [0, 0, 0, 0], [1, 1], 1, kernels),
        attributes={ONNX_NODE_NAME: StringAttr(label)},
    )
    Rewriter.insert_op(new, point)
    new.Y.name_hint = gemm.Y.name_hint
    result = new.Y
    if blocks > 1:  # one row: [1, N, 1, 1] in NCHW is [1, N]
        unblock = kernel.UnblockOp.create(
            operands=[new.Y],
            result_types=[TensorType(f32, [1, outputs, 1, 1])],
            attributes={ONNX_NODE_NAME: StringAttr(f"{label} output")},
        )
        Rewriter.insert_op(unblock, point)
        result = unblock.Y
    gemm.Y.replace_all_uses_with(_reshaped(result, [rows, outputs], point))
    Rewriter.erase_op(gemm)


def _reshaped(value: SSAValue, shape: list[int], point: InsertPoint) -> SSAValue:
    """`value` as `shape` (same elements, row-major): an onnx.Reshape."""
    target = _const_op(np.array(shape, np.int64), "shape", point)
    reshape = onnx.ReshapeOp.create(operands=[value, target], result_types=[TensorType(f32, shape)])
    Rewriter.insert_op(reshape, point)
    return reshape.reshaped


def _conv_properties(
    strides: list[int],
    dilations: list[int],
    pads: list[int],
    kernel_shape: list[int],
    group: int,
    kernels: Kernels,
) -> dict[str, Attribute]:
    return {
        "strides": _ints(strides),
        "dilations": _ints(dilations),
        "pads": _ints(pads),
        "kernel_shape": _ints(kernel_shape),
        "group": IntegerAttr(group, i64),
        "pixels": IntegerAttr(kernels.pixels, i64),
    }


def _packed(
    w_value: SSAValue,
    b_value: SSAValue,
    weights: np.ndarray,
    bias: np.ndarray | None,
    depthwise: bool,
    kernels: Kernels,
    made: dict[tuple[object, ...], SSAValue],
    point: InsertPoint,
    label: str,
) -> tuple[SSAValue, SSAValue]:
    """The packed weights [M, C, KH, KW] and bias [M] of a kernel (made once
    per weight value): dense ones as [M/b, C, KH, KW, b], depthwise ones as
    [C/b, KH, KW, b], the bias padded to whole blocks."""
    outputs = weights.shape[0]
    lanes = block_size(outputs, kernels.lanes)
    blocks = -(-outputs // lanes)
    if ("w", w_value, lanes) not in made:
        padded = np.zeros((blocks * lanes, *weights.shape[1:]), np.float32)
        padded[:outputs] = weights
        if depthwise:  # [C/b, b, 1, KH, KW] -> [C/b, KH, KW, b]
            packed = padded.reshape(blocks, lanes, *weights.shape[2:]).transpose(0, 2, 3, 1)
        else:  # [M/b, b, C, KH, KW] -> [M/b, C, KH, KW, b]
            packed = padded.reshape(blocks, lanes, *weights.shape[1:]).transpose(0, 2, 3, 4, 1)
        hint = f"{w_value.name_hint or label}_packed"
        made["w", w_value, lanes] = _const_op(np.ascontiguousarray(packed), hint, point)
    if bias is None:
        return made["w", w_value, lanes], _none(point)
    if ("b", b_value, lanes) not in made:
        padded_bias = np.zeros(blocks * lanes, np.float32)
        padded_bias[:outputs] = bias.reshape(-1)
        hint = f"{b_value.name_hint or label}_padded"
        made["b", b_value, lanes] = _const_op(padded_bias, hint, point)
    return made["w", w_value, lanes], made["b", b_value, lanes]


def _consistent(
    x_type: TensorType,
    y_type: TensorType,
    w_shape: tuple[int, ...],
    group: int,
    kernel_shape: list[int],
    conv: onnx.ConvOp,
) -> bool:
    """Whether the attributes, weights and types describe one convolution."""
    n, channels = x_type.get_shape()[:2]
    if (conv.attr("kernel_shape") or kernel_shape) != kernel_shape:
        return False
    if w_shape[1] * group != channels or y_type.get_shape()[:2] != (n, w_shape[0]):
        return False
    return _window_fits(
        x_type,
        y_type,
        kernel_shape,
        conv.attr("strides") or [1, 1],
        conv.attr("dilations") or [1, 1],
        conv.attr("pads") or [0, 0, 0, 0],
    )


# --------------------------------------------------------------------------
# Pooling

_POOLS = (onnx.MaxPoolOp, onnx.AveragePoolOp, onnx.GlobalAveragePoolOp, onnx.GlobalMaxPoolOp)


def _block_pool(pool: onnx.OnnxOp) -> bool:
    """A 2-D pooling of a kernel's unblocked result -> `kernel.pool` of the
    blocked one, unblocked after it (so the layout passes on)."""
    unblock = pool.operands[0].owner
    x_type, y_type = _static(pool.operands[0]), _static(pool.results[0])
    if not isinstance(unblock, kernel.UnblockOp) or x_type is None or y_type is None:
        return False
    if len(x_type.get_shape()) != 4 or any(list(r.uses) for r in pool.results[1:]):
        return False
    height, width = x_type.get_shape()[2:]
    if isinstance(pool, onnx.GlobalAveragePoolOp | onnx.GlobalMaxPoolOp):
        kernel_shape, strides, dilations, pads = [height, width], [1, 1], [1, 1], [0, 0, 0, 0]
        include_pad = 0
    else:
        if pool.attr("auto_pad") not in (None, "NOTSET", "VALID") or pool.attr("ceil_mode"):
            return False
        if isinstance(pool, onnx.MaxPoolOp) and pool.attr("storage_order"):
            return False
        kernel_shape = pool.attr("kernel_shape")
        strides = pool.attr("strides") or [1, 1]
        dilations = pool.attr("dilations") or [1, 1]
        pads = pool.attr("pads") or [0, 0, 0, 0]
        include_pad = int(isinstance(pool, onnx.AveragePoolOp) and pool.attr("count_include_pad"))
    if len(kernel_shape) != 2 or not _window_fits(
        x_type, y_type, kernel_shape, strides, dilations, pads
    ):
        return False
    lanes = unblock.X.type
    assert isinstance(lanes, TensorType)
    n, blocks, _, _, b = lanes.get_shape()
    average = isinstance(pool, onnx.AveragePoolOp | onnx.GlobalAveragePoolOp)
    new = kernel.PoolOp.create(
        operands=[unblock.X],
        result_types=[TensorType(f32, [n, blocks, *y_type.get_shape()[2:], b])],
        properties={
            "mode": StringAttr("average" if average else "max"),
            "kernel_shape": _ints(list(kernel_shape)),
            "strides": _ints(list(strides)),
            "dilations": _ints(list(dilations)),
            "pads": _ints(list(pads)),
            "count_include_pad": IntegerAttr(include_pad, i64),
        },
        attributes={ONNX_NODE_NAME: StringAttr(onnx.node_name(pool) or "pool")},
    )
    after = kernel.UnblockOp.create(
        operands=[new.Y],
        result_types=[y_type],
        attributes={ONNX_NODE_NAME: StringAttr(f"{onnx.node_name(pool)} output")},
    )
    Rewriter.insert_op([new, after], InsertPoint.before(pool))
    new.Y.name_hint = pool.results[0].name_hint
    pool.results[0].replace_all_uses_with(after.Y)
    Rewriter.erase_op(pool)
    return True


def _window_fits(
    x_type: TensorType,
    y_type: TensorType,
    kernel_shape: list[int],
    strides: list[int],
    dilations: list[int],
    pads: list[int],
) -> bool:
    """Whether the output's spatial size is the window's (floor mode) and the
    window's numbers are sane."""
    if len(strides) != 2 or len(dilations) != 2 or len(pads) != 4:
        return False
    if min(pads) < 0 or min(strides) < 1 or min(dilations) < 1 or min(kernel_shape) < 1:
        return False
    size = x_type.get_shape()[2:]
    expected = [
        (size[i] + pads[i] + pads[i + 2] - dilations[i] * (kernel_shape[i] - 1) - 1) // strides[i]
        + 1
        for i in range(2)
    ]
    return list(y_type.get_shape()[2:]) == expected and min(expected) > 0


# --------------------------------------------------------------------------
# Epilogues


def _only_user(value: SSAValue) -> Operation | None:
    uses = list(value.uses)
    return uses[0].operation if len(uses) == 1 else None


def _clip_bounds(clip: onnx.ClipOp) -> tuple[float, float] | None:
    bounds = [float("-inf"), float("inf")]
    for index, operand in enumerate(clip.operands[1:3]):
        if isinstance(operand.owner, onnx.NoValueOp):
            continue
        value = _constant(operand)
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


def _fuse_user(view: Operation, kernels: Kernels, made: dict[tuple[object, ...], SSAValue]) -> bool:
    """Fuse the only user of the result of `view` (an unblock or reshape of
    a kernel's result) into the kernel, if it can."""
    result = view.results[0]
    conv = _conv_behind(result)
    user = _only_user(result)
    if conv is None or user is None or conv.attr("activation"):
        return False
    if isinstance(user, onnx.ReluOp):
        conv.properties["activation"] = StringAttr("Relu")
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
        if not _defined_before(other, conv):  # e.g. a shortcut computed after it
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
    made: dict[tuple[object, ...], SSAValue],
) -> SSAValue:
    """`other` in `conv`'s blocked layout: blocked like an input, or, when
    `view` is a reshape of the result (a Gemm's), reshaped back."""
    point = InsertPoint.before(conv)
    if isinstance(view, onnx.ReshapeOp):
        result_type = conv.Y.type
        assert isinstance(result_type, TensorType)
        return _reshaped(other, list(result_type.get_shape()), point)
    blocked = made.get(("x", other))
    if blocked is None or not _defined_before(blocked, conv):
        nchw = other.type
        assert isinstance(nchw, TensorType)
        block = kernel.BlockOp.create(
            operands=[other], result_types=[blocked_type(nchw, kernels.lanes)]
        )
        Rewriter.insert_op(block, point)
        made.setdefault(("x", other), block.Y)
        blocked = block.Y
    return blocked


def _residual_in_place(conv: kernel.ConvOp) -> None:
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


def _defined_before(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is available at `op` (same block, defined earlier)."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return True
    block = op.parent_block()
    return owner.parent_block() is block and block is not None and owner.is_before_in_block(op)


def _pass_layout_on(reblock: kernel.BlockOp) -> None:
    """`kernel.block(kernel.unblock(y))` -> `y`."""
    unblock = reblock.X.owner
    if isinstance(unblock, kernel.UnblockOp) and unblock.X.type == reblock.Y.type:
        reblock.Y.replace_all_uses_with(unblock.X)
        Rewriter.erase_op(reblock)
