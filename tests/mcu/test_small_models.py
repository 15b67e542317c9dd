"""Small ONNX models run on each MCU target (in qemu) give the host build's outputs.

The models cover float32 arithmetic and the nn operators, libm functions, and
tensors of other element types (uint8, int8, uint16, int32, int64, float64,
scalars, several outputs). The same C runs on both sides, built with
-ffp-contract=off, so basic float arithmetic (hardware or soft float) is
IEEE-exact and compared exactly; models calling libm (exp, tanh) are compared at
rtol 1e-6 / atol 1e-7, since picolibc and glibc may differ by an ulp.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import onnxc
from onnxc.targets import get_target
from tests.mcu.tools import MCU_TARGETS, needs_arm

value = h.make_tensor_value_info
STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-Os"]


def _model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = h.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    # onnxruntime (used elsewhere in the suite) refuses IR versions above 10.
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], ir_version=10)
    onnx.checker.check_model(model, full_check=True)
    return model


def _weight(name: str, shape: tuple[int, ...], seed: int) -> onnx.TensorProto:
    values = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return onnx.numpy_helper.from_array(values, name)


def conv_pool() -> onnx.ModelProto:
    return _model(
        [
            h.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1]),
            h.make_node("Relu", ["c"], ["r"]),
            h.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
            h.make_node(
                "AveragePool", ["p"], ["y"], kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 1, 1]
            ),
        ],
        [value("x", T.FLOAT, [1, 2, 8, 8])],
        [value("y", T.FLOAT, [1, 4, 2, 2])],
        [_weight("w", (4, 2, 3, 3), 1), _weight("b", (4,), 2)],
    )


def gemm_softmax() -> onnx.ModelProto:
    return _model(
        [
            h.make_node("Gemm", ["x", "w", "b"], ["g"], transB=1, alpha=0.5),
            h.make_node("Tanh", ["g"], ["t"]),
            h.make_node("Softmax", ["t"], ["y"], axis=-1),
        ],
        [value("x", T.FLOAT, [3, 16])],
        [value("y", T.FLOAT, [3, 5])],
        [_weight("w", (5, 16), 3), _weight("b", (5,), 4)],
    )


def broadcast_two_outputs() -> onnx.ModelProto:
    return _model(
        [
            h.make_node("Add", ["a", "b"], ["s"]),
            h.make_node("Mul", ["s", "a"], ["m"]),
            h.make_node("Max", ["m", "b"], ["y"]),
            h.make_node("Neg", ["s"], ["z"]),
        ],
        [value("a", T.FLOAT, [2, 3, 4]), value("b", T.FLOAT, [3, 1])],
        [value("y", T.FLOAT, [2, 3, 4]), value("z", T.FLOAT, [2, 3, 4])],
    )


def int32_transpose_concat() -> onnx.ModelProto:
    return _model(
        [
            h.make_node("Transpose", ["a"], ["t"], perm=[1, 0]),
            h.make_node("Concat", ["t", "b"], ["y"], axis=0),
        ],
        [value("a", T.INT32, [2, 3]), value("b", T.INT32, [1, 2])],
        [value("y", T.INT32, [4, 2])],
    )


def uint8_cast_scale() -> onnx.ModelProto:
    return _model(
        [h.make_node("Cast", ["a"], ["f"], to=T.FLOAT), h.make_node("Mul", ["f", "s"], ["y"])],
        [value("a", T.UINT8, [6]), value("s", T.FLOAT, [6])],
        [value("y", T.FLOAT, [6])],
    )


def float_to_int64() -> onnx.ModelProto:
    return _model(
        [h.make_node("Cast", ["a"], ["y"], to=T.INT64)],
        [value("a", T.FLOAT, [7])],
        [value("y", T.INT64, [7])],
    )


def int8_reshape() -> onnx.ModelProto:
    return _model(
        [h.make_node("Reshape", ["a", "shape"], ["y"])],
        [value("a", T.INT8, [2, 3])],
        [value("y", T.INT8, [3, 2])],
        [h.make_tensor("shape", T.INT64, [2], [3, 2])],
    )


def uint16_slice() -> onnx.ModelProto:
    return _model(
        [h.make_node("Slice", ["a", "starts", "ends"], ["y"])],
        [value("a", T.UINT16, [6])],
        [value("y", T.UINT16, [3])],
        [h.make_tensor("starts", T.INT64, [1], [1]), h.make_tensor("ends", T.INT64, [1], [4])],
    )


def float64_add() -> onnx.ModelProto:
    return _model(
        [h.make_node("Add", ["a", "b"], ["y"])],
        [value("a", T.DOUBLE, [4]), value("b", T.DOUBLE, [4])],
        [value("y", T.DOUBLE, [4])],
    )


def gather_int64_indices() -> onnx.ModelProto:
    return _model(
        [h.make_node("Gather", ["a", "i"], ["g"], axis=0), h.make_node("Exp", ["g"], ["y"])],
        [value("a", T.FLOAT, [5, 2]), value("i", T.INT64, [3])],
        [value("y", T.FLOAT, [3, 2])],
    )


def scalar_square() -> onnx.ModelProto:
    return _model(
        [h.make_node("Mul", ["a", "a"], ["y"])],
        [value("a", T.FLOAT, [])],
        [value("y", T.FLOAT, [])],
    )


@dataclass(frozen=True)
class Case:
    build: Callable[[], onnx.ModelProto]
    exact: bool  # False when libm functions make the last ulp differ


CASES = {
    "conv_pool": Case(conv_pool, exact=True),
    "gemm_softmax": Case(gemm_softmax, exact=False),
    "broadcast_two_outputs": Case(broadcast_two_outputs, exact=True),
    "int32_transpose_concat": Case(int32_transpose_concat, exact=True),
    "uint8_cast_scale": Case(uint8_cast_scale, exact=True),
    "float_to_int64": Case(float_to_int64, exact=True),
    "int8_reshape": Case(int8_reshape, exact=True),
    "uint16_slice": Case(uint16_slice, exact=True),
    "float64_add": Case(float64_add, exact=True),
    "gather_int64_indices": Case(gather_int64_indices, exact=False),
    "scalar_square": Case(scalar_square, exact=True),
}


def _inputs(model: onnx.ModelProto, seed: int = 0) -> dict[str, np.ndarray]:
    """Seeded inputs of each graph input's type and shape (indices kept in range)."""
    rng = np.random.default_rng(seed)
    inputs: dict[str, np.ndarray] = {}
    for graph_input in model.graph.input:
        tensor_type = graph_input.type.tensor_type
        shape = tuple(d.dim_value for d in tensor_type.shape.dim)
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
        if dtype.kind == "f":
            inputs[graph_input.name] = (rng.standard_normal(shape) * 3).astype(dtype)
        else:
            low, high = (0, 5) if graph_input.name == "i" else (-100, 100)
            info = np.iinfo(dtype)
            inputs[graph_input.name] = rng.integers(
                max(low, info.min), min(high, info.max), size=shape, endpoint=True
            ).astype(dtype)
    return inputs


@needs_arm
@pytest.mark.parametrize("target", MCU_TARGETS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_matches_host(case: str, target: str) -> None:
    model = CASES[case].build()
    inputs = _inputs(model)
    # `host-portable` rounds each multiply and add, as the MCUs do (`host`
    # fuses them into one where the CPU has fused multiply-adds)
    expected = onnxc.compile(model, name=case, target="host-portable").run(inputs)
    emulated = onnxc.compile(model, name=case, target=target)
    assert emulated.target == target
    got = emulated.run(inputs)
    assert list(got) == list(expected)
    for name, value_ in expected.items():
        assert got[name].dtype == value_.dtype and got[name].shape == value_.shape, name
        if CASES[case].exact:
            np.testing.assert_array_equal(got[name], value_, err_msg=name)
        else:
            np.testing.assert_allclose(got[name], value_, rtol=1e-6, atol=1e-7, err_msg=name)
    # The positional form goes through the emulator too.
    positional = emulated(*inputs.values())
    for a, b in zip(positional, got.values(), strict=True):
        np.testing.assert_array_equal(a, b)


@needs_arm
@pytest.mark.parametrize("target", MCU_TARGETS)
def test_generated_c_is_strict_c99_for_target(target: str, tmp_path) -> None:
    """NAME.c and NAME_weights.c compile warning-free at -Os for each MCU target."""
    spec = get_target(target)
    for case in ("conv_pool", "gemm_softmax", "float64_add", "gather_int64_indices"):
        generated = onnxc.generate_c(
            CASES[case].build(), name=case, target=target, separate_weights=True
        )
        generated.write(tmp_path)
        for source in generated.c_files():
            subprocess.run(
                [
                    spec.cc,
                    *STRICT,
                    *spec.cpu_flags,
                    "-c",
                    str(tmp_path / source),
                    "-o",
                    str(tmp_path / f"{source}.o"),
                ],
                check=True,
            )
