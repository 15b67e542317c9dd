"""What the tests of onnxruntime's com.microsoft operators share: one node
of that domain as a model, and its check against onnxruntime's CPU kernels
(compiled once, run on each feed: a free dimension at two sizes)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc

F, F16, F64, I32 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE, TensorProto.INT32
Dim = int | str
Value = tuple[str, int, Sequence[Dim]]
"""A graph value: name ("" leaves an optional input or output out),
element type, shape (a string is a dim_param)."""

NONE: Value = ("", F, ())


def contrib_model(
    op: str,
    inputs: Sequence[Value],
    outputs: Sequence[Value],
    attributes: Mapping[str, Any] | None = None,
    initializers: Mapping[str, np.ndarray] | None = None,
) -> onnx.ModelProto:
    """A model of one com.microsoft `op` node over graph inputs `inputs`
    (those named in `initializers` are initializers instead) with graph
    outputs `outputs`; absent ones ("") keep their positions in the node."""
    constants = dict(initializers or {})
    node = helper.make_node(
        op,
        _trimmed([name for name, _, _ in inputs]),
        _trimmed([name for name, _, _ in outputs]),
        name=op,
        domain="com.microsoft",
        **dict(attributes or {}),
    )
    graph = helper.make_graph(
        [node],
        "model",
        [
            helper.make_tensor_value_info(n, t, list(s))
            for n, t, s in inputs
            if n and n not in constants
        ],
        [helper.make_tensor_value_info(n, t, list(s)) for n, t, s in outputs if n],
        [numpy_helper.from_array(value, name) for name, value in constants.items()],
    )
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    return model


def _trimmed(names: list[str]) -> list[str]:
    """`names` without the absent ones at the end."""
    while names and not names[-1]:
        names.pop()
    return names


def assert_runs_match_onnxruntime(
    model: onnx.ModelProto, runs: Sequence[Mapping[str, np.ndarray]], rtol: float, atol: float
) -> None:
    """`model` compiled once by onnxc gives onnxruntime's outputs on each of
    `runs`: the same names, shapes and element types, values within `rtol`
    and `atol`."""
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [output.name for output in session.get_outputs()]
    compiled = onnxc.compile(model, cache=False)
    for feeds in runs:
        expected = dict(zip(names, session.run(None, dict(feeds)), strict=True))
        assert_outputs_match(compiled.run(dict(feeds)), expected, rtol, atol)


def assert_outputs_match(
    got: Mapping[str, np.ndarray], expected: Mapping[str, np.ndarray], rtol: float, atol: float
) -> None:
    """onnxc's outputs `got` are `expected`: the same names in order, shapes
    and element types, values within `rtol` and `atol`."""
    assert list(got) == list(expected)
    for name, value in got.items():
        want = expected[name]
        assert (value.shape, value.dtype) == (want.shape, want.dtype), name
        np.testing.assert_allclose(
            value.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, err_msg=name
        )


@dataclass
class Case:
    """A model and the feeds to check it on, with the tolerances its
    arithmetic needs."""

    model: onnx.ModelProto
    runs: list[dict[str, np.ndarray]]
    rtol: float = 1e-5
    atol: float = 1e-5


def assert_refused_in_one_line(model: onnx.ModelProto, pattern: str) -> None:
    """Compiling `model` stops with a one-line onnxc error matching `pattern`."""
    with pytest.raises(onnxc.OnnxcError, match=pattern) as error:
        onnxc.compile(model, cache=False)
    assert "\n" not in str(error.value)
