"""What the blocked kernels' loops share (`kernels/conv.py`, `kernels/pool.py`,
`kernels/matmul.py`): index arithmetic at a builder, loads, loop nests that
keep their node's comment, tap ranges, the multiply-accumulate step (fused
with `fma`) and the fused activations (applied as the accumulators are
stored, or to each finished row: Tanh's, Sigmoid's and SiLU's many
operations would push the accumulators out of registers)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, math, memref, scf
from xdsl.dialects.builtin import f32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from onnxc.dialects import kernel
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.elementwise.arithmetic import hard_swish
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import for_range, index, nest
from onnxc.lowering.index_arith import IndexArith, Size

__all__ = [
    "Activation",
    "Arith",
    "accumulate",
    "activation",
    "activations",
    "inside_outputs",
    "load",
    "loops_over",
    "padded",
    "remainder",
    "tap_range",
]


class Arith(IndexArith):
    """Index arithmetic inserted at a builder (one per loop body)."""

    def __init__(self, b: Builder) -> None:
        super().__init__()
        self.b = b

    def _insert(self, op: Operation, operands: Sequence[SSAValue]) -> SSAValue:
        return self.b.insert(op).results[0]


def tap_range(a: Arith, start: Size, taps: Size, dilation: int, extent: Size) -> tuple[Size, Size]:
    """The taps k in [lo, hi) with 0 <= start + k * dilation < extent (hi
    is at least lo)."""
    lo = a.max(0, a.ceildiv(a.sub(0, start), dilation))
    hi = a.min(taps, a.add(a.floordiv(a.sub(a.sub(extent, 1), start), dilation), 1))
    return lo, a.max(lo, hi)


def inside_outputs(
    size: int, outputs: int, taps: int, stride: int, dilation: int, pad: int
) -> tuple[int, int]:
    """The outputs [lo, hi) along an axis whose taps all lie inside the
    input's `size`; (outputs, outputs) when none does."""
    lo = -(-pad // stride)
    hi = (size - 1 - (taps - 1) * dilation + pad) // stride + 1
    lo, hi = min(lo, outputs), min(max(hi, 0), outputs)
    return (lo, hi) if lo < hi else (outputs, outputs)


def for_taps(b: Builder, lo: Size, hi: Size, taps: int, body: TapBody, *, one_tap_if: bool) -> None:
    """body(k) for the taps k in [lo, hi) of a kernel axis of `taps` taps
    (`tap_range`): a loop, or, with `one_tap_if` and one tap, an `if lo < hi`
    at k = 0. Cortex-M builds take the `if`: from a loop gcc -Os does not see
    that k < 1 and its -Warray-bounds stops the build reading a 1x1 kernel's
    weight at k (random graph 5800). x86 builds keep the loop: told that
    k = 0, gcc 12's AVX2 vectorizer computes wrong border outputs (random
    graphs 6798 and 6803; right with -fno-tree-slp-vectorize or below
    x86-64-v3)."""
    if taps != 1 or not one_tap_if:
        for_range(b, lo, hi, [], lambda inner, k, _: body(inner, k) or [])
        return
    block = Block()
    inner = Builder(InsertPoint.at_end(block))
    body(inner, index(inner, 0))
    inner.insert(scf.YieldOp())
    some = b.insert(arith.CmpiOp(index(b, lo), index(b, hi), "slt")).result
    b.insert(scf.IfOp(some, [], Region(block)))


TapBody = Callable[[Builder, SSAValue], None]
"""What runs for one tap: body(builder, k)."""


Activation = Callable[[Builder, SSAValue], SSAValue]


def activation(op: kernel.ConvOp | kernel.MatmulOp) -> Activation:
    """The fused activation of a kernel that is applied as its accumulators
    are stored (Relu, Clip, HardSwish; kernel.conv alone takes Tanh, Sigmoid
    and Swish: `activations`)."""
    stored, row = activations(op)
    assert row is None, "a row activation is kernel.conv's"
    return stored


def activations(op: kernel.ConvOp | kernel.MatmulOp) -> tuple[Activation, Activation | None]:
    """The activation applied as the accumulators are stored, and the one
    applied to each finished output row instead (None: none): Tanh's,
    Sigmoid's and Swish's many operations would push the accumulators out of
    registers."""
    kind = op.attr("activation")
    if kind == "Relu":
        return lambda b, v: scalar.MAX(b, v, scalar.constant(b, 0.0, f32)), None
    if kind == "Tanh":
        return lambda b, v: v, lambda b, v: scalar.TANH(b, v)
    if kind == "Sigmoid":
        return lambda b, v: v, lambda b, v: scalar.SIGMOID(b, v)
    if kind == "Swish":
        return lambda b, v: v, lambda b, v: scalar.MUL(b, v, scalar.SIGMOID(b, v))
    if kind == "HardSwish":
        return lambda b, v: hard_swish(b, v), None
    if kind == "Clip":
        low, high = op.attr("clip_min"), op.attr("clip_max")
        return lambda b, v: scalar.MIN(
            b, scalar.MAX(b, v, scalar.constant(b, low, f32)), scalar.constant(b, high, f32)
        ), None
    return lambda b, v: v, None


def loops_over(
    b: Builder,
    sizes: Sequence[int],
    body: Callable[[Builder, list[SSAValue]], None],
    parallel: bool = False,
) -> bool:
    """Loops over every position of `sizes`, with no loop for a size of 1 (its
    index is 0): canonicalize would fold such a loop away, and with it the
    ONNX node's comment on the nest. `parallel` marks the outermost loop
    parallel (its trips independent); returns whether there is one."""
    looped = [k for k, size in enumerate(sizes) if size > 1]

    def innermost(inner: Builder, ivs: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
        at = [Arith(inner).index(0)] * len(sizes)
        for k, iv in zip(looped, ivs, strict=True):
            at[k] = iv
        body(inner, at)
        return []

    nest(b, [sizes[k] for k in looped], [], innermost, parallel=parallel)
    return parallel and bool(looped)


def load(b: Builder, buffer: SSAValue, indices: Sequence[Size]) -> SSAValue:
    a = Arith(b)
    return b.insert(memref.LoadOp.get(buffer, [a.index(i) for i in indices])).res


def remainder(b: Builder, value: SSAValue, divisor: int) -> SSAValue:
    modulus = Arith(b).index(divisor)
    return b.insert(arith.RemUIOp(value, modulus)).result


def padded(b: Builder, value: SSAValue, inside: SSAValue | None) -> SSAValue:
    """`value`, or 0 (the padding) where `inside` is false."""
    if inside is None:
        return value
    zero = scalar.constant(b, 0.0, f32)
    return b.insert(arith.SelectOp(inside, value, zero)).result


def accumulate(
    b: Builder, acc: SSAValue, v: SSAValue, value: SSAValue, weight: SSAValue, fused: bool
) -> None:
    """acc[v] += value * weight (one fused multiply-add when `fused`)."""
    if fused:
        total = b.insert(math.FmaOp(value, weight, load(b, acc, [v]))).result
    else:
        total = scalar.ADD(b, load(b, acc, [v]), scalar.MUL(b, value, weight))
    b.insert(memref.StoreOp.get(total, acc, [v]))
