"""The blocked layout kept across a Concat along the channels (SqueezeNet's
Fire module: two expand convolutions concatenated, read by the next squeeze
convolution) and across a Squeeze-and-Excitation gate's broadcast Mul, so
that a run of kernels reorders only at its ends; against onnxruntime
(`conv_graphs.matches_onnxruntime`), on host, host-portable and the
Cortex-M4 (whose blocks are smaller, so other channel counts line up)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import pytest

from tests.e2e.conv_graphs import ConvGraph, matches_onnxruntime
from tests.mcu.tools import needs_arm

RNG = np.random.default_rng(11)
SIZE = 9


def _relu_conv(g: ConvGraph, x: str, name: str, cin: int, cout: int, k: int) -> str:
    return g.node("Relu", [g.conv(x, name, cin, cout, k)], f"{name}_relu")


def _fire(squeeze: int, expand: int) -> onnx.ModelProto:
    """Two Fire modules, the second reading the first's Concat."""
    g = ConvGraph(RNG)
    x, cin = "x", 24
    for k in range(2):
        s = _relu_conv(g, x, f"squeeze{k}", cin, squeeze, 1)
        a = _relu_conv(g, s, f"expand1_{k}", squeeze, expand, 1)
        b = _relu_conv(g, s, f"expand3_{k}", squeeze, expand, 3)
        x, cin = g.node("Concat", [a, b], f"cat{k}", axis=1), 2 * expand
    head = g.conv(x, "head", cin, 8, 1)
    return g.model([1, 24, SIZE, SIZE], head, [1, 8, SIZE, SIZE])


def _excite() -> onnx.ModelProto:
    """A convolution scaled by its Squeeze-and-Excitation gate, then
    concatenated with another convolution of the input (axis spelled -3)."""
    g = ConvGraph(RNG)
    y = _relu_conv(g, "x", "conv", 32, 32, 3)
    pooled = g.node("GlobalAveragePool", [y], "pool")
    reduced = _relu_conv(g, pooled, "reduce", 32, 8, 1)
    gate = g.node("Sigmoid", [g.conv(reduced, "expand", 8, 32, 1)], "gate")
    scaled = g.node("Mul", [gate, y], "excite")
    other = _relu_conv(g, "x", "other", 32, 32, 1)
    cat = g.node("Concat", [scaled, other], "cat", axis=-3)
    head = g.conv(cat, "head", 64, 16, 1)
    return g.model([1, 32, SIZE, SIZE], head, [1, 16, SIZE, SIZE])


MODELS: dict[str, Callable[[], onnx.ModelProto]] = {
    "fire-64": lambda: _fire(16, 64),
    "fire-16": lambda: _fire(8, 16),
    "fire-odd": lambda: _fire(8, 12),  # blocks with padding lanes on the host: stays NCHW
    "excite": _excite,
}


@pytest.mark.parametrize("target", ["host", "host-portable"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_matches_onnxruntime(name: str, target: str) -> None:
    source = matches_onnxruntime(MODELS[name](), target, RNG)
    if name != "fire-odd":  # one reorder in, one out: none around the Concats and the gate
        assert source.count("/* Block ") == 1
        assert source.count("/* Unblock ") == 1


@needs_arm
@pytest.mark.parametrize("name", ["fire-64", "excite"])
def test_on_cortex_m4(name: str) -> None:
    matches_onnxruntime(MODELS[name](), "cortex-m4", RNG)
