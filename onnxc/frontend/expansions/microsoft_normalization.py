"""com.microsoft normalizations over the last axis, as the default-domain
LayerNormalization and RMSNormalization of a sum, so that the compiler's
normalization lowerings apply.

What onnxruntime's CPU kernels compute, where its documentation is silent:
- SkipLayerNormalization: S = (input + skip) + bias, Y = (S - mean) /
  sqrt(var + epsilon) * gamma + beta over the last axis; the statistics in
  float (16-bit inputs too); mean and inv_std_var are float, shaped as the
  input with a last axis of 1; input_skip_bias_sum is S. skip broadcasts
  ([B, S, H], [1, S, H] or [S, H]).
- SkipSimplifiedLayerNormalization: the same S, Y = S / sqrt(mean(S^2) +
  epsilon) * gamma; its mean output is zeros (no centering).
- EmbedLayerNormalization: E = (word_embedding[input_ids] +
  position_embedding[position]) + segment_embedding[segment_ids] (row 0 of
  segment_embedding when segment_ids is absent), Y = LayerNormalization(E);
  position is position_ids (its first axis 1 or the batch) or 0..S-1;
  embedding_sum is E; mask_index [B] int32 counts the 1s of each mask row
  (zeros without a mask). An id out of range, negative ones too, stops the
  model (onnxruntime's error; a default-domain Gather would wrap negative
  ones).

epsilon is 1e-12 by default in all three. The sums are computed in the
inputs' type: a 16-bit sum is rounded before it is normalized, where
onnxruntime keeps it in float (one unit in the last place). onnxruntime's
SimplifiedLayerNormalization, and its LayerNormalization before opset 17,
are default-domain names it registers, not com.microsoft operators, so they
have no expansion here."""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, numpy_helper

from onnxc.frontend.expansions.expander import Expander, Expansions

_EPSILON = 1e-12
"""onnxruntime's default epsilon for these operators."""


def _outputs(x: Expander, *indices: int) -> list[str]:
    """The node's outputs at `indices`, "" for those it does not produce,
    trailing absent ones dropped."""
    names = [x.output(index) or "" for index in indices]
    while names and not names[-1]:
        names.pop()
    return names


def _sum(x: Expander, terms: list[str], name: str | None) -> str:
    """`terms` added left to right (onnxruntime's order), the last sum named
    `name` when the node has that output."""
    total = terms[0]
    for count, term in enumerate(terms[1:], start=2):
        outputs = [name] if name and count == len(terms) else 1
        total = x.add("Add", [total, term], outputs)[0]
    return total


def _skip_sum(x: Expander, bias_index: int) -> str:
    """(input + skip) + bias (bias is optional), named as the node's
    input_skip_bias_sum output (output 3) when it has one."""
    bias = x.input(bias_index)
    terms = [x.needed(0, "input"), x.needed(1, "skip"), *([bias] if bias else [])]
    return _sum(x, terms, x.output(3))


def _statistic_shape(x: Expander, value: str) -> str:
    """The shape of `value` with a last axis of 1 (of the statistics)."""
    outer = x.op("Shape", value, end=-1)
    return x.op("Concat", outer, x.constant([1]), axis=0)


def _skip_layer_normalization(x: Expander) -> None:
    """LayerNormalization((input + skip) + bias, gamma, beta) over the last
    axis; beta and bias are optional (see the module docstring)."""
    total = _skip_sum(x, bias_index=4)
    x.add(
        "LayerNormalization",
        [total, x.needed(2, "gamma"), x.input(3)],
        _outputs(x, 0, 1, 2),
        axis=-1,
        epsilon=x.float_attribute("epsilon", _EPSILON),
    )


def _skip_simplified_layer_normalization(x: Expander) -> None:
    """RMSNormalization((input + skip) + bias, gamma) over the last axis;
    bias is optional. inv_std_var is 1 / sqrt(mean(S^2) + epsilon) in
    float; mean is zeros."""
    total = _skip_sum(x, bias_index=3)
    epsilon = x.float_attribute("epsilon", _EPSILON)
    x.add(
        "RMSNormalization",
        [total, x.needed(2, "gamma")],
        [x.node.output[0]],
        axis=-1,
        epsilon=epsilon,
    )
    inverse = x.output(2)
    if inverse is not None:
        wide = x.op("Cast", total, to=TensorProto.FLOAT)
        square = x.op("ReduceMean", x.op("Mul", wide, wide), x.constant([-1]), keepdims=1)
        root = x.op("Sqrt", x.op("Add", square, x.constant(epsilon, "epsilon")))
        x.add("Reciprocal", [root], [inverse])
    mean = x.output(1)
    if mean is not None:
        zero = numpy_helper.from_array(np.zeros(1, np.float32))
        x.add("ConstantOfShape", [_statistic_shape(x, total)], [mean], value=zero)


def _ids(x: Expander, index: int, what: str) -> str:
    """Input `index` (int32 ids), negative ones made out of range so that
    Gather refuses them as onnxruntime does."""
    ids = x.needed(index, what)
    negative = x.op("Less", ids, x.constant(np.array(0, np.int32), "zero"))
    beyond = x.constant(np.array(np.iinfo(np.int32).max, np.int32), "beyond")
    return x.op("Where", negative, beyond, ids)


def _positions(x: Expander, input_ids: str) -> str:
    """The position embeddings: the rows of position_ids, else rows 0..S-1
    for sequence length S (a Gather, so that an S beyond the table stops
    the model rather than broadcasting a one-row table)."""
    table = x.needed(3, "position_embedding")
    if x.input(8) is not None:
        return x.op("Gather", table, _ids(x, 8, "position_ids"))
    length = x.op("Squeeze", x.op("Shape", input_ids, start=1, end=2))
    step = x.constant(np.array(1, np.int64), "one")
    rows = x.op("Range", x.constant(np.array(0, np.int64), "zero"), length, step)
    return x.op("Gather", table, rows)


def _segments(x: Expander) -> str | None:
    """The segment embeddings: the rows of segment_ids, row 0 without them
    (as onnxruntime reads it), None without segment_embedding."""
    table = x.input(4)
    if table is None:
        if x.input(1) is not None:
            raise x.refuse("segment_ids (input 1) needs segment_embedding (input 4)")
        return None
    if x.input(1) is None:
        return x.op("Gather", table, x.constant(np.array(0, np.int64), "zero"))
    return x.op("Gather", table, _ids(x, 1, "segment_ids"))


def _mask_index(x: Expander, input_ids: str, name: str) -> None:
    """mask_index [B] int32: the count of 1s in each row of mask, zeros
    without a mask."""
    mask = x.input(7)
    if mask is None:
        batch = x.op("Shape", input_ids, start=0, end=1)
        zero = numpy_helper.from_array(np.zeros(1, np.int32))
        x.add("ConstantOfShape", [batch], [name], value=zero)
        return
    ones = x.op("Equal", mask, x.constant(np.array(1, np.int32), "one"))
    counts = x.op("Cast", ones, to=TensorProto.INT32)
    x.add("ReduceSum", [counts, x.constant([1])], [name], keepdims=0)


def _embed_layer_normalization(x: Expander) -> None:
    """LayerNormalization of the summed embeddings, and the mask index (see
    the module docstring)."""
    input_ids = x.needed(0, "input_ids")
    words = x.op("Gather", x.needed(2, "word_embedding"), _ids(x, 0, "input_ids"))
    segments = _segments(x)
    terms = [words, _positions(x, input_ids), *([segments] if segments else [])]
    total = _sum(x, terms, x.output(2))
    x.add(
        "LayerNormalization",
        [total, x.needed(5, "gamma"), x.needed(6, "beta")],
        [x.node.output[0]],
        axis=-1,
        epsilon=x.float_attribute("epsilon", _EPSILON),
    )
    mask_index = x.output(1)
    if mask_index is not None:
        _mask_index(x, input_ids, mask_index)


EXPANSIONS: Expansions = {
    "EmbedLayerNormalization": _embed_layer_normalization,
    "SkipLayerNormalization": _skip_layer_normalization,
    "SkipSimplifiedLayerNormalization": _skip_simplified_layer_normalization,
}
