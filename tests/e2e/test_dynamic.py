"""Models with sizes known only at run time: compiled once with nothing bound,
run at several sizes, every run compared with onnxruntime (float results to
1e-5 relative / 1e-5 absolute, integers exactly); the generated C builds
warning-free with gcc, clang and arm-none-eabi-gcc."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from tests.e2e.run_time import target_for
from tests.mcu.tools import needs_arm

ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(7)
STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2", "-c"]
ARM = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"]

Feeds = Callable[[Sequence[int]], dict[str, np.ndarray]]


def floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def scalars(values: Sequence[Any], dtype: Any) -> dict[str, np.ndarray]:
    """Range's start, limit and delta."""
    names = ["start", "limit", "delta"]
    return {k: np.array(v, dtype) for k, v in zip(names, values, strict=True)}


def info(name: str, elem: int, shape: Sequence[int | str | None]) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, elem, list(shape))


@dataclass
class Model:
    """A graph, and the inputs to run it on for each of `sizes`."""

    nodes: list[onnx.NodeProto]
    inputs: list[onnx.ValueInfoProto]
    outputs: list[onnx.ValueInfoProto]
    feeds: Feeds
    sizes: list[tuple[Any, ...]]
    """The arguments of `feeds`, one tuple per run (sizes, k, Range's bounds)."""
    initializers: dict[str, np.ndarray] = field(default_factory=dict)
    opset: int = 18

    def proto(self) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            "dynamic",
            self.inputs,
            self.outputs,
            [numpy_helper.from_array(v, k) for k, v in self.initializers.items()],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 8
        onnx.checker.check_model(model, full_check=True)
        return model


def node(op: str, inputs: list[str], outputs: list[str], **attrs: Any) -> onnx.NodeProto:
    return helper.make_node(op, inputs, outputs, **attrs)


F = TensorProto.FLOAT
I64 = TensorProto.INT64

MODELS: dict[str, Model] = {
    "add_broadcast": Model(
        [node("Add", ["x", "y"], ["t"]), node("Relu", ["t"], ["z"])],
        [info("x", F, ["N", "C"]), info("y", F, ["C"])],
        [info("z", F, ["N", "C"])],
        lambda s: {"x": floats(s[0], s[1]), "y": floats(s[1])},
        [(1, 1), (2, 3), (5, 7), (0, 4)],
    ),
    "add_runtime_broadcast": Model(
        [node("Add", ["x", "y"], ["z"])],
        [info("x", F, ["A", 3]), info("y", F, ["B", 3])],
        [info("z", F, [None, 3])],
        lambda s: {"x": floats(s[0], 3), "y": floats(s[1], 3)},
        [(1, 4), (4, 1), (4, 4), (1, 1)],
    ),
    "matmul_relu_softmax": Model(
        [
            node("MatMul", ["x", "w"], ["h"]),
            node("Relu", ["h"], ["r"]),
            node("Softmax", ["r"], ["p"], axis=-1),
        ],
        [info("x", F, ["batch", "seq", 8])],
        [info("p", F, ["batch", "seq", 5])],
        lambda s: {"x": floats(s[0], s[1], 8)},
        [(1, 1), (2, 3), (3, 17), (1, 64)],
        {"w": floats(8, 5)},
    ),
    "matmul_dynamic_both": Model(
        [node("MatMul", ["a", "b"], ["c"])],
        [info("a", F, ["M", "K"]), info("b", F, ["K", "N"])],
        [info("c", F, ["M", "N"])],
        lambda s: {"a": floats(s[0], s[1]), "b": floats(s[1], s[2])},
        [(1, 1, 1), (3, 4, 5), (7, 2, 9), (16, 16, 16)],
    ),
    "conv_pad_gap": Model(
        [
            node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
            node("Relu", ["c"], ["r"]),
            node("Conv", ["r", "w2"], ["c2"], strides=[2, 2], kernel_shape=[3, 3]),
            node("GlobalAveragePool", ["c2"], ["g"]),
        ],
        [info("x", F, ["N", 3, "H", "W"])],
        [info("g", F, ["N", 6, 1, 1])],
        lambda s: {"x": floats(s[0], 3, s[1], s[2])},
        [(1, 3, 3), (2, 8, 5), (1, 16, 16), (3, 7, 12)],
        {"w": floats(4, 3, 3, 3), "b": floats(4), "w2": floats(6, 4, 3, 3)},
    ),
    "pools": Model(
        [
            node("MaxPool", ["x"], ["m"], kernel_shape=[2, 2], strides=[2, 2]),
            node("AveragePool", ["x"], ["a"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            node("ReduceMean", ["a", "axes"], ["r"], keepdims=0),
        ],
        [info("x", F, ["N", 2, "H", "W"])],
        [info("m", F, ["N", 2, None, None]), info("r", F, ["N", 2])],
        lambda s: {"x": floats(s[0], 2, s[1], s[2])},
        [(1, 2, 2), (2, 5, 7), (1, 9, 4)],
        {"axes": np.array([2, 3], np.int64)},
    ),
    "reshape_from_input": Model(
        [node("Reshape", ["x", "shape"], ["y"])],
        [info("x", F, [2, 3, 4]), info("shape", I64, [3])],
        [info("y", F, [None, None, None])],
        lambda s: {"x": floats(2, 3, 4), "shape": np.array(s, np.int64)},
        [(4, 3, 2), (-1, 2, 2), (0, 0, 4), (24, 1, 1)],
    ),
    "flatten_dynamic": Model(
        [
            node("Shape", ["x"], ["s"]),
            node("Reshape", ["x", "two"], ["y"]),
            node("Cast", ["s"], ["z"], to=I64),
        ],
        [info("x", F, ["N", "C", 2])],
        [info("y", F, [None, None]), info("z", I64, [3])],
        lambda s: {"x": floats(s[0], s[1], 2)},
        [(1, 1), (3, 4), (2, 0)],
        {"two": np.array([0, -1], np.int64)},
    ),
    "expand_from_input": Model(
        [node("Expand", ["x", "shape"], ["y"])],
        [info("x", F, [3, 1]), info("shape", I64, [3])],
        [info("y", F, [None, None, None])],
        lambda s: {"x": floats(3, 1), "shape": np.array(s, np.int64)},
        [(2, 1, 4), (1, 3, 1), (2, 3, 5), (1, 1, 1)],
    ),
    "expand_dynamic_input": Model(
        [node("Expand", ["x", "shape"], ["y"])],
        [info("x", F, ["N", 1])],
        [info("y", F, ["N", 5])],
        lambda s: {"x": floats(s[0], 1)},
        [(1,), (4,)],
        {"shape": np.array([1, 5], np.int64)},
    ),
    "slice_from_input": Model(
        [node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])],
        [
            info("x", F, ["N", 6]),
            info("starts", I64, [2]),
            info("ends", I64, [2]),
            info("steps", I64, [2]),
        ],
        [info("y", F, [None, None])],
        lambda s: {
            "x": floats(s[0], 6),
            "starts": np.array(s[1:3], np.int64),
            "ends": np.array(s[3:5], np.int64),
            "steps": np.array(s[5:7], np.int64),
        },
        [(5, 1, 0, 4, 6, 1, 2), (5, -1, 5, -100, 0, -1, -2), (3, 0, 10, 9, -10, 1, -1)],
        {"axes": np.array([0, 1], np.int64)},
    ),
    "slice_runtime_axes": Model(
        [node("Slice", ["x", "starts", "ends", "axes"], ["y"])],
        [info("x", F, [4, 6]), info("axes", I64, [1])],
        [info("y", F, [None, None])],
        lambda s: {"x": floats(4, 6), "axes": np.array([s[0]], np.int64)},
        [(0,), (1,), (-1,), (-2,)],
        {"starts": np.array([1], np.int64), "ends": np.array([3], np.int64)},
    ),
    "unsqueeze_runtime_axes": Model(
        [node("Unsqueeze", ["x", "axes"], ["y"])],
        [info("x", F, ["N", 4]), info("axes", I64, [2])],
        [info("y", F, [None, None, None, None])],
        lambda s: {"x": floats(s[0], 4), "axes": np.array(s[1:], np.int64)},
        [(3, 0, 1), (2, -1, 0), (5, 3, 1), (1, 2, -4)],
    ),
    "squeeze_runtime_axes": Model(
        [node("Squeeze", ["x", "axes"], ["y"])],
        [info("x", F, [1, "N", 1, 4]), info("axes", I64, [2])],
        [info("y", F, [None, None])],
        lambda s: {"x": floats(1, s[0], 1, 4), "axes": np.array(s[1:], np.int64)},
        [(3, 0, 2), (2, -2, 0), (1, 1, 0)],
    ),
    "squeeze_dynamic_ones": Model(
        [node("Squeeze", ["x"], ["y"])],
        [info("x", F, ["A", 3, "B"])],
        [info("y", F, [None, None])],
        lambda s: {"x": floats(s[0], 3, s[1])},
        [(1, 5), (4, 1)],
    ),
    "tile_from_input": Model(
        [node("Tile", ["x", "repeats"], ["y"])],
        [info("x", F, ["N", 3]), info("repeats", I64, [2])],
        [info("y", F, [None, None])],
        lambda s: {"x": floats(s[0], 3), "repeats": np.array(s[1:], np.int64)},
        [(2, 1, 1), (1, 3, 2), (3, 0, 2), (2, 2, 1)],
    ),
    "constant_of_shape_from_input": Model(
        [node("ConstantOfShape", ["shape"], ["y"], value=helper.make_tensor("v", I64, [1], [7]))],
        [info("shape", I64, [2])],
        [info("y", I64, [None, None])],
        lambda s: {"shape": np.array(s, np.int64)},
        [(2, 3), (0, 4), (1, 1)],
    ),
    "range_int_from_input": Model(
        [node("Range", ["start", "limit", "delta"], ["y"])],
        [info("start", I64, []), info("limit", I64, []), info("delta", I64, [])],
        [info("y", I64, [None])],
        lambda s: scalars(s, np.int64),
        [(0, 10, 3), (10, 0, -3), (5, 5, 1), (-4, 7, 2), (3, 1, 1)],
    ),
    "range_float_from_input": Model(
        [node("Range", ["start", "limit", "delta"], ["y"])],
        [info("start", F, []), info("limit", F, []), info("delta", F, [])],
        [info("y", F, [None])],
        lambda s: scalars(s, np.float32),
        [(0.0, 1.0, 0.1), (2.5, -1.0, -0.7), (1.0, 1.0, 0.5), (0.0, 100.0, 0.3)],
    ),
    "nonzero": Model(
        [node("NonZero", ["x"], ["y"])],
        [info("x", F, ["N", 3])],
        [info("y", I64, [2, None])],
        lambda s: {"x": (RNG.random((s[0], 3)) < s[1] / 10).astype(np.float32)},
        [(4, 5), (3, 0), (0, 5), (5, 10)],
    ),
    "nonzero_transposed": Model(
        [node("NonZero", ["x"], ["n"]), node("Transpose", ["n"], ["y"], perm=[1, 0])],
        [info("x", I64, ["N", 3])],
        [info("y", I64, [None, 2])],
        lambda s: {"x": RNG.integers(0, 2, (s[0], 3))},
        [(4,), (1,), (6,)],
    ),
    "topk_runtime_k": Model(
        [node("TopK", ["x", "k"], ["v", "i"], axis=1)],
        [info("x", F, ["N", 8]), info("k", I64, [1])],
        [info("v", F, ["N", None]), info("i", I64, ["N", None])],
        lambda s: {
            "x": np.round(RNG.standard_normal((s[0], 8)) * 2).astype(np.float32),  # with ties
            "k": np.array([s[1]], np.int64),
        },
        [(2, 3), (3, 8), (1, 0), (4, 1)],
    ),
    "reduce_runtime_axes": Model(
        [
            node("ReduceLogSumExp", ["x", "axes"], ["lse"], keepdims=0),
            node("ReduceMax", ["x", "axes"], ["m"]),
            node("ReduceL2", ["x", "axes"], ["l2"], keepdims=0),
        ],
        [info("x", F, ["N", "C", "H"]), info("axes", I64, [2])],
        [info("lse", F, [None]), info("m", F, [None, None, None]), info("l2", F, [None])],
        lambda s: {"x": floats(*s[:3]), "axes": np.array(s[3:], np.int64)},
        [(2, 3, 4, 0, 2), (1, 5, 2, -1, 1), (3, 1, 2, 2, 0), (2, 0, 3, 1, 2), (2, 0, 3, 0, 2)],
    ),
    "arg_softmax_cumsum": Model(
        [
            node("ArgMax", ["x"], ["a"], axis=1, keepdims=0, select_last_index=1),
            node("LogSoftmax", ["x"], ["l"], axis=0),
            node("Hardmax", ["x"], ["h"], axis=-1),
            node("CumSum", ["x", "axis"], ["c"], exclusive=1),
        ],
        [info("x", F, ["N", "M"]), info("axis", I64, [])],
        [info("a", I64, ["N"]), info("l", F, ["N", "M"]), info("h", F, ["N", "M"])]
        + [info("c", F, ["N", "M"])],
        lambda s: {
            "x": np.round(RNG.standard_normal((s[0], s[1])) * 2).astype(np.float32),  # with ties
            "axis": np.array(s[2], np.int64),
        },
        [(2, 3, 0), (3, 5, 1), (1, 1, -1), (4, 2, -2)],
    ),
    "topk_smallest_axis0": Model(
        [node("TopK", ["x", "k"], ["v", "i"], axis=0, largest=0)],
        [info("x", I64, ["N", 3])],
        [info("v", I64, [None, 3]), info("i", I64, [None, 3])],
        lambda s: {"x": RNG.integers(-5, 5, (s[0], 3))},
        [(5,), (2,), (9,)],
        {"k": np.array([2], np.int64)},
    ),
    "concat_gather_dynamic": Model(
        [
            node("Concat", ["x", "y"], ["c"], axis=1),
            node("Gather", ["c", "i"], ["g"], axis=1),
            node("Transpose", ["g"], ["t"], perm=[1, 0]),
        ],
        [info("x", F, ["N", "A"]), info("y", F, ["N", "B"]), info("i", I64, ["K"])],
        [info("t", F, ["K", "N"])],
        lambda s: {
            "x": floats(s[0], s[1]),
            "y": floats(s[0], s[2]),
            "i": RNG.integers(-(s[1] + s[2]), s[1] + s[2], size=s[3]).astype(np.int64),
        },
        [(1, 1, 1, 1), (2, 3, 4, 5), (3, 0, 2, 2)],
    ),
}


def run_ort(model: onnx.ModelProto, feeds: Mapping[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, dict(feeds))


@pytest.fixture(scope="module")
def compiled() -> dict[str, tuple[onnx.ModelProto, onnxc.CompiledModel]]:
    return {}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_matches_onnxruntime_at_every_size(name: str) -> None:
    spec = MODELS[name]
    proto = spec.proto()
    model = onnxc.compile(proto, name=name)
    for sizes in spec.sizes:
        feeds = spec.feeds(sizes)
        want = run_ort(proto, feeds)
        got = model(*[feeds[i.name] for i in spec.inputs])
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape, (sizes, g.shape, w.shape)
            assert g.dtype == w.dtype
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=str(sizes))


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.parametrize("compiler", ["gcc", "clang", "arm-none-eabi-gcc"])
def test_builds_warning_free(name: str, compiler: str, tmp_path: Path) -> None:
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    generated = onnxc.generate_c(MODELS[name].proto(), name=name, target=target_for(compiler))
    generated.write(tmp_path)
    flags = ARM if compiler.startswith("arm") else []
    for source in generated.c_files():
        subprocess.run(
            [compiler, *STRICT, *flags, str(tmp_path / source), "-o", str(tmp_path / "m.o")],
            check=True,
        )


BOUNDED = {
    "nonzero_transposed": {"N": 6},
    "topk_runtime_k": {"N": 4},
    "conv_pad_gap": {"N": 2, "H": 12, "W": 12},
}
"""Models run on an emulated Cortex-M4 with every dimension bounded: sizes
from data (NonZero's count, TopK's k) are bounded by what their operator
implies, so the workspace is static."""


@needs_arm
@pytest.mark.parametrize("name", sorted(BOUNDED))
def test_bounded_model_runs_on_cortex_m4(name: str) -> None:
    spec = MODELS[name]
    proto = spec.proto()
    bounds = BOUNDED[name]
    mcu = onnxc.compile(proto, name=name, max_dims=bounds, target="cortex-m4")
    assert mcu.workspace_size is not None
    fitting = [
        s for s in spec.sizes if all(n <= b for n, b in zip(s, bounds.values(), strict=False))
    ]
    assert len(fitting) >= 2
    for sizes in fitting:
        feeds = spec.feeds(sizes)
        want = run_ort(proto, feeds)
        got = mcu(*[feeds[i.name] for i in spec.inputs])
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=str(sizes))


REFUSED = [
    ("expand_from_input", {"x": floats(3, 1), "shape": np.array([2, 4, 4], np.int64)}),
    ("reshape_from_input", {"x": floats(2, 3, 4), "shape": np.array([5, 5, 1], np.int64)}),
    ("reshape_from_input", {"x": floats(2, 3, 4), "shape": np.array([-1, -1, 2], np.int64)}),
    ("unsqueeze_runtime_axes", {"x": floats(2, 4), "axes": np.array([1, 1], np.int64)}),
    ("unsqueeze_runtime_axes", {"x": floats(2, 4), "axes": np.array([0, 4], np.int64)}),
    ("squeeze_runtime_axes", {"x": floats(1, 2, 1, 4), "axes": np.array([0, 1], np.int64)}),
    ("topk_runtime_k", {"x": floats(2, 8), "k": np.array([9], np.int64)}),
    ("reduce_runtime_axes", {"x": floats(2, 3, 4), "axes": np.array([1, -2], np.int64)}),
    ("reduce_runtime_axes", {"x": floats(2, 3, 4), "axes": np.array([0, 3], np.int64)}),
    ("arg_softmax_cumsum", {"x": floats(2, 3), "axis": np.array(2, np.int64)}),
    ("arg_softmax_cumsum", {"x": floats(2, 0), "axis": np.array(0, np.int64)}),
    ("range_int_from_input", scalars((0, 4, 0), np.int64)),
    (
        "slice_from_input",
        {
            "x": floats(2, 6),
            **{
                k: np.array(v, np.int64)
                for k, v in (("starts", [0, 0]), ("ends", [2, 2]), ("steps", [1, 0]))
            },
        },
    ),
    ("add_runtime_broadcast", {"x": floats(2, 3), "y": floats(3, 3)}),
]
"""Inputs whose sizes the model rejects: ONNXC_ERR_SHAPE, never a wrong answer."""


@pytest.mark.parametrize(
    ("name", "feeds"), REFUSED, ids=[f"{n}-{k}" for k, (n, _) in enumerate(REFUSED)]
)
def test_sizes_the_model_rejects_are_refused(name: str, feeds: dict[str, np.ndarray]) -> None:
    model = onnxc.compile(MODELS[name].proto(), name=name)
    with pytest.raises(onnxc.OnnxcError, match="status -5"):
        model.run(feeds)
