"""The Python API and the onnx.backend interface."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import onnxc
import onnxc.backend


def _affine_model() -> onnx.ModelProto:
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "scale"], ["m"], name="mul"),
            helper.make_node("Add", ["m", "b"], ["y"], name="add"),
            helper.make_node("Relu", ["y"], ["z"], name="relu"),
        ],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("scale", TensorProto.FLOAT, []),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3]),
        ],
        [
            numpy_helper.from_array(np.array(2.0, np.float32), "scale"),
            numpy_helper.from_array(np.array([1.0, -10.0, 0.5], np.float32), "b"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


X = np.array([[1, 2, 3], [-4, 5, -6]], np.float32)


def test_run_returns_outputs_by_name_in_graph_order():
    model = onnxc.compile(_affine_model(), name="affine")
    assert model.input_names == ["x", "scale"]
    assert model.output_names == ["y", "z"]
    outputs = model.run({"x": X, "scale": np.float32(3.0)})
    assert list(outputs) == ["y", "z"]
    np.testing.assert_array_equal(outputs["y"], X * 3 + [1.0, -10.0, 0.5])
    np.testing.assert_array_equal(outputs["z"], np.maximum(outputs["y"], 0))


def test_initializer_input_defaults_to_its_value():
    model = onnxc.compile(_affine_model())
    y, z = model(X)
    np.testing.assert_array_equal(y, X * 2 + [1.0, -10.0, 0.5])
    np.testing.assert_array_equal(z, np.maximum(y, 0))


def test_generated_sources_are_named():
    generated = onnxc.generate_c(_affine_model(), name="affine")
    assert "int affine_run(const float *x, const float *scale, float *y, float *z);" in (
        generated.header_source
    )
    assert "/* Mul mul */" in generated.c_source


def test_backend_interface():
    assert onnxc.backend.supports_device("CPU")
    assert not onnxc.backend.supports_device("CUDA")
    rep = onnxc.backend.prepare(_affine_model())
    y, z = rep.run([X, np.array(1.0, np.float32)])
    np.testing.assert_array_equal(y, X + [1.0, -10.0, 0.5])
    (y2, _) = onnxc.backend.run_model(_affine_model(), [X, np.array(1.0, np.float32)])
    np.testing.assert_array_equal(y2, y)
