"""The importer takes ai.onnx.ml nodes (also in models importing only that
domain), types the outputs onnx's inference leaves without a shape, and refuses
what it does not cover with a one-line error."""

from __future__ import annotations

import onnx
import pytest
from onnx import TensorProto, helper

from onnxc.containers import Maps
from onnxc.dialects import onnx_ml
from onnxc.errors import OnnxcError
from onnxc.frontend import import_model

ML = "ai.onnx.ml"


def _model(node: onnx.NodeProto, output_shape: list[int | str], opsets: dict[str, int]):
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape)],
    )
    imports = [helper.make_opsetid(domain, version) for domain, version in opsets.items()]
    return helper.make_model(graph, opset_imports=imports)


def test_model_importing_only_the_ml_domain() -> None:
    node = helper.make_node(
        "LinearRegressor", ["x"], ["y"], domain=ML, coefficients=[1.0, 2.0], targets=1
    )
    module = import_model(_model(node, ["N", 1], {ML: 1})).module
    ops = [op for op in module.walk() if isinstance(op, onnx_ml.LinearRegressorOp)]
    assert len(ops) == 1 and ops[0].attr("coefficients") == [1.0, 2.0]


def test_output_types_onnx_does_not_infer() -> None:
    regressor = helper.make_node(
        "LinearRegressor", ["x"], ["t"], domain=ML, coefficients=[1.0] * 6, targets=3
    )
    relu = helper.make_node("Relu", ["t"], ["y"])
    graph = helper.make_graph(
        [regressor, relu],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", None])],
    )
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid(ML, 1)]
    module = import_model(helper.make_model(graph, opset_imports=opsets)).module
    op = next(op for op in module.walk() if isinstance(op, onnx_ml.LinearRegressorOp))
    assert op.Y.type.get_shape()[1] == 3


def test_newer_ml_opset_is_refused() -> None:
    node = helper.make_node("Binarizer", ["x"], ["y"], domain=ML)
    model = _model(node, ["N", 2], {ML: 5})
    model.opset_import[0].version = 6
    with pytest.raises(OnnxcError, match="ai.onnx.ml opset 6; onnxc supports 1 to 5"):
        import_model(model)


def test_label_encoder_1_is_refused() -> None:
    node = helper.make_node(
        "LabelEncoder", ["x"], ["y"], name="le", domain=ML, classes_strings=["a", "b"]
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.STRING, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, 1)])
    with pytest.raises(OnnxcError, match="node 'le' \\(LabelEncoder\\): LabelEncoder version 1"):
        import_model(model)


def test_other_domains_stay_refused() -> None:
    node = helper.make_node("Relu", ["x"], ["y"], name="r", domain="com.example")
    model = _model(node, ["N", 2], {"": 21, "com.example": 1})
    with pytest.raises(OnnxcError, match="operator domain 'com.example' is not supported"):
        import_model(model)


def _map_sequence(name: str) -> onnx.ValueInfoProto:
    """A ZipMap output: a sequence of int64 -> float maps."""
    value = helper.make_tensor_type_proto(TensorProto.FLOAT, [])
    maps = helper.make_map_type_proto(TensorProto.INT64, value)
    return helper.make_value_info(name, helper.make_sequence_type_proto(maps))


def test_zipmap_imports_as_its_probabilities() -> None:
    """ZipMap's sequence of maps is the probability tensor in the IR (the keys
    are constants the Python side zips back), even in an ml-only model."""
    node = helper.make_node("ZipMap", ["x"], ["y"], name="zm", domain=ML, classlabels_int64s=[0, 1])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
        [_map_sequence("y")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, 1)])
    imported = import_model(model)
    assert imported.output_names == ["y"]
    assert [o.name for o in imported.module.walk()].count("onnx.Identity") == 1
    assert imported.containers.outputs == {"y": Maps("y", (0, 1))}


def test_check_lists_an_ml_gap_with_its_domain() -> None:
    from onnxc.tools.check import find_gaps

    node = helper.make_node(
        "DictVectorizer", ["m"], ["y"], name="dv", domain=ML, int64_vocabulary=[0, 1]
    )
    scalar = helper.make_tensor_type_proto(TensorProto.FLOAT, [])
    regressor = helper.make_node(
        "LinearRegressor", ["x"], ["t"], name="lr", domain=ML, coefficients=[1.0, 2.0]
    )
    graph = helper.make_graph(
        [regressor, node],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2]),
            helper.make_value_info("m", helper.make_map_type_proto(TensorProto.INT64, scalar)),
        ],
        [
            helper.make_tensor_value_info("t", TensorProto.FLOAT, [1, 1]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, 1)])
    gaps = find_gaps(model)
    assert [(g.domain, g.operator, g.node) for g in gaps] == [(ML, "DictVectorizer", "dv")]
