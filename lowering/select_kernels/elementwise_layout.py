"""The blocked layout kept across elementwise operators, for `select-kernels`.

An elementwise operator whose tensor operands are unblocked kernel results
(`kernel.unblock(y)`) computes the same elements on the blocked `y`: it is
moved to the blocked side and its result unblocked after it. Repeated, the
unblock sinks down a chain of such operators, and where the chain ends in a
kernel's input the `kernel.block(kernel.unblock(...))` pair folds: the
requantization chain of an exact-float QLinearConv (Mul by the multipliers,
QuantizeLinear, the next convolution's DequantizeLinear; `exact_float.py`)
and a quantized residual Add run between two kernels with no reorder.

Taken: the unary elementwise operators (the activations, Exp, Sqrt, ...:
a SiLU's Sigmoid, then its Mul of two unblocked values); Mul, Add, Sub,
Div, Max and Min of unblocked values alike, or of one and a constant of one
element or one per channel (reblocked like the tensor); Clip with bounds of
one element; QuantizeLinear and DequantizeLinear with one scale and zero
point; `kernel.qadd` whose addends are both unblocked alike; and a Concat
along the channels of unblocked results in blocks of one size. An arithmetic
operand may be a pixel of the image ([N, C, 1, 1] blocked as [N, C/b, 1, 1,
b], broadcast over the others' pixels: a Squeeze-and-Excitation gate). Only blocks
of whole channels (no padding lanes, `block_size` picks those for every
channel count but odd ones above the lanes), so every element the operator
computes is one it computed before.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, StringAttr, TensorType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import kernel, onnx
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.select_kernels.building_blocks import Made, constant_of, constant_op

_ARITHMETIC = (onnx.MulOp, onnx.AddOp, onnx.SubOp, onnx.DivOp, onnx.MaxOp, onnx.MinOp)
_UNARY = (
    onnx.AbsOp,
    onnx.CeilOp,
    onnx.CosOp,
    onnx.EluOp,
    onnx.ErfOp,
    onnx.ExpOp,
    onnx.FloorOp,
    onnx.GeluOp,
    onnx.HardSigmoidOp,
    onnx.HardSwishOp,
    onnx.LeakyReluOp,
    onnx.LogOp,
    onnx.MishOp,
    onnx.NegOp,
    onnx.ReciprocalOp,
    onnx.ReluOp,
    onnx.RoundOp,
    onnx.SeluOp,
    onnx.SigmoidOp,
    onnx.SinOp,
    onnx.SoftplusOp,
    onnx.SqrtOp,
    onnx.SwishOp,
    onnx.TanhOp,
)
_PARAMETERISED = (onnx.ClipOp, onnx.QuantizeLinearOp, onnx.DequantizeLinearOp, kernel.QaddOp)
SUNK = (*_ARITHMETIC, *_UNARY, *_PARAMETERISED, onnx.ConcatOp)
"""The operators an unblock sinks below."""


def sink_unblock(op: Operation, made: Made) -> bool:
    """Run `op` (one of `SUNK`) on the blocked values behind its unblocked
    operands, if it can; returns whether it did."""
    result = op.results[0]
    result_type = result.type
    if not isinstance(result_type, TensorType) or len(result_type.get_shape()) != 4:
        return False
    concat = isinstance(op, onnx.ConcatOp)
    blocked = _concatenated(op) if concat else _blocked_shape(op, result_type)
    if blocked is None:
        return False
    point = InsertPoint.before(op)
    properties = dict(op.properties)
    if concat:  # the blocks' axis, however the NCHW one was spelled
        properties["axis"] = IntegerAttr(1, i64)
    operands: list[SSAValue] = []
    for operand in op.operands:
        if isinstance(operand.owner, kernel.UnblockOp):
            operands.append(operand.owner.X)
        elif isinstance(op, _ARITHMETIC) and _elements(operand) != 1:
            operands.append(_reblocked(operand, blocked, made, point))
        else:
            operands.append(operand)  # one number, for every element in any layout
    new = type(op).create(
        operands=operands,
        result_types=[TensorType(result_type.get_element_type(), blocked)],
        properties=properties,
        attributes=dict(op.attributes),
    )
    label = onnx.node_name(op) if isinstance(op, onnx.OnnxOp) else ""
    unblock = kernel.UnblockOp.create(
        operands=[new.results[0]],
        result_types=[result_type],
        attributes={ONNX_NODE_NAME: StringAttr(f"{label or op.name} output")},
    )
    Rewriter.insert_op([new, unblock], point)
    if result.name_hint:
        new.results[0].name_hint = f"{result.name_hint}_blocked"
        unblock.Y.name_hint = result.name_hint
    result.replace_all_uses_with(unblock.Y)
    Rewriter.erase_op(op)
    return True


def _blocked_shape(op: Operation, result_type: TensorType) -> list[int] | None:
    """The blocked shape `op` computes on: that of its result, blocked as its
    unblocked operands are (all in blocks of one size, whole blocks, of the
    result's channels; each of the result's shape or, for the arithmetic, one
    pixel of it broadcast over the image: a Squeeze-and-Excitation gate),
    its other operands being what `sink_unblock` takes. None when it cannot
    move."""
    blocks: set[tuple[int, int]] = set()
    shape = list(result_type.get_shape())
    channels = shape[1]
    for operand in op.operands:
        owner = operand.owner
        if isinstance(owner, kernel.UnblockOp):
            unblocked, blocked = owner.Y.type, owner.X.type
            assert isinstance(unblocked, TensorType) and isinstance(blocked, TensorType)
            if unblocked.get_shape() != result_type.get_shape() and not (
                isinstance(op, _ARITHMETIC) and _one_pixel_of(unblocked.get_shape(), shape)
            ):
                return None  # broadcast other than a pixel's: not elementwise
            blocks.add((blocked.get_shape()[1], blocked.get_shape()[4]))
        elif isinstance(op, _ARITHMETIC):
            if _per_channel(operand, channels) is None:
                return None
        elif not _one_element(operand):
            return None
    if len(blocks) != 1 or not any(
        _shape(o) == shape for o in op.operands if isinstance(o.owner, kernel.UnblockOp)
    ):
        return None  # (an operand of the result's shape gives its blocked shape)
    ((count, lanes),) = blocks
    if count * lanes != channels:
        return None  # padding lanes
    if isinstance(op, kernel.QaddOp) and not (
        isinstance(op.A.owner, kernel.UnblockOp) and isinstance(op.B.owner, kernel.UnblockOp)
    ):
        return None
    if isinstance(op, onnx.DequantizeLinearOp | onnx.QuantizeLinearOp) and op.attr("block_size"):
        return None
    if isinstance(op, onnx.DequantizeLinearOp | onnx.QuantizeLinearOp | onnx.ClipOp) and (
        not isinstance(op.operands[0].owner, kernel.UnblockOp)
    ):
        return None
    return [shape[0], count, shape[2], shape[3], lanes]


def _shape(value: SSAValue) -> list[int] | None:
    value_type = value.type
    return list(value_type.get_shape()) if isinstance(value_type, TensorType) else None


def _one_pixel_of(shape: Sequence[int], result: Sequence[int]) -> bool:
    """Whether an NCHW `shape` is [N, C, 1, 1] of the image `result`."""
    return list(shape) == [result[0], result[1], 1, 1]


def _concatenated(concat: onnx.ConcatOp) -> list[int] | None:
    """The blocked shape of a Concat along the channels of unblocked kernel
    results, each in whole blocks of one size: blocks placed one after
    another are the channels placed one after another. None when it
    cannot move."""
    result_type = concat.concat_result.type
    assert isinstance(result_type, TensorType)
    if concat.attr("axis") not in (1, -3):
        return None
    count, lanes = 0, set()
    for operand in concat.operands:
        owner = operand.owner
        if not isinstance(owner, kernel.UnblockOp):
            return None
        blocked = owner.X.type
        assert isinstance(blocked, TensorType)
        _, blocks, _, _, b = blocked.get_shape()
        unblocked = owner.Y.type
        assert isinstance(unblocked, TensorType)
        if blocks * b != unblocked.get_shape()[1]:
            return None  # padding lanes
        count, lanes = count + blocks, lanes | {b}
    if len(lanes) != 1:
        return None
    n, _, h, w = result_type.get_shape()
    return [n, count, h, w, lanes.pop()]


def _one_element(value: SSAValue) -> bool:
    """A rank-0 tensor (a scale or zero point that applies to every element
    in any layout; one of rank 1 would be per axis), or no value."""
    if isinstance(value.owner, onnx.NoValueOp):
        return True
    value_type = value.type
    return isinstance(value_type, TensorType) and len(value_type.get_shape()) == 0


def _elements(value: SSAValue) -> int | None:
    value_type = value.type
    if not isinstance(value_type, TensorType) or min(value_type.get_shape(), default=0) < 0:
        return None
    return int(np.prod(value_type.get_shape()))


def _per_channel(value: SSAValue, channels: int) -> np.ndarray | None:
    """The constant `value` as one number per channel of an NCHW tensor of
    `channels` channels, when it broadcasts as that (or one number)."""
    array = constant_of(value)
    if array is None or array.ndim > 4:
        return None
    try:
        leading = (1,) * (4 - array.ndim)
        full = np.broadcast_to(array.reshape(leading + array.shape), (1, channels, 1, 1))
    except ValueError:
        return None
    return full.reshape(channels)


def _reblocked(value: SSAValue, blocked: list[int], made: Made, point: InsertPoint) -> SSAValue:
    """The per-channel constant `value` as [1, C/b, 1, 1, b] (made once per
    value and blocking)."""
    blocks, lanes = blocked[1], blocked[4]
    key = ("lanes", value, lanes)
    if key not in made:
        per_channel = _per_channel(value, blocks * lanes)
        assert per_channel is not None
        hint = f"{value.name_hint or 'constant'}_blocked"
        made[key] = constant_op(per_channel.reshape(1, blocks, 1, 1, lanes).copy(), hint, point)
    return made[key]
