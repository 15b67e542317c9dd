"""onnxruntime's com.microsoft normalizations (SkipLayerNormalization,
SkipSimplifiedLayerNormalization, EmbedLayerNormalization) compiled through
their default-domain expansions (LayerNormalization, RMSNormalization,
Gather), against onnxruntime's CPU kernels.

Each optional input and output, the shapes skip may have, a 2-D input,
epsilon, float16 (Skip*: onnxruntime computes in float from the 16-bit
values), and free batch and sequence dimensions compiled once and run at
two sizes. Tolerances: float32 at rtol and atol 1e-5 (the differences seen
are a few units of 1e-7); float16 at rtol and atol 4e-3: the expansion
rounds each partial sum to float16 where onnxruntime adds in float and
rounds once, which moves a value by one unit in the last place (3.9e-3
between 4 and 8, the largest difference seen). EmbedLayerNormalization's
ids out of range, negative ones too, and a sequence longer than the
position table stop the model (onnxruntime's error).
"""

from __future__ import annotations

from collections.abc import Sequence
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
from tests.e2e.run_time import assert_refused

RNG = np.random.default_rng(13)
H = 16
SIZES = [(2, 3), (1, 5)]
"""(batch, sequence) of the runs of a model with free dimensions."""


def floats(*shape: int, dtype: type = np.float32) -> np.ndarray:
    return (RNG.standard_normal(shape) + 0.5).astype(dtype)


def skip_normalization(
    op: str,
    optional: str,
    outputs: str,
    element: int = F,
    skip: str = "full",
    dynamic: bool = False,
    **attributes: Any,
) -> Case:
    """`op` over input [batch, seq, H] (`skip` "2d": [tokens, H]) and skip
    ("full" as input, "row" [1, seq, H], "seq" [seq, H]) with gamma and the
    `optional` inputs ("beta", "bias" in a space-separated list) and the
    `outputs` named (of output, mean, inv_std_var, input_skip_bias_sum)."""
    dtype = np.float16 if element == F16 else np.float32
    sizes = SIZES if dynamic else SIZES[:1]
    batch, seq = ("batch", "seq") if dynamic else sizes[0]
    shape: list[Dim] = [batch, seq, H]
    if skip == "2d":
        shape = ["tokens" if dynamic else 7, H]
    skip_shape: list[Dim] = {"row": [1, seq, H], "seq": [seq, H]}.get(skip, shape)
    stat: list[Dim] = [*shape[:-1], 1]
    simplified = op == "SkipSimplifiedLayerNormalization"
    given = optional.split()
    parameters: list[Value] = [
        ("gamma", element, [H]),
        *([] if simplified else [("beta", element, [H]) if "beta" in given else NONE]),
        ("bias", element, [H]) if "bias" in given else NONE,
    ]
    inputs: list[Value] = [("input", element, shape), ("skip", element, skip_shape), *parameters]
    wanted = outputs.split()
    declared: list[Value] = [
        ("output", element, shape),
        ("mean", F, stat),
        ("inv_std_var", F, stat),
        ("input_skip_bias_sum", element, shape),
    ]
    model = contrib_model(op, inputs, [v if v[0] in wanted else NONE for v in declared], attributes)

    def feeds(b: int, s: int) -> dict[str, np.ndarray]:
        bound = {"batch": b, "seq": s, "tokens": b * s}
        return {
            name: floats(*(bound[d] if isinstance(d, str) else d for d in dims), dtype=dtype)
            for name, _, dims in inputs
            if name
        }

    tolerance = 4e-3 if element == F16 else 1e-5
    return Case(model, [feeds(b, s) for b, s in sizes], tolerance, tolerance)


SKIP = "SkipLayerNormalization"
SIMPLE = "SkipSimplifiedLayerNormalization"
ALL = "output mean inv_std_var input_skip_bias_sum"

CASES: dict[str, Case] = {
    "skip_all_inputs_all_outputs": skip_normalization(SKIP, "beta bias", ALL),
    "skip_no_beta_no_bias": skip_normalization(SKIP, "", "output"),
    "skip_beta_only_sum": skip_normalization(SKIP, "beta", "output input_skip_bias_sum"),
    "skip_bias_only_statistics": skip_normalization(SKIP, "bias", "output mean inv_std_var"),
    "skip_row_epsilon": skip_normalization(SKIP, "beta", "output", skip="row", epsilon=0.5),
    "skip_seq_broadcast": skip_normalization(SKIP, "beta bias", "output", skip="seq"),
    "skip_2d": skip_normalization(SKIP, "beta bias", "output input_skip_bias_sum", skip="2d"),
    "skip_dynamic": skip_normalization(SKIP, "beta bias", ALL, dynamic=True),
    "skip_2d_dynamic": skip_normalization(SKIP, "bias", "output", skip="2d", dynamic=True),
    "skip_float16": skip_normalization(SKIP, "beta bias", ALL, element=F16),
    "skip_float16_dynamic": skip_normalization(SKIP, "beta", "output", element=F16, dynamic=True),
    "simplified_bias_all_outputs": skip_normalization(SIMPLE, "bias", ALL),
    "simplified_no_bias": skip_normalization(SIMPLE, "", "output"),
    "simplified_inverse_only": skip_normalization(SIMPLE, "", "output inv_std_var"),
    "simplified_mean_only": skip_normalization(SIMPLE, "bias", "output mean"),
    "simplified_row_epsilon": skip_normalization(
        SIMPLE, "bias", "output", skip="row", epsilon=0.25
    ),
    "simplified_dynamic": skip_normalization(SIMPLE, "bias", ALL, dynamic=True),
    "simplified_2d": skip_normalization(SIMPLE, "bias", "output input_skip_bias_sum", skip="2d"),
    "simplified_float16": skip_normalization(SIMPLE, "bias", ALL, element=F16),
}

VOCABULARY, POSITIONS, SEGMENTS = 30, 8, 3


def embedding(
    optional: str,
    outputs: str,
    dynamic: bool = False,
    tables_as_weights: bool = False,
    **attributes: Any,
) -> Case:
    """EmbedLayerNormalization of input_ids [batch, seq] with the `optional`
    inputs named ("segment_ids", "segment_embedding", "mask",
    "position_ids" [1, seq], "position_ids_per_batch" [batch, seq]) and the
    `outputs` named (of output, mask_index, embedding_sum); the tables
    initializers when `tables_as_weights`."""
    sizes = SIZES if dynamic else SIZES[:1]
    batch, seq = ("batch", "seq") if dynamic else sizes[0]
    given = optional.split()
    per_batch = "position_ids_per_batch" in given
    ids: list[Dim] = [batch, seq]
    inputs: list[Value] = [
        ("input_ids", I32, ids),
        ("segment_ids", I32, ids) if "segment_ids" in given else NONE,
        ("word_embedding", F, [VOCABULARY, H]),
        ("position_embedding", F, [POSITIONS, H]),
        ("segment_embedding", F, [SEGMENTS, H]) if "segment_embedding" in given else NONE,
        ("gamma", F, [H]),
        ("beta", F, [H]),
        ("mask", I32, ids) if "mask" in given else NONE,
        ("position_ids", I32, ids if per_batch else [1, seq])
        if per_batch or "position_ids" in given
        else NONE,
    ]
    tables = {
        "word_embedding": floats(VOCABULARY, H),
        "position_embedding": floats(POSITIONS, H),
        "segment_embedding": floats(SEGMENTS, H),
        "gamma": floats(H),
        "beta": floats(H),
    }
    present = {name for name, _, _ in inputs if name}
    weights = {n: v for n, v in tables.items() if n in present} if tables_as_weights else {}
    wanted = outputs.split()
    declared: list[Value] = [
        ("output", F, [batch, seq, H]),
        ("mask_index", I32, [batch]),
        ("embedding_sum", F, [batch, seq, H]),
    ]
    model = contrib_model(
        "EmbedLayerNormalization",
        inputs,
        [v if v[0] in wanted else NONE for v in declared],
        attributes,
        weights,
    )

    def feeds(b: int, s: int) -> dict[str, np.ndarray]:
        values = {
            "input_ids": RNG.integers(0, VOCABULARY, (b, s)),
            "segment_ids": RNG.integers(0, SEGMENTS, (b, s)),
            "mask": RNG.integers(0, 3, (b, s)),  # 2 is not counted, as 0 is not
            "position_ids": RNG.integers(0, POSITIONS, (b if per_batch else 1, s)),
        }
        chosen = {n: v.astype(np.int32) for n, v in values.items()}
        chosen.update((n, v) for n, v in tables.items() if n not in weights)
        return {n: chosen[n] for n in present if n not in weights}

    return Case(model, [feeds(b, s) for b, s in sizes])


BERT = "segment_ids segment_embedding mask"

EMBEDDING_CASES: dict[str, Case] = {
    "embed_bert_all_outputs": embedding(BERT, "output mask_index embedding_sum"),
    "embed_distilbert": embedding("mask", "output mask_index"),
    "embed_no_mask": embedding("segment_ids segment_embedding", "output mask_index"),
    "embed_segment_table_without_ids": embedding("segment_embedding mask", "output mask_index"),
    "embed_no_mask_index_epsilon": embedding(BERT, "output embedding_sum", epsilon=1e-5),
    "embed_position_ids": embedding(f"{BERT} position_ids", "output mask_index embedding_sum"),
    "embed_position_ids_per_batch": embedding(
        "mask position_ids_per_batch", "output mask_index embedding_sum"
    ),
    "embed_dynamic": embedding(BERT, "output mask_index embedding_sum", dynamic=True),
    "embed_dynamic_weights": embedding(
        f"{BERT} position_ids", "output mask_index", dynamic=True, tables_as_weights=True
    ),
}


@pytest.mark.parametrize("name", sorted(CASES | EMBEDDING_CASES))
def test_matches_onnxruntime(name: str) -> None:
    case = (CASES | EMBEDDING_CASES)[name]
    assert_runs_match_onnxruntime(case.model, case.runs, case.rtol, case.atol)


def _embedding_feeds(ids: Sequence[Sequence[int]]) -> dict[str, np.ndarray]:
    """The feeds of `embedding("", "output", dynamic=True)` for `ids`."""
    return {
        "input_ids": np.array(ids, np.int32),
        "word_embedding": floats(VOCABULARY, H),
        "position_embedding": floats(POSITIONS, H),
        "gamma": floats(H),
        "beta": floats(H),
    }


@pytest.mark.parametrize(
    "ids",
    [[[1, VOCABULARY]], [[-1, 2]], [[0] * (POSITIONS + 1)]],
    ids=["word_id_too_large", "word_id_negative", "sequence_beyond_positions"],
)
def test_ids_out_of_range_stop_the_model(ids: list[list[int]]) -> None:
    model = embedding("", "output", dynamic=True).model
    assert_refused(model, "embed_ids", _embedding_feeds(ids))


def test_malformed_nodes_are_refused_in_one_line() -> None:
    """Missing required inputs, segment_ids without its table, and an
    epsilon that is not a number each stop the compile in one line."""
    x = ("input", F, [2, H])
    assert_refused_in_one_line(
        contrib_model(SKIP, [x], [("output", F, [2, H])]),
        r"node 'SkipLayerNormalization' \(SkipLayerNormalization\): "
        r"its input 1 \(skip\) is required",
    )
    assert_refused_in_one_line(
        contrib_model(SIMPLE, [x, ("skip", F, [2, H])], [("output", F, [2, H])]),
        r"\(SkipSimplifiedLayerNormalization\): its input 2 \(gamma\) is required",
    )
    case = embedding("segment_ids", "output")
    assert_refused_in_one_line(
        case.model,
        r"\(EmbedLayerNormalization\): segment_ids \(input 1\) needs segment_embedding",
    )
    case = embedding(BERT, "output", epsilon="small")
    assert_refused_in_one_line(case.model, r"it needs a float attribute 'epsilon'")
