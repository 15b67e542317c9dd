"""onnxruntime's com.microsoft activations (Gelu, FastGelu, BiasGelu,
QuickGelu, BiasAdd) compiled through their default-domain expansions.

Each is compared with onnxruntime's CPU kernel (float32, the only type they
have there) at rtol and atol 1e-5 (the differences seen are a few units of
1e-7): at static shapes, and with free batch and sequence dimensions
compiled once and run at two sizes. BiasAdd has no CPU kernel in
onnxruntime (nor in onnx.reference): it is compared with its definition,
(X + bias) + skip, which float32 computes exactly alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

import onnxc
from tests.e2e.contrib_ops import (
    Case,
    Dim,
    F,
    assert_refused_in_one_line,
    assert_runs_match_onnxruntime,
    contrib_model,
)

RNG = np.random.default_rng(11)
H = 16
SIZES = [(2, 3), (1, 5)]
"""(batch, sequence) of the runs of a model with free dimensions."""


def floats(*shape: int) -> np.ndarray:
    return (3.0 * RNG.standard_normal(shape)).astype(np.float32)


def activation(op: str, bias: bool, dynamic: bool, **attributes: Any) -> Case:
    """`op` over x [batch, seq, H] (and bias [H] when `bias`)."""
    sizes = SIZES if dynamic else SIZES[:1]
    shape: list[Dim] = ["batch", "seq", H] if dynamic else [*sizes[0], H]
    inputs = [("x", F, shape), *([("bias", F, [H])] if bias else [])]
    model = contrib_model(op, inputs, [("y", F, shape)], attributes)
    runs = [{"x": floats(b, s, H), **({"bias": floats(H)} if bias else {})} for b, s in sizes]
    return Case(model, runs)


CASES: dict[str, Case] = {
    "gelu": activation("Gelu", bias=False, dynamic=False),
    "gelu_dynamic": activation("Gelu", bias=False, dynamic=True),
    "fast_gelu": activation("FastGelu", bias=False, dynamic=False),
    "fast_gelu_bias_dynamic": activation("FastGelu", bias=True, dynamic=True),
    "bias_gelu": activation("BiasGelu", bias=True, dynamic=False),
    "bias_gelu_dynamic": activation("BiasGelu", bias=True, dynamic=True),
    "quick_gelu_default_alpha": activation("QuickGelu", bias=False, dynamic=False),
    "quick_gelu_alpha_1_dynamic": activation("QuickGelu", bias=False, dynamic=True, alpha=1.0),
    "quick_gelu_negative_alpha": activation("QuickGelu", bias=False, dynamic=False, alpha=-0.75),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_onnxruntime(name: str) -> None:
    case = CASES[name]
    assert_runs_match_onnxruntime(case.model, case.runs, case.rtol, case.atol)


@pytest.mark.parametrize("shape", [[2, 3, H], ["batch", "seq", H]])
def test_bias_add_is_its_definition(shape: Sequence[Dim]) -> None:
    """(X + bias) + skip, exactly (onnxruntime has no CPU kernel)."""
    inputs = [("x", F, shape), ("bias", F, [H]), ("skip", F, shape)]
    compiled = onnxc.compile(contrib_model("BiasAdd", inputs, [("y", F, shape)]), cache=False)
    for b, s in SIZES if isinstance(shape[0], str) else SIZES[:1]:
        x, bias, skip = floats(b, s, H), floats(H), floats(b, s, H)
        got = compiled.run({"x": x, "bias": bias, "skip": skip})["y"]
        np.testing.assert_array_equal(got, (x + bias) + skip)


def test_malformed_nodes_are_refused_in_one_line() -> None:
    """A missing required input, or an attribute of the wrong type, names
    the node and what is wrong."""
    x = ("x", F, [2, H])
    assert_refused_in_one_line(
        contrib_model("BiasGelu", [x], [("y", F, [2, H])]),
        r"node 'BiasGelu' \(BiasGelu\): its input 1 \(B\) is required",
    )
    assert_refused_in_one_line(
        contrib_model("QuickGelu", [x], [("y", F, [2, H])], {"alpha": "fast"}),
        r"node 'QuickGelu' \(QuickGelu\): it needs a float attribute 'alpha'",
    )
