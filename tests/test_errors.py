"""Bad input gets one clear line naming the problem: never a traceback."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, external_data_helper, helper, numpy_helper

import onnxc
from onnxc.errors import OnnxcError


def _model(nodes, inputs, outputs, initializers=(), opset=21):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _relu_model(shape=("N", 4)):
    return _model(
        [helper.make_node("Relu", ["x"], ["y"], name="r")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))],
    )


def _one_line(error: pytest.ExceptionInfo[OnnxcError]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_corrupt_file(tmp_path):
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"\x08\x07this is not a protobuf \xff\xfe")
    with pytest.raises(OnnxcError) as error:
        onnxc.compile(path)
    assert "broken.onnx" in _one_line(error) and "not a readable ONNX model" in str(error.value)


def test_missing_file(tmp_path):
    with pytest.raises(OnnxcError, match="no such model file"):
        onnxc.compile(tmp_path / "absent.onnx")


def test_free_dimension_stays_free():
    model = onnxc.compile(_relu_model())
    assert model.input_shapes == [("N", 4)] and model.output_shapes == [("N", 4)]
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(model(x)[0], np.maximum(x, 0))


def test_unnamed_dimension_is_named_after_its_input():
    model = onnxc.compile(_relu_model(shape=(None, 4)))
    assert model.input_shapes == [("x_dim0", 4)]


def test_mcu_target_needs_bounded_dimensions():
    with pytest.raises(OnnxcError) as error:
        onnxc.compile(_relu_model(), target="cortex-m4")
    message = _one_line(error)
    assert "N is not" in message and "max_dims=" in message


def test_dims_for_unknown_symbol():
    with pytest.raises(OnnxcError, match="'M', which no tensor uses"):
        onnxc.compile(_relu_model(), dims={"N": 1, "M": 2})


def test_unsupported_operator_names_the_node(monkeypatch: pytest.MonkeyPatch):
    from onnxc.lowering import convert_onnx_to_linalg

    table = {k: v for k, v in convert_onnx_to_linalg.lowerings().items() if k != "Det"}
    monkeypatch.setattr(convert_onnx_to_linalg, "lowerings", lambda: table)  # Det: a play gap
    model = _model(
        [helper.make_node("Det", ["x"], ["y"], name="det0")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
    )
    with pytest.raises(OnnxcError) as error:
        onnxc.compile(model, cache=False)
    message = _one_line(error)
    assert "node 'det0' (Det)" in message and "not supported" in message


def test_unknown_operator_is_rejected():
    model = _model(
        [helper.make_node("FrobnicateTensor", ["x"], ["y"], name="f")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    )
    with pytest.raises(OnnxcError, match="FrobnicateTensor"):
        onnxc.compile(model)


def test_foreign_domain_is_rejected():
    node = helper.make_node("Relu", ["x"], ["y"], name="r", domain="com.example")
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    )
    model = helper.make_model(
        graph,
        opset_imports=[
            helper.make_opsetid("", 21),
            helper.make_opsetid("com.example", 1),
        ],
    )
    with pytest.raises(OnnxcError, match="node 'r' \\(Relu\\): operator domain 'com.example'"):
        onnxc.compile(model)


def _external_model(tmp_path, location: str):
    weight = numpy_helper.from_array(np.ones(64, np.float32), "w")
    model = _model(
        [helper.make_node("Add", ["x", "w"], ["y"], name="add")],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64])],
        [weight],
    )
    external_data_helper.convert_model_to_external_data(
        model, location="weights.bin", size_threshold=0
    )
    folder = tmp_path / "model"
    folder.mkdir()
    onnx.save_model(model, str(folder / "m.onnx"))
    saved = onnx.load_model(str(folder / "m.onnx"), load_external_data=False)
    for entry in saved.graph.initializer[0].external_data:
        if entry.key == "location":
            entry.value = location
    onnx.save_model(saved, str(folder / "m.onnx"))
    return folder / "m.onnx"


def test_external_data_is_read_next_to_the_model(tmp_path):
    path = _external_model(tmp_path, "weights.bin")
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(onnxc.compile(path).run({"x": x})["y"], x + 1)


def test_external_data_outside_the_folder(tmp_path):
    path = _external_model(tmp_path, "../weights.bin")
    (tmp_path / "weights.bin").write_bytes(np.ones(64, np.float32).tobytes())
    with pytest.raises(
        OnnxcError,
        match="tensor 'w': external data location '../weights.bin' is outside",
    ):
        onnxc.compile(path)


def test_external_data_missing_file(tmp_path):
    path = _external_model(tmp_path, "other.bin")
    with pytest.raises(OnnxcError, match="external data file 'other.bin' not found"):
        onnxc.compile(path)


def test_cli_prints_one_line_and_exits_non_zero(tmp_path):
    path = tmp_path / "broken.onnx"
    path.write_bytes(b"garbage")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "onnxc",
            "compile",
            str(path),
            "-o",
            str(tmp_path / "out"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("onnxc: error: ")
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_wrong_input_shape_at_run_time():
    model = onnxc.compile(_relu_model(shape=(2, 4)))
    with pytest.raises(OnnxcError, match="input 'x' must have shape \\(2, 4\\)"):
        model.run({"x": np.zeros((4, 2), np.float32)})


def test_squeeze_without_axes_of_a_run_time_size_says_why_its_rank_is_unknown():
    graph = helper.make_graph(
        [
            helper.make_node("Squeeze", ["x"], ["y"], name="squeeze"),
            helper.make_node("Shape", ["y"], ["shape"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("shape", TensorProto.INT64, [None])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(
        OnnxcError, match=r"^node 'squeeze' \(Squeeze\): .* unknown rank .* give axes\)$"
    ):
        onnxc.compile(model)
