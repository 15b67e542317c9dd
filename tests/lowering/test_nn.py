"""Numeric tests of the nn lowerings (Conv, ConvTranspose, pooling,
BatchNormalization):
tiny one-node models compiled with onnxc and compared with onnxruntime; and
checks that padded window operators allocate no padded copy and never load
outside their input."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import memref

import onnxc
from onnxc.errors import OnnxcError
from onnxc.frontend import import_model
from onnxc.pipeline import lower

ort = pytest.importorskip("onnxruntime")

OPSET = 19


def _model(
    op_type: str,
    x_shape: tuple[int, ...],
    weights: dict[str, np.ndarray],
    inputs: list[str],
    extra_inputs: dict[str, tuple[int, ...]] | None = None,
    outputs: Sequence[str] = ("y",),
    **attributes: Any,
) -> onnx.ModelProto:
    graph_inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)]
    for name, shape in (extra_inputs or {}).items():
        graph_inputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, shape))
    node = helper.make_node(op_type, inputs, list(outputs), name="node", **attributes)
    graph = helper.make_graph(
        [node],
        op_type.lower(),
        graph_inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 9
    return model


def _reference(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    """onnxruntime's outputs; declares the graph outputs (declared without a
    shape) with their shapes."""
    expected = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    ).run(None, feeds)
    for output, value in zip(model.graph.output, expected, strict=True):
        output.CopyFrom(helper.make_tensor_value_info(output.name, TensorProto.FLOAT, value.shape))
    return expected


def _check(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    expected = _reference(model, feeds)
    actual = list(onnxc.compile(model).run(feeds).values())
    assert len(actual) == len(expected)
    for got, want in zip(actual, expected, strict=True):
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _random(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


CONV_CASES: dict[str, tuple[tuple[int, ...], tuple[int, ...], bool, dict[str, Any]]] = {
    # name: (x shape, w shape, bias, attributes)
    "2d_plain": ((1, 3, 6, 6), (4, 3, 3, 3), False, {}),
    "2d_bias_pads": ((2, 3, 5, 5), (4, 3, 3, 3), True, {"pads": [1, 1, 1, 1]}),
    "2d_asym_pads_strides": (
        (1, 2, 7, 6),
        (3, 2, 3, 2),
        True,
        {"pads": [0, 1, 2, 1], "strides": [2, 3]},
    ),
    "2d_dilations": (
        (1, 2, 8, 8),
        (2, 2, 3, 3),
        True,
        {"dilations": [2, 1], "pads": [2, 1, 2, 1]},
    ),
    "2d_group": ((1, 4, 5, 5), (6, 2, 3, 3), True, {"group": 2, "pads": [1, 1, 1, 1]}),
    "2d_depthwise": (
        (1, 4, 6, 6),
        (4, 1, 3, 3),
        True,
        {"group": 4, "strides": [2, 2], "pads": [1, 1, 1, 1]},
    ),
    "2d_depthwise_multiplier": ((1, 3, 5, 5), (6, 1, 3, 3), False, {"group": 3}),
    "2d_same_upper": (
        (1, 2, 7, 7),
        (3, 2, 4, 4),
        False,
        {"auto_pad": "SAME_UPPER", "strides": [2, 2]},
    ),
    "2d_same_lower": ((1, 2, 6, 7), (3, 2, 4, 3), True, {"auto_pad": "SAME_LOWER"}),
    "2d_valid": (
        (1, 2, 6, 6),
        (3, 2, 3, 3),
        False,
        {"auto_pad": "VALID", "strides": [2, 2]},
    ),
    "2d_kernel_shape": ((1, 2, 5, 5), (2, 2, 3, 3), False, {"kernel_shape": [3, 3]}),
    "2d_1x1": ((1, 8, 4, 4), (5, 8, 1, 1), True, {}),
    "1d": (
        (2, 3, 9),
        (4, 3, 3),
        True,
        {"pads": [1, 2], "strides": [2], "dilations": [2]},
    ),
    "3d": ((1, 2, 4, 5, 5), (3, 2, 2, 3, 3), True, {"pads": [0, 1, 1, 1, 1, 0]}),
    # Pads wider than the window: the first and last windows along H (and the
    # last along W) hold only padding; one output row is interior.
    "2d_pads_beyond_window": (
        (1, 2, 4, 5),
        (3, 2, 3, 2),
        True,
        {"pads": [4, 1, 3, 3], "strides": [2, 1], "dilations": [1, 2]},
    ),
    # No window lies inside X: every output takes the clamped loops.
    "1d_no_interior": ((1, 2, 2), (2, 2, 5), False, {"pads": [2, 2]}),
}


def _conv_model(name: str) -> onnx.ModelProto:
    x_shape, w_shape, with_bias, attributes = CONV_CASES[name]
    weights = {"w": _random(w_shape, 1)}
    inputs = ["x", "w"]
    if with_bias:
        weights["b"] = _random((w_shape[0],), 2)
        inputs.append("b")
    return _model("Conv", x_shape, weights, inputs, **attributes)


@pytest.mark.parametrize("name", list(CONV_CASES))
def test_conv(name: str) -> None:
    _check(_conv_model(name), {"x": _random(CONV_CASES[name][0])})


CONV_TRANSPOSE_CASES: dict[str, tuple[tuple[int, ...], tuple[int, ...], bool, dict[str, Any]]] = {
    # name: (x shape, w shape [C, M/group, k...], bias, attributes)
    "2d_plain": ((1, 2, 3, 3), (2, 3, 3, 3), True, {}),
    "2d_strides_pads_output_padding": (
        (1, 2, 4, 3),
        (2, 2, 3, 2),
        True,
        {"strides": [2, 3], "pads": [1, 0, 0, 1], "output_padding": [1, 1]},
    ),
    "2d_group_dilations": (
        (2, 4, 3, 3),
        (4, 2, 2, 2),
        False,
        {"group": 2, "dilations": [2, 1], "strides": [1, 2]},
    ),
    "2d_output_shape": (
        (1, 1, 3, 3),
        (1, 2, 3, 3),
        False,
        {"strides": [3, 2], "output_shape": [10, 8]},
    ),
    "2d_same_upper": (
        (1, 2, 3, 4),
        (2, 1, 3, 3),
        True,
        {"auto_pad": "SAME_UPPER", "strides": [2, 2]},
    ),
    "1d": ((1, 3, 5), (3, 2, 3), True, {"strides": [2], "pads": [1, 2]}),
    "3d": ((1, 1, 2, 3, 2), (1, 2, 2, 2, 2), True, {"strides": [2, 1, 2]}),
}


@pytest.mark.parametrize("name", list(CONV_TRANSPOSE_CASES))
def test_conv_transpose(name: str) -> None:
    x_shape, w_shape, with_bias, attributes = CONV_TRANSPOSE_CASES[name]
    weights = {"w": _random(w_shape, 1)}
    inputs = ["x", "w"]
    if with_bias:
        weights["b"] = _random((w_shape[1] * attributes.get("group", 1),), 2)
        inputs.append("b")
    model = _model("ConvTranspose", x_shape, weights, inputs, **attributes)
    _check(model, {"x": _random(x_shape)})


POOL_CASES: dict[str, tuple[str, tuple[int, ...], dict[str, Any]]] = {
    # name: (op type, x shape, attributes)
    "max_2x2": ("MaxPool", (1, 2, 6, 6), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    "max_pads": (
        "MaxPool",
        (1, 2, 5, 5),
        {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
    ),
    "max_ceil": (
        "MaxPool",
        (1, 2, 5, 5),
        {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1},
    ),
    "max_ceil_stride3": (
        "MaxPool",
        (1, 1, 8, 7),
        {
            "kernel_shape": [2, 2],
            "strides": [3, 3],
            "ceil_mode": 1,
            "pads": [1, 0, 0, 1],
        },
    ),
    "max_ceil_extra_pad_2": (
        "MaxPool",
        (1, 2, 9, 9),
        {"kernel_shape": [3, 3], "strides": [4, 4], "ceil_mode": 1},
    ),
    "max_dilations": (
        "MaxPool",
        (1, 2, 7, 7),
        {"kernel_shape": [2, 2], "dilations": [2, 2]},
    ),
    "max_same_upper": (
        "MaxPool",
        (1, 2, 5, 5),
        {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER", "strides": [2, 2]},
    ),
    "max_same_lower": (
        "MaxPool",
        (1, 2, 5, 5),
        {"kernel_shape": [3, 2], "auto_pad": "SAME_LOWER"},
    ),
    "max_valid": (
        "MaxPool",
        (1, 2, 7, 7),
        {"kernel_shape": [3, 3], "auto_pad": "VALID", "strides": [2, 2]},
    ),
    "max_1d": (
        "MaxPool",
        (2, 3, 9),
        {"kernel_shape": [3], "strides": [2], "pads": [1, 1]},
    ),
    "max_3d": (
        "MaxPool",
        (1, 2, 4, 4, 4),
        {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]},
    ),
    "avg_2x2": (
        "AveragePool",
        (1, 2, 6, 6),
        {"kernel_shape": [2, 2], "strides": [2, 2]},
    ),
    "avg_pads_exclude": (
        "AveragePool",
        (1, 2, 5, 5),
        {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
    ),
    "avg_pads_include": (
        "AveragePool",
        (1, 2, 5, 5),
        {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 1},
    ),
    "avg_ceil_exclude": (
        "AveragePool",
        (1, 2, 5, 5),
        {"kernel_shape": [2, 2], "strides": [2, 2], "ceil_mode": 1},
    ),
    "avg_ceil_include": (
        "AveragePool",
        (1, 2, 6, 5),
        {
            "kernel_shape": [3, 3],
            "strides": [2, 2],
            "ceil_mode": 1,
            "pads": [1, 1, 1, 1],
            "count_include_pad": 1,
        },
    ),
    "avg_ceil_extra_pad_2_exclude": (
        "AveragePool",
        (1, 2, 9, 9),
        {"kernel_shape": [3, 3], "strides": [4, 4], "ceil_mode": 1},
    ),
    "avg_ceil_extra_pad_2_include": (
        "AveragePool",
        (1, 2, 9, 10),
        {
            "kernel_shape": [3, 3],
            "strides": [4, 4],
            "ceil_mode": 1,
            "pads": [1, 0, 1, 1],
            "count_include_pad": 1,
        },
    ),
    "avg_same_upper": (
        "AveragePool",
        (1, 2, 5, 5),
        {"kernel_shape": [3, 3], "auto_pad": "SAME_UPPER"},
    ),
    "avg_same_lower_include": (
        "AveragePool",
        (1, 2, 5, 6),
        {"kernel_shape": [2, 3], "auto_pad": "SAME_LOWER", "count_include_pad": 1},
    ),
    "avg_dilations": (
        "AveragePool",
        (1, 2, 7, 7),
        {"kernel_shape": [2, 2], "dilations": [2, 2], "pads": [1, 1, 1, 1]},
    ),
    "avg_dilations_include": (
        "AveragePool",
        (1, 1, 7, 8),
        {
            "kernel_shape": [3, 2],
            "dilations": [2, 3],
            "pads": [2, 1, 1, 1],
            "ceil_mode": 1,
            "strides": [2, 2],
            "count_include_pad": 1,
        },
    ),
    "avg_1d": (
        "AveragePool",
        (1, 3, 8),
        {"kernel_shape": [3], "strides": [2], "pads": [1, 1]},
    ),
    "avg_3d": (
        "AveragePool",
        (1, 1, 4, 4, 4),
        {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2]},
    ),
}


def _pool_model(name: str) -> onnx.ModelProto:
    op_type, x_shape, attributes = POOL_CASES[name]
    return _model(op_type, x_shape, {}, ["x"], **attributes)


@pytest.mark.parametrize("name", list(POOL_CASES))
def test_pool(name: str) -> None:
    _check(_pool_model(name), {"x": _random(POOL_CASES[name][1])})


def _window_model(name: str) -> tuple[onnx.ModelProto, tuple[int, ...]]:
    """Case `name` of CONV_CASES or POOL_CASES, with its graph output declared,
    and the shape of X."""
    if name in CONV_CASES:
        model, x_shape = _conv_model(name), CONV_CASES[name][0]
    else:
        model, x_shape = _pool_model(name), POOL_CASES[name][1]
    _reference(model, {"x": _random(x_shape)})
    return model, x_shape


@pytest.mark.parametrize("name", ["2d_pads_beyond_window", "max_pads", "avg_dilations_include"])
def test_padded_window_allocates_only_its_output(name: str) -> None:
    """No padded copy of X: followed by a Relu (so that its output is an
    intermediate), a padded window operator allocates one buffer, its output."""
    model, _ = _window_model(name)
    model.graph.node[0].output[0] = "window"
    model.graph.node.append(helper.make_node("Relu", ["window"], ["y"]))
    # the plain lowering: cortex-m0 has no blocked kernels
    module = lower(import_model(model).module, "linalg", target="cortex-m0")
    allocs = [op for op in module.walk() if isinstance(op, memref.AllocOp)]
    assert len(allocs) == 1
    window_shape = [d.dim_value for d in model.graph.output[0].type.tensor_type.shape.dim]
    assert list(allocs[0].memref.type.get_shape()) == window_shape


ASAN_MAIN = """
#include <stdlib.h>
#include "net.h"
int main(void) {
  float *x = malloc(%(x_size)d * sizeof(float));
  float *y = malloc(%(y_size)d * sizeof(float));
  int i, status;
  for (i = 0; i < %(x_size)d; ++i) x[i] = (float)(i %% 7) - 3.0f;
  status = net_run(x, y);
  free(x);
  free(y);
  return status;
}
"""


@pytest.mark.parametrize(
    "name",
    [
        "2d_pads_beyond_window",
        "1d_no_interior",
        "2d_dilations",
        "max_ceil_stride3",
        "avg_dilations_include",
        "avg_ceil_extra_pad_2_include",
    ],
)
def test_window_loads_stay_inside_input(tmp_path: Path, name: str) -> None:
    """The generated C, built with AddressSanitizer and X in a heap block of
    its exact size: a load before or past X would be reported."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    model, x_shape = _window_model(name)
    compiled = onnxc.compile(model, name="net")
    compiled.generated.write(tmp_path)
    (tmp_path / "main.c").write_text(
        ASAN_MAIN % {"x_size": np.prod(x_shape), "y_size": compiled.runner.outputs[0].numel()}
    )
    sources = [
        "main.c",
        *compiled.generated.c_files(),
        *(p.name for p in tmp_path.glob("onnxc_*.c")),
    ]
    build = subprocess.run(
        ["gcc", "-std=c99", "-g", "-fsanitize=address", "-o", "net", *sources, "-lm"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    if build.returncode != 0 and "asan" in build.stderr.lower():
        pytest.skip("gcc cannot link AddressSanitizer here")
    assert build.returncode == 0, build.stderr
    run = subprocess.run(
        [str(tmp_path / "net")],
        capture_output=True,
        text=True,
        env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"},
    )
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("x_shape", [(2, 3, 4, 5), (1, 4, 7), (1, 2, 3, 2, 4)])
def test_global_average_pool(x_shape: tuple[int, ...]) -> None:
    model = _model("GlobalAveragePool", x_shape, {}, ["x"])
    _check(model, {"x": _random(x_shape)})


def _batchnorm_params(channels: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    return {
        "scale": rng.uniform(0.5, 1.5, channels).astype(np.float32),
        "bias": rng.uniform(-0.5, 0.5, channels).astype(np.float32),
        "mean": rng.uniform(-0.5, 0.5, channels).astype(np.float32),
        "var": rng.uniform(0.5, 1.5, channels).astype(np.float32),
    }


@pytest.mark.parametrize("x_shape", [(2, 3, 4, 4), (3, 5), (1, 2, 6)])
def test_batch_normalization_folded(x_shape: tuple[int, ...]) -> None:
    params = _batchnorm_params(x_shape[1])
    model = _model(
        "BatchNormalization",
        x_shape,
        params,
        ["x", *params],
        epsilon=1e-3,
    )
    _check(model, {"x": _random(x_shape)})


def test_batch_normalization_runtime_parameters() -> None:
    x_shape = (2, 3, 4, 4)
    params = _batchnorm_params(3)
    model = _model(
        "BatchNormalization",
        x_shape,
        {},
        ["x", *params],
        extra_inputs={name: (3,) for name in params},
    )
    _check(model, {"x": _random(x_shape), **params})


def test_batch_normalization_shared_parameter() -> None:
    """One initializer as both B and mean: folding drops it exactly once."""
    x_shape = (1, 3, 2, 2)
    params = _batchnorm_params(3)
    del params["mean"]
    model = _model("BatchNormalization", x_shape, params, ["x", "scale", "bias", "bias", "var"])
    _check(model, {"x": _random(x_shape)})


def test_conv_runtime_weights() -> None:
    """W and B as graph inputs rather than initializers."""
    x_shape, w_shape = (1, 4, 5, 5), (6, 2, 3, 3)
    model = _model(
        "Conv",
        x_shape,
        {},
        ["x", "w", "b"],
        extra_inputs={"w": w_shape, "b": (6,)},
        group=2,
        strides=[2, 1],
        pads=[1, 0, 1, 2],
    )
    feeds = {"x": _random(x_shape), "w": _random(w_shape, 1), "b": _random((6,), 2)}
    _check(model, feeds)


def test_conv_kernel_shape_mismatch_rejected() -> None:
    w = _random((2, 2, 3, 3), 1)
    model = _model("Conv", (1, 2, 5, 5), {"w": w}, ["x", "w"], kernel_shape=[3, 3])
    model.graph.node[0].attribute[0].ints[:] = [2, 2]
    model.graph.output[0].CopyFrom(
        helper.make_tensor_value_info("y", TensorProto.FLOAT, (1, 2, 4, 4))
    )
    with pytest.raises(OnnxcError, match="kernel_shape"):
        onnxc.compile(model)
