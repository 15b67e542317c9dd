"""Matrix products: `onnx.MatMul` and `onnx.Gemm`.

Both become an initialisation of the output buffer (`linalg.fill` with zero, or
the broadcast bias) followed by one `linalg.generic` whose last loop is the
reduction over the shared dimension K, accumulating into the output.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
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


class MatMulOpLowering(OnnxLowering[onnx.MatMulOp]):
    """`onnx.MatMul` with numpy semantics: a 1-D first operand is a row vector
    and a 1-D second operand a column vector (the promoted dimension is not in
    the result), leading batch dimensions broadcast against each other. Lowered
    to a zero fill and a generic over (batch..., M, N, K) with K a reduction.
    Scalar (0-D) operands, which the spec forbids, are rejected."""

    def rewrite(self, op: onnx.MatMulOp, rewriter: PatternRewriter) -> None:
        a, b = op.operands
        a_shape, b_shape = self.shapes.sizes(a), self.shapes.sizes(b)
        if not a_shape or not b_shape:
            raise unsupported(op, "scalar operands are not valid for MatMul")
        result_type = op.results[0].type
        a_matrix, b_matrix = len(a_shape) > 1, len(b_shape) > 1
        batch_rank = len(shape_of(op.results[0])) - a_matrix - b_matrix
        a_batch, b_batch = a_shape[: len(a_shape) - 2], b_shape[: len(b_shape) - 2]
        computed: list[Size] = []
        for axis in range(batch_rank):
            size: Size = 1
            for sizes in (a_batch, b_batch):
                if axis >= batch_rank - len(sizes):
                    size = self.shapes.broadcast(size, sizes[axis - batch_rank + len(sizes)])
            computed.append(size)
        computed += [a_shape[-2]] if a_matrix else []
        computed += [b_shape[-1]] if b_matrix else []
        out_shape = self.shapes.result_sizes(op.results[0], computed)
        batch = out_shape[:batch_rank]
        # Loop dims: batch..., M (if A is a matrix), N (if B is), then K.
        loops = len(out_shape) + 1
        m_dim = batch_rank
        n_dim = batch_rank + a_matrix
        k_dim = loops - 1
        operands = [
            (a, a_shape, [m_dim, k_dim] if a_matrix else [k_dim]),
            (b, b_shape, [k_dim, n_dim] if b_matrix else [k_dim]),
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
            reads = broadcast_reads(rewriter, self.shapes, op, what, sizes, batch)
            buffer = buffer_of(rewriter, value)
            if any(r is None for r in reads):
                loaded.append((k, buffer, list(sizes), [r is None for r in reads], rows))
            exprs = [AffineConstantExpr(0) if r is None else r for r in reads]
            buffers.append(buffer)
            maps.append(AffineMap(loops, 0, (*exprs, *(AffineDimExpr(d) for d in rows))))
        out_map = AffineMap(loops, 0, identity_map(loops - 1).results)
        output = alloc(rewriter, result_type, out_shape)
        acc = accumulator(rewriter, output, out_shape)
        fill(rewriter, op, acc.buffer, 0.0)
        multiply_add = _multiply_add()

        def body(builder: Builder, args: Sequence[SSAValue]) -> SSAValue:
            values = list(args)
            index = [builder.insert(IndexOp(d)).result for d in range(loops)]
            for k, buffer, sizes, ambiguous, rows in loaded:
                at = broadcast_indices(builder, self.shapes, sizes, ambiguous, index[:batch_rank])
                at += [index[d] for d in rows]
                values[k] = builder.insert(memref.LoadOp.get(buffer, at)).res
            return multiply_add(builder, values)

        generic(
            rewriter,
            op,
            buffers,
            [acc.buffer],
            [*maps, out_map],
            [PARALLEL] * (loops - 1) + [REDUCTION],
            body if loaded else multiply_add,
        )
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
