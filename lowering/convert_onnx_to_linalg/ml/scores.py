"""What the ai.onnx.ml model operators share (linear models, SVMs, tree
ensembles): reading the samples of X, class labels (int64 or strings), and
the scalar arithmetic of their scores.

X is [N, C] (N samples of C features) or [C] (one sample), as onnxruntime
reads it. Scores are computed in float, as onnxruntime computes them. The
post transforms (NONE, LOGISTIC, SOFTMAX, SOFTMAX_ZERO, PROBIT) are
onnxruntime's (`ml_common.h`): LOGISTIC is `1 / (1 + exp(-|x|))` mirrored for
negative x, PROBIT is `sqrt(2) * erfinv(2x - 1)` with its approximation of
erfinv (Winitzki's, a = 0.147), SOFTMAX_ZERO leaves zero scores out of the
normalising sum. Class counts are small and known at compile time, so a row
of scores is a list of SSA values (its loops unrolled).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc_strings import STRING
from onnxc.errors import UnsupportedError
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    alloc,
    buffer_of,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index
from onnxc.lowering.index_arith import Size

F32 = Float32Type()
F64 = Float64Type()
I1 = IntegerType(1)
I32 = IntegerType(32)
I64 = IntegerType(64)
TRANSFORMS = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")
"""The post transforms, numbered as TreeEnsemble's `post_transform` (0..4)."""


@dataclass
class Samples:
    """X as rows of features: its buffer, rank (1 or 2), N and C."""

    x: SSAValue
    rank: int
    n: Size
    c: Size

    def load(self, b: Builder, row: SSAValue, column: SSAValue, t: Attribute) -> SSAValue:
        """X[row, column] converted to `t`."""
        indices = [column] if self.rank == 1 else [row, column]
        return scalar.convert(b, b.insert(memref.LoadOp.get(self.x, indices)).res, t)


def samples(lowering: OnnxLowering[Any], op: onnx.OnnxOp, rewriter: PatternRewriter) -> Samples:
    """The `Samples` of `op`'s first input; ranks other than 1 and 2 are an
    `unsupported` error."""
    x = op.operands[0]
    sizes = lowering.shapes.sizes(x)
    if len(sizes) not in (1, 2):
        raise unsupported(op, f"X has rank {len(sizes)} (expected [N, C] or [C])")
    n, c = (1, sizes[0]) if len(sizes) == 1 else (sizes[0], sizes[1])
    return Samples(buffer_of(rewriter, x), len(sizes), n, c)


@dataclass
class Labels:
    """A classifier's class labels: int64s (`ints`, built as constants) or
    strings (`table`, a constant string buffer)."""

    count: int
    ints: list[int] | None
    table: SSAValue | None

    def __len__(self) -> int:
        return self.count

    def at(self, b: Builder, k: int) -> SSAValue:
        """Label k as a scalar."""
        if self.ints is not None:
            return scalar.constant(b, self.ints[k], I64)
        assert self.table is not None
        return b.insert(memref.LoadOp.get(self.table, [index(b, k)])).res

    def pick(self, b: Builder, position: SSAValue) -> SSAValue:
        """labels[position] (an i64): a chain of selects of int64 labels, a
        load from the string table."""
        if self.ints is None:
            assert self.table is not None
            at = b.insert(arith.IndexCastOp(position, IndexType())).result
            return b.insert(memref.LoadOp.get(self.table, [at])).res
        label = self.at(b, 0)
        for k in range(1, self.count):
            here = scalar.EQUAL(b, position, scalar.constant(b, k, I64))
            label = select(b, here, self.at(b, k), label)
        return label

    def number(self, b: Builder, value: int) -> SSAValue:
        """The int64 `value` where onnxruntime writes a number, not a label
        (a single score without two labels); with string labels unsupported."""
        if self.ints is None:
            raise UnsupportedError("string class labels where the label is a number (0 or 1)")
        return scalar.constant(b, value, I64)


def class_labels(rewriter: PatternRewriter, op: onnx.OnnxOp, ints: str, strings: str) -> Labels:
    """The class labels of attribute `ints` (int64) or `strings`."""
    names = op.attr(strings)
    if names:
        texts = np.array([str(n) for n in names], dtype=object)
        table = weight(rewriter, op, texts, STRING, "labels")
        return Labels(len(names), None, table)
    values = [int(v) for v in op.attr(ints) or []]
    return Labels(len(values), values, None)


def transform_name(op: onnx.OnnxOp) -> str:
    """`post_transform` as a name (TreeEnsemble numbers them)."""
    value = op.attr("post_transform")
    name = TRANSFORMS[value] if isinstance(value, int) and 0 <= value < 5 else value
    if name not in TRANSFORMS:
        raise unsupported(op, f"unknown post_transform {value!r}")
    return str(name)


def const(b: Builder, value: float, t: Attribute = F32) -> SSAValue:
    return scalar.constant(b, value, t)


def select(b: Builder, condition: SSAValue, a: SSAValue, other: SSAValue) -> SSAValue:
    return b.insert(arith.SelectOp(condition, a, other)).result


def logistic(b: Builder, v: SSAValue) -> SSAValue:
    """onnxruntime's ComputeLogistic: exact for large |v| of both signs."""
    one = const(b, 1.0, v.type)
    e = scalar.EXP(b, scalar.NEG(b, scalar.ABS(b, v)))
    positive = scalar.DIV(b, one, scalar.ADD(b, one, e))
    negative = scalar.LESS(b, v, const(b, 0.0, v.type))
    return select(b, negative, scalar.SUB(b, one, positive), positive)


def probit(b: Builder, v: SSAValue) -> SSAValue:
    """onnxruntime's ComputeProbit: sqrt(2) * erfinv(2v - 1), erfinv as
    Winitzki's approximation (a = 0.147)."""
    t = v.type
    one = const(b, 1.0, t)
    x = scalar.SUB(b, scalar.MUL(b, const(b, 2.0, t), v), one)
    sign = select(b, scalar.LESS(b, x, const(b, 0.0, t)), const(b, -1.0, t), one)
    x = scalar.MUL(b, scalar.SUB(b, one, x), scalar.ADD(b, one, x))
    log = scalar.LOG(b, x)
    a = const(b, 2 / (float(math.pi) * 0.147), t)
    first = scalar.ADD(b, a, scalar.MUL(b, const(b, 0.5, t), log))
    second = scalar.MUL(b, const(b, 1 / 0.147, t), log)
    inner = scalar.SUB(b, scalar.MUL(b, first, first), second)
    root = scalar.SUB(b, scalar.SQRT(b, inner), first)
    erfinv = scalar.MUL(b, sign, scalar.SQRT(b, root))
    return scalar.MUL(b, const(b, math.sqrt(2.0), t), erfinv)


def _maximum(b: Builder, values: Sequence[SSAValue]) -> SSAValue:
    best = const(b, -3.4028234663852886e38, values[0].type)
    for v in values:
        best = select(b, scalar.GREATER(b, v, best), v, best)
    return best


def transformed(b: Builder, name: str, values: Sequence[SSAValue]) -> list[SSAValue]:
    """`values` after post transform `name` (on one value only PROBIT
    applies, as in onnxruntime)."""
    if name == "NONE" or (len(values) == 1 and name != "PROBIT"):
        return list(values)
    if name == "LOGISTIC":
        return [logistic(b, v) for v in values]
    if name == "PROBIT":
        return [probit(b, v) for v in values]
    top = _maximum(b, values)
    t = values[0].type
    if name == "SOFTMAX":
        exps = [scalar.EXP(b, scalar.SUB(b, v, top)) for v in values]
        total = scalar.ADD(b, *exps) if len(exps) > 1 else exps[0]
        return [scalar.DIV(b, e, total) for e in exps]
    scale = scalar.EXP(b, scalar.NEG(b, top))  # SOFTMAX_ZERO
    small = const(b, 1e-7, t)
    zero = const(b, 0.0, t)
    kept: list[SSAValue] = []
    total = zero
    for v in values:
        nonzero = scalar.OR(b, scalar.GREATER(b, v, small), scalar.LESS(b, v, scalar.NEG(b, small)))
        value = select(b, nonzero, scalar.EXP(b, scalar.SUB(b, v, top)), scalar.MUL(b, v, scale))
        total = scalar.ADD(b, total, select(b, nonzero, value, zero))
        kept.append(value)
    return [scalar.DIV(b, v, total) for v in kept]


def first_max(
    b: Builder, values: Sequence[SSAValue], valid: Sequence[SSAValue] | None = None
) -> SSAValue:
    """The position (i64) of the first largest value (of those `valid`, when
    given; the first when none is)."""
    best, position = values[0], scalar.constant(b, 0, I64)
    seen = valid[0] if valid is not None else None
    for k in range(1, len(values)):
        better = scalar.GREATER(b, values[k], best)
        if valid is not None and seen is not None:
            # a valid value beats no valid value yet, and a smaller one
            better = scalar.AND(b, valid[k], scalar.OR(b, scalar.NOT(b, seen), better))
            seen = scalar.OR(b, seen, valid[k])
        best = select(b, better, values[k], best)
        position = select(b, better, scalar.constant(b, k, I64), position)
    return position


def load_row(b: Builder, buffer: SSAValue, row: SSAValue, count: int) -> list[SSAValue]:
    return [b.insert(memref.LoadOp.get(buffer, [row, index(b, k)])).res for k in range(count)]


def store_row(b: Builder, values: Sequence[SSAValue], buffer: SSAValue, row: SSAValue) -> None:
    for k, value in enumerate(values):
        b.insert(memref.StoreOp.get(value, buffer, [row, index(b, k)]))


def scratch(rewriter: PatternRewriter, sizes: Sequence[Size], t: Attribute = F32) -> SSAValue:
    """A new buffer of `sizes` and element type `t`, for intermediate scores."""
    shape = [size if isinstance(size, int) else DYNAMIC_INDEX for size in sizes]
    return alloc(rewriter, MemRefType(t, shape), list(sizes))


def store(b: Builder, value: SSAValue, buffer: SSAValue, row: SSAValue) -> None:
    b.insert(memref.StoreOp.get(value, buffer, [row]))
