"""Llama-, Qwen- and Phi-shaped int4 decoders, written node for node as
onnxruntime-genai's model builder writes them, compiled by onnxc and
compared with onnxruntime 1.32's CPU provider.

The model: input_ids through an embedding Gather; per layer the
default-domain SimplifiedLayerNormalization (first layer) or com.microsoft
SkipSimplifiedLayerNormalization (its residual sum, output 3, feeding the
next one); Q, K and V projections as MatMulNBits (4 bits, blocks of 32,
symmetric or with packed zero points; separate, or packed into one with
Qwen's bias Add, or packed and Split for Qwen3's per-head q_norm and k_norm
SimplifiedLayerNormalization); rotary embeddings inside GroupQueryAttention
(do_rotary, cos_cache and sin_cache, the builder's CPU form) or as
com.microsoft RotaryEmbedding nodes reading position_ids (its form for
providers without the fused rotation; Phi's partial rotation among them);
GroupQueryAttention (4 heads over 2 kv heads of 16, a sliding window in one
decoder) with past_key_values and present outputs, seqlens_k and
total_sequence_length computed from the attention mask (ReduceSum - 1 and
Shape[1], cast to int32); the o_proj MatMulNBits; the MLP (gate and up
MatMulNBits, SiLU as Sigmoid and Mul, down MatMulNBits); the last
SkipSimplifiedLayerNormalization and the lm_head MatMulNBits to logits.
Sizes: hidden 64, intermediate 128, vocab 96. With free sizes the model
carries the builder's value_info too.

Each decoder runs a prompt (sequence 5, past 0) and one decode step
(sequence 1, past 5, the past being onnxruntime's present of the prompt)
at batch 1, and at batch 2 with the second prompt right-padded to 3 tokens
as GroupQueryAttention expects; every output (logits and each layer's
present key and value) is compared. Static sizes compile without any
binding (the prompt's past is an empty (1, 2, 0, 16) tensor); the builder's
free sizes (batch_size, sequence_length, past_sequence_length,
total_sequence_length, kv_cache_dim) compile once and run every step. So
does onnxruntime-genai's shared buffer (past and present MAX_LENGTH rows
from the first prompt on), with the presents' length declared apart, and as
the builder declares it (total_sequence_length, the mask's length: an
output's dim_param is a hint, as in onnxruntime).

MatMulNBits is written with accuracy_level 1 (float activations): the
builder's CPU default, 4, lets onnxruntime quantize the activations to 8
bits, which the expansion does not (test_contrib_matmulnbits.py bounds that
difference alone).

Tolerances: float32 at atol and rtol 1e-4 (logits and caches of a few
units after two layers; the differences seen are at most 5e-6); float16 at
atol and rtol 2e-2 (5e-3 at most seen): onnxruntime computes its kernels
in float from 16-bit values, the expansions round each dequantized weight,
sum and score to float16. No float16 decoder has a sliding window: on the
padding rows of a padded first prompt, onnxruntime's float16 kernel (given
a past, as here) ignores local_window_size where its float kernel, which
the expansion follows, applies it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from tests.e2e.contrib_ops import F16, Dim, F, assert_outputs_match

HIDDEN, HEADS, KV_HEADS, HEAD, INTERMEDIATE, VOCAB = 64, 4, 2, 16, 128, 96
BLOCK = 32
"""MatMulNBits' block_size."""
POSITIONS = 32
"""Rows of the rotary cos and sin caches (the model's context length)."""
EPSILON = 1e-6
I64 = TensorProto.INT64
PROMPT = 5
B, S = "batch_size", "sequence_length"
FREE = (B, S, "past_sequence_length", "total_sequence_length", "kv_cache_dim")
"""The builder's names of the sizes of its inputs and outputs (the last
one, of the caches, is the head size)."""
FREE_DIMS: dict[str, Dim] = {name: name for name in FREE}


@dataclass(frozen=True)
class Decoder:
    """How the builder writes the decoder: its layers, packed QKV (one
    MatMulNBits whose output GroupQueryAttention unpacks), a QKV bias,
    Qwen3's per-head normalization of Q and K (after a Split when packed),
    rotary embeddings inside GroupQueryAttention or as RotaryEmbedding nodes
    (of `rotary` dimensions, 0 the whole head), GroupQueryAttention's
    local_window_size (a sliding window), zero points, element type."""

    layers: int = 2
    packed_qkv: bool = False
    qkv_bias: bool = False
    qk_norm: bool = False
    rope_in_attention: bool = True
    rotary: int = 0
    window: int = -1
    zero_points: bool = False
    element: int = F

    @property
    def dtype(self) -> type:
        return np.float16 if self.element == F16 else np.float32

    @property
    def tolerance(self) -> float:
        return 2e-2 if self.element == F16 else 1e-4


DECODERS: dict[str, Decoder] = {
    "llama": Decoder(),
    "qwen_packed_qkv_bias_zero_points": Decoder(packed_qkv=True, qkv_bias=True, zero_points=True),
    "phi_partial_rotary_nodes_window": Decoder(
        rope_in_attention=False, rotary=8, window=3, zero_points=True
    ),
    "qwen3_packed_qkv_head_norms": Decoder(packed_qkv=True, qk_norm=True),
    "llama_rotary_nodes_one_layer": Decoder(layers=1, rope_in_attention=False),
    "llama_float16": Decoder(element=F16),
}


MICROSOFT = frozenset(
    {
        "GroupQueryAttention",
        "MatMulNBits",
        "RotaryEmbedding",
        "SkipSimplifiedLayerNormalization",
    }
)
"""The operators the builder writes in the com.microsoft domain."""


class _Writer:
    """The nodes and initializers of one decoder, named as the builder
    names them; weights from a generator seeded alike for every model of
    the same decoder, so that its static prompt and decode models agree.
    With `annotated`, the value_info the builder writes (its free sizes'
    names, and names such as "sequence_length * num_attention_heads" that
    no input has)."""

    def __init__(self, decoder: Decoder, annotated: bool) -> None:
        self.decoder = decoder
        self.annotated = annotated
        self.rng = np.random.default_rng(7)
        self.nodes: list[onnx.NodeProto] = []
        self.weights: list[onnx.TensorProto] = []
        self.values: list[onnx.ValueInfoProto] = []

    def typed(self, value: str, shape: Sequence[Dim], element: int | None = None) -> str:
        """`value`, with its value_info when annotated."""
        if self.annotated:
            kind = self.decoder.element if element is None else element
            self.values.append(helper.make_tensor_value_info(value, kind, list(shape)))
        return value

    def node(
        self, op: str, inputs: Sequence[str], name: str, output: str = "", **attributes: Any
    ) -> str:
        """A node with one output, `output` or `name`/output_0."""
        return self.nodes_out(op, inputs, name, [output or f"{name}/output_0"], **attributes)[0]

    def nodes_out(
        self, op: str, inputs: Sequence[str], name: str, outputs: list[str], **attributes: Any
    ) -> list[str]:
        """A node with `outputs` (com.microsoft for the operators of
        MICROSOFT, the default domain for the others)."""
        domain = "com.microsoft" if op in MICROSOFT else ""
        self.nodes.append(
            helper.make_node(op, inputs, outputs, name=name, domain=domain, **attributes)
        )
        return outputs

    def weight(self, name: str, value: np.ndarray) -> str:
        self.weights.append(numpy_helper.from_array(value, name))
        return name

    def floats(self, name: str, *shape: int, scale: float = 1.0, shift: float = 0.0) -> str:
        value = self.rng.standard_normal(shape) * scale + shift
        return self.weight(name, value.astype(self.decoder.dtype))

    def matmul_nbits(self, name: str, value: str, k: int, n: int, output: str = "") -> str:
        """MatMulNBits of `value` by a random (n, k) 4-bit weight whose
        products keep the activations near unit size."""
        blocks = -(-k // BLOCK)
        packed = self.rng.integers(0, 256, (n, blocks, BLOCK // 2)).astype(np.uint8)
        scales = self.rng.uniform(0.5, 1.5, (n, blocks)) / (4.6 * np.sqrt(k))
        base = name.replace("/", ".").strip(".")
        inputs = [
            value,
            self.weight(f"{base}.qweight", packed),
            self.weight(f"{base}.scales", scales.astype(self.decoder.dtype)),
        ]
        if self.decoder.zero_points:
            points = self.rng.integers(0, 256, (n, -(-blocks // 2))).astype(np.uint8)
            inputs.append(self.weight(f"{base}.qzeros", points))
        attributes = {"K": k, "N": n, "bits": 4, "block_size": BLOCK, "accuracy_level": 1}
        product = self.node("MatMulNBits", inputs, name, output, **attributes)
        return product if output else self.typed(product, [B, S, n])


def _rotary_caches(w: _Writer) -> tuple[str, str]:
    """cos_cache and sin_cache (POSITIONS, rotated dimensions / 2) of
    theta 10000, as the builder computes them."""
    rotated = w.decoder.rotary or HEAD
    inverse = 1.0 / 10000.0 ** (np.arange(0, rotated, 2) / rotated)
    angles = np.outer(np.arange(POSITIONS), inverse)
    dtype, shape = w.decoder.dtype, ["max_sequence_length", "head_dim / 2"]
    cos = w.typed(w.weight("cos_cache", np.cos(angles).astype(dtype)), shape)
    return cos, w.typed(w.weight("sin_cache", np.sin(angles).astype(dtype)), shape)


def _attention(w: _Writer, layer: int, hidden: str, mask: tuple[str, str]) -> str:
    """Q, K, V projections, rotary embeddings, GroupQueryAttention over
    the layer's cache, o_proj."""
    d = w.decoder
    base = f"/model/layers.{layer}/attn"
    q_size, kv_size = HEADS * HEAD, KV_HEADS * HEAD
    cos, sin = _rotary_caches(w) if layer == 0 else ("cos_cache", "sin_cache")
    if d.packed_qkv:
        width = q_size + 2 * kv_size
        q = w.matmul_nbits(f"{base}/qkv_proj/MatMul", hidden, HIDDEN, width)
        if d.qkv_bias:
            bias = w.floats(f"model.layers.{layer}.attn.qkv_proj.bias", width, scale=0.1)
            q = w.typed(w.node("Add", [q, bias], f"{base}/qkv_proj/Add"), [B, S, width])
        k = v = ""
        if d.qk_norm:
            sizes = w.weight(f"{base}/qkv_sizes", np.array([q_size, kv_size, kv_size]))
            name = f"{base}/qkv_proj/Split"
            outputs = [f"{name}/output_{i}" for i in range(3)]
            q, k, v = w.nodes_out("Split", [q, sizes], name, outputs, axis=-1)
            for value, size in zip(outputs, (q_size, kv_size, kv_size), strict=True):
                w.typed(value, [B, S, size])
    else:
        q = w.matmul_nbits(f"{base}/q_proj/MatMul", hidden, HIDDEN, q_size)
        k = w.matmul_nbits(f"{base}/k_proj/MatMul", hidden, HIDDEN, kv_size)
        v = w.matmul_nbits(f"{base}/v_proj/MatMul", hidden, HIDDEN, kv_size)
    if d.qk_norm:
        q = _head_norm(w, f"{base}/q_norm", q, "num_attention_heads", q_size)
        k = _head_norm(w, f"{base}/k_norm", k, "num_key_value_heads", kv_size)
    if not d.rope_in_attention:
        partial: dict[str, Any] = {}
        if d.rotary:  # the builder names the heads only for a partial rotation
            partial = {"num_heads": HEADS, "rotary_embedding_dim": d.rotary}
        q = w.node("RotaryEmbedding", [q, "position_ids", cos, sin], f"{base}/q_rotary", **partial)
        partial = {**partial, "num_heads": KV_HEADS} if d.rotary else {}
        k = w.node("RotaryEmbedding", [k, "position_ids", cos, sin], f"{base}/k_rotary", **partial)
        q, k = w.typed(q, [B, S, q_size]), w.typed(k, [B, S, kv_size])
    seqlens_k, total = mask
    inputs = [q, k, v, f"past_key_values.{layer}.key", f"past_key_values.{layer}.value"]
    inputs += [seqlens_k, total, *([cos, sin] if d.rope_in_attention else [])]
    outputs = [f"{base}/GroupQueryAttention/output_0"]
    outputs += [f"present.{layer}.key", f"present.{layer}.value"]
    attended = w.nodes_out(
        "GroupQueryAttention",
        inputs,
        f"{base}/GroupQueryAttention",
        outputs,
        num_heads=HEADS,
        kv_num_heads=KV_HEADS,
        scale=1.0 / np.sqrt(HEAD),
        local_window_size=d.window,
        softcap=0.0,
        do_rotary=int(d.rope_in_attention),
        rotary_interleaved=0,
    )[0]
    w.typed(attended, [B, S, q_size])
    return w.matmul_nbits(f"{base}/o_proj/MatMul", attended, q_size, HIDDEN)


def _rms_norm(w: _Writer, value: str, weight: str, name: str) -> str:
    """The default-domain SimplifiedLayerNormalization the builder writes
    (over the last axis, in float)."""
    return w.node(
        "SimplifiedLayerNormalization",
        [value, weight],
        name,
        epsilon=EPSILON,
        axis=-1,
        stash_type=1,
    )


def _head_norm(w: _Writer, base: str, value: str, heads: str, width: int) -> str:
    """Qwen3's q_norm or k_norm: SimplifiedLayerNormalization of each head
    of `value` (batch, S, `width`), reshaped to (batch, S * `heads`, HEAD)
    and back."""
    rows = [B, f"{S} * {heads}", HEAD]
    shape = w.weight(f"{base}/heads_shape", np.array([0, -1, HEAD]))
    split = w.typed(w.node("Reshape", [value, shape], f"{base}/Reshape_1"), rows)
    weight = w.floats(f"{base}.weight".replace("/", ".").strip("."), HEAD, scale=0.1, shift=1.0)
    normed = _rms_norm(w, split, weight, f"{base}/SimplifiedLayerNormalization")
    w.typed(normed, rows)
    merged = w.weight(f"{base}/merged_shape", np.array([0, -1, width]))
    return w.typed(w.node("Reshape", [normed, merged], f"{base}/Reshape_2"), [B, S, width])


def _mlp(w: _Writer, layer: int, hidden: str) -> str:
    """down(SiLU(gate(x)) * up(x)), SiLU as Sigmoid and Mul."""
    base = f"/model/layers.{layer}/mlp"
    gate = w.matmul_nbits(f"{base}/gate_proj/MatMul", hidden, HIDDEN, INTERMEDIATE)
    up = w.matmul_nbits(f"{base}/up_proj/MatMul", hidden, HIDDEN, INTERMEDIATE)
    sigmoid = w.node("Sigmoid", [gate], f"{base}/act_fn/Sigmoid")
    silu = w.node("Mul", [gate, sigmoid], f"{base}/act_fn/Mul")
    product = w.node("Mul", [silu, up], f"{base}/Mul")
    return w.matmul_nbits(f"{base}/down_proj/MatMul", product, INTERMEDIATE, HIDDEN)


def _skip_norm(w: _Writer, name: str, residual: str, skip: str, last: bool) -> tuple[str, str]:
    """SkipSimplifiedLayerNormalization: the normalized sum and (unless
    `last`) the sum itself, the next residual."""
    weight = w.floats(f"{name}.weight".replace("/", ".").strip("."), HIDDEN, scale=0.1, shift=1.0)
    outputs = [f"{name}/output_0"] + ([] if last else ["", "", f"{name}/output_3"])
    written = w.nodes_out(
        "SkipSimplifiedLayerNormalization", [residual, skip, weight], name, outputs, epsilon=EPSILON
    )
    return w.typed(written[0], [B, S, HIDDEN]), w.typed(written[-1], [B, S, HIDDEN])


def _mask_reformat(w: _Writer) -> tuple[str, str]:
    """seqlens_k and total_sequence_length from the attention mask, as
    the builder's attn_mask_reformat subgraph computes them."""
    base = "/model/attn_mask_reformat/attn_mask_subgraph"
    one, axis = w.weight("one", np.array(1, np.int64)), w.weight("axis_1", np.array([1], np.int64))
    total = w.node("ReduceSum", ["attention_mask", axis], f"{base}/ReduceSum", keepdims=0)
    seqlens = w.typed(w.node("Sub", [w.typed(total, [B], I64), one], f"{base}/Sub"), [B], I64)
    seqlens = w.node("Cast", [seqlens], f"{base}/Sub/Cast", to=TensorProto.INT32)
    shape = w.typed(w.node("Shape", ["attention_mask"], f"{base}/Shape"), [2], I64)
    length = w.typed(w.node("Gather", [shape, one], f"{base}/Gather", axis=0), [], I64)
    total_length = w.node("Cast", [length], f"{base}/Gather/Cast", to=TensorProto.INT32)
    return w.typed(seqlens, [B], TensorProto.INT32), total_length


def decoder_model(
    decoder: Decoder, dims: Mapping[str, Dim], present_length: Dim | None = None
) -> onnx.ModelProto:
    """The decoder with sizes `dims` (FREE's names; a string stays a
    dim_param); the presents' length declared as total_sequence_length,
    as the builder declares it, unless `present_length` is given."""
    b, s, p, t, h = (dims[name] for name in FREE)
    w = _Writer(decoder, annotated=all(isinstance(size, str) for size in dims.values()))
    embedded = w.node(
        "Gather",
        [w.floats("model.embed_tokens.weight", VOCAB, HIDDEN), "input_ids"],
        "/model/embed_tokens/Gather",
    )
    w.typed(embedded, [B, S, HIDDEN])
    mask = _mask_reformat(w)
    norm = "/model/layers.0/input_layernorm/LayerNorm"
    weight = w.floats("model.layers.0.input_layernorm.weight", HIDDEN, scale=0.1, shift=1.0)
    hidden = _rms_norm(w, embedded, weight, norm)
    w.typed(hidden, [B, S, HIDDEN])
    residual = embedded
    for layer in range(decoder.layers):
        attended = _attention(w, layer, hidden, mask)
        name = f"/model/layers.{layer}/post_attention_layernorm/SkipLayerNorm"
        hidden, residual = _skip_norm(w, name, residual, attended, last=False)
        out = _mlp(w, layer, hidden)
        last = layer == decoder.layers - 1
        part = "final_norm_layernorm" if last else "input_layernorm"
        name = f"/model/layers.{layer + 1}/{part}/SkipLayerNorm"
        hidden, residual = _skip_norm(w, name, residual, out, last=last)
    w.matmul_nbits("/lm_head/MatMul", hidden, HIDDEN, VOCAB, output="logits")
    e = decoder.element
    cache = [b, KV_HEADS, p, h]
    present = [b, KV_HEADS, t if present_length is None else present_length, h]
    inputs = [
        helper.make_tensor_value_info("input_ids", I64, [b, s]),
        helper.make_tensor_value_info("attention_mask", I64, [b, t]),
    ]
    if not decoder.rope_in_attention:
        inputs.append(helper.make_tensor_value_info("position_ids", I64, [b, s]))
    outputs = [helper.make_tensor_value_info("logits", e, [b, s, VOCAB])]
    for layer in range(decoder.layers):
        for kind in ("key", "value"):
            inputs.append(
                helper.make_tensor_value_info(f"past_key_values.{layer}.{kind}", e, cache)
            )
            outputs.append(helper.make_tensor_value_info(f"present.{layer}.{kind}", e, present))
    graph = helper.make_graph(w.nodes, "decoder", inputs, outputs, w.weights, value_info=w.values)
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="onnxruntime-genai")
    model.ir_version = 10
    return model


def _cache_names(decoder: Decoder) -> list[tuple[str, str]]:
    """(past input, present output) of each layer's key and value."""
    return [
        (f"past_key_values.{layer}.{kind}", f"present.{layer}.{kind}")
        for layer in range(decoder.layers)
        for kind in ("key", "value")
    ]


def prompt_feeds(decoder: Decoder, lengths: Sequence[int]) -> dict[str, np.ndarray]:
    """A first prompt of PROMPT tokens per entry, right-padded to
    `lengths`, over empty caches."""
    rng = np.random.default_rng(len(lengths))
    batch = len(lengths)
    feeds = {
        "input_ids": rng.integers(0, VOCAB, (batch, PROMPT)),
        "attention_mask": (np.arange(PROMPT) < np.array(lengths)[:, None]).astype(np.int64),
    }
    if not decoder.rope_in_attention:
        feeds["position_ids"] = np.tile(np.arange(PROMPT), (batch, 1))
    empty = np.zeros((batch, KV_HEADS, 0, HEAD), decoder.dtype)
    feeds.update({past: empty for past, _ in _cache_names(decoder)})
    return feeds


def decode_feeds(
    decoder: Decoder, prompt: Mapping[str, np.ndarray], presents: Mapping[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The next token of each entry after `prompt`, over its `presents`."""
    mask = prompt["attention_mask"]
    batch = len(mask)
    feeds = {
        "input_ids": np.random.default_rng(batch + 10).integers(0, VOCAB, (batch, 1)),
        "attention_mask": np.concatenate([mask, np.ones((batch, 1), np.int64)], axis=1),
    }
    if not decoder.rope_in_attention:
        feeds["position_ids"] = mask.sum(axis=1, keepdims=True)
    feeds.update({past: presents[present] for past, present in _cache_names(decoder)})
    return feeds


class _Reference:
    """onnxruntime's CPU session of a model."""

    def __init__(self, model: onnx.ModelProto) -> None:
        ort = pytest.importorskip("onnxruntime")
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self.session = ort.InferenceSession(
            model.SerializeToString(), options, providers=["CPUExecutionProvider"]
        )

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        names = [output.name for output in self.session.get_outputs()]
        return dict(zip(names, self.session.run(None, dict(feeds)), strict=True))


def assert_step_matches(
    reference: _Reference,
    compiled: onnxc.CompiledModel,
    feeds: Mapping[str, np.ndarray],
    tolerance: float,
) -> dict[str, np.ndarray]:
    """onnxc's outputs on `feeds` are onnxruntime's (names, shapes, types,
    values within `tolerance` absolute and relative); returns onnxruntime's."""
    expected = reference.run(feeds)
    for name, want in expected.items():
        assert np.isfinite(want).all(), name
    assert_outputs_match(compiled.run(dict(feeds)), expected, tolerance, tolerance)
    return expected


def _static(batch: int, sequence: int, past: int) -> dict[str, Dim]:
    return dict(zip(FREE, (batch, sequence, past, past + sequence, HEAD), strict=True))


STATIC = ("llama", "phi_partial_rotary_nodes_window")
"""The decoders also compiled with static sizes (the others share their
expansions' paths)."""


@pytest.mark.parametrize("name", STATIC)
def test_static_prompt_and_decode_match_onnxruntime(name: str) -> None:
    """Batch 1: the prompt model (past 0) and the decode model (past 5),
    each compiled with its sizes in the model and no binding."""
    decoder = DECODERS[name]
    prompt_model = decoder_model(decoder, _static(1, PROMPT, 0))
    decode_model = decoder_model(decoder, _static(1, 1, PROMPT))
    prompt = prompt_feeds(decoder, [PROMPT])
    presents = assert_step_matches(
        _Reference(prompt_model),
        onnxc.compile(prompt_model, cache=False),
        prompt,
        decoder.tolerance,
    )
    assert_step_matches(
        _Reference(decode_model),
        onnxc.compile(decode_model, cache=False),
        decode_feeds(decoder, prompt, presents),
        decoder.tolerance,
    )


@pytest.mark.parametrize("name", sorted(DECODERS))
def test_run_time_sizes_match_onnxruntime(name: str) -> None:
    """The builder's free sizes, compiled once: the prompt and the decode
    step at batch 1, and at batch 2 with the second prompt padded to 3."""
    decoder = DECODERS[name]
    model = decoder_model(decoder, FREE_DIMS)
    reference, compiled = _Reference(model), onnxc.compile(model, cache=False)
    for lengths in ([PROMPT], [PROMPT, 3]):
        prompt = prompt_feeds(decoder, lengths)
        presents = assert_step_matches(reference, compiled, prompt, decoder.tolerance)
        decode = decode_feeds(decoder, prompt, presents)
        assert_step_matches(reference, compiled, decode, decoder.tolerance)


SHARED = Decoder(layers=1)
MAX_LENGTH = 8
"""The length of the shared past and present buffers."""


def _shared_buffer_runs(model: onnx.ModelProto) -> None:
    """onnxruntime-genai's CPU run of a GroupQueryAttention model
    (past_present_share_buffer, greedy search): the caches are MAX_LENGTH
    rows from the first prompt on, the attention mask as long as the tokens
    so far; batch 1 and 2 (the second prompt padded to 3)."""
    reference, compiled = _Reference(model), onnxc.compile(model, cache=False)
    for lengths in ([PROMPT], [PROMPT, 3]):
        prompt = prompt_feeds(SHARED, lengths)
        buffer = np.zeros((len(lengths), KV_HEADS, MAX_LENGTH, HEAD), SHARED.dtype)
        prompt.update({past: buffer for past, _ in _cache_names(SHARED)})
        presents = assert_step_matches(reference, compiled, prompt, SHARED.tolerance)
        decode = decode_feeds(SHARED, prompt, presents)
        assert_step_matches(reference, compiled, decode, SHARED.tolerance)


def test_shared_cache_buffer_matches_onnxruntime() -> None:
    """The buffers shared, the presents' length declared apart from the
    attention mask's (total_sequence_length): GroupQueryAttention's present
    is max(past, total) = MAX_LENGTH rows."""
    _shared_buffer_runs(decoder_model(SHARED, FREE_DIMS, present_length="max_length"))


def test_shared_cache_buffer_as_the_builder_declares_it() -> None:
    """The same run on the model as the builder declares it: the presents'
    declared total_sequence_length is a hint (as onnxruntime reads it), not
    the MAX_LENGTH rows they have."""
    _shared_buffer_runs(decoder_model(SHARED, FREE_DIMS))
