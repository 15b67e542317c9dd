"""The packed 4-bit and 2-bit element types (int4, uint4, float4e2m1, int2,
uint2) through a whole model: packed inputs, outputs and weights (a weight
kept packed in the C because a Pad with a run-time fill reads it), data
movement over packed buffers with odd element counts (the last byte half
used), conversions both ways; compared bit for bit with onnx.reference
(onnxruntime has no kernels for most of these casts). The C stores them
packed as ONNX serialises them (two or four elements per byte, the first in
the low bits), so the weights take half or a quarter of a byte each."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnxc
from onnxc import element_types
from tests.mcu.tools import needs_arm

RNG = np.random.default_rng(5)
STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2", "-c"]
WEIGHT = np.arange(-7, 8).reshape(5, 3).astype(ml_dtypes.int4)


def _model() -> onnx.ModelProto:
    F, I4 = TensorProto.FLOAT, TensorProto.INT4
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
        helper.make_node("Cast", ["xt"], ["xf"], to=F),
        helper.make_node("Cast", ["w"], ["wf"], to=F),
        helper.make_node("Mul", ["wf", "scale"], ["ws"]),
        helper.make_node("Add", ["xf", "ws"], ["s"]),
        helper.make_node("Cast", ["s"], ["as_int4"], to=I4),
        helper.make_node("Cast", ["s"], ["as_float4"], to=TensorProto.FLOAT4E2M1),
        helper.make_node("Cast", ["xf"], ["as_uint2"], to=TensorProto.UINT2),
        helper.make_node("Cast", ["u"], ["from_uint4"], to=F),
        helper.make_node("Reshape", ["x", "flat"], ["flat_x"]),
        helper.make_node("Pad", ["w", "pads", "fill"], ["padded_w"]),
    ]
    graph = helper.make_graph(
        nodes,
        "packed",
        [
            helper.make_tensor_value_info("x", I4, [3, 5]),
            helper.make_tensor_value_info("u", TensorProto.UINT4, [7]),
            helper.make_tensor_value_info("scale", F, []),
            helper.make_tensor_value_info("fill", I4, []),
        ],
        [
            helper.make_tensor_value_info("as_int4", I4, [5, 3]),
            helper.make_tensor_value_info("as_float4", TensorProto.FLOAT4E2M1, [5, 3]),
            helper.make_tensor_value_info("as_uint2", TensorProto.UINT2, [5, 3]),
            helper.make_tensor_value_info("from_uint4", F, [7]),
            helper.make_tensor_value_info("flat_x", I4, [15]),
            helper.make_tensor_value_info("padded_w", I4, [7, 3]),
        ],
        [
            numpy_helper.from_array(WEIGHT, "w"),
            numpy_helper.from_array(np.array([15], np.int64), "flat"),
            numpy_helper.from_array(np.array([1, 0, 1, 0], np.int64), "pads"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 25)])


def _feeds(seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {
        "x": rng.integers(-8, 8, (3, 5)).astype(ml_dtypes.int4),
        "u": rng.integers(0, 16, 7).astype(ml_dtypes.uint4),
        "scale": np.array(rng.uniform(0.25, 1.75), np.float32),
        "fill": np.array(rng.integers(-8, 8), ml_dtypes.int4),
    }


@pytest.fixture(scope="module")
def compiled() -> onnxc.CompiledModel:
    return onnxc.compile(_model(), name="packed")


@pytest.mark.parametrize("seed", range(4))
def test_matches_the_reference_bit_for_bit(compiled: onnxc.CompiledModel, seed: int) -> None:
    feeds = _feeds(seed)
    expected = ReferenceEvaluator(_model()).run(None, feeds)
    assert isinstance(expected, list)
    got = compiled.run(feeds)
    for name, want in zip(compiled.output_names, expected, strict=True):
        have = got[name]
        assert have.dtype == want.dtype and have.shape == want.shape, name
        assert np.array_equal(have.view(np.uint8), want.view(np.uint8)), name


def test_pack_round_trips_every_code() -> None:
    for name in ("int4", "uint4", "float4e2m1", "int2", "uint2"):
        row = element_types.by_name(name)
        assert row is not None and row.packing > 1
        codes = np.arange(1 << row.bits, dtype=np.uint8)
        values = row.unpack(row.pack(row.from_storage(codes.astype(row.storage_dtype))), 99)
        for count in (1, row.packing - 1, row.packing + 1, codes.size):
            array = np.resize(values, count)
            packed = row.pack(array)
            assert packed.size == -(-count // row.packing)
            assert np.array_equal(row.unpack(packed, count).view(np.uint8), array.view(np.uint8))


def test_packed_layout_is_the_onnx_serialisation() -> None:
    row = element_types.by_name("int4")
    assert row is not None
    tensor = numpy_helper.from_array(WEIGHT.reshape(-1), "w")
    assert row.pack(WEIGHT.reshape(-1)).tobytes() == tensor.raw_data


@pytest.mark.parametrize("compiler", ["gcc", "clang", "arm-none-eabi-gcc"])
def test_builds_warning_free_with_packed_weights(compiler: str, tmp_path: Path) -> None:
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    generated = onnxc.generate_c(_model(), name="packed")
    generated.write(tmp_path)
    source = "\n".join((tmp_path / f).read_text() for f in generated.c_files())
    weights = re.findall(r"const uint8_t \w+\[(\d+)\]", source)
    assert "8" in weights  # 15 int4 weights in 8 bytes
    for c_file in generated.c_files():
        command = [compiler, *STRICT, str(tmp_path / c_file), "-o", str(tmp_path / "m.o")]
        subprocess.run(command, check=True)


@needs_arm
def test_cortex_m4_matches_the_host(compiled: onnxc.CompiledModel) -> None:
    """The harness moves packed inputs and outputs as their bytes."""
    mcu = onnxc.compile(_model(), name="packed", target="cortex-m4")
    feeds = _feeds(7)
    host, device = compiled.run(feeds), mcu.run(feeds)
    for name in compiled.output_names:
        assert np.array_equal(device[name].view(np.uint8), host[name].view(np.uint8)), name
