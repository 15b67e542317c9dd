"""MaxRoiPool with the regions given at run time (their count too): compared
exactly with onnxruntime (a maximum rounds nothing); a batch index outside
[0, N) after truncation gives ONNXC_ERR_SHAPE, and coordinates far outside X
(or NaN) read nothing outside it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxc
from tests.e2e.run_time import assert_builds_warning_free, assert_refused

ort = pytest.importorskip("onnxruntime")

X_SHAPE = (2, 3, 5, 6)
RNG = np.random.default_rng(5)


def _model() -> onnx.ModelProto:
    node = helper.make_node(
        "MaxRoiPool", ["x", "rois"], ["y"], pooled_shape=[3, 2], spatial_scale=0.75
    )
    graph = helper.make_graph(
        [node],
        "max_roi_pool",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, X_SHAPE),
            helper.make_tensor_value_info("rois", TensorProto.FLOAT, ["R", 5]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["R", 3, 3, 2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 8
    return model


def _feeds(rois: list[list[float]]) -> dict[str, np.ndarray]:
    x = RNG.standard_normal(X_SHAPE).astype(np.float32)
    return {"x": x, "rois": np.array(rois, np.float32).reshape(-1, 5)}


def test_regions_at_run_time() -> None:
    model = _model()
    compiled = onnxc.compile(model, name="max_roi_pool")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    runs = [
        [[1, 0.5, 0.5, 6, 4]],
        [[0, 0, 0, 8, 7], [-0.5, 2, 1, 3, 6], [1.99, 7, 7, 1, 1]],
        [],
    ]
    for rois in runs:
        feeds = _feeds(rois)
        (got,) = compiled.run(feeds).values()
        np.testing.assert_array_equal(got, session.run(None, feeds)[0], err_msg=str(rois))


@pytest.mark.parametrize("batch", [2.0, -1.0, float("nan"), float("inf")])
def test_batch_index_out_of_range_refused(batch: float) -> None:
    assert_refused(_model(), "max_roi_pool", _feeds([[0, 0, 0, 2, 2], [batch, 0, 0, 2, 2]]))


def test_coordinates_far_outside() -> None:
    """Huge, infinite and NaN corners: every output is 0 or an element of X."""
    nan, inf = float("nan"), float("inf")
    feeds = _feeds(
        [
            [0, -1e30, -1e30, 1e30, 1e30],
            [1, -inf, 0, inf, 3],
            [0, nan, nan, 2, nan],
            [1, 3e9, 0, 4e9, 2],
        ]
    )
    (got,) = onnxc.compile(_model(), name="max_roi_pool").run(feeds).values()
    assert np.isin(got, [0.0, *feeds["x"].reshape(-1)]).all()


def test_builds_warning_free(tmp_path: Path) -> None:
    assert_builds_warning_free(_model(), "max_roi_pool", tmp_path)
