"""com.microsoft matrix products: FusedMatMul (and TransposeMatMul, its
older name without the batch attributes) as the default-domain MatMul of
operands transposed first, times alpha.

Semantics (onnxruntime's CPU kernel, `MatMulComputeHelper`): transBatchA
reads A [d0, b1, ..., bk, dn] as [b1, ..., bk, d0, dn] (its first axis moved
in front of the last), then transA swaps A's last two axes; the same for B;
Y = alpha * numpy.matmul(A', B'). transA and transB are ignored on a 1-D
operand, and the batch attributes need operands of rank 3 or more.

Expansions see no ranks, so a transposition is an Einsum whose `...` stands
for the axes it keeps (`...ab->...ba`, `ab...c->b...ac`): a copy, as a
Transpose would be, and evaluated at compile time on a weight. It refuses
what its equation does not fit: a batch attribute on an operand of rank 2,
and transA or transB on a 1-D operand (which onnxruntime ignores)."""

from __future__ import annotations

from onnxc.frontend.expansions.expander import Expander, Expansions

_EQUATIONS = {
    (True, False): "...ab->...ba",
    (False, True): "ab...c->b...ac",
    (True, True): "ab...c->b...ca",
}
"""The Einsum that transposes an operand, by (trans, batch)."""


def _operand(x: Expander, index: int, what: str) -> str:
    """Input `index` (`what`, "A" or "B") transposed as transA/transB and
    transBatchA/transBatchB say (TransposeMatMul has no batch attributes)."""
    name = x.needed(index, what)
    trans = bool(x.int_attribute(f"trans{what}", 0))
    batch = bool(x.int_attribute(f"transBatch{what}", 0))
    if not trans and not batch:
        return name
    return x.op("Einsum", name, equation=_EQUATIONS[trans, batch])


def _fused_matmul(x: Expander) -> None:
    """Y = alpha * op(A) @ op(B) (see the module docstring): alpha scales
    the product, as onnxruntime's GEMM does."""
    a, b = _operand(x, 0, "A"), _operand(x, 1, "B")
    alpha = x.float_attribute("alpha", 1.0)
    if alpha == 1.0:
        x.add("MatMul", [a, b], [x.node.output[0]])
        return
    product = x.op("MatMul", a, b)
    x.add("Mul", [product, x.like(alpha, product, "alpha")], [x.node.output[0]])


EXPANSIONS: Expansions = {"FusedMatMul": _fused_matmul, "TransposeMatMul": _fused_matmul}
