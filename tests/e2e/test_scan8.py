"""Scan before opset 9 (a batch axis on every input and output, and an
optional sequence_lens first): rewritten per batch element into the newer
Scan before the model is upgraded (`onnxc.frontend.rewrites.scan_batches`), matching
onnxruntime exactly (sums of a few floats in order)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import onnxc
from onnxc.errors import UnsupportedError

ort = pytest.importorskip("onnxruntime")


def _model(batch: int | str, *, directions: list[int] | None = None, lengths: bool = False):
    """Two states (a running sum and product of x's rows), one scan output
    (the running sum), over the 3 rows of each batch element of x [B, 3, 2]."""
    body = h.make_graph(
        [
            h.make_node("Add", ["sum_in", "row"], ["sum_out"]),
            h.make_node("Mul", ["product_in", "row"], ["product_out"]),
            h.make_node("Identity", ["sum_out"], ["scanned"]),
        ],
        "body",
        [
            h.make_tensor_value_info("sum_in", T.FLOAT, [2]),
            h.make_tensor_value_info("product_in", T.FLOAT, [2]),
            h.make_tensor_value_info("row", T.FLOAT, [2]),
        ],
        [
            h.make_tensor_value_info("sum_out", T.FLOAT, [2]),
            h.make_tensor_value_info("product_out", T.FLOAT, [2]),
            h.make_tensor_value_info("scanned", T.FLOAT, [2]),
        ],
    )
    attributes = {"body": body, "num_scan_inputs": 1}
    if directions is not None:
        attributes["directions"] = directions
    first = "lengths" if lengths else ""
    node = h.make_node(
        "Scan", [first, "s0", "p0", "x"], ["sum", "product", "sums"], name="scan", **attributes
    )
    inputs = [
        h.make_tensor_value_info("s0", T.FLOAT, [batch, 2]),
        h.make_tensor_value_info("p0", T.FLOAT, [batch, 2]),
        h.make_tensor_value_info("x", T.FLOAT, [batch, 3, 2]),
    ]
    if lengths:
        inputs.insert(0, h.make_tensor_value_info("lengths", T.INT32, [batch]))
    outputs = [
        h.make_tensor_value_info("sum", T.FLOAT, [batch, 2]),
        h.make_tensor_value_info("product", T.FLOAT, [batch, 2]),
        h.make_tensor_value_info("sums", T.FLOAT, [batch, 3, 2]),
    ]
    graph = h.make_graph([node], "scan8", inputs, outputs)
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 8)])


@pytest.mark.parametrize("directions", [None, [1]], ids=["forward", "reverse"])
@pytest.mark.parametrize("batch", [1, 3])
def test_opset8_scan_matches_onnxruntime(batch: int, directions: list[int] | None) -> None:
    model = _model(batch, directions=directions)
    rng = np.random.default_rng(batch)
    feeds = {
        "s0": rng.standard_normal((batch, 2)).astype(np.float32),
        "p0": rng.standard_normal((batch, 2)).astype(np.float32),
        "x": rng.standard_normal((batch, 3, 2)).astype(np.float32),
    }
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    wanted = session.run(None, feeds)
    got = onnxc.compile(model).run(feeds)
    for want, (name, value) in zip(wanted, got.items(), strict=True):
        np.testing.assert_array_equal(value, want, err_msg=name)


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (_model(2, lengths=True), "opset-8 Scan with sequence_lens is not supported"),
        (_model("B"), "opset-8 Scan whose batch size is not known when compiling"),
    ],
    ids=["sequence_lens", "run_time_batch"],
)
def test_what_is_not_rewritten_is_a_one_line_error(model: onnx.ModelProto, message: str) -> None:
    with pytest.raises(UnsupportedError, match=f"^node 'scan' \\(Scan\\): {message}$"):
        onnxc.compile(model)
