"""onnxruntime's com.microsoft MatMulNBits compiled through its expansion
(the weights unpacked to a 2-, 4- or 8-bit type, the default
DequantizeLinear by blocks, MatMul), against onnxruntime 1.32's CPU kernel.

4-bit weights with and without zero points (packed uint8, whole numbers
and fractions of the scales' type), 2 and 8 bits, K not a multiple of
block_size, a bias, 1-D to 3-D A, computed scales, float16, free batch and
sequence sizes compiled once and run at two sizes, and the malformed nodes
refused in one line.

Tolerances: float32 at rtol and atol 1e-5 (sums of K <= 96 products: the
differences seen are at most 2e-6, on outputs up to 10); float16 at rtol
and atol 2e-2: onnxruntime dequantizes and accumulates in float and rounds
once, the expansion rounds each dequantized weight to float16 (as
DequantizeLinear of float16 scales does), which moves an output near 10
by a unit or two in its last place (7.8e-3 at most seen). accuracy_level 4
lets onnxruntime quantize A to 8 bits by blocks: that case is compared at
5e-2 (the differences seen reach 4e-2 where the expansion is exact).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from tests.e2e.contrib_ops import (
    F16,
    NONE,
    Case,
    Dim,
    F,
    Value,
    assert_refused_in_one_line,
    assert_runs_match_onnxruntime,
    contrib_model,
)

RNG = np.random.default_rng(31)
U8 = 2


def matmul_nbits(
    k: int,
    n: int,
    block_size: int,
    bits: int = 4,
    zero_points: str = "",
    bias: bool = False,
    rows: Sequence[Dim] = (3,),
    sizes: Sequence[dict[str, int]] = ({},),
    element: int = F,
    scales_input: bool = False,
    **attributes: Any,
) -> Case:
    """MatMulNBits of A (*rows, k) by a random (n, k) weight of `bits` bits
    in blocks of `block_size`, with `zero_points` ("packed" uint8, "whole"
    or "fractions" of the scales' type, none by default) and a bias; the
    scales a graph input when `scales_input`; one run per binding of the
    dim_params of `rows` in `sizes`."""
    dtype = np.float16 if element == F16 else np.float32
    blocks = -(-k // block_size)
    packed = RNG.integers(0, 256, (n, blocks, block_size * bits // 8)).astype(np.uint8)
    weights: dict[str, np.ndarray] = {"B": packed}
    scales = (RNG.random((n, blocks)) * 0.2 + 0.01).astype(dtype)
    if not scales_input:
        weights["scales"] = scales
    levels = {
        "packed": RNG.integers(0, 256, (n, -(-blocks * bits // 8))).astype(np.uint8),
        "whole": RNG.integers(0, 2**bits, (n, blocks)).astype(dtype),
        "fractions": (RNG.random((n, blocks)) * (2**bits - 1)).astype(dtype),
    }
    if zero_points:
        weights["zero_points"] = levels[zero_points]
    if bias:
        weights["bias"] = RNG.standard_normal(n).astype(dtype)
    inputs: list[Value] = [
        ("A", element, [*rows, k]),
        ("B", U8, list(packed.shape)),
        ("scales", element, [n, blocks]),
        ("zero_points", U8 if zero_points == "packed" else element, [n, blocks])
        if zero_points
        else NONE,
        NONE,
        ("bias", element, [n]) if bias else NONE,
    ]
    model = contrib_model(
        "MatMulNBits",
        inputs,
        [("Y", element, [*rows, n])],
        {"K": k, "N": n, "bits": bits, "block_size": block_size, **attributes},
        weights,
    )

    def shape(bound: dict[str, int]) -> tuple[int, ...]:
        return tuple(bound[d] if isinstance(d, str) else d for d in [*rows, k])

    runs = [
        {
            "A": RNG.standard_normal(shape(bound)).astype(dtype),
            **({"scales": scales} if scales_input else {}),
        }
        for bound in sizes
    ]
    tolerance = 2e-2 if element == F16 else 1e-5
    return Case(model, runs, tolerance, tolerance)


TWO = [{"batch": 2, "seq": 3}, {"batch": 1, "seq": 5}]

CASES: dict[str, Case] = {
    "four_bits": matmul_nbits(64, 8, 32),
    "four_bits_packed_zero_points": matmul_nbits(64, 8, 16, zero_points="packed"),
    "four_bits_odd_k_bias": matmul_nbits(40, 5, 16, zero_points="packed", bias=True),
    "four_bits_odd_blocks_zero_points": matmul_nbits(80, 3, 16, zero_points="packed"),
    "whole_zero_points_of_scale_type": matmul_nbits(48, 6, 16, zero_points="whole"),
    "fractional_zero_points": matmul_nbits(40, 5, 16, zero_points="fractions", bias=True),
    "k_below_one_block": matmul_nbits(20, 4, 32, zero_points="packed"),
    "eight_bits": matmul_nbits(40, 5, 16, bits=8, zero_points="packed"),
    "eight_bits_default_zero_point": matmul_nbits(96, 7, 32, bits=8),
    "two_bits": matmul_nbits(40, 5, 16, bits=2, zero_points="packed", bias=True),
    "vector_a": matmul_nbits(64, 8, 32, rows=()),
    "computed_scales": matmul_nbits(64, 8, 32, zero_points="packed", scales_input=True),
    "accuracy_level_1": matmul_nbits(64, 8, 32, zero_points="packed", accuracy_level=1),
    "dynamic": matmul_nbits(40, 6, 16, zero_points="packed", rows=["batch", "seq"], sizes=TWO),
    "dynamic_bias": matmul_nbits(64, 8, 32, bias=True, rows=["batch", "seq"], sizes=TWO),
    "float16": matmul_nbits(64, 8, 32, zero_points="packed", bias=True, element=F16),
    "float16_dynamic": matmul_nbits(
        40, 5, 16, zero_points="whole", rows=["batch", "seq"], sizes=TWO, element=F16
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_onnxruntime(name: str) -> None:
    case = CASES[name]
    assert_runs_match_onnxruntime(case.model, case.runs, case.rtol, case.atol)


def test_accuracy_level_4_stays_close() -> None:
    """onnxruntime quantizes A to 8 bits at accuracy_level 4; the expansion
    ignores the level and computes in float, within 5e-2 of it."""
    case = matmul_nbits(64, 8, 32, zero_points="packed", accuracy_level=4)
    assert_runs_match_onnxruntime(case.model, case.runs, 5e-2, 5e-2)


def _refused(inputs: list[Value], weights: dict[str, np.ndarray], **attributes: Any) -> Any:
    base = {"K": 32, "N": 2, "bits": 4, "block_size": 16}
    return contrib_model("MatMulNBits", inputs, [("Y", F, [3, 2])], {**base, **attributes}, weights)


A: Value = ("A", F, [3, 32])
B: Value = ("B", U8, [2, 2, 8])
SCALES: Value = ("scales", F, [2, 2])
PACKED = {"B": np.zeros((2, 2, 8), np.uint8), "scales": np.ones((2, 2), np.float32)}


@pytest.mark.parametrize(
    ("inputs", "weights", "attributes", "message"),
    [
        ([A, B, SCALES], {}, {}, r"input 1 \(B\) must be an initializer"),
        ([A, B, SCALES, NONE, ("g_idx", 6, [32])], PACKED, {}, r"input 4 \(g_idx"),
        ([A, B, SCALES], PACKED, {"bits": 3}, "bits 3 is not supported"),
        ([A, B, SCALES], PACKED, {"K": 40}, "B must be uint8"),
        ([A, B, SCALES], PACKED, {"weight_prepacked": 1}, "weight_prepacked"),
        (
            [A, B, SCALES, ("zero_points", U8, [2, 1])],
            PACKED,
            {},
            r"input 3 \(zero_points\) must be an initializer",
        ),
        (
            [A, B, SCALES, ("zero_points", U8, [2, 3])],
            {**PACKED, "zero_points": np.zeros((2, 3), np.uint8)},
            {},
            r"packed zero_points must be \(N 2, 1\)",
        ),
        (
            [A, B, ("scales", F, [2, 3])],
            {**PACKED, "scales": np.ones((2, 3), np.float32)},
            {},
            "scales must hold",
        ),
    ],
)
def test_malformed_nodes_are_refused_in_one_line(
    inputs: list[Value], weights: dict[str, np.ndarray], attributes: dict[str, Any], message: str
) -> None:
    model = _refused(inputs, weights, **attributes)
    assert_refused_in_one_line(model, f"node 'MatMulNBits' .*{message}")
