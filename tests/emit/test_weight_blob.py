"""Weights as a binary file beside the C (`emit/c_weight_blob.py`): the model
computes what onnxruntime does with its weights read from the file (kernels'
packed weights, plain loops', small literals kept in the C), the C refuses a
file that is not its own, the choice is automatic above a size on the host and
never made for an MCU, the compilation cache keeps the file, and the command
line's recipe runs the harness with it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

import onnxc
from onnxc.emit import c_weight_blob
from onnxc.emit.runner import RunError
from onnxc.errors import OnnxcError

ERR_NULL_ARG, ERR_MISALIGNED, ERR_WEIGHTS = -1, -2, -6
FLAGS = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-c"]


def _model(batch: int | str = 2) -> onnx.ModelProto:
    """A Conv (a kernel: packed weights), a Gemm and a MatMul with constant
    weights, and a scalar Mul (a weight small enough to stay a literal)."""
    rng = np.random.default_rng(0)

    def weight(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    nodes = [
        h.make_node("Conv", ["x", "cw", "cb"], ["c"], pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c"], ["r"]),
        h.make_node("Flatten", ["r"], ["f"]),
        h.make_node("Gemm", ["f", "gw", "gb"], ["g"], transB=1),
        h.make_node("MatMul", ["g", "mw"], ["m"]),
        h.make_node("Mul", ["m", "half"], ["y"]),
    ]
    half = numpy_helper.from_array(np.array(0.5, np.float32), "half")
    graph = h.make_graph(
        nodes,
        "g",
        [h.make_tensor_value_info("x", T.FLOAT, [batch, 3, 8, 8])],
        [h.make_tensor_value_info("y", T.FLOAT, [batch, 10])],
        [
            weight("cw", 16, 3, 3, 3),
            weight("cb", 16),
            weight("gw", 32, 16 * 8 * 8),
            weight("gb", 32),
            weight("mw", 32, 10),
            half,
        ],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def _expected(model: onnx.ModelProto, x: np.ndarray) -> np.ndarray:
    return np.asarray(ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0])


@pytest.mark.parametrize("target", ["host", "host-portable"])
@pytest.mark.parametrize("batch", [2, "n"])
def test_matches_onnxruntime(target: str, batch: int | str) -> None:
    model = _model(batch)
    compiled = onnxc.compile(model, target=target, binary_weights=True, cache=False)
    blob = compiled.generated.weights
    assert blob is not None and blob.ctypes.data % c_weight_blob.ALIGN == 0
    assert blob[:8].tobytes() == c_weight_blob.MAGIC
    source = compiled.c_source
    assert "w_storage" not in source and "_weight_data + " in source
    assert "0.5f" in source  # the scalar stays a literal
    for size in [2] if batch == 2 else [1, 3]:
        x = np.random.default_rng(size).standard_normal((size, 3, 8, 8)).astype(np.float32)
        got = compiled.run({"x": x})["y"]
        np.testing.assert_allclose(got, _expected(model, x), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    ("op", "dtype"),
    [("Add", np.float16), ("Add", np.int8), ("Add", np.int64), ("Add", np.float64), ("Xor", bool)],
)
def test_every_element_type(op: str, dtype: type) -> None:
    rng = np.random.default_rng(1)
    weight = (rng.standard_normal(200) * 10).astype(dtype)
    code = onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    graph = h.make_graph(
        [h.make_node(op, ["x", "w"], ["y"])],
        "g",
        [h.make_tensor_value_info("x", code, [3, 200])],
        [h.make_tensor_value_info("y", code, [3, 200])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    compiled = onnxc.compile(model, binary_weights=True, cache=False)
    assert compiled.generated.weights is not None
    x = (rng.standard_normal((3, 200)) * 10).astype(dtype)
    want = ort.InferenceSession(model.SerializeToString()).run(None, {"x": x})[0]
    np.testing.assert_array_equal(compiled.run({"x": x})["y"], want)


def test_the_c_refuses_a_file_not_its_own() -> None:
    compiled = onnxc.compile(_model(), binary_weights=True, cache=False)
    runner = compiled.runner
    lib, ffi = runner.lib, runner.ffi  # type: ignore[attr-defined]
    blob = compiled.generated.weights
    assert blob is not None
    set_weights = getattr(lib, f"{compiled.name}_set_weights")
    assert set_weights(ffi.NULL, blob.size) == ERR_NULL_ARG
    assert set_weights(ffi.from_buffer(blob[1:]), blob.size - 1) == ERR_MISALIGNED
    assert set_weights(ffi.from_buffer(blob), blob.size - 64) == ERR_WEIGHTS
    other = c_weight_blob.aligned_bytes(blob.size)
    other[:] = blob
    other[8] ^= 1  # the identifier of other contents
    assert set_weights(ffi.from_buffer(other), other.size) == ERR_WEIGHTS
    assert set_weights(ffi.from_buffer(blob), blob.size) == 0


def test_automatic_above_the_size_and_never_on_an_mcu(monkeypatch: pytest.MonkeyPatch) -> None:
    model = _model()
    assert onnxc.generate_c(model, cache=False).weights is None  # 76 KB: C text
    monkeypatch.setattr(onnxc.options, "AUTO_BINARY_WEIGHTS", 1024)
    assert onnxc.generate_c(model, cache=False).weights is not None
    assert onnxc.generate_c(model, target="cortex-m4", cache=False).weights is None
    assert onnxc.generate_c(model, binary_weights=False, cache=False).weights is None
    with pytest.raises(OnnxcError, match="binary file are for host targets"):
        onnxc.generate_c(model, target="cortex-m4", binary_weights=True)


def test_the_cache_keeps_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONNXC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ONNXC_NO_CACHE", raising=False)
    model = _model()
    first = onnxc.generate_c(model, binary_weights=True)
    again = onnxc.generate_c(model, binary_weights=True)
    assert first.weights is not None and again.weights is not None
    assert isinstance(again.weights, np.memmap)  # mapped from the cache, not compiled
    assert again.weights.tobytes() == first.weights.tobytes()
    x = np.ones((2, 3, 8, 8), np.float32)
    got = onnxc.compile(model, binary_weights=True).run({"x": x})["y"]
    np.testing.assert_allclose(got, _expected(model, x), rtol=1e-4, atol=1e-4)
    for path in tmp_path.glob(f"*{c_weight_blob.SUFFIX}"):
        path.unlink()  # an entry without its weights file is a miss
    assert not isinstance(onnxc.generate_c(model, binary_weights=True).weights, np.memmap)


C_DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "model.h"
int main(void) {
  static float x[2 * 3 * 8 * 8], y[2 * 10];
  static unsigned char workspace[model_WORKSPACE_SIZE + 64];
  unsigned char *file = malloc(model_WEIGHTS_BYTES + 64);
  unsigned char *weights = file + (64 - (size_t)file % 64) % 64;
  unsigned char *arena = workspace + (64 - (size_t)workspace % 64) % 64;
  FILE *in = fopen("model.weights", "rb");
  int k;
  for (k = 0; k < 2 * 3 * 8 * 8; ++k) x[k] = (float)(k % 7) - 3.0f;
  if (in == NULL || fread(weights, 1, model_WEIGHTS_BYTES, in) != model_WEIGHTS_BYTES) return 9;
  fclose(in);
  printf("%d", model_run_with_workspace(arena, x, y));
  printf(" %d", model_set_weights(weights, model_WEIGHTS_BYTES));
  printf(" %d", model_run_with_workspace(arena, x, y));
  for (k = 0; k < 2 * 10; ++k) printf(" %.9g", y[k]);
  printf("\n");
  free(file);
  return 0;
}
"""


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_a_c_program_gives_the_file(tmp_path: Path, cc: str) -> None:
    """Warning-free C; a run before NAME_set_weights is refused, and after it
    the results are onnxruntime's."""
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} not installed")
    model = _model()
    onnxc.generate_c(model, name="model", binary_weights=True, cache=False).write(tmp_path)
    (tmp_path / "driver.c").write_text(C_DRIVER)
    for source in ["model.c", "driver.c"]:
        subprocess.run([cc, *FLAGS, "-O2", source], cwd=tmp_path, check=True)
    subprocess.run([cc, "model.o", "driver.o", "-lm", "-o", "driver"], cwd=tmp_path, check=True)
    out = subprocess.run(["./driver"], cwd=tmp_path, capture_output=True, text=True, check=True)
    before, given, after, *values = out.stdout.split()
    assert (int(before), int(given), int(after)) == (ERR_WEIGHTS, 0, 0)
    x = (np.arange(2 * 3 * 8 * 8) % 7 - 3).astype(np.float32).reshape(2, 3, 8, 8)
    got = np.array([float(v) for v in values], np.float32).reshape(2, 10)
    np.testing.assert_allclose(got, _expected(model, x), rtol=1e-4, atol=1e-4)


def test_the_recipe_runs_the_harness_with_the_file(tmp_path: Path) -> None:
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    path = tmp_path / "model.onnx"
    onnx.save(_model(), path)
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "onnxc", "compile", str(path), "-o", str(out), "--weights-binary"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (out / "model.weights").exists()
    x = np.random.default_rng(5).standard_normal((2, 3, 8, 8)).astype("<f4")
    x.tofile(out / "input0.bin")
    run = subprocess.run(["make", "-C", str(out), "run"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    got = np.fromfile(out / "output0.bin", "<f4").reshape(2, 10)
    np.testing.assert_allclose(got, _expected(_model(), x), rtol=1e-4, atol=1e-4)
    with (out / "model.weights").open("ab") as stream:
        stream.write(b"\0")
    run = subprocess.run([str(out / "model_harness")], cwd=out, capture_output=True, text=True)
    assert run.returncode == 2 and "model.weights must hold exactly" in run.stderr


def test_run_errors_name_the_status() -> None:
    with pytest.raises(RunError, match="the weights file is not given"):
        raise onnxc.emit.runner.status_error("m", ERR_WEIGHTS)
