"""`select-kernels{target=NAME}`: convolutions and matrix products into the
target's blocked kernels, with their weights packed, their epilogues fused
and the blocked layout kept between them.

Precondition: onnx-level IR with static shapes where it matters (the pass
leaves alone what it cannot take). Postcondition: every float32 2-D `onnx.Conv`
with constant weights (group 1 or depthwise) is a `kernel.conv` between a
`kernel.block` of its input and a `kernel.unblock` of its result (see the
`kernel` dialect), a BatchNormalization after it folded into its weights and
bias first (`batchnorm.py`); a float32 `onnx.ConvTranspose` with constant
weights becomes such a convolution first (stride 1: the flipped convolution;
else a 1x1 convolution into columns and an `onnx.Col2Im` scatter,
`transposed.py`); then

- a Relu, a HardSwish, a Tanh, a Sigmoid, a SiLU (`Swish` with alpha 1, see
  `onnx-fuse-activations`) or a Clip with constant bounds, that is the only
  user of a convolution's result becomes the convolution's `activation`;
- an Add of a convolution's result (its only use, no activation yet) and a
  tensor of the same shape becomes the convolution's residual `R` (a
  following Relu then fuses too: `act(X * W + B + R)`);
- an elementwise Mul/Add/Sub by a per-channel constant, a per-tensor
  QuantizeLinear or DequantizeLinear, or a `kernel.qadd`, of unblocked
  kernel results runs on the blocked ones, unblocked after it
  (`elementwise_layout.py`);
- `kernel.block(kernel.unblock(y))` is `y`: consecutive kernels pass the
  blocked layout on, and reorders stay only at the edges of a run of kernels.

The channel block of a tensor depends only on its channel count (`block_size`),
so a producer's blocked result always fits its blocked consumers. This is
onnxruntime's NCHWc transformation, done on the onnx level where SSA values
make layout propagation and epilogue fusion local rewrites; the register
blocking itself is in the lowering (`convert_onnx_to_linalg/kernels/conv.py`).
Float32 MatMuls of static shapes, and the Gemms the 1x1 kernel does not
take, become `kernel.matmul` in row-major layout, with a following bias Add,
residual Add and Relu/Clip fused (`products.py`). Targets without
`kernels` (`onnxc/targets.py`) are left as they are, but for the int8
QLinearConvs with constant weights: every target runs them on the integer
kernel, `kernel.qconv` (`quantized.py`), except the hosts' short and
depthwise ones, which the float kernels compute exactly (`exact_float.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    Builtin,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import kernel, onnx
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.onnx_infer_shapes import update_signature
from onnxc.lowering.select_kernels.batchnorm import fold_batch_norms
from onnxc.lowering.select_kernels.building_blocks import (
    Made,
    block_size,
    blocked_type,
    constant_of,
    constant_op,
    ints,
    no_value,
    reshaped,
    static_float,
    vector_width,
    window_fits,
)
from onnxc.lowering.select_kernels.elementwise_layout import SUNK, sink_unblock
from onnxc.lowering.select_kernels.epilogues import fuse_user, pass_layout_on, residual_in_place
from onnxc.lowering.select_kernels.products import select_products
from onnxc.lowering.select_kernels.quantized import select_quantized_convs
from onnxc.lowering.select_kernels.transposed import rewrite_conv_transposes
from onnxc.targets import Kernels, get_target


@dataclass(frozen=True)
class SelectKernelsPass(ModulePass):
    name = "select-kernels"

    target: str = "host"
    requantize: str = "exact"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        target = get_target(self.target)
        kernels = target.kernels
        if all(d.name != "builtin" for d in ctx.loaded_dialects):
            ctx.load_registered_dialect(Builtin.name)  # packed weights are builtin resources
        for function in op.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                select_quantized_convs(
                    function.body.block,
                    {},
                    rows=target.integer_rows,
                    fixed=self.requantize == "fixed",
                )
                if kernels is not None:
                    _select(function.body.block, kernels)
                # a kernel's result may be more static than the value it
                # replaced (a BatchNormalization output shape inference left
                # open): the function returns what it now computes
                update_signature(function)


def _select(block: Block, kernels: Kernels) -> None:
    made: Made = {}  # one packing, one block per value
    fold_batch_norms(block)
    rewrite_conv_transposes(block, kernels)
    for conv in [o for o in block.ops if isinstance(o, onnx.ConvOp)]:
        _block_conv(conv, kernels, made)
    for gemm in [o for o in block.ops if isinstance(o, onnx.GemmOp)]:
        _block_gemm(gemm, kernels, made)
    select_products(block, kernels, made)
    changed = True
    while changed:
        changed = False
        for view in [o for o in block.ops if isinstance(o, kernel.UnblockOp | onnx.ReshapeOp)]:
            changed |= fuse_user(view, kernels, made)
        for pool in [o for o in block.ops if isinstance(o, _POOLS)]:
            changed |= _block_pool(pool)
        if not changed:  # once nothing fuses into a kernel any more
            for elementwise in [o for o in block.ops if isinstance(o, SUNK)]:
                changed |= sink_unblock(elementwise, made)
    for reblock in [o for o in block.ops if isinstance(o, kernel.BlockOp)]:
        pass_layout_on(reblock)
    for conv in [o for o in block.ops if isinstance(o, kernel.ConvOp)]:
        residual_in_place(conv)
    for dead in reversed(list(block.ops)):
        if isinstance(dead, kernel.UnblockOp | kernel.BlockOp | onnx.ConstantOp | onnx.NoValueOp):
            if not dead.results[0].uses:
                Rewriter.erase_op(dead)


# --------------------------------------------------------------------------
# Convolutions


def _window(
    conv: onnx.ConvOp, weights: np.ndarray
) -> tuple[list[int], list[int], list[int], list[int]] | None:
    """The window of `conv` as a 2-D one: kernel shape, strides, dilations,
    pads; a 1-D convolution's is of height 1. None for other ranks, or a
    kernel_shape the weights contradict."""
    spatial = weights.ndim - 2
    if spatial not in (1, 2):
        return None
    kernel_shape = list(weights.shape[2:])
    if list(conv.attr("kernel_shape") or kernel_shape) != kernel_shape:
        return None
    strides = list(conv.attr("strides") or [1] * spatial)
    dilations = list(conv.attr("dilations") or [1] * spatial)
    pads = list(conv.attr("pads") or [0] * (2 * spatial))
    if spatial == 1 and len(strides) == len(dilations) == 1 and len(pads) == 2:
        return [1, *kernel_shape], [1, *strides], [1, *dilations], [0, pads[0], 0, pads[1]]
    return kernel_shape, strides, dilations, pads


def _block_conv(conv: onnx.ConvOp, kernels: Kernels, made: Made) -> None:
    """A 2-D convolution -> `kernel.conv` between a block of its input and an
    unblock of its result; a 1-D one the same as a 2-D one of height 1 (its
    input and result reshaped, which costs nothing: same elements, same
    order), so that Conv1d runs on the same register-blocked kernel."""
    x_type, y_type = static_float(conv.X), static_float(conv.Y)
    weights = constant_of(conv.W)
    bias = None if isinstance(conv.B.owner, onnx.NoValueOp) else constant_of(conv.B)
    if x_type is None or y_type is None or weights is None:
        return
    window = _window(conv, weights)
    if window is None or len(x_type.get_shape()) != weights.ndim:
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
    kernel_shape, strides, dilations, pads = window
    flat_result = None
    if weights.ndim == 3:  # of height 1
        (n, c, length), (_, m, out_length) = x_type.get_shape(), y_type.get_shape()
        x_type, y_type = TensorType(f32, [n, c, 1, length]), TensorType(f32, [n, m, 1, out_length])
        flat_result = [n, m, out_length]
        weights = weights[:, :, None, :]
    if not _consistent(x_type, y_type, weights.shape, group, window):
        return  # the plain lowering says what is wrong
    point = InsertPoint.before(conv)
    label = onnx.node_name(conv) or "conv"
    w, b = _packed(conv.W, conv.B, weights, bias, depthwise, kernels, made, point, label)
    if ("x", conv.X) not in made:
        x = conv.X if flat_result is None else reshaped(conv.X, list(x_type.get_shape()), point)
        block = kernel.BlockOp.create(
            operands=[x],
            result_types=[blocked_type(x_type, kernels)],
            attributes={ONNX_NODE_NAME: StringAttr(f"{label} input")},
        )
        Rewriter.insert_op(block, point)
        made["x", conv.X] = block.Y
    blocked_result = blocked_type(y_type, kernels)
    properties = _conv_properties(
        list(strides), list(dilations), list(pads), kernel_shape, group, kernels
    )
    new = kernel.ConvOp.create(
        operands=[made["x", conv.X], w, b, no_value(point)],
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
    result = unblock.Y if flat_result is None else reshaped(unblock.Y, flat_result, point)
    conv.Y.replace_all_uses_with(result)
    Rewriter.erase_op(conv)


def _block_gemm(gemm: onnx.GemmOp, kernels: Kernels, made: Made) -> None:
    """`Y = A B + C` with constant B (and C of N elements) -> a 1x1 kernel.conv:
    A [M, K] is, byte for byte, a blocked [1, 1, 1, M, K] tensor (one block of
    K channels, M pixels of one row). Taken when the result needs no
    transposition: one output block (N up to the lanes) or one row (M = 1)."""
    a_type, y_type = static_float(gemm.A), static_float(gemm.Y)
    weights = constant_of(gemm.B)
    has_bias = not isinstance(gemm.C.owner, onnx.NoValueOp)
    bias = constant_of(gemm.C) if has_bias else None
    if a_type is None or y_type is None or weights is None or weights.ndim != 2:
        return
    if gemm.attr("transA") or gemm.attr("alpha") != 1.0:
        return
    rows, depth = a_type.get_shape()
    matrix = weights if gemm.attr("transB") else weights.T  # [N, K]
    outputs = matrix.shape[0]
    if has_bias and (bias is None or bias.size != outputs or gemm.attr("beta") != 1.0):
        return  # (a C of one element or of [M, N] stays with the plain lowering)
    lanes = block_size(outputs, kernels)
    if matrix.shape[1] != depth or (rows != 1 and lanes != outputs):
        return
    point = InsertPoint.before(gemm)
    label = onnx.node_name(gemm) or "gemm"
    w, b = _packed(
        gemm.B, gemm.C, matrix[:, :, None, None], bias, False, kernels, made, point, label
    )
    x = reshaped(gemm.A, [1, 1, 1, rows, depth], point)
    blocks = -(-outputs // lanes)
    new = kernel.ConvOp.create(
        operands=[x, w, b, no_value(point)],
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
    gemm.Y.replace_all_uses_with(reshaped(result, [rows, outputs], point))
    Rewriter.erase_op(gemm)


def _conv_properties(
    strides: list[int],
    dilations: list[int],
    pads: list[int],
    kernel_shape: list[int],
    group: int,
    kernels: Kernels,
) -> dict[str, Attribute]:
    properties: dict[str, Attribute] = {
        "strides": ints(strides),
        "dilations": ints(dilations),
        "pads": ints(pads),
        "kernel_shape": ints(kernel_shape),
        "group": IntegerAttr(group, i64),
        "pixels": IntegerAttr(kernels.pixels, i64),
        **({"fma": IntegerAttr(1, i64)} if kernels.fma else {}),
        **({"parallel": IntegerAttr(1, i64)} if kernels.parallel else {}),
    }
    if kernels.unrolled:
        properties["unrolled"] = IntegerAttr(1, i64)
    return properties


def _packed(
    w_value: SSAValue,
    b_value: SSAValue,
    weights: np.ndarray,
    bias: np.ndarray | None,
    depthwise: bool,
    kernels: Kernels,
    made: Made,
    point: InsertPoint,
    label: str,
) -> tuple[SSAValue, SSAValue]:
    """The packed weights [M, C, KH, KW] and bias [M] of a kernel (made once
    per weight value): dense ones as [M/b, C, KH, KW, w], depthwise ones as
    [C/b, KH, KW, b], the bias as [M/b, w] (w lanes of each block of b
    outputs, the lanes past b zero): a dense kernel's accumulators are
    whole vectors (`vector_width`), a depthwise one's read the input's
    lanes."""
    outputs = weights.shape[0]
    lanes = block_size(outputs, kernels)
    width = lanes if depthwise else vector_width(lanes, kernels.lanes)
    blocks = -(-outputs // lanes)
    if ("w", w_value, width) not in made:
        padded = np.zeros((blocks, width, *weights.shape[1:]), np.float32)
        padded[:, :lanes] = np.concatenate(
            [weights, np.zeros((blocks * lanes - outputs, *weights.shape[1:]), np.float32)]
        ).reshape(blocks, lanes, *weights.shape[1:])
        if depthwise:  # [C/b, b, 1, KH, KW] -> [C/b, KH, KW, b]
            packed = padded.reshape(blocks, width, *weights.shape[2:]).transpose(0, 2, 3, 1)
        else:  # [M/b, w, C, KH, KW] -> [M/b, C, KH, KW, w]
            packed = padded.transpose(0, 2, 3, 4, 1)
        hint = f"{w_value.name_hint or label}_packed"
        made["w", w_value, width] = constant_op(np.ascontiguousarray(packed), hint, point)
    if bias is None:
        return made["w", w_value, width], no_value(point)
    if ("b", b_value, width) not in made:
        padded_bias = np.zeros((blocks, width), np.float32)
        padded_bias[:, :lanes] = np.concatenate(
            [bias.reshape(-1), np.zeros(blocks * lanes - outputs, np.float32)]
        ).reshape(blocks, lanes)
        hint = f"{b_value.name_hint or label}_padded"
        made["b", b_value, width] = constant_op(padded_bias.reshape(-1), hint, point)
    return made["w", w_value, width], made["b", b_value, width]


def _consistent(
    x_type: TensorType,
    y_type: TensorType,
    w_shape: tuple[int, ...],
    group: int,
    window: tuple[list[int], list[int], list[int], list[int]],
) -> bool:
    """Whether the window (`_window`), weights and types describe one 2-D
    convolution."""
    n, channels = x_type.get_shape()[:2]
    if w_shape[1] * group != channels or y_type.get_shape()[:2] != (n, w_shape[0]):
        return False
    return window_fits(x_type, y_type, *window)


# --------------------------------------------------------------------------
# Pooling

_POOLS = (onnx.MaxPoolOp, onnx.AveragePoolOp, onnx.GlobalAveragePoolOp, onnx.GlobalMaxPoolOp)


def _block_pool(pool: onnx.OnnxOp) -> bool:
    """A 2-D pooling of a kernel's unblocked result -> `kernel.pool` of the
    blocked one, unblocked after it (so the layout passes on)."""
    unblock = pool.operands[0].owner
    x_type, y_type = static_float(pool.operands[0]), static_float(pool.results[0])
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
    if len(kernel_shape) != 2 or not window_fits(
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
            "kernel_shape": ints(list(kernel_shape)),
            "strides": ints(list(strides)),
            "dilations": ints(list(dilations)),
            "pads": ints(list(pads)),
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
