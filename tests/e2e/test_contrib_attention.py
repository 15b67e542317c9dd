"""onnxruntime's com.microsoft attention family compiled through their
default-domain expansions: Attention and MultiHeadAttention (the default
Attention), GroupQueryAttention (RotaryEmbedding, a per-entry cache write,
the default Attention) and RotaryEmbedding (the default RotaryEmbedding),
against onnxruntime 1.32's CPU kernels.

Each mask form (key lengths, ends and starts, 2-D and 3-D 0/1 masks),
attention_bias, past and present, unidirectional and causal attention,
qkv_hidden_sizes, a 4-D key and value, mask_filter_value and scale; grouped
queries at ratios 1, 2 and 4, decoding with entries of different lengths,
a padded first prompt, a later prompt, a cache longer than the total,
packed QKV, local windows, softcap, rotary embeddings (whole and partial,
interleaved or not, with and without position ids); rotary offsets and
position tables, 3-D and 4-D inputs; float16; and free batch and sequence
sizes compiled once and run at two sizes (GroupQueryAttention's cache,
sized at run time, also built under strict C99 flags).

Tolerances: float32 at rtol and atol 1e-5 (the differences seen are at
most 1.5e-6, on outputs of a few units: the default Attention scales Q and
K by sqrt(scale) each where onnxruntime scales their product). float16 at
rtol and atol 1e-2: onnxruntime computes these kernels in float from the
16-bit values, the default Attention rounds Q and K scaled, the scores and
the probabilities to float16 as onnx's reference does, which moves an
output by a few units in its last place (4e-3 at most seen, near 1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.e2e.contrib_ops import (
    F16,
    I32,
    NONE,
    Case,
    Dim,
    F,
    Value,
    assert_refused_in_one_line,
    assert_runs_match_onnxruntime,
    contrib_model,
)
from tests.e2e.run_time import assert_builds_warning_free, assert_refused

RNG = np.random.default_rng(21)
I64 = 7
Bound = dict[str, int]
Fill = Callable[[Bound], np.ndarray]
"""An input's value for one binding of the free dimensions."""

STATIC: list[Bound] = [{"batch": 2, "seq": 3, "kv": 5, "past": 4}]
TWO: list[Bound] = [
    {"batch": 2, "seq": 3, "kv": 5, "past": 4},
    {"batch": 3, "seq": 1, "kv": 2, "past": 6},
]
"""Bindings of the free dimensions: the first alone for a static model."""


def sized(shape: Sequence[Dim], bound: Bound) -> tuple[int, ...]:
    """`shape` with its dim_params (sums written "a+b" too) bound."""
    return tuple(
        sum(bound[part] for part in d.split("+")) if isinstance(d, str) else d for d in shape
    )


def static(shape: Sequence[Dim]) -> list[Dim]:
    """`shape` with the dim_params bound by the first binding."""
    return list(sized(shape, STATIC[0]))


def case(
    op: str,
    inputs: Sequence[Value],
    outputs: Sequence[Value],
    attributes: Mapping[str, Any],
    dynamic: bool = False,
    fills: Mapping[str, Fill] | None = None,
    weights: Mapping[str, np.ndarray] | None = None,
    tolerance: float = 1e-5,
) -> Case:
    """`op` over `inputs` giving `outputs` (shapes with the dim_params of
    TWO, bound at compile time unless `dynamic`), run on each binding: an
    input gets fills[name] of the binding, or normal values of its type;
    `weights` are initializers."""
    bindings = TWO if dynamic else STATIC

    def declared(values: Sequence[Value]) -> list[Value]:
        return [(n, t, s if dynamic else static(s)) for n, t, s in values]

    model = contrib_model(op, declared(inputs), declared(outputs), attributes, weights)

    def feeds(bound: Bound) -> dict[str, np.ndarray]:
        chosen: dict[str, np.ndarray] = {}
        for name, element, shape in inputs:
            if not name or name in (weights or {}):
                continue
            fill = (fills or {}).get(name)
            dtype = np.float16 if element == F16 else np.float32
            chosen[name] = (
                fill(bound) if fill else RNG.standard_normal(sized(shape, bound)).astype(dtype)
            )
        return chosen

    return Case(model, [feeds(bound) for bound in bindings], tolerance, tolerance)


def ints(*values: Any) -> np.ndarray:
    return np.array(values, np.int32)


def key_lengths(total: Dim) -> Fill:
    """Per batch entry, how many of the `total` keys it sees (at least 1)."""

    def fill(bound: Bound) -> np.ndarray:
        return ints(*RNG.integers(1, sized([total], bound)[0] + 1, bound["batch"]))

    return fill


def ones_and_zeros(*shape: Dim) -> Fill:
    """A 0/1 int32 mask of `shape` whose first key is always seen."""

    def fill(bound: Bound) -> np.ndarray:
        mask = RNG.integers(0, 2, sized(shape, bound)).astype(np.int32)
        mask[..., 0] = 1
        return mask

    return fill


# --- com.microsoft Attention ---------------------------------------------------

N, HEAD = 2, 4
HIDDEN = N * HEAD


def attention(
    mask: str = "",
    past: bool = False,
    bias: bool = True,
    attention_bias: bool = False,
    dynamic: bool = False,
    element: int = F,
    sizes: Sequence[int] = (),
    **attributes: Any,
) -> Case:
    """Attention of input (batch, seq, 8) with `mask` ("lengths",
    "bounds", "raw2", "raw3" or none), the past (2, batch, 2, past, 4) and
    the present, the bias and attention_bias; `sizes` the qkv_hidden_sizes."""
    q, k, v = sizes or (HIDDEN, HIDDEN, HIDDEN)
    total = "past+seq" if past else "seq"
    masks: dict[str, tuple[list[Dim], Fill]] = {
        "lengths": (
            ["batch"],
            lambda b: ints(*RNG.integers(1, sized([total], b)[0] + 1, b["batch"])),
        ),
        "bounds": (["batch+batch"], lambda b: _bounds(b["batch"], sized([total], b)[0])),
        "raw2": (["batch", total], ones_and_zeros("batch", total)),
        "raw3": (["batch", "seq", total], ones_and_zeros("batch", "seq", total)),
    }
    inputs: list[Value] = [
        ("input", element, ["batch", "seq", HIDDEN]),
        ("weights", element, [HIDDEN, q + k + v]),
        ("bias", element, [q + k + v]) if bias else NONE,
        ("mask_index", I32, masks[mask][0]) if mask else NONE,
        ("past", element, [2, "batch", N, "past", v // N]) if past else NONE,
        ("attention_bias", element, [1, N, "seq", total]) if attention_bias else NONE,
    ]
    outputs: list[Value] = [("output", element, ["batch", "seq", v])]
    if past:
        outputs.append(("present", element, [2, "batch", N, total, v // N]))
    fills = {"mask_index": masks[mask][1]} if mask else {}
    attributes = {
        "num_heads": N,
        **({"qkv_hidden_sizes": list(sizes)} if sizes else {}),
        **attributes,
    }
    tolerance = 1e-2 if element == F16 else 1e-5
    return case("Attention", inputs, outputs, attributes, dynamic, fills, tolerance=tolerance)


def _bounds(batch: int, total: int) -> np.ndarray:
    """Ends then starts of a left-and-right-padded batch (end > start)."""
    starts = RNG.integers(0, total, batch)
    ends = [RNG.integers(start + 1, total + 1) for start in starts]
    return ints(*ends, *starts)


ATTENTION_CASES: dict[str, Case] = {
    "plain": attention(),
    "no_bias_scale": attention(bias=False, scale=0.25),
    "unidirectional": attention(unidirectional=1),
    "key_lengths": attention("lengths"),
    "ends_and_starts": attention("bounds"),
    "mask_2d": attention("raw2", mask_filter_value=-1000.0),
    "mask_3d_unidirectional": attention("raw3", unidirectional=1),
    "attention_bias_and_mask": attention("raw2", attention_bias=True),
    "qkv_hidden_sizes": attention(sizes=(8, 8, 4)),
    "past_present": attention(past=True),
    "past_unidirectional_mask": attention("raw2", past=True, unidirectional=1),
    "past_key_lengths": attention("lengths", past=True),
    "dynamic_past_mask": attention("raw2", past=True, unidirectional=1, dynamic=True),
    "dynamic_bounds": attention("bounds", dynamic=True),
    "float16": attention("raw2", past=True, unidirectional=1, element=F16),
}


def test_fully_masked_rows_average_like_onnxruntime() -> None:
    """A row whose keys are all masked averages them (onnxruntime masks
    with a finite -10000), where -inf would give zeros."""
    model = attention("lengths").model
    feeds = dict(attention("lengths").runs[0])
    feeds["mask_index"] = ints(0, 0)
    assert_runs_match_onnxruntime(model, [feeds], 1e-5, 1e-5)


# --- com.microsoft MultiHeadAttention -----------------------------------------


def multi_head(
    mask: str = "",
    bias: bool = False,
    attention_bias: bool = False,
    past: bool = False,
    four_d: bool = False,
    dynamic: bool = False,
    element: int = F,
    value_size: int = HIDDEN,
    **attributes: Any,
) -> Case:
    """MultiHeadAttention of query (batch, seq, 8) over key and value
    (batch, kv, 8 and `value_size`) or, `four_d`, (batch, 2, kv, 4); with
    `mask` ("lengths", "raw2" over the total keys, "raw3"), the bias,
    attention_bias and past_key/past_value (batch, 2, past, 4)."""
    keys = "kv" if not past else "seq"  # self-attention with a cache
    total = f"past+{keys}" if past else keys
    masks: dict[str, tuple[list[Dim], Fill]] = {
        "lengths": (
            ["batch"],
            lambda b: ints(*RNG.integers(1, sized([total], b)[0] + 1, b["batch"])),
        ),
        "raw2": (["batch", total], ones_and_zeros("batch", total)),
        "raw3": (["batch", "seq", total], ones_and_zeros("batch", "seq", total)),
    }
    value_head = value_size // N
    key_shape: list[Dim] = ["batch", N, keys, HEAD] if four_d else ["batch", keys, HIDDEN]
    value_shape: list[Dim] = ["batch", N, keys, HEAD] if four_d else ["batch", keys, value_size]
    inputs: list[Value] = [
        ("query", element, ["batch", "seq", HIDDEN]),
        ("key", element, key_shape),
        ("value", element, value_shape),
        ("bias", element, [2 * HIDDEN + value_size]) if bias else NONE,
        ("key_padding_mask", I32, masks[mask][0]) if mask else NONE,
        ("attention_bias", element, [1, N, "seq", total]) if attention_bias else NONE,
        ("past_key", element, ["batch", N, "past", HEAD]) if past else NONE,
        ("past_value", element, ["batch", N, "past", value_head]) if past else NONE,
    ]
    width = HIDDEN if four_d else value_size
    outputs: list[Value] = [("output", element, ["batch", "seq", width])]
    if past:
        outputs.append(("present_key", element, ["batch", N, total, HEAD]))
        outputs.append(("present_value", element, ["batch", N, total, value_head]))
    fills = {"key_padding_mask": masks[mask][1]} if mask else {}
    tolerance = 1e-2 if element == F16 else 1e-5
    return case(
        "MultiHeadAttention",
        inputs,
        outputs,
        {"num_heads": N, **attributes},
        dynamic,
        fills,
        tolerance=tolerance,
    )


MULTI_HEAD_CASES: dict[str, Case] = {
    "cross": multi_head(),
    "bias_value_size": multi_head(bias=True, value_size=6, scale=0.5),
    "key_lengths": multi_head("lengths", bias=True),
    "mask_2d_filter": multi_head("raw2", mask_filter_value=-100.0),
    "mask_3d_attention_bias": multi_head("raw3", attention_bias=True),
    "four_d_key_value": multi_head(four_d=True),
    "four_d_bias_on_query_only": multi_head("lengths", bias=True, four_d=True),
    "past_present_unidirectional": multi_head("raw2", bias=True, past=True, unidirectional=1),
    "dynamic_cross_lengths": multi_head("lengths", bias=True, dynamic=True),
    "dynamic_past": multi_head("raw2", past=True, unidirectional=1, dynamic=True),
    "dynamic_four_d": multi_head("raw3", four_d=True, dynamic=True),
    "float16": multi_head("raw2", bias=True, past=True, element=F16),
}


# --- com.microsoft GroupQueryAttention ----------------------------------------

GQA_HEAD = 16
CACHE = 32
"""Rows of the cos and sin caches."""


def group_query(
    heads: int,
    kv_heads: int,
    seqlens: Sequence[int],
    total: int,
    sequence: int = 1,
    past: int = 0,
    rotary: int = 0,
    position_ids: Sequence[Sequence[int]] | None = None,
    packed: bool = False,
    attention_bias: bool = False,
    dynamic: bool = False,
    element: int = F,
    head: int = GQA_HEAD,
    **attributes: Any,
) -> Case:
    """GroupQueryAttention of `sequence` new tokens of each entry
    (len(seqlens)) over a `past`-row cache (none when 0), seqlens_k
    `seqlens`, total_sequence_length `total`; rotary embeddings of
    dimension `rotary` with position_ids when given; QKV packed in the
    query; attention_bias; heads of `head` elements. `dynamic` frees batch, sequence and past and
    runs the next token too (one more row of past and of each length)."""
    batch = len(seqlens)
    steps = [(batch, sequence, past, list(seqlens), total)]
    if dynamic:  # the next token
        steps.append((batch, 1, past + 1, [length + 1 for length in seqlens], total + 1))
    dims: tuple[Dim, Dim, Dim] = ("batch", "seq", "past") if dynamic else (batch, sequence, past)
    b, s, p = dims
    width = (heads + 2 * kv_heads) * head if packed else heads * head
    cache: list[Dim] = [b, kv_heads, p, head]
    inputs: list[Value] = [
        ("query", element, [b, s, width]),
        NONE if packed else ("key", element, [b, s, kv_heads * head]),
        NONE if packed else ("value", element, [b, s, kv_heads * head]),
        ("past_key", element, cache) if past else NONE,
        ("past_value", element, cache) if past else NONE,
        ("seqlens_k", I32, [b]),
        ("total_sequence_length", I32, []),
        ("cos_cache", element, [CACHE, rotary // 2]) if rotary else NONE,
        ("sin_cache", element, [CACHE, rotary // 2]) if rotary else NONE,
        ("position_ids", I64, [b, s]) if position_ids is not None else NONE,
        ("attention_bias", element, [1, heads, s, "total" if dynamic else total])
        if attention_bias
        else NONE,
    ]
    present: list[Dim] = [b, kv_heads, "present" if dynamic else max(past, total), head]
    outputs: list[Value] = [
        ("output", element, [b, s, heads * head]),
        ("present_key", element, present),
        ("present_value", element, present),
    ]
    dtype = np.float16 if element == F16 else np.float32
    caches = ("cos_cache", "sin_cache") if rotary else ()
    weights = {name: RNG.standard_normal((CACHE, rotary // 2)).astype(dtype) for name in caches}
    model = contrib_model(
        "GroupQueryAttention",
        inputs,
        outputs,
        {
            "num_heads": heads,
            "kv_num_heads": kv_heads,
            "do_rotary": int(rotary > 0),
            **attributes,
        },
        weights,
    )
    runs = []
    for step, (n, length, cached, lengths, whole) in enumerate(steps):
        bound = {"batch": n, "seq": length, "past": cached, "total": whole}
        feeds: dict[str, np.ndarray] = {
            name: RNG.standard_normal(sized(shape, bound)).astype(dtype)
            for name, element_type, shape in inputs
            if name and element_type != I32 and name not in weights and name != "position_ids"
        }
        feeds["seqlens_k"] = ints(*lengths)
        feeds["total_sequence_length"] = np.array(whole, np.int32)
        if position_ids is not None:
            shift = step * length
            feeds["position_ids"] = np.array(position_ids, np.int64)[:, :length] + shift
        runs.append(feeds)
    tolerance = 1e-2 if element == F16 else 1e-5
    return Case(model, runs, tolerance, tolerance)


GQA_CASES: dict[str, Case] = {
    "decode_ratio_2": group_query(4, 2, [5, 3], 6, past=5),
    "decode_ratio_4_total_below_cache": group_query(4, 1, [2, 3], 4, past=5),
    "decode_ratio_1": group_query(2, 2, [4, 1], 5, past=4),
    "first_prompt_padded": group_query(4, 2, [2, 1], 3, sequence=3),
    "first_prompt_cache_buffer": group_query(4, 2, [2, 2], 3, sequence=3, past=4),
    "later_prompt": group_query(4, 2, [6], 7, sequence=3, past=4),
    "not_causal": group_query(4, 2, [5, 3], 6, past=5, causal=0),
    "local_window_softcap_scale": group_query(
        2, 1, [4], 5, sequence=5, local_window_size=2, softcap=2.0, scale=0.3
    ),
    "local_window_decode": group_query(4, 2, [5, 3], 6, past=5, local_window_size=3),
    "packed_qkv": group_query(4, 2, [5, 3], 6, past=5, packed=True),
    "rotary_decode": group_query(4, 2, [5, 3], 6, past=5, rotary=16),
    "rotary_partial_interleaved_prompt": group_query(
        4, 2, [2, 2], 3, sequence=3, rotary=16, head=32, rotary_interleaved=1
    ),
    "rotary_position_ids_prompt": group_query(
        4, 2, [2, 2], 3, sequence=3, rotary=16, position_ids=[[4, 5, 6], [1, 2, 3]]
    ),
    "rotary_position_ids_decode": group_query(
        4, 2, [5, 3], 6, past=5, rotary=16, position_ids=[[9], [2]]
    ),
    "attention_bias": group_query(4, 2, [2, 3], 4, past=5, attention_bias=True),
    "attention_bias_softcap_prompt": group_query(
        2, 1, [2, 1], 3, sequence=3, attention_bias=True, softcap=1.5
    ),
    "dynamic_decode": group_query(4, 2, [5, 3], 6, past=5, dynamic=True),
    "dynamic_prompt_then_decode_rotary": group_query(
        4, 2, [2, 2], 3, sequence=3, past=3, rotary=16, dynamic=True
    ),
    "float16_rotary": group_query(4, 2, [5, 3], 6, past=5, rotary=16, element=F16),
}


# --- com.microsoft RotaryEmbedding --------------------------------------------


def rotary(
    shape: Sequence[Dim],
    ids: Sequence[Dim] | None = None,
    half: int = 8,
    dynamic: bool = False,
    element: int = F,
    **attributes: Any,
) -> Case:
    """RotaryEmbedding of an input of `shape` with position ids of shape
    `ids` (one element by default), caches (32, `half`)."""
    ids_shape = list(ids) if ids is not None else [1]

    def positions(bound: Bound) -> np.ndarray:
        return RNG.integers(0, 12, sized(ids_shape, bound)).astype(np.int64)

    inputs: list[Value] = [
        ("input", element, shape),
        ("position_ids", I64, ids_shape),
        ("cos_cache", element, [CACHE, half]),
        ("sin_cache", element, [CACHE, half]),
    ]
    tolerance = 1e-2 if element == F16 else 1e-5
    return case(
        "RotaryEmbedding",
        inputs,
        [("output", element, shape)],
        attributes,
        dynamic,
        {"position_ids": positions},
        tolerance=tolerance,
    )


ROTARY_CASES: dict[str, Case] = {
    "hidden_offset": rotary(["batch", "seq", 32]),
    "hidden_num_heads": rotary(["batch", "seq", 32], num_heads=2),
    "hidden_partial": rotary(["batch", "seq", 64], num_heads=2, rotary_embedding_dim=16),
    "hidden_table_interleaved": rotary(["batch", "seq", 32], ["batch", "seq"], interleaved=1),
    "heads": rotary(["batch", 2, "seq", 16]),
    "heads_partial_table": rotary(
        ["batch", 2, "seq", 32], ["batch", "seq"], num_heads=2, rotary_embedding_dim=16
    ),
    "scalar_offset_ignored_attributes": rotary(
        ["batch", "seq", 32], [], scale=2.0, is_packed_batching=1
    ),
    "dynamic_hidden": rotary(["batch", "seq", 32], dynamic=True, interleaved=1),
    "dynamic_heads_table": rotary(["batch", 2, "seq", 16], ["batch", "seq"], dynamic=True),
    "float16": rotary(["batch", "seq", 32], ["batch", "seq"], element=F16, num_heads=2),
}

CASES = {
    **{f"attention_{name}": c for name, c in ATTENTION_CASES.items()},
    **{f"multi_head_{name}": c for name, c in MULTI_HEAD_CASES.items()},
    **{f"group_query_{name}": c for name, c in GQA_CASES.items()},
    **{f"rotary_{name}": c for name, c in ROTARY_CASES.items()},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_onnxruntime(name: str) -> None:
    case_ = CASES[name]
    assert_runs_match_onnxruntime(case_.model, case_.runs, case_.rtol, case_.atol)


def test_cache_sized_at_run_time_builds_warning_free(tmp_path: Path) -> None:
    """GroupQueryAttention's present length comes from total_sequence_length,
    a run-time value: its C builds without a warning under strict C99."""
    assert_builds_warning_free(GQA_CASES["dynamic_decode"].model, "gqa", tmp_path)


def test_mask_of_the_gpu_only_form_stops_the_model() -> None:
    """A 1-D mask_index of (3 * batch + 2), onnxruntime's GPU-only form, is
    neither ends nor ends and starts: the model stops with ONNXC_ERR_SHAPE."""
    inputs: list[Value] = [
        ("input", F, ["batch", 3, HIDDEN]),
        ("weights", F, [HIDDEN, 3 * HIDDEN]),
        NONE,
        ("mask_index", I32, ["count"]),
    ]
    model = contrib_model(
        "Attention", inputs, [("output", F, ["batch", 3, HIDDEN])], {"num_heads": N}
    )
    data = RNG.standard_normal((2, 3, HIDDEN)).astype(np.float32)
    weights = RNG.standard_normal((HIDDEN, 3 * HIDDEN)).astype(np.float32)
    feeds = {"input": data, "weights": weights, "mask_index": ints(3, 3, 1, 1, 0, 0, 0, 0)}
    assert_refused(model, "gpu_only_mask", feeds)


def _node(op: str, inputs: Sequence[Value], **attributes: Any) -> Any:
    return contrib_model(op, inputs, [("y", F, [2, 3, 8])], attributes)


X, K, V = ("x", F, [2, 3, 8]), ("k", F, [2, 3, 8]), ("v", F, [2, 3, 8])
W: Value = ("w", F, [8, 24])


@pytest.mark.parametrize(
    ("op", "inputs", "attributes", "message"),
    [
        ("Attention", [X, ("w", F, [8, 24])], {}, r"needs an integer attribute 'num_heads'"),
        ("Attention", [X, ("w", F, [8, 24])], {"num_heads": 2, "do_rotary": 1}, "do_rotary"),
        (
            "Attention",
            [X, ("w", F, [8, 24])],
            {"num_heads": 2, "qkv_hidden_sizes": [8, 8]},
            "3 sizes",
        ),
        ("Attention", [X], {"num_heads": 2}, r"input 1 \(weights\) is required"),
        ("MultiHeadAttention", [X], {"num_heads": 2}, "packed QKV is not supported"),
        ("MultiHeadAttention", [X, K], {"num_heads": 2}, "packed KV is not supported"),
        ("MultiHeadAttention", [X, K, V], {"num_heads": 0}, "num_heads must be positive"),
        (
            "MultiHeadAttention",
            [X, K, V, NONE, NONE, NONE, ("p", F, [2, 2, 1, 4])],
            {"num_heads": 2},
            "given together",
        ),
        (
            "GroupQueryAttention",
            [X, K, V, NONE, NONE, ("l", I32, [2]), ("t", I32, [])],
            {"num_heads": 3, "kv_num_heads": 2},
            "multiple of kv_num_heads",
        ),
        (
            "GroupQueryAttention",
            [X, K, V, NONE, NONE, ("l", I32, [2]), ("t", I32, [])],
            {"num_heads": 2, "kv_num_heads": 1, "causal": 0, "local_window_size": 2},
            "local_window_size needs causal",
        ),
        (
            "GroupQueryAttention",
            [X, K, V, NONE, NONE, ("l", I32, [2]), ("t", I32, []), *[NONE] * 4, ("s", F, [2])],
            {"num_heads": 2, "kv_num_heads": 1},
            r"input 11 \(head_sink\) is not supported",
        ),
        (
            "GroupQueryAttention",
            [X, K, V, NONE, NONE, ("l", I32, [2]), ("t", I32, [])],
            {"num_heads": 2, "kv_num_heads": 1, "smooth_softmax": 1},
            "smooth_softmax is not supported",
        ),
        (
            "GroupQueryAttention",
            [X, K, V, NONE, NONE, ("l", I32, [2]), ("t", I32, [])],
            {"num_heads": 2, "kv_num_heads": 1, "k_quant_type": "PER_TENSOR"},
            "quantized cache",
        ),
        (
            "RotaryEmbedding",
            [X, ("p", I64, [1]), ("c", F, [4, 2]), ("s", F, [4, 2])],
            {"rotary_embedding_dim": 4},
            "rotary_embedding_dim needs num_heads",
        ),
    ],
)
def test_malformed_nodes_are_refused_in_one_line(
    op: str, inputs: list[Value], attributes: dict[str, Any], message: str
) -> None:
    assert_refused_in_one_line(_node(op, inputs, **attributes), f"node '{op}' .*{message}")


def test_qk_output_is_refused_in_one_line() -> None:
    outputs: list[Value] = [("y", F, [2, 3, 8]), NONE, NONE, ("qk", F, [2, 2, 3, 3])]
    model = contrib_model("MultiHeadAttention", [X, K, V], outputs, {"num_heads": 2})
    assert_refused_in_one_line(model, r"its output 3 \(qk\) is not supported")
