"""Operators onnxruntime registers under the default domain where ONNX has
none (SimplifiedLayerNormalization at any opset, LayerNormalization below 17),
as its optimizer and LLM builders write them: compiled like onnxruntime runs
them (float32, 1e-5; a free batch size, two runs)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

import onnxc

RNG = np.random.default_rng(0)


def _model(op: str, opset: int, axis: int, outputs: int = 1) -> onnx.ModelProto:
    inputs = ["x", "scale", "bias"][: 3 if op == "LayerNormalization" else 2]
    weights = [
        numpy_helper.from_array(RNG.random((3, 8)).astype(np.float32) + 0.5, name)
        for name in inputs[1:]
    ]
    names = ["y", "mean", "inv_std"][:outputs] if op == "LayerNormalization" else ["y"]
    node = h.make_node(op, inputs, names, axis=axis, epsilon=1e-5)
    shape: list[int | str] = ["n", 3, 8]
    kept: list[int | str] = ["n", 3, 8][: axis % 3] + [1] * (3 - axis % 3)
    graph = h.make_graph(
        [node],
        "g",
        [h.make_tensor_value_info("x", T.FLOAT, shape)],
        [h.make_tensor_value_info("y", T.FLOAT, shape)]
        + [h.make_tensor_value_info(n, T.FLOAT, kept) for n in names[1:]],
        weights,
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


@pytest.mark.parametrize(
    ("op", "opset", "axis", "outputs"),
    [
        ("SimplifiedLayerNormalization", 17, -1, 1),
        ("SimplifiedLayerNormalization", 13, -2, 1),
        ("LayerNormalization", 13, -1, 1),
        ("LayerNormalization", 11, -2, 3),
    ],
)
def test_matches_onnxruntime(op: str, opset: int, axis: int, outputs: int) -> None:
    import onnxruntime as ort

    model = _model(op, opset, axis, outputs)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    compiled = onnxc.compile(model)
    for batch in (1, 4):
        x = RNG.standard_normal((batch, 3, 8)).astype(np.float32)
        want = session.run(None, {"x": x})
        got = list(compiled.run({"x": x}).values())
        for value, expected in zip(got, want, strict=True):
            np.testing.assert_allclose(value, np.asarray(expected), rtol=1e-5, atol=1e-5)


def test_an_operator_onnx_defines_stays_its_own() -> None:
    """LayerNormalization at opset 17 is ONNX's: nothing is claimed."""
    from onnxc.frontend import prepare_model

    prepared = prepare_model(_model("LayerNormalization", 17, -1)).model
    assert [(n.domain, n.op_type) for n in prepared.graph.node] == [("", "LayerNormalization")]


def test_statistics_rms_normalization_lacks_are_refused() -> None:
    model = _model("SimplifiedLayerNormalization", 17, -1)
    model.graph.node[0].output.append("inv_std")
    model.graph.output.append(h.make_tensor_value_info("inv_std", T.FLOAT, ["n", 3, 1]))
    with pytest.raises(onnxc.OnnxcError, match="inv_std_var output is not compiled"):
        onnxc.compile(model)
