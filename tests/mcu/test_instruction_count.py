"""`count_instructions`: the instructions of one inference in qemu, read from
the SysTick timer around the model call under `-icount shift=0`."""

from __future__ import annotations

import numpy as np
import pytest

import onnxc
from onnxc.errors import OnnxcError
from onnxc.targets import get_target
from onnxc.tools.instruction_count import count_instructions
from tests.e2e.test_kernels import _single
from tests.mcu.tools import MCU_TARGETS, needs_arm


def _conv(batch: int):
    return _single(8, 8, 3, (8, 8), batch=batch, pads=[1, 1, 1, 1])


@needs_arm
@pytest.mark.parametrize("target", MCU_TARGETS)
def test_counts_the_inference(target: str) -> None:
    """The count covers the model call: the outputs are the run's, a batch of
    two takes twice the instructions of one (the harness's own work is not
    counted), each multiply-accumulate at least one, and qemu counts alike
    every time."""
    macs = 8 * 8 * 9 * 8 * 8  # outputs x (inputs x taps) per image
    counts = []
    for batch in (1, 2):
        model = onnxc.compile(_conv(batch), target=target)
        x = np.random.default_rng(batch).standard_normal((batch, 8, 8, 8)).astype(np.float32)
        counted = count_instructions(model, [x])
        np.testing.assert_array_equal(counted.outputs[0], model.run({"x": x})["y"])
        assert counted.instructions == counted.ticks * 1_000_000_000 // get_target(target).clock_hz
        assert counted.instructions >= batch * macs
        counts.append(counted.instructions)
    assert 1.9 < counts[1] / counts[0] < 2.1
    again = onnxc.compile(_conv(1), target=target)
    x = np.random.default_rng(1).standard_normal((1, 8, 8, 8)).astype(np.float32)
    assert count_instructions(again, [x]).instructions == counts[0]


def test_the_host_has_no_emulated_clock() -> None:
    with pytest.raises(OnnxcError, match="no emulated clock"):
        count_instructions(onnxc.compile(_conv(1)), [np.zeros((1, 8, 8, 8), np.float32)])
