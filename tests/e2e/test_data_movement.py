"""Data movement and restructuring operators with sizes and shape inputs known
only at run time (Pad, Split, GatherElements, ScatterND, OneHot, Compress,
Resize, DepthToSpace, Trilu, ReverseSequence): each model is compiled once
and run on several inputs, every run compared with onnxruntime; indices and
sizes the spec refuses give ONNXC_ERR_SHAPE, never a wrong answer or an
access out of bounds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from tests.e2e.run_time import assert_builds_warning_free, assert_refused

ort = pytest.importorskip("onnxruntime")

RNG = np.random.default_rng(11)
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
Dim = int | str | None


def floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def i64(*values: Any) -> np.ndarray:
    return np.array(values, np.int64)


@dataclass
class Model:
    """One node over graph inputs (name, element type, shape), and the feeds
    to run it on."""

    op: str
    inputs: list[tuple[str, int, Sequence[Dim]]]
    outputs: list[tuple[str, int, Sequence[Dim] | None]]
    runs: list[dict[str, np.ndarray]]
    attributes: dict[str, Any] = field(default_factory=dict[str, Any])
    initializers: dict[str, np.ndarray] = field(default_factory=dict[str, np.ndarray])
    order: list[str] | None = None
    opset: int = 21

    def proto(self) -> onnx.ModelProto:
        names = self.order or [n for n, _, _ in self.inputs]
        node = helper.make_node(
            self.op, names, [n for n, _, _ in self.outputs], name=self.op, **self.attributes
        )
        graph = helper.make_graph(
            [node],
            "model",
            [helper.make_tensor_value_info(n, t, list(s)) for n, t, s in self.inputs],
            [
                helper.make_tensor_value_info(n, t, None if s is None else list(s))
                for n, t, s in self.outputs
            ],
            [numpy_helper.from_array(v, k) for k, v in self.initializers.items()],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 10
        return onnx.shape_inference.infer_shapes(model, strict_mode=True)


def one(
    op: str,
    inputs: list[tuple[str, int, Sequence[Dim]]],
    runs: list[dict[str, np.ndarray]],
    rank: int | None = None,
    **kw: Any,
) -> Model:
    """A model of one float output (of `rank` where inference cannot tell)."""
    return Model(op, inputs, [("y", F, None if rank is None else [None] * rank)], runs, **kw)


MODELS: dict[str, Model] = {
    "pad_constant_run_time_pads": one(
        "Pad",
        [("x", F, ["N", 3]), ("pads", I64, [4]), ("value", F, [])],
        [
            {"x": floats(3, 3), "pads": i64(1, -1, 0, 2), "value": np.array(2.5, np.float32)},
            {"x": floats(1, 3), "pads": i64(0, 1, 2, -2), "value": np.array(-1, np.float32)},
        ],
    ),
    **{
        f"pad_{mode}_run_time_pads": one(
            "Pad",
            [("x", F, [3, "W"]), ("pads", I64, [4])],
            [
                {"x": floats(3, 4), "pads": i64(1, 2, 2, 1)},
                {"x": floats(3, 5), "pads": i64(0, -1, 2, 3)},
                {"x": floats(3, 2), "pads": i64(2, 0, 0, 1)},
            ],
            attributes={"mode": mode},
        )
        for mode in ("reflect", "edge", "wrap")
    },
    "pad_run_time_axes": one(
        "Pad",
        [("x", F, [2, 3, 4]), ("pads", I64, [2]), ("axes", I64, [1])],
        [
            {"x": floats(2, 3, 4), "pads": i64(1, 2), "axes": i64(-1)},
            {"x": floats(2, 3, 4), "pads": i64(2, 0), "axes": i64(0)},
        ],
        rank=3,
        attributes={"mode": "edge"},
        order=["x", "pads", "", "axes"],
    ),
    "split_run_time_sizes": Model(
        "Split",
        [("x", F, ["N", 4]), ("split", I64, [2])],
        [("a", F, None), ("b", F, None)],
        [
            {"x": floats(3, 4), "split": i64(1, 2)},
            {"x": floats(2, 4), "split": i64(0, 2)},
        ],
    ),
    "split_num_outputs_uneven": Model(
        "Split",
        [("x", F, [2, "N"])],
        [("a", F, None), ("b", F, None), ("c", F, None)],
        [{"x": floats(2, 7)}, {"x": floats(2, 5)}, {"x": floats(2, 3)}],
        attributes={"axis": 1, "num_outputs": 3},
    ),
    "gather_elements_run_time": one(
        "GatherElements",
        [("x", F, ["N", 3]), ("i", I64, ["M", 2])],
        [
            {"x": floats(4, 3), "i": i64([0, -1], [3, 2], [-4, 1])},
            {"x": floats(2, 3), "i": i64([1, -2])},
        ],
    ),
    "gather_run_time": one(
        "Gather",
        [("x", F, ["N", 3]), ("i", I64, ["M"])],
        [{"x": floats(4, 3), "i": i64(0, -1, 3, -4)}, {"x": floats(2, 3), "i": i64(1)}],
    ),
    "scatter_nd_mul": one(
        "ScatterND",
        [("x", F, ["N", 3]), ("i", I64, ["K", 1]), ("u", F, ["K", 3])],
        [
            {"x": floats(4, 3), "i": i64([1], [-1], [1]), "u": floats(3, 3)},
            {"x": floats(2, 3), "i": i64([0]), "u": floats(1, 3)},
        ],
        attributes={"reduction": "mul"},
    ),
    "one_hot_run_time_depth": one(
        "OneHot",
        [("i", I64, ["N"]), ("depth", I64, []), ("values", F, [2])],
        [
            {"i": i64(0, 2, -1, 9), "depth": np.array(4), "values": floats(2)},
            {"i": i64(1, -3), "depth": np.array(3), "values": floats(2)},
        ],
        attributes={"axis": 0},
    ),
    "compress_axis": one(
        "Compress",
        [("x", F, ["N", 3]), ("c", B, ["M"])],
        [
            {"x": floats(4, 3), "c": np.array([True, False, True, True])},
            {"x": floats(3, 3), "c": np.array([False, True])},
            {"x": floats(2, 3), "c": np.array([False, False])},
        ],
        attributes={"axis": 0},
    ),
    "compress_flat": one(
        "Compress",
        [("x", F, [2, "N"]), ("c", B, ["M"])],
        [
            {"x": floats(2, 3), "c": np.array([True, False, True, True, False, True])},
            {"x": floats(2, 2), "c": np.array([False, True, True])},
        ],
    ),
    "resize_linear_run_time_sizes": one(
        "Resize",
        [("x", F, [1, 1, "H", "W"]), ("sizes", I64, [2])],
        [
            {"x": floats(1, 1, 3, 4), "sizes": i64(5, 7)},
            {"x": floats(1, 1, 4, 2), "sizes": i64(2, 3)},
        ],
        attributes={"mode": "linear", "axes": [2, 3]},
        order=["x", "", "", "sizes"],
    ),
    "resize_cubic_antialias_run_time_scales": one(
        "Resize",
        [("x", F, [1, 2, "H", 8]), ("scales", F, [4])],
        [
            {"x": floats(1, 2, 8, 8), "scales": np.array([1, 1, 0.5, 0.6], np.float32)},
            {"x": floats(1, 2, 5, 8), "scales": np.array([1, 1, 2, 0.75], np.float32)},
        ],
        attributes={"mode": "cubic", "antialias": 1},
        order=["x", "", "scales"],
    ),
    "resize_nearest_not_larger": one(
        "Resize",
        [("x", F, [1, 1, "H", "W"]), ("sizes", I64, [2])],
        [
            {"x": floats(1, 1, 2, 3), "sizes": i64(7, 8)},
            {"x": floats(1, 1, 4, 4), "sizes": i64(3, 5)},
        ],
        attributes={
            "mode": "nearest",
            "axes": [2, 3],
            "keep_aspect_ratio_policy": "not_larger",
            "nearest_mode": "ceil",
            "coordinate_transformation_mode": "asymmetric",
        },
        order=["x", "", "", "sizes"],
    ),
    "depth_to_space_run_time_channels": one(
        "DepthToSpace",
        [("x", F, [1, "C", 2, 3])],
        [{"x": floats(1, 8, 2, 3)}, {"x": floats(1, 4, 2, 3)}],
        attributes={"blocksize": 2, "mode": "DCR"},
    ),
    "trilu_run_time_k": one(
        "Trilu",
        [("x", F, ["N", 4]), ("k", I64, [])],
        [{"x": floats(3, 4), "k": np.array(-1)}, {"x": floats(5, 4), "k": np.array(2)}],
    ),
    "reverse_sequence_run_time": one(
        "ReverseSequence",
        [("x", F, ["T", 3]), ("lens", I64, [3])],
        [
            {"x": floats(4, 3), "lens": i64(4, 1, 2)},
            {"x": floats(2, 3), "lens": i64(0, 2, 1)},
        ],
        attributes={"time_axis": 0, "batch_axis": 1},
    ),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_matches_onnxruntime(name: str) -> None:
    spec = MODELS[name]
    proto = spec.proto()
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    model = onnxc.compile(proto, name=name)
    for feeds in spec.runs:
        want = session.run(None, feeds)
        got = list(model.run(feeds).values())
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape, (name, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=name)


REFUSED: list[tuple[str, dict[str, np.ndarray]]] = [
    ("gather_elements_run_time", {"x": floats(2, 3), "i": i64([2, 0])}),
    ("gather_elements_run_time", {"x": floats(2, 3), "i": i64([0, -3])}),
    ("gather_run_time", {"x": floats(2, 3), "i": i64(0, 2)}),
    ("gather_run_time", {"x": floats(2, 3), "i": i64(-3)}),
    ("scatter_nd_mul", {"x": floats(2, 3), "i": i64([2]), "u": floats(1, 3)}),
    ("reverse_sequence_run_time", {"x": floats(2, 3), "lens": i64(3, 0, 1)}),
    ("split_run_time_sizes", {"x": floats(3, 4), "split": i64(1, 1)}),
    (
        "pad_constant_run_time_pads",
        {"x": floats(1, 3), "pads": i64(-1, 0, -1, 0), "value": np.array(0, np.float32)},
    ),
    ("pad_reflect_run_time_pads", {"x": floats(3, 1), "pads": i64(0, -1, 0, 1)}),
]
"""Indices outside their axis and sizes that do not fit: ONNXC_ERR_SHAPE."""


@pytest.mark.parametrize(
    ("name", "feeds"), REFUSED, ids=[f"{n}-{k}" for k, (n, _) in enumerate(REFUSED)]
)
def test_indices_and_sizes_the_model_refuses(name: str, feeds: dict[str, np.ndarray]) -> None:
    assert_refused(MODELS[name].proto(), name, feeds)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_builds_warning_free(name: str, tmp_path: Path) -> None:
    """The C of each model (run-time checks inside loops, double coordinates,
    data-dependent sizes) compiles without a warning."""
    assert_builds_warning_free(MODELS[name].proto(), name, tmp_path)
