"""The firmware way of using generated C, built and run on the host.

NAME.c and NAME_weights.c (from `generate_c(..., separate_weights=True)`) are
compiled with a small C main, strict C99 and ONNXC_NO_DEFAULT_ARENA, as a
firmware project would. The main runs two instances of the model with separate
workspaces, one through NAME_run_with_workspace and one through NAME_invoke,
interleaved, checks the status codes for a NULL and a misaligned workspace, a too
small workspace, a wrong input shape and a too small output capacity, and
writes the outputs; they must equal the cffi build's exactly (same C, same
compiler, -O2 -ffp-contract=off on both sides).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import onnxc

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "digits_cnn.onnx"
STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2", "-ffp-contract=off"]

FIRMWARE_MAIN = r"""
#include <stdio.h>
#include <string.h>

#include "digits_cnn.h"

#define IN_SIZE (1 * 1 * 8 * 8)
#define OUT_SIZE 10

/* Two instances' arenas, placed and aligned by the "firmware". */
static unsigned char workspace_a[digits_cnn_WORKSPACE_SIZE + ONNXC_ARENA_ALIGN]
    __attribute__((aligned(ONNXC_ARENA_ALIGN)));
static unsigned char workspace_b[digits_cnn_WORKSPACE_SIZE]
    __attribute__((aligned(ONNXC_ARENA_ALIGN)));

static int load(const char *path, float *x) {
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(x, sizeof(float), IN_SIZE, f) : 0;
  if (f) fclose(f);
  return n == IN_SIZE ? 0 : 1;
}

static int save(const char *path, const float *y) {
  FILE *f = fopen(path, "wb");
  size_t n = f ? fwrite(y, sizeof(float), OUT_SIZE, f) : 0;
  if (f) fclose(f);
  return n == OUT_SIZE ? 0 : 1;
}

int main(void) {
  float x0[IN_SIZE], x1[IN_SIZE], y0[OUT_SIZE], y1[OUT_SIZE], again[OUT_SIZE];
  int64_t in_shape[4] = {1, 1, 8, 8}, out_shape[2] = {0, 0};
  onnxc_tensor inputs[1], outputs[1];
  size_t size = sizeof workspace_b;
  if (load("in0.bin", x0) || load("in1.bin", x1)) return 10;

  if (digits_cnn_run_with_workspace(workspace_a, x0, y0) != ONNXC_OK) return 11;
  inputs[0].data = x1;
  inputs[0].shape = in_shape;
  outputs[0].data = y1;
  outputs[0].capacity = OUT_SIZE;
  outputs[0].shape = out_shape;
  if (digits_cnn_invoke(workspace_b, &size, inputs, outputs) != ONNXC_OK) return 12;
  if (out_shape[0] != 1 || out_shape[1] != OUT_SIZE) return 19;
  /* Instance A again, after B ran: its result depends on nothing B did. */
  if (digits_cnn_run_with_workspace(workspace_a, x0, again) != ONNXC_OK) return 13;
  if (memcmp(y0, again, sizeof y0) != 0) return 14;

  if (digits_cnn_run_with_workspace(NULL, x0, y0) != ONNXC_ERR_NULL_ARG) return 15;
  if (digits_cnn_run_with_workspace(workspace_a + 1, x0, y0) != ONNXC_ERR_MISALIGNED) return 16;
  if (digits_cnn_invoke(workspace_b, &size, NULL, outputs) != ONNXC_ERR_NULL_ARG) return 17;
  size = 16;
  if (digits_cnn_invoke(workspace_b, &size, inputs, outputs) != ONNXC_ERR_WORKSPACE) return 20;
  if (size != digits_cnn_WORKSPACE_SIZE) return 21;
  in_shape[2] = 9;
  if (digits_cnn_invoke(workspace_b, &size, inputs, outputs) != ONNXC_ERR_SHAPE) return 22;
  in_shape[2] = 8;
  outputs[0].capacity = OUT_SIZE - 1;
  if (digits_cnn_invoke(workspace_b, &size, inputs, outputs) != ONNXC_ERR_CAPACITY) return 23;

  return save("out0.bin", again) || save("out1.bin", y1) ? 18 : 0;
}
"""


def test_two_instances_with_own_workspaces_match_cffi(tmp_path: Path) -> None:
    if shutil.which("cc") is None:
        pytest.skip("no host C compiler (cc)")
    generated = onnxc.generate_c(EXAMPLE, name="digits_cnn", separate_weights=True)
    assert generated.c_files() == ["digits_cnn.c", "digits_cnn_weights.c"]
    generated.write(tmp_path)
    (tmp_path / "main.c").write_text(FIRMWARE_MAIN)
    subprocess.run(
        [
            "cc",
            *STRICT,
            "-DONNXC_NO_DEFAULT_ARENA",
            "-I.",
            "main.c",
            *generated.c_files(),
            "-lm",
            "-o",
            "firmware",
        ],
        cwd=tmp_path,
        check=True,
    )
    rng = np.random.default_rng(0)
    x0, x1 = (rng.standard_normal((1, 1, 8, 8)).astype(np.float32) for _ in range(2))
    x0.tofile(tmp_path / "in0.bin")
    x1.tofile(tmp_path / "in1.bin")
    result = subprocess.run(["./firmware"], cwd=tmp_path, check=False)
    assert result.returncode == 0, f"firmware main failed at check {result.returncode}"

    host = onnxc.compile(EXAMPLE)
    for x, out in ((x0, "out0.bin"), (x1, "out1.bin")):
        (expected,) = host(x)
        got = np.fromfile(tmp_path / out, dtype=np.float32).reshape(expected.shape)
        np.testing.assert_array_equal(got, expected)
    assert not np.array_equal(host(x0)[0], host(x1)[0])  # the two instances saw different data
