"""`onnxc bench`: it times both runners on the same inputs and reports what it
measured (no speed is asserted: timings belong in benchmarks, not tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from onnxc.bench import bench, format_result
from onnxc.errors import OnnxcError
from onnxc.options import CompileOptions

pytest.importorskip("onnxruntime")

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "digits_cnn.onnx"


def test_bench_times_both_on_the_same_inputs() -> None:
    result = bench(EXAMPLE, CompileOptions.make(), rounds=2)
    assert result.onnxc_ms > 0 and result.onnxruntime_ms > 0
    assert result.macs == 80_896  # the size report's total for the example
    assert result.max_abs_difference < 1e-4  # same inputs, same logits
    assert result.rounds == 2 and result.repeat >= 1
    assert result.ratio == result.onnxruntime_ms / result.onnxc_ms
    lines = format_result("digits_cnn", result).splitlines()
    assert lines[0].split()[:4] == ["model", "onnxruntime", "ms", "onnxc"]
    assert lines[1].split()[0] == "digits_cnn"


def test_bench_refuses_an_emulated_target() -> None:
    with pytest.raises(OnnxcError, match="only the host target"):
        bench(EXAMPLE, CompileOptions.make(target="cortex-m4"))


def test_cli_prints_the_table() -> None:
    command = [sys.executable, "-m", "onnxc", "bench", str(EXAMPLE), "--rounds", "1", "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].split()[0] == "digits_cnn"
    bad = subprocess.run([*command[:-3], "--rounds", "0"], capture_output=True, text=True)
    assert bad.returncode == 1
    assert bad.stderr.strip() == "onnxc: error: bench: --rounds must be 1 or more"
