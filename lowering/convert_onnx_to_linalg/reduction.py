"""Reductions: `onnx.ReduceMean` and `onnx.Softmax`.

A reduction initialises its accumulator buffer (`linalg.fill`), then one
`linalg.generic` reads the input with the identity map (so every loop dimension
is bare) and writes the accumulator with a map that drops (or pins to 0) the
reduced dimensions, whose iterators are `reduction`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import TensorType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    BodyBuilder,
    alloc,
    buffer_of,
    fill,
    float_constant,
    float_element,
    generic,
    identity_map,
    is_none,
    normalize_axis,
    replace_with_buffers,
    required_constant,
    shape_of,
    unsupported,
)


def _reduced_map(rank: int, axes: set[int], keepdims: bool) -> AffineMap:
    """The map from the input's loops to an accumulator over the other axes
    (reduced axes kept as size-1 dims when `keepdims`)."""
    results: list[AffineExpr] = []
    for axis in range(rank):
        if axis not in axes:
            results.append(AffineDimExpr(axis))
        elif keepdims:
            results.append(AffineConstantExpr(0))
    return AffineMap(rank, 0, tuple(results))


def _iterators(rank: int, axes: set[int]) -> list[IteratorTypeAttr]:
    return [REDUCTION if axis in axes else PARALLEL for axis in range(rank)]


def _accumulate(op_class: type[arith.FloatingPointLikeBinaryOperation]) -> BodyBuilder:
    """Body `acc = op(acc, x)` of a reduction generic."""

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return b.insert(op_class(args[-1], args[0])).result

    return body


class ReduceMeanOpLowering(RewritePattern):
    """`onnx.ReduceMean` (opset 18+: `axes` as an optional input, which must be
    a compile-time constant; `keepdims`, default 1; `noop_with_empty_axes`,
    default 0): a zero fill, a generic summing the input into the output, and
    an in-place division by the number of reduced elements. Without axes all
    axes are reduced, unless `noop_with_empty_axes` is set, which makes the op
    a copy. Axes given at run time are rejected."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.ReduceMeanOp, rewriter: PatternRewriter) -> None:
        float_element(op)
        data, axes_input = op.operands
        shape = shape_of(data)
        rank = len(shape)
        axes_list: list[int] = []
        if not is_none(axes_input):
            array = required_constant(op, axes_input, "axes")
            axes_list = [normalize_axis(op, int(a), rank) for a in array.reshape(-1)]
        if len(set(axes_list)) != len(axes_list):
            raise unsupported(op, f"repeated axes {axes_list}")
        if not axes_list and op.attr("noop_with_empty_axes"):
            replace_with_buffers(rewriter, op, [buffer_of(rewriter, data)])
            return
        axes = set(axes_list) if axes_list else set(range(rank))
        keepdims = bool(op.attr("keepdims"))
        input_buffer = buffer_of(rewriter, data)
        output = alloc(rewriter, op.results[0].type)
        fill(rewriter, op, output, 0.0)
        generic(
            rewriter,
            op,
            [input_buffer],
            [output],
            [identity_map(rank), _reduced_map(rank, axes, keepdims)],
            _iterators(rank, axes),
            _accumulate(arith.AddfOp),
        )
        count = int(np.prod([shape[a] for a in axes], dtype=np.int64))
        out_rank = len(shape_of(output))

        def divide(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            divisor = float_constant(b, float(count), args[0].type)
            return b.insert(arith.DivfOp(args[0], divisor)).result

        generic(
            rewriter,
            op,
            [],
            [output],
            [identity_map(out_rank)],
            [PARALLEL] * out_rank,
            divide,
        )
        replace_with_buffers(rewriter, op, [output])


class SoftmaxOpLowering(RewritePattern):
    """`onnx.Softmax` (opset 13+ semantics: along the single axis `axis`,
    default -1), numerically stable: the maximum along the axis (a -inf fill
    and a max-reduction into a buffer without the axis), exp(x - max) into the
    output, its sum along the axis (a zero fill and an add-reduction), and an
    in-place division of the output by the sum. Scalar inputs are rejected."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.SoftmaxOp, rewriter: PatternRewriter) -> None:
        element = float_element(op)
        data = op.operands[0]
        shape = shape_of(data)
        rank = len(shape)
        if rank == 0:
            raise unsupported(op, "scalar input")
        axis = normalize_axis(op, op.attr("axis"), rank)
        axes = {axis}
        reduced_type = TensorType(
            element, [size for index, size in enumerate(shape) if index != axis]
        )
        identity = identity_map(rank)
        reduced = _reduced_map(rank, axes, keepdims=False)
        iterators = _iterators(rank, axes)
        input_buffer = buffer_of(rewriter, data)
        output = alloc(rewriter, op.results[0].type)
        maximum = alloc(rewriter, reduced_type)
        fill(rewriter, op, maximum, float("-inf"))
        generic(
            rewriter,
            op,
            [input_buffer],
            [maximum],
            [identity, reduced],
            iterators,
            _accumulate(arith.MaximumfOp),
        )

        def shifted_exp(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            shifted = b.insert(arith.SubfOp(args[0], args[1])).result
            return b.insert(math.ExpOp(shifted)).result

        generic(
            rewriter,
            op,
            [input_buffer, maximum],
            [output],
            [identity, reduced, identity],
            [PARALLEL] * rank,
            shifted_exp,
        )
        total = alloc(rewriter, reduced_type)
        fill(rewriter, op, total, 0.0)
        generic(
            rewriter,
            op,
            [output],
            [total],
            [identity, reduced],
            iterators,
            _accumulate(arith.AddfOp),
        )
        generic(
            rewriter,
            op,
            [total],
            [output],
            [reduced, identity],
            [PARALLEL] * rank,
            lambda b, args: b.insert(arith.DivfOp(args[1], args[0])).result,
        )
        replace_with_buffers(rewriter, op, [output])
