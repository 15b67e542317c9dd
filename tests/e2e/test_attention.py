"""The attention family in use.

Run-time sizes (Attention with a growing cache and a shorter mask, 3-D
Attention with nonpad_kv_seqlen and a window, RotaryEmbedding, TensorScatter,
CausalConvWithState, LinearAttention): each model is compiled once and run on
several inputs, every run compared with onnx.reference (onnxruntime has no
kernel for some of them, and computes double Attention partly in float);
positions and sizes the spec refuses give ONNXC_ERR_SHAPE, never an access out
of bounds.

Transformer attention blocks written in PyTorch and exported by its ONNX
exporter (opset 23: MatMul projections, RotaryEmbedding, Attention with
grouped-query heads, a causal mask, a KV cache or a padding mask), with
dynamic sequence lengths, compared with onnxruntime at rtol and atol 1e-5
(float32; the differences seen are a few units of 1e-7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onnxc
from tests.e2e.run_time import assert_builds_warning_free, assert_refused

RNG = np.random.default_rng(5)
F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
Dim = int | str


def floats(*shape: int, low: float | None = None) -> np.ndarray:
    if low is not None:
        return RNG.uniform(low, 1.0, shape).astype(np.float32)
    return RNG.standard_normal(shape).astype(np.float32)


def i64(*values: Any) -> np.ndarray:
    return np.array(values, np.int64)


def mask(*shape: int) -> np.ndarray:
    return RNG.integers(0, 2, shape).astype(np.bool_)


@dataclass
class Model:
    """One node over graph inputs (name, element type, shape; an empty name
    leaves an optional input out), its outputs, and the feeds to run it on."""

    op: str
    inputs: list[tuple[str, int, Sequence[Dim]]]
    outputs: list[str]
    shapes: dict[str, Sequence[Dim]]
    """The shapes of outputs onnx's inference leaves unknown."""
    runs: list[dict[str, np.ndarray]]
    attributes: dict[str, Any] = field(default_factory=dict[str, Any])
    opset: int = 25

    def proto(self) -> onnx.ModelProto:
        node = helper.make_node(
            self.op, [n for n, _, _ in self.inputs], self.outputs, name=self.op, **self.attributes
        )
        graph = helper.make_graph(
            [node],
            "model",
            [helper.make_tensor_value_info(n, t, list(s)) for n, t, s in self.inputs if n],
            [helper.make_tensor_value_info(n, F, self.shapes.get(n)) for n in self.outputs if n],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        model.ir_version = 10
        return onnx.shape_inference.infer_shapes(model)


NONE: tuple[str, int, Sequence[Dim]] = ("", F, ())

MODELS: dict[str, Model] = {
    "attention_growing_cache": Model(
        "Attention",
        [
            ("q", F, [1, 4, "S", 4]),
            ("k", F, [1, 2, "S", 4]),
            ("v", F, [1, 2, "S", 3]),
            ("mask", B, ["S", "M"]),
            ("past_k", F, [1, 2, "P", 4]),
            ("past_v", F, [1, 2, "P", 3]),
        ],
        ["y", "present_k", "present_v"],
        {"present_k": [1, 2, "N", 4], "present_v": [1, 2, "N", 3]},
        [
            {
                "q": floats(1, 4, 2, 4),
                "k": floats(1, 2, 2, 4),
                "v": floats(1, 2, 2, 3),
                "mask": mask(2, 4),
                "past_k": floats(1, 2, 3, 4),
                "past_v": floats(1, 2, 3, 3),
            },
            {
                "q": floats(1, 4, 1, 4),
                "k": floats(1, 2, 1, 4),
                "v": floats(1, 2, 1, 3),
                "mask": mask(1, 6),
                "past_k": floats(1, 2, 5, 4),
                "past_v": floats(1, 2, 5, 3),
            },
        ],
        {"is_causal": 1, "scale": 0.3},
    ),
    "attention_3d_external_cache": Model(
        "Attention",
        [
            ("q", F, [2, "S", 8]),
            ("k", F, [2, "T", 4]),
            ("v", F, [2, "T", 6]),
            NONE,
            NONE,
            NONE,
            ("lengths", I64, [2]),
        ],
        ["y"],
        {},
        [
            {
                "q": floats(2, 2, 8),
                "k": floats(2, 5, 4),
                "v": floats(2, 5, 6),
                "lengths": i64(5, 3),
            },
            {
                "q": floats(2, 3, 8),
                "k": floats(2, 4, 4),
                "v": floats(2, 4, 6),
                "lengths": i64(1, 4),
            },
        ],
        {"q_num_heads": 2, "kv_num_heads": 1, "is_causal": 1, "left_window_size": 1},
    ),
    "rotary_embedding_3d": Model(
        "RotaryEmbedding",
        [
            ("x", F, [2, "S", 12]),
            ("cos", F, [10, 2]),
            ("sin", F, [10, 2]),
            ("ids", I64, [2, "S"]),
        ],
        ["y"],
        {},
        [
            {
                "x": floats(2, 3, 12),
                "cos": floats(10, 2),
                "sin": floats(10, 2),
                "ids": i64([0, 9, 4], [2, 2, -1]),
            },
            {
                "x": floats(2, 1, 12),
                "cos": floats(10, 2),
                "sin": floats(10, 2),
                "ids": i64([7], [3]),
            },
        ],
        {"num_heads": 2, "rotary_embedding_dim": 4},
        opset=23,
    ),
    "tensor_scatter_linear": Model(
        "TensorScatter",
        [("cache", F, [2, 6, 3]), ("update", F, [2, "S", 3]), ("at", I64, [2])],
        ["y"],
        {},
        [
            {"cache": floats(2, 6, 3), "update": floats(2, 2, 3), "at": i64(0, 4)},
            {"cache": floats(2, 6, 3), "update": floats(2, 6, 3), "at": i64(0, 0)},
        ],
        {"axis": 1},
        opset=24,
    ),
    "causal_conv_with_state": Model(
        "CausalConvWithState",
        [("x", F, [1, 3, "L"]), ("w", F, [3, 1, 3]), ("b", F, [3]), ("state", F, [1, 3, 2])],
        ["y", "next_state"],
        {},
        [
            {"x": floats(1, 3, 5), "w": floats(3, 1, 3), "b": floats(3), "state": floats(1, 3, 2)},
            {"x": floats(1, 3, 1), "w": floats(3, 1, 3), "b": floats(3), "state": floats(1, 3, 2)},
        ],
        {"activation": "silu"},
        opset=27,
    ),
    "linear_attention_gated_delta": Model(
        "LinearAttention",
        [
            ("q", F, [1, "T", 8]),
            ("k", F, [1, "T", 4]),
            ("v", F, [1, "T", 6]),
            ("state", F, [1, 1, 4, 6]),
            ("decay", F, [1, "T", 1]),
            ("beta", F, [1, "T", 1]),
        ],
        ["y", "next_state"],
        {},
        [
            {
                "q": floats(1, 3, 8),
                "k": floats(1, 3, 4),
                "v": floats(1, 3, 6),
                "state": floats(1, 1, 4, 6),
                "decay": floats(1, 3, 1, low=-1.0),
                "beta": floats(1, 3, 1, low=0.0),
            },
            {
                "q": floats(1, 1, 8),
                "k": floats(1, 1, 4),
                "v": floats(1, 1, 6),
                "state": floats(1, 1, 4, 6),
                "decay": floats(1, 1, 1, low=-1.0),
                "beta": floats(1, 1, 1, low=0.0),
            },
        ],
        {"q_num_heads": 2, "kv_num_heads": 1},
        opset=27,
    ),
}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_matches_the_reference(name: str) -> None:
    spec = MODELS[name]
    proto = spec.proto()
    reference = ReferenceEvaluator(proto)
    model = onnxc.compile(proto, name=name)
    for feeds in spec.runs:
        want = reference.run(None, feeds)
        got = list(model.run(feeds).values())
        for g, w in zip(got, want, strict=True):
            w = np.asarray(w)
            assert g.shape == w.shape, (name, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=name)


REFUSED: list[tuple[str, dict[str, np.ndarray]]] = [
    (
        "rotary_embedding_3d",
        {"x": floats(2, 1, 12), "cos": floats(10, 2), "sin": floats(10, 2), "ids": i64([10], [0])},
    ),
    (
        "tensor_scatter_linear",
        {"cache": floats(2, 6, 3), "update": floats(2, 2, 3), "at": i64(0, 5)},
    ),
    (
        "tensor_scatter_linear",
        {"cache": floats(2, 6, 3), "update": floats(2, 2, 3), "at": i64(-1, 0)},
    ),
    (
        "attention_growing_cache",
        {
            "q": floats(1, 4, 1, 4),
            "k": floats(1, 2, 1, 4),
            "v": floats(1, 2, 1, 3),
            "mask": mask(1, 4),
            "past_k": floats(1, 2, 2, 4),
            "past_v": floats(1, 2, 2, 3),
        },
    ),
]
"""A position id past the caches, a write index leaving no room for the
update, a mask with more keys than the cache and the new tokens."""


@pytest.mark.parametrize(
    ("name", "feeds"), REFUSED, ids=[f"{n}-{k}" for k, (n, _) in enumerate(REFUSED)]
)
def test_positions_and_sizes_the_model_refuses(name: str, feeds: dict[str, np.ndarray]) -> None:
    assert_refused(MODELS[name].proto(), name, feeds)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_builds_warning_free(name: str, tmp_path: Path) -> None:
    """The C of each model compiles without a warning."""
    assert_builds_warning_free(MODELS[name].proto(), name, tmp_path)


EXPORTED_RUNS: dict[str, list[dict[str, int]]] = {
    "causal_block": [{"B": 2, "T": 5}, {"B": 2, "T": 1}, {"B": 2, "T": 9}],
    "decoder_step": [{"B": 2, "T": 3, "P": 4}, {"B": 2, "T": 1, "P": 7}, {"B": 2, "T": 6, "P": 1}],
    "padded_encoder": [{"B": 2, "T": 5}, {"B": 2, "T": 2}, {"B": 2, "T": 11}],
}
"""The sizes each exported block runs at (batch B, new tokens T, past P)."""


@pytest.mark.parametrize("name", sorted(EXPORTED_RUNS))
def test_exported_blocks_match_onnxruntime(name: str) -> None:
    """Each PyTorch block, compiled once, against onnxruntime at each size."""
    pytest.importorskip("torch")
    ort = pytest.importorskip("onnxruntime")
    from tests import attention_models

    proto = attention_models.export(name)
    used = {n.op_type for n in proto.graph.node}
    assert "Attention" in used, used
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    model = onnxc.compile(proto, name=name)
    for k, sizes in enumerate(EXPORTED_RUNS[name]):
        feeds = attention_models.feeds(name, proto, sizes, seed=k)
        want = session.run(None, feeds)
        got = list(model.run(feeds).values())
        for g, w in zip(got, want, strict=True):
            w = np.asarray(w)
            assert g.shape == w.shape, (sizes, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"{name} {sizes}")
