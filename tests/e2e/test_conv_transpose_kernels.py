"""Transposed convolutions on the kernels (`select_kernels/transposed.py`):
stride 1 as the flipped convolution, other strides as a 1x1 convolution into
columns and a Col2Im scatter; against onnxruntime (`conv_graphs.
matches_onnxruntime`: 1e-4 relative, 1e-5 absolute), on host, host-portable
and the Cortex-M4, with what each case became read off the C: the scatter
(its node is named "<node> scatter", "ct+bn scatter" when a
BatchNormalization is folded), the dense kernel's packed weights, or
neither (the plain loops).

The cases cover the geometry the rewrite must carry over: overlap-free
taps (stride = kernel: DBNet's upsampling head, followed by a
BatchNormalization folded into it and a Relu), overlapping taps with pads
(k4 s2 p1), output_padding within and past the end pads, auto_pad
SAME_UPPER and output_shape, dilations, a 1-D one, a batch of two, no bias;
stride 1 with pads (a dense kernel, a BatchNormalization folded), a
depthwise one and a grouped dilated one (a convolution, but no kernel), and
a grouped strided one (the plain loops).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

from tests.e2e.conv_graphs import matches_onnxruntime
from tests.mcu.tools import needs_arm

RNG = np.random.default_rng(11)


def _model(
    cin: int,
    cout: int,
    k: int,
    shape: list[int],
    group: int = 1,
    norm: bool = False,
    relu: bool = False,
    bias: bool = True,
    **attributes: object,
) -> onnx.ModelProto:
    """x [shape] -> ConvTranspose (k per axis, random weights) [-> BatchNormalization] [-> Relu]."""
    rank = len(shape) - 2
    weights = [(RNG.standard_normal((cin, cout // group, *[k] * rank)) * 0.3, "w")]
    if bias:
        weights.append((RNG.standard_normal(cout), "b"))
    nodes = [
        h.make_node("ConvTranspose", ["x", *(n for _, n in weights)], ["y"], name="ct", group=group)
    ]
    nodes[0].attribute.extend(h.make_attribute(k, v) for k, v in attributes.items())
    out = "y"
    if norm:
        weights += [
            (RNG.uniform(0.5, 2, cout), "scale"),
            (RNG.standard_normal(cout), "shift"),
            (RNG.standard_normal(cout), "mean"),
            (RNG.uniform(0.5, 2, cout), "var"),
        ]
        inputs = ["y", "scale", "shift", "mean", "var"]
        nodes.append(h.make_node("BatchNormalization", inputs, ["z"], name="bn"))
        out = "z"
    if relu:
        nodes.append(h.make_node("Relu", [out], ["r"], name="relu"))
        out = "r"
    graph = h.make_graph(
        nodes,
        "g",
        [h.make_tensor_value_info("x", T.FLOAT, shape)],
        [h.make_tensor_value_info(out, T.FLOAT, None)],
        [numpy_helper.from_array(a.astype(np.float32), n) for a, n in weights],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    return onnx.shape_inference.infer_shapes(model)


SCATTER, DENSE, PLAIN = "scatter", "dense", "plain"

CASES = {
    "k2-s2-norm-relu": (
        lambda: _model(8, 8, 2, [1, 8, 6, 6], strides=[2, 2], norm=True, relu=True),
        SCATTER,
    ),
    "k4-s2-p1": (lambda: _model(8, 6, 4, [1, 8, 5, 7], strides=[2, 2], pads=[1, 1, 1, 1]), SCATTER),
    "k3-s2-p1-op1": (
        lambda: _model(
            8, 6, 3, [1, 8, 5, 7], strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]
        ),
        SCATTER,
    ),
    "k2-s2-op1": (
        lambda: _model(8, 6, 2, [1, 8, 5, 7], strides=[2, 2], output_padding=[1, 1]),
        PLAIN,
    ),
    "same-upper": (
        lambda: _model(8, 6, 3, [1, 8, 5, 7], strides=[2, 2], auto_pad="SAME_UPPER"),
        SCATTER,
    ),
    "output-shape": (
        lambda: _model(8, 6, 3, [1, 8, 5, 7], strides=[2, 2], output_shape=[10, 14]),
        SCATTER,
    ),
    "s3-2-dilated-no-bias": (
        lambda: _model(8, 6, 3, [1, 8, 5, 7], strides=[3, 2], dilations=[2, 1], bias=False),
        SCATTER,
    ),
    "1d": (lambda: _model(8, 6, 4, [1, 8, 11], strides=[2], pads=[1, 1]), SCATTER),
    "batch": (lambda: _model(8, 6, 2, [2, 8, 5, 7], strides=[2, 2]), SCATTER),
    "s1-norm": (lambda: _model(8, 6, 3, [1, 8, 5, 7], pads=[1, 1, 1, 1], norm=True), DENSE),
    "s1-depthwise": (lambda: _model(8, 8, 3, [1, 8, 9, 7], pads=[1, 1, 1, 1], group=8), DENSE),
    "s1-grouped-dilated": (
        lambda: _model(8, 6, 3, [1, 8, 9, 7], pads=[1, 2, 0, 1], dilations=[2, 2], group=2),
        PLAIN,
    ),
    "s2-grouped": (lambda: _model(8, 6, 3, [1, 8, 5, 7], strides=[2, 2], group=2), PLAIN),
}
"""name: (model, what it becomes on the hosts)."""

MCU_PLAIN = {"k4-s2-p1", "k3-s2-p1-op1", "same-upper", "output-shape", "s3-2-dilated-no-bias", "1d"}
"""On the Cortex-M4 (scalar kernels) a column buffer larger than the output is not taken."""


def _became(source: str) -> str:
    if " scatter" in source:
        return SCATTER
    return DENSE if "_packed" in source else PLAIN


def _check(name: str, target: str) -> None:
    make, expected = CASES[name]
    if target == "cortex-m4" and name in MCU_PLAIN:
        expected = PLAIN
    source = matches_onnxruntime(make(), target, RNG)
    assert _became(source) == expected


@pytest.mark.parametrize("target", ["host", "host-portable"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_host(name: str, target: str) -> None:
    _check(name, target)


@needs_arm
@pytest.mark.parametrize("name", sorted(CASES))
def test_cortex_m4(name: str) -> None:
    _check(name, "cortex-m4")
