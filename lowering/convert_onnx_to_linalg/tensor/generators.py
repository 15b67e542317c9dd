"""Generators: tensors made from sizes and scalars, ConstantOfShape and Range.

Their sizes come from data (a shape tensor, Range's start/limit/delta); with
constant inputs onnx-fold-constants has already made them constants, so what
reaches this pass computes its size at run time.
"""

from __future__ import annotations

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import math as math_dialect
from xdsl.dialects import memref
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
            low, high, step = (
                shapes.from_integer(convert(here, v, IntegerType(64)))
                for v in (start, limit, delta)
            )
            count = shapes.ceildiv(shapes.sub(high, low), step)
        length = shapes.max(count, 0)
        output = self.result_buffer(rewriter, op.output, [length])

        def trip(b: Builder, i: SSAValue, value: list[SSAValue]) -> list[SSAValue]:
            b.insert(memref.StoreOp.get(value[0], output, [i]))
            return [scalar.ADD(b, value[0], delta)]

        for_range(here, 0, shapes.index(length), [start], trip)
        self.replace(rewriter, op, [output])
