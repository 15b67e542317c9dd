"""1-D convolutions on the blocked kernel (as 2-D ones of height 1): dense,
grouped and depthwise, with stride, dilation, uneven pads, with and without
bias, a Relu fused, on host, host-portable and the Cortex-M4 kernel shape,
against onnxruntime (float32: 1e-4 relative, 1e-5 absolute; the sums run in
another order than onnxruntime's)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

import onnxc
from tests.mcu.tools import needs_arm

RNG = np.random.default_rng(0)

CASES = {
    # name: (channels, outputs, kernel, length, pads, stride, dilation, group, bias, relu)
    "dense": (16, 32, 3, 50, [1, 1], 1, 1, 1, True, True),
    "depthwise": (8, 8, 5, 40, [2, 2], 1, 1, 8, True, False),
    "grouped": (12, 20, 3, 33, [0, 2], 2, 2, 4, False, True),
    "wide-kernel": (3, 17, 7, 100, [3, 1], 1, 1, 1, True, False),
    "pointwise": (24, 9, 1, 21, [0, 0], 1, 1, 1, True, True),
}


def _model(case: str) -> onnx.ModelProto:
    c, m, k, length, pads, stride, dilation, group, bias, relu = CASES[case]
    weights = [numpy_helper.from_array(RNG.standard_normal((m, c // group, k)).astype("f4"), "w")]
    if bias:
        weights.append(numpy_helper.from_array(RNG.standard_normal(m).astype("f4"), "b"))
    conv = h.make_node(
        "Conv",
        ["x", *(w.name for w in weights)],
        ["c"],
        pads=pads,
        strides=[stride],
        dilations=[dilation],
        group=group,
    )
    after = h.make_node("Relu" if relu else "Neg", ["c"], ["y"])
    out = (length + sum(pads) - dilation * (k - 1) - 1) // stride + 1
    graph = h.make_graph(
        [conv, after],
        "g",
        [h.make_tensor_value_info("x", T.FLOAT, [2, c, length])],
        [h.make_tensor_value_info("y", T.FLOAT, [2, m, out])],
        weights,
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def _check(case: str, target: str) -> None:
    import onnxruntime as ort

    model = _model(case)
    c, length = CASES[case][0], CASES[case][3]
    x = RNG.standard_normal((2, c, length)).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    want = np.asarray(session.run(None, {"x": x})[0])
    compiled = onnxc.compile(model, target=target)
    assert "Conv" in compiled.c_source  # the kernel's comment names the node
    np.testing.assert_allclose(compiled.run({"x": x})["y"], want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("target", ["host", "host-portable"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_onnxruntime(case: str, target: str) -> None:
    _check(case, target)


@needs_arm
@pytest.mark.parametrize("case", ["dense", "depthwise"])
def test_on_cortex_m4(case: str) -> None:
    _check(case, "cortex-m4")


def test_takes_the_kernel() -> None:
    from onnxc.frontend import import_model
    from onnxc.pipeline import lower

    module = lower(import_model(_model("dense")).module, "kernels", target="host")
    assert [op.name for op in module.walk() if op.name.startswith("kernel.conv")] == ["kernel.conv"]
