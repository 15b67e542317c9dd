"""LinearClassifier's and SVMClassifier's labels and scores match
onnxruntime's over the combinations their rules depend on: the number of
classes (one score with two labels for LinearClassifier; two, three and four
classes for SVMClassifier, with and without prob_a/prob_b), and each post
transform. One model per operator holds a node per combination.

onnxruntime leaves the second score of a two-class SVM's decision value
unwritten after PROBIT; that case is compared on the first column only."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxc

ort = pytest.importorskip("onnxruntime")

TRANSFORMS = ("NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT")
LINEAR = [
    (classes, transform, multi_class)
    for classes, transform, multi_class in itertools.product((1, 2, 3), TRANSFORMS, (0, 1))
    if not (classes == 1 and transform == "PROBIT")  # not lowered: see LinearClassifier
]
SVM = list(itertools.product((2, 3, 4), (False, True), TRANSFORMS))


def _model(nodes: list[onnx.NodeProto], outputs: list[onnx.ValueInfoProto], features: int):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, features])
    graph = helper.make_graph(nodes, "rules", [x], outputs)
    opsets = [helper.make_opsetid("ai.onnx.ml", 1), helper.make_opsetid("", 17)]
    return helper.make_model(graph, opset_imports=opsets)


def _outputs(k: int, columns: int) -> list[onnx.ValueInfoProto]:
    return [
        helper.make_tensor_value_info(f"y{k}", TensorProto.INT64, [8]),
        helper.make_tensor_value_info(f"z{k}", TensorProto.FLOAT, [8, columns]),
    ]


def _node(op_type: str, k: int, transform: str, attributes: dict[str, Any]) -> onnx.NodeProto:
    node = helper.make_node(op_type, ["x"], [f"y{k}", f"z{k}"], domain="ai.onnx.ml", **attributes)
    node.attribute.append(helper.make_attribute("post_transform", transform))
    return node


def _compare(model: onnx.ModelProto, combinations: list[Any], unwritten: set[int]) -> None:
    x = np.random.default_rng(0).standard_normal((8, 3)).astype(np.float32)
    x = x[:, : model.graph.input[0].type.tensor_type.shape.dim[1].dim_value]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    wanted = session.run(None, {"x": x})
    got = onnxc.compile(model).run({"x": x})
    for k, combination in enumerate(combinations):
        label = f"combination {combination}"
        np.testing.assert_array_equal(got[f"y{k}"], wanted[2 * k], err_msg=label)
        columns = 1 if k in unwritten else wanted[2 * k + 1].shape[1]
        np.testing.assert_allclose(
            got[f"z{k}"][:, :columns],
            wanted[2 * k + 1][:, :columns],
            rtol=1e-5,
            atol=1e-6,
            err_msg=label,
        )


def test_linear_classifier_rules_match_onnxruntime() -> None:
    rng = np.random.default_rng(1)
    nodes: list[onnx.NodeProto] = []
    outputs: list[onnx.ValueInfoProto] = []
    for k, (classes, transform, multi_class) in enumerate(LINEAR):
        labels = [5, 9] if classes == 1 else list(range(10, 10 + classes))
        attributes = {
            "coefficients": [float(v) for v in rng.normal(size=3 * classes)],
            "intercepts": [float(v) for v in rng.normal(size=classes)],
            "classlabels_ints": labels,
            "multi_class": multi_class,
        }
        nodes.append(_node("LinearClassifier", k, transform, attributes))
        outputs += _outputs(k, 2 if classes == 1 else classes)
    _compare(_model(nodes, outputs, 3), LINEAR, set())


def test_svm_classifier_rules_match_onnxruntime() -> None:
    rng = np.random.default_rng(2)
    nodes: list[onnx.NodeProto] = []
    outputs: list[onnx.ValueInfoProto] = []
    unwritten: set[int] = set()
    for k, (classes, probabilities, transform) in enumerate(SVM):
        per_class = [1 + c % 2 for c in range(classes)]
        vectors, pairs = sum(per_class), classes * (classes - 1) // 2
        attributes: dict[str, Any] = {
            "kernel_type": "RBF",
            "kernel_params": [0.5, 0.25, 3.0],
            "vectors_per_class": per_class,
            "support_vectors": [float(v) for v in rng.normal(size=2 * vectors)],
            "coefficients": [float(v) for v in rng.normal(size=(classes - 1) * vectors)],
            "rho": [float(v) for v in rng.normal(size=pairs) * 0.1],
            "classlabels_ints": list(range(classes)),
        }
        if probabilities:
            attributes["prob_a"] = [float(v) for v in -1 - rng.random(pairs)]
            attributes["prob_b"] = [float(v) for v in rng.normal(size=pairs) * 0.1]
        nodes.append(_node("SVMClassifier", k, transform, attributes))
        columns = classes if probabilities else (pairs if classes > 2 else 2)
        outputs += _outputs(k, columns)
        if classes == 2 and not probabilities and transform == "PROBIT":
            unwritten.add(k)
    _compare(_model(nodes, outputs, 2), SVM, unwritten)
