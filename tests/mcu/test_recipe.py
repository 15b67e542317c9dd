"""`onnxc compile --target T -o DIR` writes a build recipe that works.

`make -C DIR` builds libNAME.a with the target's compiler and -Werror; `make run`
builds the harness program and runs it (natively, or in qemu) on inputK.bin,
and its output matches the Python API's; `CPPFLAGS=-DONNXC_NO_DEFAULT_ARENA`
drops NAME_run. The CMake fragment builds on the host. `onnxc run --target`
runs in the emulator.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import onnxc
from onnxc.targets import get_target
from tests.mcu.tools import needs_arm

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "digits_cnn.onnx"
INPUT = ROOT / "examples" / "digit_input.npy"
EXPECTED = ROOT / "examples" / "digit_expected.npy"

TARGETS = [
    pytest.param("host"),
    pytest.param("cortex-m4", marks=needs_arm),
    pytest.param("cortex-m0", marks=needs_arm),
]


def onnxc_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "onnxc", *args], capture_output=True, text=True, check=False
    )


def make(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        ["make", "-C", str(folder), *args], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.fixture(autouse=True)
def _needs_make() -> None:
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("make or cc not installed")


def _symbols(target: str, archive: Path) -> str:
    nm = "nm" if target == "host" else "arm-none-eabi-nm"
    return subprocess.run([nm, str(archive)], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("target", TARGETS)
def test_makefile_builds_library_and_runs(tmp_path: Path, target: str) -> None:
    out = tmp_path / "out"
    result = onnxc_cli(
        "compile", str(EXAMPLE), "-o", str(out), "--target", target, "--weights-file"
    )
    assert result.returncode == 0, result.stderr
    written = {Path(line).name for line in result.stdout.split()}
    assert {"Makefile", "digits_cnn.cmake", "onnxc_harness.c", "digits_cnn_weights.c"} <= written
    makefile = (out / "Makefile").read_text()
    assert f"CC = {get_target(target).cc}\n" in makefile and "-Werror" in makefile

    make(out)
    symbols = _symbols(target, out / "libdigits_cnn.a")
    assert " T digits_cnn_run\n" in symbols and " T digits_cnn_invoke\n" in symbols

    np.load(INPUT).astype("<f4").tofile(out / "input0.bin")
    make(out, "run")
    got = np.fromfile(out / "output0.bin", dtype="<f4").reshape(1, 10)
    np.testing.assert_allclose(got, np.load(EXPECTED), rtol=1e-4, atol=1e-5)
    # the same results as the host's build of the same arithmetic: `host` for
    # itself; for an MCU, `host-portable`, which like the MCUs rounds each
    # multiply and add (`host` fuses them where the CPU can)
    reference = target if get_target(target).is_host else "host-portable"
    (expected,) = onnxc.compile(EXAMPLE, target=reference)(np.load(INPUT))
    np.testing.assert_array_equal(got, expected)
    assert "text" in make(out, "size").stdout

    make(out, "clean")
    make(out, "CPPFLAGS=-DONNXC_NO_DEFAULT_ARENA")
    symbols = _symbols(target, out / "libdigits_cnn.a")
    assert " T digits_cnn_run\n" not in symbols and " T digits_cnn_invoke\n" in symbols


def test_make_run_reports_missing_input(tmp_path: Path) -> None:
    result = onnxc_cli("compile", str(EXAMPLE), "-o", str(tmp_path))
    assert result.returncode == 0, result.stderr
    run = subprocess.run(["make", "-C", str(tmp_path), "run"], capture_output=True, text=True)
    assert run.returncode != 0
    assert "onnxc_harness: cannot open input0.bin (input 0 'image')" in run.stderr


def test_cmake_fragment_builds_a_program(tmp_path: Path) -> None:
    if shutil.which("cmake") is None:
        pytest.skip("cmake not installed")
    model = tmp_path / "model"
    assert onnxc_cli("compile", str(EXAMPLE), "-o", str(model)).returncode == 0
    project = tmp_path / "project"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.16)\n"
        "project(firmware C)\n"
        f"include({model.as_posix()}/digits_cnn.cmake)\n"
        "add_executable(firmware main.c)\n"
        "target_link_libraries(firmware PRIVATE digits_cnn)\n"
    )
    (project / "main.c").write_text(
        '#include "digits_cnn.h"\n'
        "int main(void) {\n"
        "  static const float image[64];\n"
        "  float logits[10];\n"
        "  return digits_cnn_run(image, logits) == ONNXC_OK ? 0 : 1;\n"
        "}\n"
    )
    build = tmp_path / "build"
    for command in (
        ["cmake", "-S", str(project), "-B", str(build), "-DCMAKE_C_FLAGS=-Wall -Werror"],
        ["cmake", "--build", str(build)],
        [str(build / "firmware")],
    ):
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        assert result.returncode == 0, result.stdout + result.stderr


@needs_arm
def test_cli_run_on_target(tmp_path: Path) -> None:
    result = onnxc_cli(
        "run",
        str(EXAMPLE),
        "--target",
        "cortex-m4",
        "--input",
        f"image={INPUT}",
        "--expect",
        str(EXPECTED),
    )
    assert result.returncode == 0, result.stderr
    assert "logits: matches" in result.stdout
