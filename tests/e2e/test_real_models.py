"""Architectures beyond the CNNs, exported from PyTorch with both exporters
and compared with onnxruntime: a U-Net (ConvTranspose, bilinear Resize, skip
Concats, MaxPool, BatchNorm) and a YOLO-style detection head (Split,
Sigmoid, Exp, Concat, grid constants). Tolerance: 1e-5 absolute and
relative (float32 throughout; measured differences are about 1e-6)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import onnxc  # noqa: E402
from tests.models import build, export  # noqa: E402

ort = pytest.importorskip("onnxruntime")

CASES = [(name, dynamo) for name in ("UNet", "DetectorHead") for dynamo in (False, True)]


@pytest.mark.parametrize(
    ("name", "dynamo"), CASES, ids=[f"{n}-{'dynamo' if d else 'legacy'}" for n, d in CASES]
)
def test_matches_onnxruntime(name: str, dynamo: bool, tmp_path: Path) -> None:
    model, example = build(name)
    path = export(model, example, tmp_path / f"{name}.onnx", dynamo=dynamo)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    compiled = onnxc.compile(path, name=name.lower())
    rng = np.random.default_rng(3)
    for _ in range(2):
        x = rng.standard_normal(example.shape).astype(np.float32)
        (want,) = session.run(None, {"input": x})
        (got,) = compiled(x)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
