"""MatMul and Gemm lowerings, end to end against onnxruntime."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.lowering.test_elementwise import compare, one_node_model, random

pytest.importorskip("onnxruntime")

MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((2, 3, 4), (4, 5)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 6)),
    ((1, 3, 4), (2, 4, 2)),
    ((4,), (4,)),
]


@pytest.mark.parametrize(
    "a_shape,b_shape", MATMUL_SHAPES, ids=[f"{a}x{b}" for a, b in MATMUL_SHAPES]
)
def test_matmul(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> None:
    expected_shape = np.matmul(np.zeros(a_shape), np.zeros(b_shape)).shape
    model = one_node_model("MatMul", {"a": a_shape, "b": b_shape}, expected_shape)
    compare(model, {"a": random(a_shape), "b": random(b_shape)})


def test_matmul_constant_weight() -> None:
    weight = random((4, 3))
    model = one_node_model("MatMul", {"a": (2, 4)}, (2, 3), {"w": weight})
    compare(model, {"a": random((2, 4))})


GEMMS: list[tuple[str, tuple[int, ...] | None, dict[str, Any]]] = [
    ("plain", None, {}),
    ("bias-row", (5,), {}),
    ("bias-full", (3, 5), {}),
    ("bias-column", (3, 1), {}),
    ("bias-scalar", (), {}),
    ("transA", (5,), {"transA": 1}),
    ("transB", (1, 5), {"transB": 1}),
    ("both-scaled", (3, 5), {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0}),
    ("beta-zero", (5,), {"beta": 0.0}),
]


@pytest.mark.parametrize("c_shape,attributes", [g[1:] for g in GEMMS], ids=[g[0] for g in GEMMS])
def test_gemm(c_shape: tuple[int, ...] | None, attributes: dict[str, Any]) -> None:
    m, k, n = 3, 4, 5
    a_shape = (k, m) if attributes.get("transA") else (m, k)
    b_shape = (n, k) if attributes.get("transB") else (k, n)
    constants = {} if c_shape is None else {"c": random(c_shape)}
    model = one_node_model("Gemm", {"a": a_shape, "b": b_shape}, (m, n), constants, **attributes)
    compare(model, {"a": random(a_shape), "b": random(b_shape)})


def test_gemm_runtime_bias() -> None:
    model = one_node_model("Gemm", {"a": (3, 4), "b": (4, 5), "c": (3, 5)}, (3, 5))
    compare(model, {"a": random((3, 4)), "b": random((4, 5)), "c": random((3, 5))})
