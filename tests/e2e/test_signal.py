"""DFT and STFT compiled by onnxc match onnxruntime on both of onnxc's paths:
the fast transform (power-of-two lengths known at compile time) and the
direct sum (any other length, or one known only at run time), for the
forward, inverse, one-sided (RFFT) and one-sided inverse (IRFFT)
transforms, real and complex signals, signals padded and cut to
`dft_length`, each axis (also one given at run time), run-time signal
lengths, float and double.

Where onnxruntime departs from the spec (IRFFT of an input that does not
have dft_length / 2 + 1 bins; STFT with neither window nor frame_length,
which it cannot run), the expected output is the spec's reference
(onnx.reference, numpy's FFT). Tolerance: rtol 1e-4 and atol 1e-4 times
the largest magnitude of the expected output for float; 1e-9 for double.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnxc

ort = pytest.importorskip("onnxruntime")

TOLERANCE = {np.float32: 1e-4, np.float64: 1e-9}


def _model(
    op_type: str,
    inputs: dict[str, Any],
    attributes: dict[str, Any],
    graph_inputs: set[str],
    dims: dict[str, dict[int, str]],
) -> onnx.ModelProto:
    """One node; the inputs named in `graph_inputs` are graph inputs (with
    the dimension names of `dims`), the others initializers (None omits an
    optional input)."""
    names: list[str] = []
    inputs_info, initializers = [], []
    for name, value in inputs.items():
        if value is None:
            names.append("")
            continue
        names.append(name)
        array = np.asarray(value)
        if name in graph_inputs:
            shape: list[int | str] = list(array.shape)
            for axis, symbol in dims.get(name, {}).items():
                shape[axis] = symbol
            element = helper.np_dtype_to_tensor_dtype(array.dtype)
            inputs_info.append(helper.make_tensor_value_info(name, element, shape))
        else:
            initializers.append(numpy_helper.from_array(array, name))
    while names and not names[-1]:
        names.pop()
    node = helper.make_node(op_type, names, ["y"], name=op_type.lower(), **attributes)
    rank = 4 if op_type == "STFT" else np.ndim(inputs["x"])
    element = helper.np_dtype_to_tensor_dtype(np.asarray(next(iter(inputs.values()))).dtype)
    output = helper.make_tensor_value_info("y", element, [None] * rank)
    graph = helper.make_graph([node], "signal", inputs_info, [output], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])
    model.ir_version = 10
    return onnx.shape_inference.infer_shapes(model)


@dataclass
class Case:
    inputs: dict[str, Any]
    attributes: dict[str, Any] = field(default_factory=dict)
    runtime: set[str] = field(default_factory=set)
    """Integer inputs given at run time rather than as initializers."""
    dims: dict[str, dict[int, str]] = field(default_factory=dict)
    """Dimensions of inputs named (so sized at run time)."""
    spec: bool = False
    """Compare with onnx.reference instead of onnxruntime."""


def _signal(shape: tuple[int, ...], dtype: type = np.float32) -> np.ndarray:
    return np.random.default_rng(sum(shape)).standard_normal(shape).astype(dtype)


def _i64(value: int) -> np.ndarray:
    return np.array(value, dtype=np.int64)


def _dft(
    shape: tuple[int, ...],
    length: int | None = None,
    axis: int = 1,
    dtype: type = np.float32,
    **options: Any,
) -> Case:
    inputs = {
        "x": _signal(shape, dtype),
        "dft_length": None if length is None else _i64(length),
        "axis": _i64(axis),
    }
    return Case(inputs, **options)


DFTS = {
    "fft-real": _dft((2, 8, 1)),
    "fft-length-1": _dft((3, 1, 2)),
    "fft-length-2": _dft((3, 2, 1)),
    "fft-long": _dft((1, 256, 2)),
    "direct-length-3": _dft((2, 3, 1)),
    "direct-real": _dft((2, 6, 1)),
    "direct-prime": _dft((2, 13, 2)),
    "fft-inverse-complex": _dft((2, 8, 2), attributes={"inverse": 1}),
    "fft-inverse-real": _dft((2, 16, 1), attributes={"inverse": 1}),
    "fft-inverse-padded": _dft((3, 5, 2), 8, attributes={"inverse": 1}),
    "direct-inverse-padded": _dft((3, 5, 2), 7, attributes={"inverse": 1}),
    "fft-rfft": _dft((2, 16, 1), attributes={"onesided": 1}),
    "direct-rfft-cut": _dft((2, 12, 1), 10, attributes={"onesided": 1}),
    "direct-rfft-odd": _dft((2, 9, 1), attributes={"onesided": 1}),
    "fft-irfft": _dft((2, 5, 2), attributes={"inverse": 1, "onesided": 1}),
    "fft-irfft-length": _dft((2, 9, 2), 16, attributes={"inverse": 1, "onesided": 1}),
    "direct-irfft-odd": _dft((2, 5, 2), 9, attributes={"inverse": 1, "onesided": 1}),
    "fft-irfft-padded": _dft((2, 5, 2), 16, attributes={"inverse": 1, "onesided": 1}, spec=True),
    "fft-irfft-cut": _dft((2, 9, 2), 8, attributes={"inverse": 1, "onesided": 1}, spec=True),
    "direct-irfft-cut": _dft((2, 6, 2), 9, attributes={"inverse": 1, "onesided": 1}, spec=True),
    "fft-axis-0": _dft((8, 3, 2), axis=0),
    "direct-axis-negative": _dft((2, 3, 5, 1), axis=-2),
    "fft-complex-cut": _dft((2, 20, 2), 16),
    "fft-double": _dft((2, 32, 2), dtype=np.float64, attributes={"inverse": 1}),
    "direct-double": _dft((2, 10, 1), dtype=np.float64, attributes={"onesided": 1}),
    "runtime-axis-fft": _dft((8, 8, 2), axis=-2, runtime={"axis"}),
    "runtime-axis-direct": _dft((6, 6, 1), axis=0, runtime={"axis"}),
    "runtime-length": _dft((2, 7, 1), 8, runtime={"dft_length"}),
    "runtime-signal": _dft((2, 12, 2), dims={"x": {1: "n"}}),
    "runtime-signal-irfft": _dft(
        (2, 7, 2), attributes={"inverse": 1, "onesided": 1}, dims={"x": {1: "n"}}
    ),
}


def _hann(length: int, dtype: type = np.float32) -> np.ndarray:
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(length) / length)).astype(dtype)


def _stft(
    shape: tuple[int, ...],
    step: int,
    length: int | None,
    window: int | None,
    onesided: int = 1,
    dtype: type = np.float32,
    **options: Any,
) -> Case:
    inputs = {
        "x": _signal(shape, dtype),
        "frame_step": _i64(step),
        "window": None if window is None else _hann(window, dtype),
        "frame_length": None if length is None else _i64(length),
    }
    return Case(inputs, {"onesided": onesided}, **options)


STFTS = {
    "fft-window": _stft((2, 64, 1), 8, 16, 16),
    "fft-window-length": _stft((1, 40, 1), 6, None, 16, onesided=0),
    "fft-no-window": _stft((2, 48, 1), 16, 32, None),
    "fft-complex-double": _stft((1, 40, 2), 4, 8, 8, onesided=0, dtype=np.float64),
    "direct-complex": _stft((1, 50, 2), 5, 12, None, onesided=0),
    "direct-window": _stft((2, 400, 1), 160, 100, 100),
    "direct-runtime-signal": _stft((2, 37, 1), 3, 10, 10, dims={"x": {1: "n"}}),
    "fft-runtime-step": _stft((1, 33, 1), 5, 8, 8, runtime={"frame_step"}),
    "direct-whole-signal": _stft((2, 10, 1), 3, None, None, spec=True),
}


def _check(op_type: str, case: Case, name: str) -> None:
    graph_inputs = {"x", "window", *case.runtime}
    model = _model(op_type, case.inputs, case.attributes, graph_inputs, case.dims)
    feeds = {n: v for n, v in case.inputs.items() if n in graph_inputs and v is not None}
    if case.spec:
        outputs = ReferenceEvaluator(model).run(None, feeds)
        assert isinstance(outputs, list)  # the final outputs (not intermediate=True's dict)
    else:
        providers = ["CPUExecutionProvider"]
        session = ort.InferenceSession(model.SerializeToString(), providers=providers)
        outputs = session.run(None, feeds)
    expected = np.asarray(outputs[0])
    got = onnxc.compile(model, name=name).run(feeds)["y"]
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    tolerance = TOLERANCE[expected.dtype.type]
    scale = float(np.abs(expected).max())
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance * scale)


@pytest.mark.parametrize("case", sorted(DFTS))
def test_dft(case: str) -> None:
    _check("DFT", DFTS[case], case.replace("-", "_"))


@pytest.mark.parametrize("case", sorted(STFTS))
def test_stft(case: str) -> None:
    _check("STFT", STFTS[case], case.replace("-", "_"))
