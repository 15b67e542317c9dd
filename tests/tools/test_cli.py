"""`onnxc compile` output: strict C99, no malloc or stdio, deterministic; `--emit`
prints every stage; `onnxc run` checks expected outputs."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "digits_cnn.onnx"
STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]


def onnxc(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "onnxc", *args],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("c")
    result = onnxc("compile", str(EXAMPLE), "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


def test_writes_sources_and_runtime(compiled):
    names = sorted(p.name for p in compiled.iterdir())
    assert "digits_cnn.c" in names and "digits_cnn.h" in names and "onnxc_runtime.h" in names


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_builds_warning_free(compiled, compiler, tmp_path):
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    subprocess.run(
        [
            compiler,
            *STRICT,
            "-O2",
            "-c",
            str(compiled / "digits_cnn.c"),
            "-o",
            str(tmp_path / "m.o"),
        ],
        check=True,
    )


def test_builds_for_cortex_m4(compiled, tmp_path):
    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc not installed")
    subprocess.run(
        [
            "arm-none-eabi-gcc",
            *STRICT,
            "-Os",
            "-mcpu=cortex-m4",
            "-mthumb",
            "-mfloat-abi=hard",
            "-mfpu=fpv4-sp-d16",
            "-c",
            str(compiled / "digits_cnn.c"),
            "-o",
            str(tmp_path / "m.o"),
        ],
        check=True,
    )


def test_no_malloc_no_stdio(compiled):
    source = (compiled / "digits_cnn.c").read_text() + (compiled / "digits_cnn.h").read_text()
    for forbidden in ("malloc", "calloc", "free(", "stdio", "printf", "stdlib"):
        assert forbidden not in source


def test_deterministic(compiled, tmp_path):
    result = onnxc("compile", str(EXAMPLE), "-o", str(tmp_path))
    assert result.returncode == 0, result.stderr
    for name in ("digits_cnn.c", "digits_cnn.h"):
        assert (tmp_path / name).read_bytes() == (compiled / name).read_bytes()


def test_header_contract(compiled):
    header = (compiled / "digits_cnn.h").read_text()
    assert "#define digits_cnn_WORKSPACE_SIZE" in header
    assert "int digits_cnn_run(const float *image, float *logits);" in header
    assert "digits_cnn_run_with_workspace(void *workspace" in header
    source = (compiled / "digits_cnn.c").read_text()
    assert "/* Conv " in source  # each lowered node is named above its loops


@pytest.mark.parametrize(
    "stage, marker",
    [
        ("import", '"onnx.Conv"'),
        ("onnx", '"onnx.Conv"'),
        ("linalg", "linalg.generic"),
        ("loops", "scf.for"),
        ("c", "digits_cnn_run"),
    ],
)
def test_emit_stage(stage, marker):
    result = onnxc("compile", str(EXAMPLE), "--emit", stage)
    assert result.returncode == 0, result.stderr
    assert marker in result.stdout


def test_run_matches_expected():
    result = onnxc(
        "run",
        str(EXAMPLE),
        "--input",
        f"image={ROOT / 'examples' / 'digit_input.npy'}",
        "--expect",
        str(ROOT / "examples" / "digit_expected.npy"),
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "logits: matches" in result.stdout


def test_run_reports_missing_input():
    result = onnxc("run", str(EXAMPLE))
    assert result.returncode == 1
    assert "missing input(s): --input image=FILE.npy" in result.stderr
