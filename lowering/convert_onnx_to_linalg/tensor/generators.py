"""Generators: tensors made from sizes and scalars, ConstantOfShape and Range.

Their sizes come from data (a shape tensor, Range's start/limit/delta); with
constant inputs onnx-fold-constants has already made them constants, so what
reaches this pass computes its size at run time.
"""

from __future__ import annotations

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import IntegerType, f64
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    check,
    element_type,
    fill,
    load_scalar,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import convert
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range
from onnxc.lowering.convert_onnx_to_linalg.tensor.replication import counts


class ConstantOfShapeOpLowering(OnnxLowering[onnx.ConstantOfShapeOp]):
    """`onnx.ConstantOfShape`: a tensor of the `input` shape filled with
    `value` (default float 0)."""

    def rewrite(self, op: onnx.ConstantOfShapeOp, rewriter: PatternRewriter) -> None:
        sizes = counts(op, rewriter, self.shapes, op.input, "shape")
        output = self.result_buffer(rewriter, op.output, sizes)
        given = op.attr("value")
        value = np.asarray(0.0 if given is None else given).reshape(-1)
        if value.size != 1:
            raise unsupported(op, f"value has {value.size} elements (one is allowed)")
        fill(rewriter, op, output, value[0].item())
        self.replace(rewriter, op, [output])


class RangeOpLowering(OnnxLowering[onnx.RangeOp]):
    """`onnx.Range`: max(ceil((limit - start) / delta), 0) elements, start,
    start + delta, ... accumulated one addition at a time, as the spec's
    function body (and onnxruntime) computes them. A delta of 0 is
    ONNXC_ERR_SHAPE at run time."""

    def rewrite(self, op: onnx.RangeOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        element = element_type(op.start)
        here = builder_before(op)
        start, limit, delta = (load_scalar(rewriter, op, v) for v in (op.start, op.limit, op.delta))
        zero = scalar.constant(here, 0, element)
        check(rewriter, op, scalar.NOT(here, scalar.EQUAL(here, delta, zero)), "delta != 0")
        if scalar.kind(element) is Kind.FLOAT:
            low, high, step = (convert(here, v, f64) for v in (start, limit, delta))
            steps = scalar.DIV(here, scalar.SUB(here, high, low), step)
            rounded = here.insert(math_dialect.CeilOp(steps)).result
            count = shapes.from_integer(convert(here, rounded, IntegerType(64)))
        else:
            low, high, step = (convert(here, v, IntegerType(64)) for v in (start, limit, delta))
            count = shapes.from_integer(
                _integer_count(here, low, high, step, shapes.limits.elements)
            )
        length = shapes.max(count, 0)
        output = self.result_buffer(rewriter, op.output, [length])

        def trip(b: Builder, i: SSAValue, value: list[SSAValue]) -> list[SSAValue]:
            b.insert(memref.StoreOp.get(value[0], output, [i]))
            return [scalar.ADD(b, value[0], delta)]

        for_range(here, 0, shapes.index(length), [start], trip)
        self.replace(rewriter, op, [output])


def _integer_count(
    b: Builder, low: SSAValue, high: SSAValue, step: SSAValue, limit: int
) -> SSAValue:
    """max(ceil((high - low) / step), 0) of int64 values, without overflow at
    any of them: the distance and the step's magnitude as unsigned 64-bit
    values (wrapping subtraction gives them exactly), a count past
    `limit` elements as `limit + 1` (which the result's size check
    refuses). `step` is not 0 (checked before)."""
    i64 = IntegerType(64)

    def constant(value: int) -> SSAValue:
        return b.insert(arith.ConstantOp.from_int_and_width(value, i64)).result

    def pick(condition: SSAValue, a: SSAValue, other: SSAValue) -> SSAValue:
        return b.insert(arith.SelectOp(condition, a, other)).result

    def compare(kind: str, a: SSAValue, other: SSAValue) -> SSAValue:
        return b.insert(arith.CmpiOp(a, other, kind)).result

    zero = constant(0)
    up = compare("sgt", step, zero)
    forward = b.insert(arith.SubiOp(high, low)).result
    backward = b.insert(arith.SubiOp(low, high)).result
    distance = pick(up, forward, backward)
    moves = pick(up, compare("sgt", high, low), compare("sgt", low, high))
    magnitude = pick(up, step, b.insert(arith.SubiOp(zero, step)).result)
    whole = b.insert(arith.DivUIOp(distance, magnitude)).result
    rest = b.insert(arith.RemUIOp(distance, magnitude)).result
    partial = b.insert(arith.ExtUIOp(compare("ne", rest, zero), i64)).result
    steps = b.insert(arith.AddiOp(whole, partial)).result  # at most 2^64 - 1: no wrap
    many = constant(limit + 1)
    bounded = pick(compare("ugt", steps, many), many, steps)
    return pick(moves, bounded, zero)
