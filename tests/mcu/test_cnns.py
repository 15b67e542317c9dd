"""The four PyTorch CNNs of tests/models.py, run on a Cortex-M4F in qemu, match
the host build within rtol 1e-4, atol 1e-5.

Each model is exported with the legacy exporter (BatchNorm folded, static
shapes), compiled for the host and for cortex-m4, and run on the same seeded
input. The ELF fits the board's memory: its text (code and weights)
and its data + bss (the workspace, harness and libc) are checked against the
4 MB flash and RAM of the emulated MPS2 board.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import onnxc  # noqa: E402
from onnxc.emit.cross import EmulatedC  # noqa: E402
from onnxc.targets import get_target  # noqa: E402
from tests.mcu.tools import needs_arm  # noqa: E402
from tests.models import MODEL_CLASSES, build, export  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


@needs_arm
@pytest.mark.parametrize("name", sorted(MODEL_CLASSES))
def test_cortex_m4_matches_host(tmp_path: Path, name: str) -> None:
    model, example = build(name)
    path = export(model, example, tmp_path / f"{name}.onnx", dynamo=False)
    x = np.random.default_rng(0).standard_normal(example.shape).astype(np.float32)
    expected = onnxc.compile(path).run({"input": x})["output"]
    on_mcu = onnxc.compile(path, target="cortex-m4")
    got = on_mcu.run({"input": x})["output"]
    assert got.shape == expected.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)
    # The argmax (what a classifier reports) is the same, too.
    assert int(np.argmax(got)) == int(np.argmax(expected))

    assert isinstance(on_mcu.runner, EmulatedC)
    sizes = on_mcu.runner.size()
    memory = get_target("cortex-m4").memory
    assert memory is not None
    (_, flash_size), (_, ram_size) = memory
    assert sizes["text"] + sizes["data"] <= flash_size
    assert on_mcu.workspace_size is not None
    assert sizes["data"] + sizes["bss"] >= on_mcu.workspace_size  # the static workspace
    assert sizes["data"] + sizes["bss"] <= ram_size
