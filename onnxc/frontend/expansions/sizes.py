"""Size arithmetic that expansions write (they see no shapes): sizes read
with Shape as one-element int64 tensors, and the positions along an axis.
Folding turns them into constants wherever the sizes are known."""

from __future__ import annotations

import numpy as np
import onnx

from onnxc.frontend.expansions.expander import Expander


def dim(x: Expander, value: str, axis: int) -> str:
    """Size `axis` of `value` (-1: the last), as a 1-D int64 tensor of one
    element."""
    return x.op("Shape", value, start=axis, end=axis + 1 if axis != -1 else None)


def scalar(x: Expander, value: str) -> str:
    """A one-element tensor as a scalar."""
    return x.op("Reshape", value, x.constant(np.zeros(0, np.int64), "scalar"))


def positions(x: Expander, count: str) -> str:
    """0, 1, ..., count - 1 (int64; count a one-element int64 tensor)."""
    return x.op("Range", x.constant(0, "zero"), scalar(x, count), x.constant(1, "one"))


def int64(x: Expander, value: str) -> str:
    """`value` cast to int64."""
    return x.op("Cast", value, to=onnx.TensorProto.INT64)


def per_batch(x: Expander, value: str) -> str:
    """A (batch) tensor as int64 (batch, 1, 1, 1), to broadcast against
    (batch, heads, queries, keys)."""
    return x.op("Reshape", int64(x, value), x.constant([-1, 1, 1, 1], "per_batch"))
