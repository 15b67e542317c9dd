"""Random inputs of a compiled model (`onnxc run --random`, `onnxc bench`)."""

from __future__ import annotations

import numpy as np

from onnxc.element_types import Kind
from onnxc.emit.runner import TensorSpec
from onnxc.errors import OnnxcError
from onnxc.tools.free_dims import missing_sizes


def random_input(spec: TensorSpec, known: dict[str, int], rng: np.random.Generator) -> np.ndarray:
    """Random values of the input's shape and element type: standard normal
    floats, integers in [0, 10), booleans. Free dims take their sizes from
    `known`; the others need sizes, which the error asks for with flags that
    work (`onnxc.tools.free_dims.missing_sizes`)."""
    shape = spec.shape_for(known)
    if shape is None:
        message = missing_sizes([(spec.name, spec.shape)], known)
        assert message is not None  # a size is missing, or shape_for would give one
        raise OnnxcError(message)
    dtype = spec.element.numpy_dtype
    if spec.element.kind is Kind.STRING:  # short lower-case words
        letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
        words = np.empty(shape, dtype=object)
        flat = words.reshape(-1)
        for k in range(flat.size):
            flat[k] = "".join(rng.choice(letters, size=int(rng.integers(1, 9))))
        return words
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 10, size=shape).astype(dtype)
    if dtype.kind in "fc" or dtype.kind == "V":  # ml_dtypes floats have kind "V"
        return rng.standard_normal(size=shape).astype(dtype)
    raise OnnxcError(f"input '{spec.name}' has element type {dtype}: no random values for it")
