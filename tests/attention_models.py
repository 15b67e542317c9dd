"""Small PyTorch attention blocks, exported to ONNX (opset 23) by the dynamo
exporter, for tests/e2e/test_attention.py.

Each block is what a language or speech model holds: linear projections,
heads, rotary position embeddings (`torch.onnx.ops.rotary_embedding`, which
exports to RotaryEmbedding) and scaled dot-product attention (exported to
Attention), with a dynamic sequence length. `EXPORTS` names each block with
its example inputs and dynamic axes; `feeds` draws inputs for given sizes.

Importing this module skips the importing test when torch or onnxscript is
missing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
import pytest

pytest.importorskip("torch")
pytest.importorskip("onnxscript")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402

WIDTH = 16


def _rotary_caches(head_size: int, positions: int) -> tuple[torch.Tensor, torch.Tensor]:
    """cos and sin of position p times the usual RoPE frequencies, (positions,
    head_size / 2)."""
    frequencies = 1.0 / (10000 ** (torch.arange(0, head_size, 2).float() / head_size))
    angles = torch.arange(positions).float()[:, None] * frequencies[None, :]
    return angles.cos(), angles.sin()


class CausalBlock(nn.Module):
    """Causal self-attention with grouped-query heads (4 query heads over 2
    key/value heads), RoPE at explicit positions from cos/sin caches (the
    model's initializers) and `F.scaled_dot_product_attention(is_causal=True,
    enable_gqa=True)`."""

    def __init__(self, heads: int = 4, kv_heads: int = 2, positions: int = 32) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.size = heads, kv_heads, WIDTH // heads
        self.q = nn.Linear(WIDTH, WIDTH)
        self.kv = nn.Linear(WIDTH, 2 * kv_heads * self.size)
        self.out = nn.Linear(WIDTH, WIDTH)
        cos, sin = _rotary_caches(self.size, positions)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)

    def forward(self, x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        q = self.q(x).view(batch, length, self.heads, self.size).transpose(1, 2)
        kv = self.kv(x).view(batch, length, 2, self.kv_heads, self.size).permute(2, 0, 3, 1, 4)
        cos, sin = self.get_buffer("cos"), self.get_buffer("sin")
        q = torch.onnx.ops.rotary_embedding(q, cos, sin, positions)
        k = torch.onnx.ops.rotary_embedding(kv[0], cos, sin, positions)
        y = F.scaled_dot_product_attention(q, k, kv[1], is_causal=True, enable_gqa=True)
        return self.out(y.transpose(1, 2).reshape(batch, length, WIDTH))


class DecoderStep(nn.Module):
    """A decoding step with a KV cache: the new tokens' keys and values
    (rotated, interleaved RoPE on 3-D (batch, sequence, hidden) inputs) are
    appended to past keys and values of any length by `torch.onnx.ops.attention`
    (causal, grouped-query heads), which returns the present cache."""

    def __init__(self, heads: int = 4, kv_heads: int = 1, positions: int = 32) -> None:
        super().__init__()
        self.heads, self.kv_heads, self.size = heads, kv_heads, WIDTH // heads
        self.q = nn.Linear(WIDTH, WIDTH, bias=False)
        self.k = nn.Linear(WIDTH, kv_heads * self.size, bias=False)
        self.v = nn.Linear(WIDTH, kv_heads * self.size, bias=False)
        self.out = nn.Linear(WIDTH, WIDTH, bias=False)
        cos, sin = _rotary_caches(self.size, positions)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)

    def forward(
        self, x: torch.Tensor, positions: torch.Tensor, past_k: torch.Tensor, past_v: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        batch, length, _ = x.shape
        cos, sin = self.get_buffer("cos"), self.get_buffer("sin")

        def rotated(t: torch.Tensor, heads: int) -> torch.Tensor:
            t = torch.onnx.ops.rotary_embedding(
                t, cos, sin, positions, interleaved=True, num_heads=heads
            )
            return t.view(batch, length, heads, self.size).transpose(1, 2)

        q, k = rotated(self.q(x), self.heads), rotated(self.k(x), self.kv_heads)
        v = self.v(x).view(batch, length, self.kv_heads, self.size).transpose(1, 2)
        y, present_k, present_v, _ = torch.onnx.ops.attention(
            q, k, v, past_key=past_k, past_value=past_v, is_causal=True
        )
        return self.out(y.transpose(1, 2).reshape(batch, length, WIDTH)), present_k, present_v


class PaddedEncoder(nn.Module):
    """Bidirectional self-attention over padded sequences: a boolean key
    mask (batch, sequence) expanded to (batch, 1, sequence, sequence), a
    fused QKV projection and an explicit scale."""

    def __init__(self, heads: int = 2) -> None:
        super().__init__()
        self.heads, self.size = heads, WIDTH // heads
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.out = nn.Linear(WIDTH, WIDTH)

    def forward(self, x: torch.Tensor, keep: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        qkv = self.qkv(x).view(batch, length, 3, self.heads, self.size).permute(2, 0, 3, 1, 4)
        mask = keep[:, None, None, :].expand(batch, 1, length, length)
        y = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], attn_mask=mask, scale=0.3)
        return self.out(y.transpose(1, 2).reshape(batch, length, WIDTH))


Sizes = dict[str, int]
"""A run's sizes: batch B, new tokens T, past length P."""


@dataclass
class Export:
    """A block, how to draw its inputs for given sizes, and its dynamic axes
    (input -> axis -> name)."""

    build: Callable[[], nn.Module]
    inputs: Callable[[np.random.Generator, Sizes], list[np.ndarray]]
    axes: list[dict[int, str]]


def _tokens(rng: np.random.Generator, s: Sizes) -> np.ndarray:
    return rng.standard_normal((s["B"], s["T"], WIDTH)).astype(np.float32)


def _positions(s: Sizes, start: int = 0) -> np.ndarray:
    return np.tile(np.arange(start, start + s["T"]), (s["B"], 1)).astype(np.int64)


def _keep(rng: np.random.Generator, s: Sizes) -> np.ndarray:
    keep = rng.integers(0, 2, (s["B"], s["T"])).astype(np.bool_)
    keep[:, 0] = True
    return keep


def _cache(rng: np.random.Generator, s: Sizes) -> np.ndarray:
    return rng.standard_normal((s["B"], 1, s["P"], WIDTH // 4)).astype(np.float32)


EXPORTS: dict[str, Export] = {
    "causal_block": Export(
        CausalBlock,
        lambda rng, s: [_tokens(rng, s), _positions(s, 3)],
        [{1: "T"}, {1: "T"}],
    ),
    "decoder_step": Export(
        DecoderStep,
        lambda rng, s: [_tokens(rng, s), _positions(s, s["P"]), _cache(rng, s), _cache(rng, s)],
        [{1: "T"}, {1: "T"}, {2: "P"}, {2: "P"}],
    ),
    "padded_encoder": Export(
        PaddedEncoder,
        lambda rng, s: [_tokens(rng, s), _keep(rng, s)],
        [{1: "T"}, {1: "T"}],
    ),
}


def export(name: str) -> onnx.ModelProto:
    """Block `name` with seeded weights, exported at opset 23 with its
    dynamic axes."""
    spec = EXPORTS[name]
    torch.manual_seed(0)
    model = spec.build().eval()
    rng = np.random.default_rng(0)
    example = tuple(torch.from_numpy(a) for a in spec.inputs(rng, {"B": 2, "T": 3, "P": 4}))
    options: dict[str, Any] = {"dynamic_shapes": tuple(spec.axes)}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(
            model, example, dynamo=True, opset_version=23, verbose=False, **options
        )
    assert program is not None
    return program.model_proto


def feeds(name: str, proto: onnx.ModelProto, sizes: Sizes, seed: int) -> dict[str, np.ndarray]:
    """Inputs of block `name` for `sizes`, by the exported model's input names."""
    arrays = EXPORTS[name].inputs(np.random.default_rng(seed), sizes)
    return {i.name: a for i, a in zip(proto.graph.input, arrays, strict=True)}
