"""`onnxc.tools.exact_integer`: int8 weights stored as uint8 mean the same
model, and onnxruntime runs it with exact integer products (its uint8 x int8
kernels saturate pairs of products on x86 CPUs without VNNI), so
`onnxc run --compare onnxruntime` and the tests hold on every machine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from onnxc.tools import exact_integer
from onnxc.tools.cli import main

pytest.importorskip("onnxruntime")

A_ZERO = 0
Y_SCALE = 2048.0
Y_ZERO = 128


def _saturating(op: str) -> onnx.ModelProto:
    """uint8 255s times int8 -128s over 4 products: -130560, which pairs of
    products summed in 16 bits (each saturating at -32768) would make -65536.
    `op` is QLinearMatMul, or DequantizeLinear for the same in QDQ form."""
    b = numpy_helper.from_array(np.full((4, 1), -128, np.int8), "b")
    scales = [
        numpy_helper.from_array(np.array(1.0, np.float32), "one"),
        numpy_helper.from_array(np.array(Y_SCALE, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(A_ZERO, np.uint8), "a_zero"),
        numpy_helper.from_array(np.array(0, np.int8), "b_zero"),
        numpy_helper.from_array(np.array(Y_ZERO, np.uint8), "y_zero"),
    ]
    if op == "QLinearMatMul":
        nodes = [
            helper.make_node(
                "QLinearMatMul",
                ["a", "one", "a_zero", "b", "one", "b_zero", "y_scale", "y_zero"],
                ["y"],
            )
        ]
    else:
        nodes = [
            helper.make_node("DequantizeLinear", ["a", "one", "a_zero"], ["fa"]),
            helper.make_node("DequantizeLinear", ["b", "one", "b_zero"], ["fb"]),
            helper.make_node("MatMul", ["fa", "fb"], ["fy"]),
            helper.make_node("QuantizeLinear", ["fy", "y_scale", "y_zero"], ["y"]),
        ]
    graph = helper.make_graph(
        nodes,
        "saturating",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.UINT8, [1, 1])],
        [b, *scales],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


A = {"a": np.full((1, 4), 255, np.uint8)}
EXACT = np.array([[np.rint(-130560 / Y_SCALE) + Y_ZERO]], np.uint8)
"""64 (the saturated sum would give 96)."""


@pytest.mark.parametrize("op", ["QLinearMatMul", "DequantizeLinear"])
def test_same_model_exact_in_onnxruntime(op: str) -> None:
    model = _saturating(op)
    rewritten = exact_integer.exact_integer_products(model)
    onnx.checker.check_model(rewritten, full_check=True)
    weights = [t for t in rewritten.graph.initializer if t.name.endswith("__as_uint8")]
    assert {numpy_helper.to_array(t).dtype for t in weights} == {np.dtype(np.uint8)}
    (meant,) = ReferenceEvaluator(model).run(None, A)
    (rewritten_means,) = ReferenceEvaluator(rewritten).run(None, A)
    np.testing.assert_array_equal(meant, EXACT)
    np.testing.assert_array_equal(rewritten_means, EXACT)
    (got,) = exact_integer.session(model).run(None, A)
    np.testing.assert_array_equal(got, EXACT)


def test_int8_activations_keep_int8_weights() -> None:
    """onnxruntime has no int8 x uint8 QLinearMatMul; int8 x int8 is exact."""
    model = _saturating("QLinearMatMul")
    for tensor in model.graph.initializer:
        if tensor.name in ("a_zero", "y_zero"):
            tensor.CopyFrom(numpy_helper.from_array(np.array(0, np.int8), tensor.name))
    model.graph.input[0].type.tensor_type.elem_type = TensorProto.INT8
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.INT8
    assert exact_integer.exact_integer_products(model) == model


def test_compare_onnxruntime_is_exact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "saturating.onnx"
    onnx.save(_saturating("DequantizeLinear"), path)
    np.save(tmp_path / "a.npy", A["a"])
    feed = f"a={tmp_path / 'a.npy'}"
    code = main(["run", str(path), "--input", feed, "--compare", "onnxruntime"])
    out = capsys.readouterr().out
    assert code == 0 and "y: matches onnxruntime" in out, out
