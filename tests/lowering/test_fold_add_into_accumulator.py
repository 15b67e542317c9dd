"""fold-add-into-accumulator end to end: residual Adds after Conv and Gemm fold
into the accumulator's initialisation, results still match onnxruntime (rtol
1e-5, atol 1e-6: only the order of one addition changes), and the folded skip
tensor no longer lives across the accumulation."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import StringAttr

import onnxc
from onnxc.frontend import import_model
from onnxc.pipeline import lower

ort = pytest.importorskip("onnxruntime")
RNG = np.random.default_rng(0)


def residual_conv() -> onnx.ModelProto:
    """x -> Relu -> a; a -> Conv -> c; y = c + a (the skip dies at the Add)."""
    w = RNG.standard_normal((4, 4, 3, 3)).astype(np.float32) / 6
    b = RNG.standard_normal(4).astype(np.float32)
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Conv", ["a", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c", "a"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "residual",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
        initializer=[numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def residual_gemm(skip_first: bool) -> onnx.ModelProto:
    w = RNG.standard_normal((16, 16)).astype(np.float32) / 4
    b = RNG.standard_normal(16).astype(np.float32)
    add_inputs = ["a", "g"] if skip_first else ["g", "a"]
    nodes = [
        helper.make_node("Sigmoid", ["x"], ["a"]),
        helper.make_node("Gemm", ["a", "w", "b"], ["g"], transB=1),
        helper.make_node("Add", add_inputs, ["s"]),
        helper.make_node("Tanh", ["s"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "residual",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 16])],
        initializer=[numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def adds_left(model: onnx.ModelProto) -> int:
    module = lower(import_model(model).module, "loops")
    comments = (op.attributes.get("onnxc.comment") for op in module.walk())
    return sum(
        1 for c in comments if isinstance(c, StringAttr) and "Add" in c.data and "+" not in c.data
    )


@pytest.mark.parametrize(
    "model",
    [residual_conv(), residual_gemm(True), residual_gemm(False)],
    ids=["conv", "gemm-skip-first", "gemm-skip-second"],
)
def test_folded_and_correct(model: onnx.ModelProto) -> None:
    assert adds_left(model) == 0
    x_info = model.graph.input[0].type.tensor_type.shape
    x = RNG.standard_normal([d.dim_value for d in x_info.dim]).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    compiled = onnxc.compile(model)
    np.testing.assert_allclose(compiled(x)[0], expected, rtol=1e-5, atol=1e-6)


def test_skip_shares_the_output_bytes() -> None:
    # a (1 KiB) and c: with the fold, c is initialised with b + a in a's bytes.
    # the plain lowering (cortex-m0 has no blocked kernels, which fuse the Add instead)
    generated = onnxc.generate_c(residual_conv(), target="cortex-m0")
    assert generated.workspace_size == 4 * 8 * 8 * 4


def _reduce_then_add(reduction: str) -> onnx.ModelProto:
    """y = x + reduction(x) over [1, 2, 1, 1]: the reduction's accumulator is
    initialised (a fill) and accumulated into, then read once by the Add, but
    it does not add into it."""
    nodes = [
        helper.make_node(reduction, ["x"], ["r"]),
        helper.make_node("Add", ["x", "r"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "reduce_then_add",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 1, 1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 1, 1])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


@pytest.mark.parametrize("reduction", ["GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"])
def test_accumulations_that_do_not_add_keep_their_add(reduction: str) -> None:
    """A max (or a mean's division, a norm's root) of the accumulator does not
    commute with the Add: folding it into the initialisation gave x for
    GlobalMaxPool (found by the random-graph tests)."""
    model = _reduce_then_add(reduction)
    x = RNG.standard_normal([1, 2, 1, 1]).astype(np.float32)
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    for target in ("host", "cortex-m0"):
        got = onnxc.compile(model, target=target)(x)[0]
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
