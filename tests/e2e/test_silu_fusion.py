"""SiLU (x * Sigmoid(x), as exporters write it) fused: one Swish node
(`onnx-fuse-activations`), and a convolution's epilogue when it is the only
user of the convolution's result (`select-kernels`), computed by the
runtime's vectorisable `onnxc_sigmoidf`; against onnxruntime
(`conv_graphs.matches_onnxruntime`), on host, host-portable and the
Cortex-M4.

The cases: a SiLU after a dense convolution (both operand orders), after a
depthwise 5x5 one followed by a Squeeze-and-Excitation block (its gate,
Mul(x, Sigmoid(s)) of another tensor, is not a SiLU), a Sigmoid alone as a
convolution's activation, a SiLU whose input is also a residual (not the
convolution's only user), and a SiLU of a graph input (no kernel).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
import pytest

from tests.e2e.conv_graphs import ConvGraph, matches_onnxruntime
from tests.mcu.tools import needs_arm

RNG = np.random.default_rng(7)
C = 24
IMAGE = [1, C, 10, 10]


def _silu(g: ConvGraph, x: str, name: str, swapped: bool = False) -> str:
    gate = g.node("Sigmoid", [x], f"{name}_sigmoid")
    return g.node("Mul", [gate, x] if swapped else [x, gate], name)


def _dense(swapped: bool) -> onnx.ModelProto:
    g = ConvGraph(RNG)
    y = _silu(g, g.conv("x", "conv", C, 32, 3), "silu", swapped)
    return g.model(IMAGE, g.conv(y, "conv2", 32, 16, 1), [1, 16, 10, 10])


def _depthwise_se() -> onnx.ModelProto:
    g = ConvGraph(RNG)
    y = _silu(g, g.conv("x", "dw", C, C, 5, group=C), "silu")
    pooled = g.node("GlobalAveragePool", [y], "pool")
    squeezed = _silu(g, g.conv(pooled, "reduce", C, 6, 1), "silu_se")
    gate = g.node("Sigmoid", [g.conv(squeezed, "expand", 6, C, 1)], "gate")
    return g.model(IMAGE, g.node("Mul", [y, gate], "excite"), IMAGE)


def _sigmoid_alone() -> onnx.ModelProto:
    g = ConvGraph(RNG)
    return g.model(IMAGE, g.node("Sigmoid", [g.conv("x", "conv", C, 16, 3)], "y"), [1, 16, 10, 10])


def _residual() -> onnx.ModelProto:
    g = ConvGraph(RNG)
    c = g.conv("x", "conv", C, C, 3)
    return g.model(IMAGE, g.node("Add", [_silu(g, c, "silu"), c], "y"), IMAGE)


def _input() -> onnx.ModelProto:
    g = ConvGraph(RNG)
    return g.model(IMAGE, _silu(g, "x", "y", swapped=True), IMAGE)


MODELS: dict[str, tuple[Callable[[], onnx.ModelProto], list[str]]] = {
    "dense": (lambda: _dense(False), ["conv+silu_sigmoid+silu"]),
    "dense-swapped": (lambda: _dense(True), ["conv+silu_sigmoid+silu"]),
    "depthwise-se": (_depthwise_se, ["dw+silu_sigmoid+silu", "reduce+silu_se_sigmoid+silu_se"]),
    "sigmoid": (_sigmoid_alone, ["conv+y"]),
    "residual": (_residual, ["silu_sigmoid+silu"]),
    "input": (_input, ["y_sigmoid+y"]),
}
"""name: (model, the fused node labels the C names)."""


def _check(name: str, target: str) -> None:
    make, labels = MODELS[name]
    source = matches_onnxruntime(make(), target, RNG)
    for label in labels:
        assert label in source
    assert "onnxc_sigmoidf(" in source


@pytest.mark.parametrize("target", ["host", "host-portable"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_matches_onnxruntime(name: str, target: str) -> None:
    _check(name, target)


@needs_arm
@pytest.mark.parametrize("name", ["dense", "depthwise-se"])
def test_on_cortex_m4(name: str) -> None:
    _check(name, "cortex-m4")
