"""SiLU (x * Sigmoid(x), as exporters write it) fused: one Swish node
(`onnx-fuse-activations`), and a convolution's epilogue when it is the only
user of the convolution's result (`select-kernels`), computed by the
runtime's vectorisable `onnxc_sigmoidf`; against onnxruntime (float32:
1e-4 relative, 1e-5 absolute; the sums run in another order than
onnxruntime's), on host, host-portable and the Cortex-M4.

The cases: a SiLU after a dense convolution (both operand orders), after a
depthwise 5x5 one followed by a Squeeze-and-Excitation block (its gate,
Mul(x, Sigmoid(s)) of another tensor, is not a SiLU), a Sigmoid alone as a
convolution's activation, a SiLU whose input is also a residual (not the
convolution's only user), and a SiLU of a graph input (no kernel).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

import onnxc
from tests.mcu.tools import needs_arm

RNG = np.random.default_rng(7)
C = 24
SIZE = 10


class _Graph:
    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.weights: list[onnx.TensorProto] = []

    def weight(self, name: str, shape: tuple[int, ...], scale: float = 0.3) -> str:
        array = (RNG.standard_normal(shape) * scale).astype(np.float32)
        self.weights.append(numpy_helper.from_array(array, name))
        return name

    def node(self, op: str, inputs: list[str], output: str, **attributes: int | list[int]) -> str:
        node = h.make_node(op, inputs, [output], name=output)
        node.attribute.extend(h.make_attribute(k, v) for k, v in attributes.items())
        self.nodes.append(node)
        return output

    def silu(self, x: str, name: str, swapped: bool = False) -> str:
        gate = self.node("Sigmoid", [x], f"{name}_sigmoid")
        return self.node("Mul", [gate, x] if swapped else [x, gate], name)

    def conv(self, x: str, name: str, cin: int, cout: int, k: int, group: int = 1) -> str:
        w = self.weight(f"{name}_w", (cout, cin // group, k, k))
        b = self.weight(f"{name}_b", (cout,))
        return self.node("Conv", [x, w, b], name, pads=[k // 2] * 4, group=group)

    def model(self, output: str, channels: int = C) -> onnx.ModelProto:
        graph = h.make_graph(
            self.nodes,
            "g",
            [h.make_tensor_value_info("x", T.FLOAT, [1, C, SIZE, SIZE])],
            [h.make_tensor_value_info(output, T.FLOAT, [1, channels, SIZE, SIZE])],
            self.weights,
        )
        return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def _dense(swapped: bool) -> onnx.ModelProto:
    g = _Graph()
    y = g.silu(g.conv("x", "conv", C, 32, 3), "silu", swapped)
    return g.model(g.conv(y, "conv2", 32, 16, 1), 16)


def _depthwise_se() -> onnx.ModelProto:
    g = _Graph()
    y = g.silu(g.conv("x", "dw", C, C, 5, group=C), "silu")
    pooled = g.node("GlobalAveragePool", [y], "pool")
    squeezed = g.silu(g.conv(pooled, "reduce", C, 6, 1), "silu_se")
    gate = g.node("Sigmoid", [g.conv(squeezed, "expand", 6, C, 1)], "gate")
    return g.model(g.node("Mul", [y, gate], "excite"))


def _sigmoid_alone() -> onnx.ModelProto:
    g = _Graph()
    return g.model(g.node("Sigmoid", [g.conv("x", "conv", C, 16, 3)], "y"), 16)


def _residual() -> onnx.ModelProto:
    g = _Graph()
    c = g.conv("x", "conv", C, C, 3)
    return g.model(g.node("Add", [g.silu(c, "silu"), c], "y"))


def _input() -> onnx.ModelProto:
    g = _Graph()
    return g.model(g.silu("x", "y", swapped=True))


MODELS = {
    "dense": (lambda: _dense(False), ["conv+silu_sigmoid+silu"]),
    "dense-swapped": (lambda: _dense(True), ["conv+silu_sigmoid+silu"]),
    "depthwise-se": (_depthwise_se, ["dw+silu_sigmoid+silu", "reduce+silu_se_sigmoid+silu_se"]),
    "sigmoid": (_sigmoid_alone, ["conv+y"]),
    "residual": (_residual, ["silu_sigmoid+silu"]),
    "input": (_input, ["y_sigmoid+y"]),
}
"""name: (model, the fused node labels the C names)."""


def _check(name: str, target: str) -> None:
    import onnxruntime as ort

    make, labels = MODELS[name]
    model = make()
    x = (RNG.standard_normal((1, C, SIZE, SIZE)) * 3).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = np.asarray(session.run(None, {"x": x})[0])
    compiled = onnxc.compile(model, target=target)
    for label in labels:
        assert label in compiled.c_source
    assert "onnxc_sigmoidf(" in compiled.c_source
    got = next(iter(compiled.run({"x": x}).values()))
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("target", ["host", "host-portable"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_matches_onnxruntime(name: str, target: str) -> None:
    _check(name, target)


@needs_arm
@pytest.mark.parametrize("name", ["dense", "depthwise-se"])
def test_on_cortex_m4(name: str) -> None:
    _check(name, "cortex-m4")
