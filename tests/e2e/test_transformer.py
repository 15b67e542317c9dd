"""Transformer encoder layers exported from PyTorch with dynamic batch and
sequence axes: compiled once with nothing bound and run at four (batch, seq)
sizes against onnxruntime (absolute and relative tolerance 1e-5; measured
differences are below 1e-6); bounded with `max_dims`, built for an emulated
Cortex-M4 with a static arena of NAME_WORKSPACE_SIZE bytes and run at two
sizes against the host build.

EncoderLayer is written with `x.shape` sizes and exported by both exporters;
TorchEncoderLayer is `torch.nn.TransformerEncoderLayer`, exported by dynamo
only (the legacy exporter fixes the traced sequence length in one of its
reshapes: onnxruntime itself fails on that export at other lengths).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import onnxc  # noqa: E402
from tests.mcu.tools import needs_arm  # noqa: E402
from tests.models import build, export  # noqa: E402

ort = pytest.importorskip("onnxruntime")

AXES = {0: "batch", 1: "seq"}
SIZES = [(1, 1), (2, 5), (3, 17), (1, 64)]
EXPORTS = [("EncoderLayer", False), ("EncoderLayer", True), ("TorchEncoderLayer", True)]
BOUNDS = {"batch": 2, "seq": 16}


def _export(name: str, dynamo: bool, folder: Path) -> Path:
    model, example = build(name)
    tag = "dynamo" if dynamo else "legacy"
    return export(model, example, folder / f"{name}_{tag}.onnx", dynamo=dynamo, dynamic_axes=AXES)


def _input(batch: int, seq: int) -> np.ndarray:
    return np.random.default_rng(100 * batch + seq).standard_normal((batch, seq, 32), np.float32)


@pytest.mark.parametrize(("name", "dynamo"), EXPORTS, ids=[f"{n}-{d}" for n, d in EXPORTS])
def test_matches_onnxruntime_at_four_sizes(name: str, dynamo: bool, tmp_path: Path) -> None:
    path = _export(name, dynamo, tmp_path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    model = onnxc.compile(path, name=f"{name}_{int(dynamo)}")
    assert model.input_shapes == [("batch", "seq", 32)]
    assert model.workspace_size is None  # unbounded: sized per call
    for batch, seq in SIZES:
        x = _input(batch, seq)
        (want,) = session.run(None, {"input": x})
        (got,) = model(x)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=f"{batch}x{seq}")


@needs_arm
@pytest.mark.parametrize("dynamo", [False, True], ids=["legacy", "dynamo"])
def test_bounded_encoder_runs_on_cortex_m4(dynamo: bool, tmp_path: Path) -> None:
    path = _export("EncoderLayer", dynamo, tmp_path)
    name = f"encoder_{int(dynamo)}"
    host = onnxc.compile(path, name=name, max_dims=BOUNDS)
    mcu = onnxc.compile(path, name=name, max_dims=BOUNDS, target="cortex-m4")
    assert mcu.workspace_size is not None and mcu.workspace_size > 0
    assert f"#define {name}_WORKSPACE_SIZE {mcu.workspace_size}" in mcu.header_source
    for batch, seq in [(1, 3), (2, 16)]:
        x = _input(batch, seq)
        np.testing.assert_allclose(mcu(x)[0], host(x)[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(onnxc.OnnxcError, match="above its bound 16"):
        mcu(_input(1, 17))
