"""What constant folding may evaluate: the limits the front end's folding of
protobuf nodes and the `onnx-fold-constants` pass share."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SMALL_CONSTANT = 4096
"""Constants with at most this many elements go into exported graphs with
their data (shape inference reads small ones, such as shapes and axes);
larger ones only with their type. Folding makes no larger constant."""

NON_DETERMINISTIC = frozenset(
    {
        "Bernoulli",
        "Multinomial",
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
    }
)
"""Operators whose value is not a function of their inputs: never folded."""

MAX_ROUNDS = 16
"""Fold-and-infer rounds at most (each round must make some type more static)."""


def reference_hazard(
    op_type: str, inputs: Sequence[np.ndarray | None], axis: int | None
) -> str | None:
    """Why onnx's reference implementation must not evaluate `op_type` on
    these constant `inputs` (`axis`: the node's attribute, if set), or None.
    Its GatherElements wraps an index with numpy's `choose`, which steps
    through it one axis size at a time: an index of 2^40 takes hours. Such an
    index is out of the spec's range, which this names."""
    if op_type != "GatherElements" or len(inputs) < 2:
        return None
    data, indices = inputs[0], inputs[1]
    if data is None or indices is None or data.ndim == 0 or indices.dtype.kind not in "iu":
        return None
    axis = 0 if axis is None else axis
    if not -data.ndim <= axis < data.ndim:
        return f"axis {axis} is out of range for rank {data.ndim}"
    size = data.shape[axis]
    outside = (indices < -size) | (indices >= size)
    if outside.any():
        return f"index {indices[outside].flat[0]} is out of range for axis {axis} of size {size}"
    return None
