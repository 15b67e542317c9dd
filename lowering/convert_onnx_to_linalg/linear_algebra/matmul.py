"""Matrix products: `onnx.MatMul` and `onnx.Gemm`, and the loop structure the
quantized products (MatMulInteger, QLinearMatMul in qlinear.py) share.

Both become an initialisation of the output buffer (`linalg.fill` with zero, or
the broadcast bias) followed by one `linalg.generic` whose last loop is the
reduction over the shared dimension K, accumulating into the output. MatMul's
generic is `accumulate_product`, whose `Term` (what one pair of elements adds)
and extra inputs the quantized products replace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
)

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    accumulator,
    alloc,
    broadcast_indices,
    broadcast_into,
    broadcast_reads,
    buffer_of,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    shape_of,
    tensor_type,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size


def _multiply_add(alpha: float = 1.0) -> scalar.Emit:
    """Body `acc + a * b` (times `alpha` when it is not 1), in the element
    type's arithmetic (integers wrap)."""

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        acc = args[2]
        x, y = widened(b, args[:2], acc.type)
        product = scalar.MUL(b, x, y)
        if alpha != 1.0:
            product = scalar.MUL(b, product, constant(b, alpha, product.type))
        return scalar.ADD(b, acc, product)

    return body


def _integral_scale(op: onnx.OnnxOp, name: str, value: float) -> None:
    """Integer Gemm scales by alpha and beta in its own type: they must be whole."""
    element = tensor_type(op.results[0]).get_element_type()
    if scalar.kind(element) is not Kind.FLOAT and value != int(value):
        raise unsupported(op, f"{name} = {value} on integer tensors (only whole numbers)")


@dataclass(frozen=True)
class MatrixProduct:
    """The loops of a numpy matmul of `a` by `b` (MatMul, and the quantized
    products in qlinear.py): (batch..., M, N, K), without M when `a` is a
    vector and without N when `b` is; K, the last, is the reduction. `sizes`
    are the result's, `batch_rank` the number of broadcast batch dims."""

    a: SSAValue
    b: SSAValue
    a_sizes: list[Size]
    b_sizes: list[Size]
    sizes: list[Size]
    batch_rank: int
    a_matrix: bool
    b_matrix: bool

    @property
    def loops(self) -> int:
        return len(self.sizes) + 1

    @property
    def m_dim(self) -> int:
        return self.batch_rank

    @property
    def n_dim(self) -> int:
        return self.batch_rank + self.a_matrix

    @property
    def k_dim(self) -> int:
        return self.loops - 1


def matrix_product(
    op: onnx.OnnxOp, shapes: Shapes, a: SSAValue, b: SSAValue, result: SSAValue
) -> MatrixProduct:
    """The `MatrixProduct` of `a` by `b` giving `result` (whose symbols it
    binds). Scalar (0-D) operands, which the spec forbids, are rejected."""
    a_shape, b_shape = shapes.sizes(a), shapes.sizes(b)
    if not a_shape or not b_shape:
        raise unsupported(op, "scalar operands are not valid for a matrix product")
    a_matrix, b_matrix = len(a_shape) > 1, len(b_shape) > 1
    batch_rank = len(shape_of(result)) - a_matrix - b_matrix
    a_batch, b_batch = a_shape[: len(a_shape) - 2], b_shape[: len(b_shape) - 2]
    computed: list[Size] = []
    for axis in range(batch_rank):
        size: Size = 1
        for sizes in (a_batch, b_batch):
            if axis >= batch_rank - len(sizes):
                size = shapes.broadcast(size, sizes[axis - batch_rank + len(sizes)])
        computed.append(size)
    computed += [a_shape[-2]] if a_matrix else []
    computed += [b_shape[-1]] if b_matrix else []
    sizes = shapes.result_sizes(result, computed)
    return MatrixProduct(a, b, a_shape, b_shape, sizes, batch_rank, a_matrix, b_matrix)


Term = Callable[[Builder, SSAValue, SSAValue, Sequence[SSAValue], Attribute], SSAValue]
"""What one pair of elements of a product adds to the accumulator: gets the
element of `a`, the element of `b`, the elements of the extra inputs there,
and the accumulator's type."""


def multiply(
    b: Builder, x: SSAValue, y: SSAValue, extras: Sequence[SSAValue], t: Attribute
) -> SSAValue:
    """The `Term` x * y, in the accumulator's type `t` (integers wrap)."""
    x, y = widened(b, [x, y], t)
    return scalar.MUL(b, x, y)


def accumulate_product(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    product: MatrixProduct,
    acc: SSAValue,
    term: Term = multiply,
    extras: Sequence[tuple[SSAValue, AffineMap]] = (),
) -> None:
    """Add `term` of every pair (a, b) of `product` into `acc` (a buffer of
    the result's sizes, initialised by the caller): one generic over the
    product's loops, K a reduction. `extras` are more input buffers, read
    through their maps over those loops, whose elements `term` gets."""
    loops, batch_rank = product.loops, product.batch_rank
    batch = product.sizes[:batch_rank]
    operands = [
        (
            product.a,
            product.a_sizes,
            [product.m_dim, product.k_dim] if product.a_matrix else [product.k_dim],
        ),
        (
            product.b,
            product.b_sizes,
            [product.k_dim, product.n_dim] if product.b_matrix else [product.k_dim],
        ),
    ]
    # An operand whose batch sizes may or may not be 1 (known at run time)
    # is loaded in the body at `size == 1 ? 0 : index`; it stays an input
    # (read at 0 along those axes) so every loop has a bound.
    buffers: list[SSAValue] = []
    maps: list[AffineMap] = []
    loaded: list[tuple[int, SSAValue, list[Size], list[bool], list[int]]] = []
    for k, (value, shape, rows) in enumerate(operands):
        sizes = shape[: len(shape) - len(rows)]
        what = f"input {k}'s batch dimensions"
        reads = broadcast_reads(rewriter, shapes, op, what, sizes, batch)
        buffer = buffer_of(rewriter, value)
        if any(r is None for r in reads):
            loaded.append((k, buffer, list(sizes), [r is None for r in reads], rows))
        exprs = [AffineConstantExpr(0) if r is None else r for r in reads]
        buffers.append(buffer)
        maps.append(AffineMap(loops, 0, (*exprs, *(AffineDimExpr(d) for d in rows))))
    out_map = AffineMap(loops, 0, identity_map(loops - 1).results)

    def body(builder: Builder, args: Sequence[SSAValue]) -> SSAValue:
        values = list(args)
        if loaded:
            index = [builder.insert(IndexOp(d)).result for d in range(loops)]
            for k, buffer, sizes, ambiguous, rows in loaded:
                at = broadcast_indices(builder, shapes, sizes, ambiguous, index[:batch_rank])
                at += [index[d] for d in rows]
                values[k] = builder.insert(memref.LoadOp.get(buffer, at)).res
        total = values[-1]
        added = term(builder, values[0], values[1], values[2:-1], total.type)
        return scalar.ADD(builder, total, added)

    generic(
        rewriter,
        op,
        [*buffers, *(buffer for buffer, _ in extras)],
        [acc],
        [*maps, *(m for _, m in extras), out_map],
        [PARALLEL] * (loops - 1) + [REDUCTION],
        body,
    )


class MatMulOpLowering(OnnxLowering[onnx.MatMulOp]):
    """`onnx.MatMul` with numpy semantics: a 1-D first operand is a row vector
    and a 1-D second operand a column vector (the promoted dimension is not in
    the result), leading batch dimensions broadcast against each other. Lowered
    to a zero fill and a generic over (batch..., M, N, K) with K a reduction
    (`accumulate_product`)."""

    def rewrite(self, op: onnx.MatMulOp, rewriter: PatternRewriter) -> None:
        product = matrix_product(op, self.shapes, op.A, op.B, op.results[0])
        output = alloc(rewriter, op.results[0].type, product.sizes)
        acc = accumulator(rewriter, output, product.sizes)
        fill(rewriter, op, acc.buffer, 0.0)
        accumulate_product(rewriter, self.shapes, op, product, acc.buffer)
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [output])


class GemmOpLowering(OnnxLowering[onnx.GemmOp]):
    """`onnx.Gemm`: Y = alpha * A' B' + beta * C, with A' = A^T when `transA`,
    B' = B^T when `transB`, and the optional C broadcast unidirectionally to
    (M, N). The output is first set to beta * C (or zero when C is absent or
    beta is 0), then a generic over (M, N, K) accumulates alpha * a * b. A and B
    must be 2-D; on integer tensors alpha and beta must be whole numbers."""

    def rewrite(self, op: onnx.GemmOp, rewriter: PatternRewriter) -> None:
        a, b, c = op.operands
        a_shape, b_shape = self.shapes.sizes(a), self.shapes.sizes(b)
        if len(a_shape) != 2 or len(b_shape) != 2:
            raise unsupported(op, "A and B must be 2-D")
        alpha, beta = float(op.attr("alpha")), float(op.attr("beta"))
        _integral_scale(op, "alpha", alpha)
        _integral_scale(op, "beta", beta)
        m, n, k = AffineDimExpr(0), AffineDimExpr(1), AffineDimExpr(2)
        a_map = AffineMap(3, 0, (k, m) if op.attr("transA") else (m, k))
        b_map = AffineMap(3, 0, (n, k) if op.attr("transB") else (k, n))
        out_map = AffineMap(3, 0, (m, n))
        result_type = op.results[0].type
        rows = a_shape[1] if op.attr("transA") else a_shape[0]
        columns = b_shape[0] if op.attr("transB") else b_shape[1]
        out_shape = self.shapes.result_sizes(op.results[0], [rows, columns])
        buffers = [buffer_of(rewriter, a), buffer_of(rewriter, b)]
        output = alloc(rewriter, result_type, out_shape)
        acc = accumulator(rewriter, output, out_shape)
        if is_none(c) or beta == 0.0:
            fill(rewriter, op, acc.buffer, 0.0)
        else:
            acc_type = element_type(acc.buffer)

            def scaled_bias(builder: Builder, args: Sequence[SSAValue]) -> SSAValue:
                (bias,) = widened(builder, args[:1], acc_type)
                if beta == 1.0:
                    return bias
                return scalar.MUL(builder, bias, constant(builder, beta, bias.type))

            broadcast_into(rewriter, self.shapes, op, scaled_bias, [c], acc.buffer)
        generic(
            rewriter,
            op,
            buffers,
            [acc.buffer],
            [a_map, b_map, out_map],
            [PARALLEL, PARALLEL, REDUCTION],
            _multiply_add(alpha),
        )
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [output])
