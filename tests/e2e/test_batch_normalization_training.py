"""BatchNormalization in training mode (training_mode=1, opset 15): Y from the
batch's own statistics and the running_mean and running_var outputs, for every
element type the schema allows, with sizes known at compile time or only at
run time.

float and double are compared with onnxruntime (rtol and atol 1e-5 and
1e-12). float16 and bfloat16 with onnx.reference run in float on the same
values, rounded once to the type (rtol and atol 2e-3 and 1.6e-2): the spec
computes the statistics in float, which onnx.reference (in the input's type)
and onnxruntime (float16 only, in float16) do not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onnxc

ort = pytest.importorskip("onnxruntime")

OPSET = 15
RNG = np.random.default_rng(11)
NAMES = ("x", "scale", "bias", "mean", "var")
TYPES = {
    "float": (TensorProto.FLOAT, np.float32, 1e-5),
    "double": (TensorProto.DOUBLE, np.float64, 1e-12),
    "float16": (TensorProto.FLOAT16, np.float16, 2e-3),
    "bfloat16": (TensorProto.BFLOAT16, ml_dtypes.bfloat16, 1.6e-2),
}


def _model(
    x_shape: Sequence[int | str],
    types: tuple[int, int, int],
    outputs: Sequence[str] = ("y", "running_mean", "running_var"),
    attributes: dict[str, Any] | None = None,
) -> onnx.ModelProto:
    """One training-mode node; `types` are the ONNX codes of T (X, Y), T1
    (scale, B) and T2 (the means and variances)."""
    t, t1, t2 = types
    shapes = [x_shape, *[[x_shape[1]]] * 4]
    input_types = [t, t1, t1, t2, t2]
    output_types = {"y": (t, x_shape), "running_mean": (t2, shapes[1])}
    output_types["running_var"] = output_types["running_mean"]
    node = helper.make_node(
        "BatchNormalization", list(NAMES), list(outputs), training_mode=1, **(attributes or {})
    )
    graph = helper.make_graph(
        [node],
        "batch_normalization_training",
        [
            helper.make_tensor_value_info(n, e, s)
            for n, e, s in zip(NAMES, input_types, shapes, strict=True)
        ],
        [helper.make_tensor_value_info(o, *output_types[o]) for o in outputs if o],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    return model


def _feeds(x_shape: Sequence[int], dtypes: tuple[Any, Any, Any]) -> dict[str, np.ndarray]:
    t, t1, t2 = dtypes
    channels = x_shape[1]
    values = [
        (RNG.standard_normal(x_shape) * 2 + 0.5, t),
        (RNG.uniform(0.5, 1.5, channels), t1),
        (RNG.uniform(-0.5, 0.5, channels), t1),
        (RNG.uniform(-0.5, 0.5, channels), t2),
        (RNG.uniform(0.5, 1.5, channels), t2),
    ]
    return {n: v.astype(np.float32).astype(d) for n, (v, d) in zip(NAMES, values, strict=True)}


def _onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return [np.asarray(o) for o in session.run(None, feeds)]


def _in_float(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """onnx.reference on the model with every tensor float."""
    wide = onnx.ModelProto()
    wide.CopyFrom(model)
    for value in [*wide.graph.input, *wide.graph.output]:
        value.type.tensor_type.elem_type = TensorProto.FLOAT
    floats = {k: v.astype(np.float32) for k, v in feeds.items()}
    outputs = ReferenceEvaluator(wide).run(None, floats)
    assert isinstance(outputs, list)
    return [np.asarray(o) for o in outputs]


def _compare(got: list[np.ndarray], want: list[np.ndarray], rtol: float) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        expected = np.asarray(w).astype(g.dtype).astype(np.float64)
        np.testing.assert_allclose(g.astype(np.float64), expected, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", sorted(TYPES))
def test_every_type(name: str) -> None:
    code, dtype, rtol = TYPES[name]
    x_shape = (3, 4, 2, 5)
    model = _model(x_shape, (code, code, code), attributes={"momentum": 0.7, "epsilon": 1e-3})
    feeds = _feeds(x_shape, (dtype, dtype, dtype))
    got = list(onnxc.compile(model, name=f"bn_training_{name}").run(feeds).values())
    if name in ("float", "double"):
        want = _onnxruntime(model, feeds)
    else:
        want = _in_float(model, feeds)
    _compare(got, want, rtol)


def test_mixed_types_and_omitted_running_outputs() -> None:
    """X and Y float16, scale and B bfloat16, the statistics float (T, T1,
    T2 differ); and a node whose running outputs are omitted (named "")."""
    x_shape = (2, 3, 4)
    types = (TensorProto.FLOAT16, TensorProto.BFLOAT16, TensorProto.FLOAT)
    feeds = _feeds(x_shape, (np.float16, ml_dtypes.bfloat16, np.float32))
    for outputs in (("y", "running_mean", "running_var"), ("y", "", "")):
        model = _model(x_shape, types, outputs)
        got = list(onnxc.compile(model, name="bn_training_mixed").run(feeds).values())
        _compare(got, _in_float(model, feeds), TYPES["float16"][2])


def test_batch_size_at_run_time() -> None:
    """N and the spatial size symbolic: compiled once, run at three sizes."""
    model = _model(("N", 3, "L"), (TensorProto.FLOAT, TensorProto.FLOAT, TensorProto.FLOAT))
    compiled = onnxc.compile(model, name="bn_training_dynamic")
    for x_shape in ((1, 3, 3), (2, 3, 7), (5, 3, 4)):
        feeds = _feeds(x_shape, (np.float32, np.float32, np.float32))
        got = list(compiled.run(feeds).values())
        _compare(got, _onnxruntime(model, feeds), 1e-5)
