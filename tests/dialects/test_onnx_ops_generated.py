"""The checked-in dialect module is what the generator makes from the pinned
onnx package's schemas, and its classes carry what the schemas say."""

from __future__ import annotations

import onnx

from onnxc.dialects import gen_onnx_ops, onnx_ml_ops, onnx_ops
from onnxc.dialects.onnx import ONNX
from onnxc.dialects.onnx_ml import ONNX_ML


def test_onnx_ops_is_current() -> None:
    assert gen_onnx_ops.OUTPUT.read_text() == gen_onnx_ops.generate(), (
        "dialects/onnx_ops.py is out of date: run python -m onnxc.dialects.gen_onnx_ops"
    )


def test_every_default_domain_operator_has_a_class() -> None:
    opset = onnx.defs.onnx_opset_version()
    assert onnx_ops.TARGET_OPSET == opset
    expected = {s.name for s in gen_onnx_ops.schemas(opset)}
    assert set(onnx_ops.OPS) == expected
    assert len(expected) > 180
    registered = {op.name for op in ONNX.operations}
    assert {f"onnx.{name}" for name in expected} | {"onnx.NoValue", "onnx.Yield"} == registered


def test_named_operands_and_properties() -> None:
    conv = onnx_ops.ConvOp
    assert conv.SCHEMA.name == "Conv" and conv.name == "onnx.Conv"
    definition = conv.get_irdl_definition()
    assert [name for name, _ in definition.operands] == ["X", "W", "B"]
    assert [name for name, _ in definition.results] == ["Y"]
    assert {"group", "pads", "strides", "auto_pad"} <= set(definition.properties)


def test_onnx_ml_ops_is_current() -> None:
    ml = gen_onnx_ops.ML
    assert ml.output.read_text() == gen_onnx_ops.generate(domain=ml), (
        "dialects/onnx_ml_ops.py is out of date: run python -m onnxc.dialects.gen_onnx_ops"
    )
    assert gen_onnx_ops.main(["--check"]) == 0


def test_every_ml_operator_has_a_class() -> None:
    assert onnx_ml_ops.TARGET_OPSET == onnx.defs.onnx_ml_opset_version()
    expected = {s.name for s in gen_onnx_ops.schemas(onnx_ml_ops.TARGET_OPSET, gen_onnx_ops.ML)}
    assert set(onnx_ml_ops.OPS) == expected
    assert {"TreeEnsemble", "TreeEnsembleClassifier", "LinearClassifier", "ZipMap"} <= expected
    assert onnx_ml_ops.TreeEnsembleRegressorOp.SCHEMA.since_version == 3
    assert {op.name for op in ONNX_ML.operations} == {f"onnx_ml.{name}" for name in expected}
    assert not set(onnx_ml_ops.OPS) & set(onnx_ops.OPS)
