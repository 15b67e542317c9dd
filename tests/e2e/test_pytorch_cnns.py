"""PyTorch-exported CNNs compiled by onnxc match onnxruntime.

Each model is exported with both exporters (legacy TorchScript and dynamo), in the
default form (BatchNorm folded, static shapes) and in the forms that keep more
operators in the graph: BatchNormalization unfolded, and a symbolic batch
dimension bound with `dims=` (the legacy exporter then computes shapes with
Shape/Gather/Concat). Tolerance: rtol 1e-4, atol 1e-5 against onnxruntime on the
same file.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")

import onnxc  # noqa: E402
from tests.models import MODEL_CLASSES, build, export  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5

VARIANTS = {
    "default": {},
    "bn-unfolded": {"fold_constants": False, "opset": 17},
    "dynamic-batch": {"dynamic_batch": True},
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("dynamo", [False, True], ids=["legacy", "dynamo"])
@pytest.mark.parametrize("name", sorted(MODEL_CLASSES))
def test_matches_onnxruntime(tmp_path, name: str, dynamo: bool, variant: str) -> None:
    model, example = build(name)
    path = export(model, example, tmp_path / f"{name}.onnx", dynamo=dynamo, **VARIANTS[variant])
    x = np.random.default_rng(0).standard_normal(example.shape).astype(np.float32)
    expected = ort.InferenceSession(str(path)).run(None, {"input": x})[0]
    dims = {"N": 1} if variant == "dynamic-batch" else None
    compiled = onnxc.compile(path, dims=dims)
    got = compiled.run({"input": x})["output"]
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)
