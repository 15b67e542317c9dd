"""Matrix products: `onnx.MatMul` and `onnx.Gemm`.

Both become an initialisation of the output buffer (`linalg.fill` with zero, or
the broadcast bias) followed by one `linalg.generic` whose last loop is the
reduction over the shared dimension K, accumulating into the output.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
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
    broadcast_map,
    buffer_of,
    fill,
    float_constant,
    float_element,
    generic,
    identity_map,
    is_none,
    replace_with_buffers,
    shape_of,
    unsupported,
)


def _multiply_add(alpha: float = 1.0) -> BodyBuilder:
    """Body `acc + a * b` (times `alpha` when it is not 1)."""

    def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        x, y, acc = args
        product = b.insert(arith.MulfOp(x, y)).result
        if alpha != 1.0:
            scale = float_constant(b, alpha, product.type)
            product = b.insert(arith.MulfOp(product, scale)).result
        return b.insert(arith.AddfOp(acc, product)).result

    return body


class MatMulOpLowering(RewritePattern):
    """`onnx.MatMul` with numpy semantics: a 1-D first operand is a row vector
    and a 1-D second operand a column vector (the promoted dimension is not in
    the result), leading batch dimensions broadcast against each other. Lowered
    to a zero fill and a generic over (batch..., M, N, K) with K a reduction.
    Scalar (0-D) operands, which the spec forbids, and non-float types are
    rejected."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.MatMulOp, rewriter: PatternRewriter) -> None:
        float_element(op)
        a, b = op.operands
        a_shape, b_shape = shape_of(a), shape_of(b)
        if not a_shape or not b_shape:
            raise unsupported(op, "scalar operands are not valid for MatMul")
        result_type = op.results[0].type
        out_shape = shape_of(op.results[0])
        a_matrix, b_matrix = len(a_shape) > 1, len(b_shape) > 1
        batch_rank = len(out_shape) - a_matrix - b_matrix
        batch = out_shape[:batch_rank]
        # Loop dims: batch..., M (if A is a matrix), N (if B is), then K.
        loops = len(out_shape) + 1
        m_dim = AffineDimExpr(batch_rank)
        n_dim = AffineDimExpr(batch_rank + a_matrix)
        k_dim = AffineDimExpr(loops - 1)

        def operand_map(shape: tuple[int, ...], rows: list[AffineExpr]) -> AffineMap:
            batch_results = broadcast_map(shape[: len(shape) - 2], batch).results
            return AffineMap(loops, 0, (*batch_results, *rows))

        a_map = operand_map(a_shape, [m_dim, k_dim] if a_matrix else [k_dim])
        b_map = operand_map(b_shape, [k_dim, n_dim] if b_matrix else [k_dim])
        out_map = AffineMap(loops, 0, identity_map(loops - 1).results)
        buffers = [buffer_of(rewriter, a), buffer_of(rewriter, b)]
        output = alloc(rewriter, result_type)
        fill(rewriter, op, output, 0.0)
        generic(
            rewriter,
            op,
            buffers,
            [output],
            [a_map, b_map, out_map],
            [PARALLEL] * (loops - 1) + [REDUCTION],
            _multiply_add(),
        )
        replace_with_buffers(rewriter, op, [output])


class GemmOpLowering(RewritePattern):
    """`onnx.Gemm`: Y = alpha * A' B' + beta * C, with A' = A^T when `transA`,
    B' = B^T when `transB`, and the optional C broadcast unidirectionally to
    (M, N). The output is first set to beta * C (or zero when C is absent or
    beta is 0), then a generic over (M, N, K) accumulates alpha * a * b. A and B
    must be 2-D float tensors."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.GemmOp, rewriter: PatternRewriter) -> None:
        float_element(op)
        a, b, c = op.operands
        if len(shape_of(a)) != 2 or len(shape_of(b)) != 2:
            raise unsupported(op, "A and B must be 2-D")
        alpha, beta = float(op.attr("alpha")), float(op.attr("beta"))
        m, n, k = AffineDimExpr(0), AffineDimExpr(1), AffineDimExpr(2)
        a_map = AffineMap(3, 0, (k, m) if op.attr("transA") else (m, k))
        b_map = AffineMap(3, 0, (n, k) if op.attr("transB") else (k, n))
        out_map = AffineMap(3, 0, (m, n))
        result_type = op.results[0].type
        out_shape = shape_of(op.results[0])
        buffers = [buffer_of(rewriter, a), buffer_of(rewriter, b)]
        output = alloc(rewriter, result_type)
        if is_none(c) or beta == 0.0:
            fill(rewriter, op, output, 0.0)
        else:
            c_buffer = buffer_of(rewriter, c)

            def scaled_bias(builder: Builder, args: Sequence[SSAValue]) -> SSAValue:
                if beta == 1.0:
                    return args[0]
                scale = float_constant(builder, beta, args[0].type)
                return builder.insert(arith.MulfOp(args[0], scale)).result

            generic(
                rewriter,
                op,
                [c_buffer],
                [output],
                [broadcast_map(shape_of(c_buffer), out_shape), identity_map(2)],
                [PARALLEL] * 2,
                scaled_bias,
            )
        generic(
            rewriter,
            op,
            buffers,
            [output],
            [a_map, b_map, out_map],
            [PARALLEL, PARALLEL, REDUCTION],
            _multiply_add(alpha),
        )
        replace_with_buffers(rewriter, op, [output])
