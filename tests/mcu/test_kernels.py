"""Cortex-M4's scalar register blocks (`select-kernels` with unrolled lanes) in
qemu against onnxruntime: the convolution geometries, fused epilogues, blocked
poolings and Gemms of tests/e2e/test_kernels.py, rtol 1e-5, atol 1e-6; and the
channel blocks of unrolled lanes, which are never padded."""

from __future__ import annotations

import pytest

from onnxc.dialects import kernel
from onnxc.frontend import import_model
from onnxc.lowering.select_kernels.building_blocks import block_size
from onnxc.pipeline import lower
from onnxc.targets import Kernels, get_target
from tests.e2e.test_kernels import CONVS, GEMMS, _compare, _epilogues, _kernel_ops
from tests.mcu.tools import needs_arm

TARGET = "cortex-m4"


def test_cortex_m4_blocks_unrolled_scalars() -> None:
    kernels = get_target(TARGET).kernels
    assert kernels == Kernels(lanes=4, pixels=4, unrolled=True)
    module = lower(import_model(CONVS["3x3_pad1"]()).module, "kernels", target=TARGET)
    convs = [op for op in module.walk() if isinstance(op, kernel.ConvOp)]
    assert [(c.attr("pixels"), c.attr("unrolled")) for c in convs] == [(4, 1)]


@pytest.mark.parametrize(
    ("channels", "unrolled", "block"),
    [
        (3, True, 3),
        (16, True, 4),
        (6, True, 3),
        (10, True, 2),
        (7, True, 1),
        (6, False, 4),  # vector lanes: a multiple of 4, padded
        (10, False, 4),
    ],
)
def test_channel_blocks(channels: int, unrolled: bool, block: int) -> None:
    assert block_size(channels, Kernels(lanes=4, pixels=4, unrolled=unrolled)) == block


@needs_arm
@pytest.mark.parametrize("name", ["3x3_pad1", "stride2", "dilated", "odd_channels", "depthwise"])
def test_convolution(name: str) -> None:
    model = CONVS[name]()
    assert _kernel_ops(model, TARGET) == ["kernel.conv"]
    _compare(model, TARGET)


@needs_arm
def test_epilogues_and_pools() -> None:
    model = _epilogues()
    ops = _kernel_ops(model, TARGET)
    # the Add of two pools' results runs blocked, and so the pool after it
    assert ops.count("kernel.conv") == 5 and ops.count("kernel.pool") == 4
    _compare(model, TARGET)


@needs_arm
@pytest.mark.parametrize("name", list(GEMMS))
def test_gemm(name: str) -> None:
    """One row of any outputs is a kernel; 5 rows of 10 outputs are not (10
    outputs make five blocks of 2, and the result would need a transposition)."""
    model = GEMMS[name]()
    assert _kernel_ops(model, TARGET) == ([] if name == "rows_one_block" else ["kernel.conv"])
    _compare(model, TARGET)
