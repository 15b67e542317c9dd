"""onnxruntime's com.microsoft FusedMatMul (and TransposeMatMul) compiled
through their default-domain expansions (Einsum transpositions, MatMul, a
Mul by alpha).

Each attribute (alpha, transA, transB, transBatchA, transBatchB) alone and
together, broadcast batches, a weight as an initializer, float64, and free
dimensions compiled once and run at two sizes, compared with onnxruntime's
CPU kernel at rtol and atol 1e-5 (float32 products of at most 8 terms: the
differences seen are a few units of 1e-7).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from tests.e2e.contrib_ops import (
    F64,
    Case,
    Dim,
    F,
    assert_refused_in_one_line,
    assert_runs_match_onnxruntime,
    contrib_model,
)

RNG = np.random.default_rng(12)


def floats(shape: Sequence[int], dtype: type = np.float32) -> np.ndarray:
    return RNG.standard_normal(tuple(shape)).astype(dtype)


def product(
    a: Sequence[Dim],
    b: Sequence[Dim],
    y: Sequence[Dim],
    sizes: Sequence[dict[str, int]] = ({},),
    op: str = "FusedMatMul",
    weight: bool = False,
    element: int = F,
    **attributes: Any,
) -> Case:
    """`op` of A of shape `a` and B of shape `b` giving Y of shape `y`; one
    run per binding of the dim_params in `sizes`; B an initializer when
    `weight`."""
    dtype = np.float64 if element == F64 else np.float32

    def sized(shape: Sequence[Dim], bound: dict[str, int]) -> list[int]:
        return [bound[d] if isinstance(d, str) else d for d in shape]

    weights = {"b": floats(sized(b, {}), dtype)} if weight else {}
    model = contrib_model(
        op, [("a", element, a), ("b", element, b)], [("y", element, y)], attributes, weights
    )
    runs = [
        {
            "a": floats(sized(a, bound), dtype),
            **({} if weight else {"b": floats(sized(b, bound), dtype)}),
        }
        for bound in sizes
    ]
    return Case(model, runs)


TWO = [{"batch": 2, "seq": 3}, {"batch": 1, "seq": 5}]
"""Two bindings of the free dimensions."""

CASES: dict[str, Case] = {
    "plain": product([3, 4], [4, 5], [3, 5]),
    "alpha": product([2, 3, 4], [4, 5], [2, 3, 5], alpha=0.125),
    "trans_a": product([4, 3], [4, 5], [3, 5], transA=1),
    "trans_b_broadcast": product([2, 1, 3, 4], [3, 5, 4], [2, 3, 3, 5], transB=1),
    "trans_both_alpha": product([2, 4, 3], [2, 5, 4], [2, 3, 5], transA=1, transB=1, alpha=-2.5),
    "trans_batch_a": product([3, 2, 4], [2, 4, 5], [2, 3, 5], transBatchA=1),
    "trans_batch_a_rank_4": product([3, 2, 6, 4], [2, 6, 4, 5], [2, 6, 3, 5], transBatchA=1),
    "trans_batch_a_trans_a": product([4, 2, 3], [2, 4, 5], [2, 3, 5], transBatchA=1, transA=1),
    "trans_batch_b_trans_b": product(
        [2, 3, 4], [5, 2, 4], [2, 3, 5], transBatchB=1, transB=1, alpha=0.5
    ),
    "trans_batch_both": product([3, 2, 4], [4, 2, 5], [2, 3, 5], transBatchA=1, transBatchB=1),
    "weight_trans_b": product([2, 3, 8], [6, 8], [2, 3, 6], weight=True, transB=1),
    "attention_scores_dynamic": product(
        ["batch", 2, "seq", 4],
        ["batch", 2, "seq", 4],
        ["batch", 2, "seq", "seq"],
        TWO,
        transB=1,
        alpha=0.5,
    ),
    "weight_dynamic": product(
        ["batch", "seq", 8], [6, 8], ["batch", "seq", 6], TWO, weight=True, transB=1, alpha=2.0
    ),
    "transpose_matmul": product(
        [2, 4, 3], [2, 5, 4], [2, 3, 5], op="TransposeMatMul", transA=1, transB=1, alpha=0.25
    ),
    "double": product([2, 4, 3], [4, 5], [2, 3, 5], element=F64, transA=1, alpha=3.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_onnxruntime(name: str) -> None:
    case = CASES[name]
    assert_runs_match_onnxruntime(case.model, case.runs, case.rtol, case.atol)


def test_malformed_nodes_are_refused_in_one_line() -> None:
    """A missing B, a transA that is not an integer, and transBatchA on a
    matrix (onnxruntime refuses it too) each stop the compile in one line."""
    a, y = ("a", F, [3, 4]), ("y", F, [3, 5])
    assert_refused_in_one_line(
        contrib_model("FusedMatMul", [a], [y]),
        r"node 'FusedMatMul' \(FusedMatMul\): its input 1 \(B\) is required",
    )
    b = ("b", F, [4, 5])
    assert_refused_in_one_line(
        contrib_model("FusedMatMul", [a, b], [y], {"transA": 0.5}),
        r"node 'FusedMatMul' \(FusedMatMul\): it needs an integer attribute 'transA'",
    )
    assert_refused_in_one_line(
        contrib_model("FusedMatMul", [a, b], [y], {"transBatchA": 1}),
        r"FusedMatMul_Einsum.*Rank 2 is less than term size 3",
    )
