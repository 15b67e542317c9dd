"""com.microsoft GroupQueryAttention as default-domain nodes: rotary
embeddings (RotaryEmbedding), the key/value cache written per batch entry
(Pad, Where, TensorScatter) and the default Attention over it (semantics:
onnxruntime 1.32's CPU kernel, which the documentation leaves partly open).

Per batch entry b, seqlens_k[b] + 1 keys are valid after this step (its
total); the new tokens (sequence S) follow past = max(total - S, 0) cached
ones (none in a first prompt, whose shorter entries are right-padded).
present_key and present_value (batch, kv heads, max(past_key's length,
total_sequence_length), head size) hold the past's first `past` rows, then
the S new ones, then zeros. Query s (at position past + s) sees the keys
before total, up to itself when causal (the default), and only the last
local_window_size of them with a window; the scores are scaled (1 / sqrt
(head size) by default) and softcapped before the mask, as the default
Attention does. A query head h reads the kv head h / (heads / kv heads).

do_rotary rotates the new queries and keys at their positions: past + s,
or position_ids[b, s] (a first prompt, where total_sequence_length is S,
takes position_ids[0, 0] + s, as onnxruntime does), with cos_cache and
sin_cache (max positions, rotary dimension / 2), interleaved with
rotary_interleaved; the rotary dimension is read from a constant cos_cache
(the whole head otherwise); without do_rotary, position_ids is not
read, as onnxruntime does not. The query may pack Q, K and V (key and value
absent). attention_bias (batch or 1, heads or 1, S, total_sequence_length)
is added to the scores of the seen keys.

Refused with a one-line error: head_sink and smooth_softmax, the quantized
cache (k_scale, v_scale, k_quant_type, v_quant_type, kv_cache_bit_width),
q_norm_weight, k_norm_weight, query_seqlens, sliding_window_cache, qk_output
and the output_qk output.
"""

from __future__ import annotations

import numpy as np

from onnxc.frontend.expansions.expander import Expander, Expansions
from onnxc.frontend.expansions.microsoft_attention import (
    merge_heads,
    refuse_inputs,
    split_heads,
    thirds,
)
from onnxc.frontend.expansions.sizes import dim, int64, per_batch, positions

UNSUPPORTED_INPUTS = {
    11: "head_sink",
    12: "k_scale",
    13: "v_scale",
    14: "q_norm_weight",
    15: "k_norm_weight",
    16: "query_seqlens",
}
UNSUPPORTED_FLAGS = ("smooth_softmax", "sliding_window_cache", "qk_output", "kv_cache_bit_width")


def _group_query_attention(x: Expander) -> None:
    """See the module docstring."""
    heads, kv_heads = _head_counts(x)
    causal = x.int_attribute("causal", 1)
    window = x.int_attribute("local_window_size", -1)
    if window > 0 and not causal:
        raise x.refuse("local_window_size needs causal attention")
    query = x.needed(0, "query")
    key, value = x.input(1), x.input(2)
    if (key is None) != (value is None):
        raise x.refuse("key and value must be given together")
    if key is None or value is None:
        query, key, value = _unpacked(x, query, heads, kv_heads)
    past_key, past_value = x.input(3), x.input(4)
    if (past_key is None) != (past_value is None):
        raise x.refuse("past_key and past_value must be given together")
    lengths = x.op("Add", int64(x, x.needed(5, "seqlens_k")), x.constant(1, "one"))
    total = int64(x, x.needed(6, "total_sequence_length"))
    total = x.op("Reshape", total, x.constant([1], "one_element"))
    queries = dim(x, query, 1)
    past = x.op("Max", x.op("Sub", lengths, queries), x.constant(0, "zero"))
    if x.int_attribute("do_rotary", 0):
        at = _rotary_positions(x, past, queries, total)
        query = _rotated(x, query, at, heads)
        key = _rotated(x, key, at, kv_heads)
    new_key, new_value = (split_heads(x, v, kv_heads) for v in (key, value))
    length = total if past_key is None else x.op("Max", total, dim(x, past_key, 2))
    present = [
        _cache(x, past_key, new_key, past, length, x.output(1)),
        _cache(x, past_value, new_value, past, length, x.output(2)),
    ]
    mask = _mask(x, lengths, past, queries, total, bool(causal), window)
    scale, softcap = x.float_attribute("scale", 0.0), x.float_attribute("softcap", 0.0)
    attended = x.op(
        "Attention",
        split_heads(x, query, heads),
        *present,
        mask,
        scale=scale if scale != 0.0 else None,
        softcap=softcap if softcap > 0.0 else None,
    )
    merge_heads(x, attended, x.node.output[0])


def _head_counts(x: Expander) -> tuple[int, int]:
    """num_heads and kv_num_heads, after refusing what is not expanded."""
    refuse_inputs(x, UNSUPPORTED_INPUTS)
    for flag in UNSUPPORTED_FLAGS:
        if x.int_attribute(flag, 0):
            raise x.refuse(f"{flag} is not supported")
    for name in ("k_quant_type", "v_quant_type"):
        kind = x.attribute(name, b"NONE")
        text = kind.decode() if isinstance(kind, bytes) else str(kind)
        if text not in ("NONE", ""):
            raise x.refuse(f"{name} {text} (a quantized cache) is not supported")
    if x.output(3) is not None:
        raise x.refuse("its output 3 (output_qk) is not supported")
    heads, kv_heads = x.int_attribute("num_heads"), x.int_attribute("kv_num_heads")
    if kv_heads <= 0 or heads <= 0 or heads % kv_heads:
        raise x.refuse(f"num_heads {heads} must be a positive multiple of kv_num_heads {kv_heads}")
    return heads, kv_heads


def _unpacked(x: Expander, packed: str, heads: int, kv_heads: int) -> list[str]:
    """Q, K and V of a query that packs them (batch, S, (heads + 2 kv
    heads) * head size)."""
    width = x.op("Div", dim(x, packed, 2), x.constant([heads + 2 * kv_heads], "head_count"))
    queries = x.op("Mul", width, x.constant([heads], "heads"))
    return thirds(x, packed, queries, x.op("Mul", width, x.constant([kv_heads], "kv_heads")))


def _rotary_positions(x: Expander, past: str, queries: str, total: str) -> str:
    """The (batch, S) positions of the new tokens (module docstring)."""
    steps = positions(x, queries)
    ids = x.input(9)
    if ids is None:
        return x.op("Add", x.op("Unsqueeze", past, x.constant([1], "axis")), steps)
    first = x.op("Gather", x.op("Reshape", ids, x.constant([-1], "flat")), x.constant(0, "first"))
    prompt = x.op("Equal", total, queries)
    return x.op("Where", prompt, x.op("Add", first, steps), ids)


def _rotated(x: Expander, value: str, at: str, heads: int) -> str:
    """`value` (batch, S, heads * head size) rotated at positions `at`."""
    cos, sin = x.needed(7, "cos_cache"), x.needed(8, "sin_cache")
    cache = x.constant_value(cos)
    rotated = 2 * int(cache.shape[-1]) if cache is not None and cache.ndim == 2 else None
    return x.op(
        "RotaryEmbedding",
        value,
        cos,
        sin,
        at,
        interleaved=x.int_attribute("rotary_interleaved", 0),
        num_heads=heads,
        rotary_embedding_dim=rotated,
    )


def _cache(
    x: Expander, cached: str | None, new: str, past: str, length: str, name: str | None
) -> str:
    """The present cache (batch, kv heads, `length`, head size): the
    first `past` rows of `cached` (none without it), `new` after them,
    zeros after that; named `name` when the node has that output."""
    if cached is None:
        shape = x.op("Concat", dim(x, new, 0), dim(x, new, 1), length, dim(x, new, 3), axis=0)
        kept = x.op("CastLike", x.op("ConstantOfShape", shape), new)
    else:
        extra = x.op("Sub", length, dim(x, cached, 2))
        before = x.constant(np.zeros(6, np.int64), "pads")
        pads = x.op("Concat", before, extra, x.constant([0], "pad"), axis=0)
        padded = x.op("Pad", cached, pads)
        rows = x.op("Reshape", positions(x, length), x.constant([1, 1, -1, 1], "rows"))
        written = x.op("Less", rows, per_batch(x, past))
        kept = x.op("Where", written, padded, x.like(0.0, cached, "zero"))
    return x.add("TensorScatter", [kept, new, past], [name or x.fresh("present")], axis=2)[0]


def _mask(
    x: Expander,
    lengths: str,
    past: str,
    queries: str,
    total: str,
    causal: bool,
    window: int,
) -> str:
    """What each query sees of the first total_sequence_length keys: a
    bool (batch, 1, S, total), or with attention_bias a float mask, the
    bias where a key is seen and -inf elsewhere (the default Attention
    masks the keys after them)."""
    at = positions(x, total)
    seen = x.op("Less", at, per_batch(x, lengths))
    if causal:
        steps = x.op("Reshape", positions(x, queries), x.constant([1, 1, -1, 1], "queries"))
        last = x.op("Add", per_batch(x, past), steps)
        seen = x.op("And", seen, x.op("LessOrEqual", at, last))
        if window > 0:
            first = x.op("Sub", last, x.constant(window, "window"))
            seen = x.op("And", seen, x.op("Greater", at, first))
    bias = x.input(10)
    if bias is None:
        return seen
    return x.op("Where", seen, bias, x.like(-np.inf, bias, "masked"))


EXPANSIONS: Expansions = {"GroupQueryAttention": _group_query_attention}
