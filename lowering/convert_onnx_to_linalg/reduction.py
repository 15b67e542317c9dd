"""Reductions: `onnx.ReduceMean` and `onnx.Softmax`.

A reduction initialises its accumulator buffer (`linalg.fill`), then one
`linalg.generic` reads the input with the identity map (so every loop dimension
is bare) and writes the accumulator with a map that drops (or pins to 0) the
reduced dimensions, whose iterators are `reduction`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    BodyBuilder,
    OnnxLowering,
    accumulator,
    accumulator_type,
    alloc,
    buffer_of,
    fill,
    generic,
    identity_map,
    is_none,
    normalize_axis,
    required_constant,
    tensor_type,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import ScalarOp, number


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


def _accumulate(operation: ScalarOp) -> BodyBuilder:
    """Body `acc = operation(acc, x)` of a reduction generic (x widened to the
    accumulator's type)."""

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        return operation(b, args[-1], *widened(b, args[:1], args[-1].type))

    return body


class ReduceMeanOpLowering(OnnxLowering[onnx.ReduceMeanOp]):
    """`onnx.ReduceMean` (opset 18+: `axes` as an optional input, which must be
    a compile-time constant; `keepdims`, default 1; `noop_with_empty_axes`,
    default 0): a zero fill, a generic summing the input into the output, and
    an in-place division by the number of reduced elements. Without axes all
    axes are reduced, unless `noop_with_empty_axes` is set, which makes the op
    a copy. Axes given at run time are rejected. On integers the mean is the
    sum divided by the count, truncated toward zero (the sum wraps)."""

    def rewrite(self, op: onnx.ReduceMeanOp, rewriter: PatternRewriter) -> None:
        data, axes_input = op.operands
        shape = self.shapes.sizes(data)
        rank = len(shape)
        axes_list: list[int] = []
        if not is_none(axes_input):
            array = required_constant(op, axes_input, "axes")
            axes_list = [normalize_axis(op, int(a), rank) for a in array.reshape(-1)]
        if len(set(axes_list)) != len(axes_list):
            raise unsupported(op, f"repeated axes {axes_list}")
        if not axes_list and op.attr("noop_with_empty_axes"):
            self.replace(rewriter, op, [buffer_of(rewriter, data)])
            return
        axes = set(axes_list) if axes_list else set(range(rank))
        keepdims = bool(op.attr("keepdims"))
        input_buffer = buffer_of(rewriter, data)
        reduced = [1 if a in axes else s for a, s in enumerate(shape) if keepdims or a not in axes]
        out_sizes = self.shapes.result_sizes(op.results[0], reduced)
        result = alloc(rewriter, op.results[0].type, out_sizes)
        acc = accumulator(rewriter, result, out_sizes)
        output = acc.buffer
        fill(rewriter, op, output, 0.0)
        generic(
            rewriter,
            op,
            [input_buffer],
            [output],
            [identity_map(rank), _reduced_map(rank, axes, keepdims)],
            _iterators(rank, axes),
            _accumulate(scalar.ADD),
        )
        count = self.shapes.product([shape[a] for a in axes])
        out_rank = len(out_sizes)

        def divide(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            return scalar.DIV(b, args[0], number(b, count, args[0].type))

        generic(
            rewriter,
            op,
            [],
            [output],
            [identity_map(out_rank)],
            [PARALLEL] * out_rank,
            divide,
        )
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [result])


class SoftmaxOpLowering(OnnxLowering[onnx.SoftmaxOp]):
    """`onnx.Softmax` (opset 13+ semantics: along the single axis `axis`,
    default -1), numerically stable: the maximum along the axis (a -inf fill
    and a max-reduction into a buffer without the axis), exp(x - max) into the
    output, its sum along the axis (a zero fill and an add-reduction), and an
    in-place division of the output by the sum; 16-bit floats are computed in
    float and rounded once. Scalar inputs are rejected."""

    def rewrite(self, op: onnx.SoftmaxOp, rewriter: PatternRewriter) -> None:
        data = op.operands[0]
        element = tensor_type(data).get_element_type()
        shape = self.shapes.sizes(data)
        rank = len(shape)
        if rank == 0:
            raise unsupported(op, "scalar input")
        axis = normalize_axis(op, op.attr("axis"), rank)
        axes = {axis}
        kept = [size for index, size in enumerate(shape) if index != axis]
        reduced_shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in kept]
        reduced_type = MemRefType(element, reduced_shape)
        identity = identity_map(rank)
        reduced = _reduced_map(rank, axes, keepdims=False)
        iterators = _iterators(rank, axes)
        input_buffer = buffer_of(rewriter, data)
        out_sizes = self.shapes.result_sizes(op.results[0], shape)
        result = alloc(rewriter, op.results[0].type, out_sizes)
        acc = accumulator(rewriter, result, out_sizes)
        output = acc.buffer
        maximum = alloc(rewriter, reduced_type, kept)
        fill(rewriter, op, maximum, scalar.lowest(element))
        generic(
            rewriter,
            op,
            [input_buffer],
            [maximum],
            [identity, reduced],
            iterators,
            _accumulate(scalar.MAX),
        )

        def shifted_exp(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            x, top = widened(b, args[:2], args[2].type)
            return scalar.EXP(b, scalar.SUB(b, x, top))

        generic(
            rewriter,
            op,
            [input_buffer, maximum],
            [output],
            [identity, reduced, identity],
            [PARALLEL] * rank,
            shifted_exp,
        )
        total = alloc(
            rewriter, MemRefType(accumulator_type(element), reduced_type.get_shape()), kept
        )
        fill(rewriter, op, total, 0.0)
        generic(
            rewriter,
            op,
            [output],
            [total],
            [identity, reduced],
            iterators,
            _accumulate(scalar.ADD),
        )
        generic(
            rewriter,
            op,
            [total],
            [output],
            [reduced, identity],
            [PARALLEL] * rank,
            lambda b, args: scalar.DIV(b, args[1], args[0]),
        )
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [result])
