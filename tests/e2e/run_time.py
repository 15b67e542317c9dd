"""Checks shared by the tests of models with sizes known only at run time:
results match onnxruntime, inputs the model refuses stop it with
ONNXC_ERR_SHAPE, and its C (run-time checks inside loops, data-dependent
sizes) builds without a warning under a strict C compiler."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnx
import pytest

import onnxc

STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2", "-c"]


def assert_matches_onnxruntime(
    model: onnx.ModelProto, feeds: dict[str, np.ndarray], rtol: float, atol: float
) -> None:
    """`model` compiled by onnxc gives onnxruntime's outputs on `feeds`:
    the same shapes, values within `rtol` and `atol`."""
    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)
    got = list(onnxc.compile(model).run(feeds).values())
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        assert g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)


def assert_refused(model: onnx.ModelProto, name: str, feeds: dict[str, np.ndarray]) -> None:
    """Running `model` on `feeds` stops with ONNXC_ERR_SHAPE (status -5)."""
    compiled = onnxc.compile(model, name=name)
    with pytest.raises(onnxc.OnnxcError, match="status -5"):
        compiled.run(feeds)


def target_for(compiler: str) -> str:
    """The target whose C `compiler` builds: the 32-bit one for the ARM
    cross-compiler (C of a 64-bit target stops it with an #error)."""
    return "cortex-m4" if compiler.startswith("arm") else "host"


def assert_builds_warning_free(
    model: onnx.ModelProto, name: str, folder: Path, compiler: str = "gcc"
) -> None:
    """Every C file of `model` compiles with `compiler` and STRICT (skips
    when it is not installed)."""
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not installed")
    generated = onnxc.generate_c(model, name=name, target=target_for(compiler))
    generated.write(folder)
    for source in generated.c_files():
        command = [compiler, *STRICT, str(folder / source), "-o", str(folder / "m.o")]
        subprocess.run(command, check=True)
