"""Checks shared by the tests of models with sizes known only at run time:
inputs the model refuses stop it with ONNXC_ERR_SHAPE, and its C (run-time
checks inside loops, data-dependent sizes) builds without a warning under
strict gcc."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest

import onnxc

STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2", "-c"]


def assert_refused(model: onnx.ModelProto, name: str, feeds: dict[str, np.ndarray]) -> None:
    """Running `model` on `feeds` stops with ONNXC_ERR_SHAPE (status -5)."""
    compiled = onnxc.compile(model, name=name)
    with pytest.raises(onnxc.OnnxcError, match="status -5"):
        compiled.run(feeds)


def assert_builds_warning_free(model: onnx.ModelProto, name: str, folder: Path) -> None:
    """Every C file of `model` compiles with gcc and STRICT (skips without gcc)."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not installed")
    generated = onnxc.generate_c(model, name=name)
    generated.write(folder)
    for source in generated.c_files():
        command = ["gcc", *STRICT, str(folder / source), "-o", str(folder / "m.o")]
        subprocess.run(command, check=True)
