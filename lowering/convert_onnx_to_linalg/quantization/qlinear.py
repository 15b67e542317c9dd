"""Quantized products: `onnx.MatMulInteger`, `onnx.ConvInteger`,
`onnx.QLinearMatMul` and `onnx.QLinearConv`.

Each is the float operator's loop structure (`accumulate_product` of
matmul.py, `convolve` of conv.py) with another term: `(a - a_zero_point) *
(b - b_zero_point)`, accumulated in int32 (the spec's "accumulation may
overflow if and only if in 32 bits": it wraps), or in float for 8-bit float
operands. The zero points are extra inputs of that generic, read per tensor or
per row of a / column of b / output channel of w. The QLinear operators then
requantize the accumulator into their output, as onnxruntime does:
`quantize(acc * (a_scale * b_scale / y_scale), y_zero_point)` in float (see
quantization.py), so their int32 accumulator is a buffer of the output's
sizes.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    alloc,
    broadcast_reads,
    buffer_of,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    shape_of,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.linear_algebra.matmul import (
    MatrixProduct,
    Term,
    accumulate_product,
    matrix_product,
)
from onnxc.lowering.convert_onnx_to_linalg.nn.conv import (
    Convolution,
    convolution,
    convolve,
    start_with_bias,
)
from onnxc.lowering.convert_onnx_to_linalg.quantization.quantization import (
    WIDE,
    one_element,
    quantize,
)
from onnxc.lowering.convert_onnx_to_linalg.reduction.blocks import reduced_buffer
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes

INT32 = IntegerType(32)


def accumulation_type(*operands: SSAValue) -> Attribute:
    """int32 for integer operands; float when one is an 8-bit float."""
    floats = any(scalar.kind(element_type(v)) is Kind.FLOAT for v in operands)
    return WIDE if floats else INT32


def centered(a_zero_point: bool, b_zero_point: bool) -> Term:
    """The `Term` (a - a_zero_point) * (b - b_zero_point) in the accumulator's
    type; the zero points present are the first extras, in that order."""

    def term(
        b: Builder, x: SSAValue, y: SSAValue, extras: Sequence[SSAValue], t: Attribute
    ) -> SSAValue:
        x, y = widened(b, [x, y], t)
        points = iter(widened(b, extras, t))
        if a_zero_point:
            x = scalar.SUB(b, x, next(points))
        if b_zero_point:
            y = scalar.SUB(b, y, next(points))
        return scalar.MUL(b, x, y)

    return term


def requantize(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    acc: SSAValue,
    output: SSAValue,
    scales: Sequence[tuple[SSAValue, AffineMap]],
    zero_point: tuple[SSAValue, AffineMap],
) -> None:
    """output = quantize(acc * (scale_a * scale_b / scale_y), zero_point): a
    parallel generic over the output; the three scales and the zero point
    are read through their maps over it, the multiplier computed in float."""
    rank = len(shape_of(output))
    target = element_type(output)

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        total, scale_a, scale_b, scale_y, point = args[:5]
        scale_a, scale_b, scale_y = widened(b, [scale_a, scale_b, scale_y], WIDE)
        multiplier = scalar.DIV(b, scalar.MUL(b, scale_a, scale_b), scale_y)
        value = scalar.MUL(b, scalar.convert(b, total, WIDE), multiplier)
        return quantize(b, value, point, target)

    buffers = [acc, *(buffer for buffer, _ in scales), zero_point[0]]
    maps = [identity_map(rank), *(m for _, m in scales), zero_point[1], identity_map(rank)]
    generic(rewriter, op, buffers, [output], maps, [PARALLEL] * rank, body)


def per_tensor(
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    shapes: Shapes,
    value: SSAValue,
    dims: int,
    what: str,
) -> tuple[SSAValue, AffineMap]:
    """A scale or zero point that must be one element, read at 0 by `dims`
    loops."""
    sizes = shapes.sizes(value)
    if not one_element(sizes):
        raise unsupported(op, f"{what} must have one element (per tensor), not {sizes}")
    zeros = tuple(AffineConstantExpr(0) for _ in sizes)
    return buffer_of(rewriter, value), AffineMap(dims, 0, zeros)


# --- matrix products ------------------------------------------------------------


def matrix_parameter(
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    shapes: Shapes,
    product: MatrixProduct,
    value: SSAValue,
    of_a: bool,
    dims: int,
    what: str,
) -> tuple[SSAValue, AffineMap]:
    """A scale or zero point of a (`of_a`) or b and how the product's first
    `dims` loops read it: one element is per tensor; else per row of a ([M],
    or [..., M, 1]) or per column of b ([N], or [..., 1, N]), its batch dims
    broadcast against the result's."""
    sizes = shapes.sizes(value)
    if one_element(sizes):
        return per_tensor(op, rewriter, shapes, value, dims, what)
    if not (product.a_matrix if of_a else product.b_matrix):
        raise unsupported(op, f"{what} of a 1-D operand must have one element")
    operand = product.a_sizes if of_a else product.b_sizes
    kept: AffineExpr = AffineDimExpr(product.m_dim if of_a else product.n_dim)
    zero: AffineExpr = AffineConstantExpr(0)
    buffer = buffer_of(rewriter, value)
    if len(sizes) == 1:
        require_sizes(op, rewriter, shapes, sizes, [operand[-2 if of_a else -1]], what)
        return buffer, AffineMap(dims, 0, (kept,))
    if len(sizes) != len(operand):
        raise unsupported(op, f"{what} of shape {sizes} is not per tensor, row or column")
    rows = [operand[-2], 1] if of_a else [1, operand[-1]]
    require_sizes(op, rewriter, shapes, sizes[-2:], rows, what)
    batch = product.sizes[: product.batch_rank]
    reads = broadcast_reads(rewriter, shapes, op, what, sizes[:-2], batch)
    exprs = [r for r in reads if r is not None]
    if len(exprs) != len(reads):
        raise unsupported(op, f"{what}: batch sizes that may or may not be 1 at run time")
    return buffer, AffineMap(dims, 0, (*exprs, *((kept, zero) if of_a else (zero, kept))))


def accumulate_centered_product(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    product: MatrixProduct,
    acc: SSAValue,
    a_zero_point: SSAValue,
    b_zero_point: SSAValue,
) -> None:
    """Zero `acc`, then accumulate (a - a_zero_point) * (b - b_zero_point)
    over the product (omitted zero points are 0)."""
    extras: list[tuple[SSAValue, AffineMap]] = []
    for value, of_a, what in (
        (a_zero_point, True, "a_zero_point"),
        (b_zero_point, False, "b_zero_point"),
    ):
        if not is_none(value):
            extras.append(
                matrix_parameter(op, rewriter, shapes, product, value, of_a, product.loops, what)
            )
    fill(rewriter, op, acc, 0.0)
    term = centered(not is_none(a_zero_point), not is_none(b_zero_point))
    accumulate_product(rewriter, shapes, op, product, acc, term, extras)


class MatMulIntegerOpLowering(OnnxLowering[onnx.MatMulIntegerOp]):
    """`onnx.MatMulInteger`: numpy matmul of (A - a_zero_point) by (B -
    b_zero_point) into int32 (`accumulate_product` with the centered term),
    the zero points per tensor, per row of A or per column of B."""

    def rewrite(self, op: onnx.MatMulIntegerOp, rewriter: PatternRewriter) -> None:
        product = matrix_product(op, self.shapes, op.A, op.B, op.Y)
        output = alloc(rewriter, op.Y.type, product.sizes)
        accumulate_centered_product(
            rewriter, self.shapes, op, product, output, op.a_zero_point, op.b_zero_point
        )
        self.replace(rewriter, op, [output])


class QLinearMatMulOpLowering(OnnxLowering[onnx.QLinearMatMulOp]):
    """`onnx.QLinearMatMul`: the MatMulInteger accumulation (in float for
    8-bit float operands) into a buffer of the output's sizes, then
    `requantize`. a's scale and zero point are per tensor or per row, b's per
    tensor or per column, y's per tensor."""

    def rewrite(self, op: onnx.QLinearMatMulOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        product = matrix_product(op, shapes, op.a, op.b, op.y)
        acc = reduced_buffer(rewriter, accumulation_type(op.a, op.b), product.sizes)
        accumulate_centered_product(
            rewriter, shapes, op, product, acc, op.a_zero_point, op.b_zero_point
        )
        dims = product.loops - 1
        scales = [
            matrix_parameter(op, rewriter, shapes, product, op.a_scale, True, dims, "a_scale"),
            matrix_parameter(op, rewriter, shapes, product, op.b_scale, False, dims, "b_scale"),
            per_tensor(op, rewriter, shapes, op.y_scale, dims, "y_scale"),
        ]
        zero_point = per_tensor(op, rewriter, shapes, op.y_zero_point, dims, "y_zero_point")
        output = alloc(rewriter, op.y.type, product.sizes)
        requantize(rewriter, op, acc, output, scales, zero_point)
        self.replace(rewriter, op, [output])


# --- convolutions ---------------------------------------------------------------


def channel_parameter(
    op: onnx.OnnxOp, shapes: Shapes, conv: Convolution, value: SSAValue, what: str
) -> None:
    """Check that a parameter of w has one element or one per output channel."""
    sizes = shapes.sizes(value)
    if not (one_element(sizes) or sizes == [conv.w_shape[0]]):
        raise unsupported(op, f"{what} of shape {sizes} is neither per tensor nor [M]")


def accumulate_centered_convolution(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    conv: Convolution,
    acc: SSAValue,
    x_value: SSAValue,
    w_value: SSAValue,
    x_zero_point: SSAValue,
    w_zero_point: SSAValue,
) -> None:
    """Accumulate (x - x_zero_point) * (w - w_zero_point) of the convolution
    into `acc` (initialised by the caller); x's zero point is per tensor,
    w's per tensor or per output channel; omitted ones are 0. Padding taps
    are skipped, which is what padding x with its zero point gives."""
    extras: list[SSAValue] = []
    if not is_none(x_zero_point):
        extras.append(per_tensor(op, rewriter, shapes, x_zero_point, 0, "x_zero_point")[0])
    if not is_none(w_zero_point):
        channel_parameter(op, shapes, conv, w_zero_point, "w_zero_point")
        extras.append(buffer_of(rewriter, w_zero_point))
    term = centered(not is_none(x_zero_point), not is_none(w_zero_point))
    x, w = buffer_of(rewriter, x_value), buffer_of(rewriter, w_value)
    convolve(rewriter, shapes, op, conv, x, w, acc, term, extras)


class ConvIntegerOpLowering(OnnxLowering[onnx.ConvIntegerOp]):
    """`onnx.ConvInteger`: the convolution of (x - x_zero_point) by (w -
    w_zero_point) into int32 (`convolve` with the centered term), with every
    attribute Conv supports."""

    def rewrite(self, op: onnx.ConvIntegerOp, rewriter: PatternRewriter) -> None:
        conv = convolution(op, self.shapes, op.x, op.w, op.y)
        output = alloc(rewriter, op.y.type, conv.sizes)
        fill(rewriter, op, output, 0.0)
        accumulate_centered_convolution(
            rewriter, self.shapes, op, conv, output, op.x, op.w, op.x_zero_point, op.w_zero_point
        )
        self.replace(rewriter, op, [output])


class QLinearConvOpLowering(OnnxLowering[onnx.QLinearConvOp]):
    """`onnx.QLinearConv`: an int32 accumulator of the output's sizes starts
    with the int32 bias B (or 0), accumulates as ConvInteger does, and is
    requantized into y (`requantize`); w's scale and zero point are per
    tensor or per output channel, the others per tensor."""

    def rewrite(self, op: onnx.QLinearConvOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        conv = convolution(op, shapes, op.x, op.w, op.y)
        acc = reduced_buffer(rewriter, accumulation_type(op.x, op.w), conv.sizes)
        start_with_bias(rewriter, shapes, op, conv, acc, op.B)
        accumulate_centered_convolution(
            rewriter, shapes, op, conv, acc, op.x, op.w, op.x_zero_point, op.w_zero_point
        )
        rank = len(conv.sizes)
        channel_parameter(op, shapes, conv, op.w_scale, "w_scale")
        per_channel = not one_element(shapes.sizes(op.w_scale))
        w_read = (
            (AffineDimExpr(1),)
            if per_channel
            else (AffineConstantExpr(0),) * len(shapes.sizes(op.w_scale))
        )
        scales = [
            per_tensor(op, rewriter, shapes, op.x_scale, rank, "x_scale"),
            (buffer_of(rewriter, op.w_scale), AffineMap(rank, 0, w_read)),
            per_tensor(op, rewriter, shapes, op.y_scale, rank, "y_scale"),
        ]
        zero_point = per_tensor(op, rewriter, shapes, op.y_zero_point, rank, "y_zero_point")
        output = alloc(rewriter, op.y.type, conv.sizes)
        requantize(rewriter, op, acc, output, scales, zero_point)
        self.replace(rewriter, op, [output])
