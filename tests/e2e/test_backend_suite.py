"""The ONNX backend test suite (node, simple, pytorch-converted,
pytorch-operator and light cases of the installed onnx) through
`onnxc.backend`, on every CPU case: each compiles the case's model, runs it
on the case's inputs and compares with the expected outputs at the suite's
own tolerances. The CUDA variants of the cases are deselected (`DESELECTED`).

The cases onnxc does not pass yet are listed in `backend_failures.txt`, one
per line with the reason (the first line of the error), and are expected to
fail: strictly, so a case that starts passing fails the run until it is
removed from the list. `python -m tests.e2e.update_backend_failures` rewrites
the list from a run of the whole suite (it sets ONNXC_BACKEND_ALL=1, which
runs every case without expectations).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import numpy as np
import onnx.backend.test

from onnxc.backend import OnnxcBackend

FAILURES = Path(__file__).with_name("backend_failures.txt")


def expected_failures() -> dict[str, str]:
    """Case name -> why it fails, from `backend_failures.txt`."""
    found: dict[str, str] = {}
    for line in FAILURES.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            found[name] = reason.strip()
    return found


class _BackendTest(onnx.backend.test.BackendTest):
    """The suite's runner, comparing a sequence's tensors as tensors: it
    hands each tensor of a sequence output on as a list of outputs, which
    fails on a 0-d tensor (test_loop16_seq_none yields one) before
    comparing anything."""

    @classmethod
    def assert_similar_outputs(cls, ref_outputs, outputs, rtol, atol, model_dir=None) -> None:
        if isinstance(outputs, np.ndarray) and isinstance(ref_outputs, np.ndarray):
            ref_outputs, outputs = [ref_outputs], [outputs]
        super().assert_similar_outputs(ref_outputs, outputs, rtol, atol, model_dir=model_dir)


DESELECTED = r"_cuda$"
"""The suite makes every case twice, for the CPU and for CUDA; onnxc runs on
the CPU, so the CUDA variants are deselected (`tests/conftest.py`): pytest
counts them as deselected, not as skipped tests."""

backend_test = _BackendTest(OnnxcBackend, __name__)
if os.environ.get("ONNXC_BACKEND_ALL") != "1":
    for case in expected_failures():
        backend_test.xfail(f"^{re.escape(case)}$")
globals().update(backend_test.test_cases)
