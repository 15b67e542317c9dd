"""String tensors across the cffi boundary: numpy object arrays of `str` to
arrays of `onnxc_string` records and back.

An input's strings are encoded as UTF-8 into byte buffers that stay alive
(in `keep`) until the C returns; an output's strings point into the inputs,
the model's constants or the workspace, and are copied into Python `str`
objects right after the call, before any of those is released or reused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from onnxc.errors import RunError


def to_c(ffi: Any, model: str, name: str, array: np.ndarray, keep: list[Any]) -> Any:
    """The `onnxc_string[]` records of `array`'s elements (`str` or `bytes`),
    their bytes appended to `keep`; RunError naming input `name` for an
    element that is not a string."""
    flat = array.reshape(-1)
    records = ffi.new("onnxc_string[]", max(1, flat.size))
    keep.append(records)
    for k, value in enumerate(flat):
        if isinstance(value, str):
            data = value.encode()
        elif isinstance(value, bytes):
            data = value
        else:
            raise RunError(
                f"{model}: input '{name}' holds strings; element {k} is {type(value).__name__}"
            )
        chars = ffi.new("char[]", data)  # NUL-terminated: never NULL, even when empty
        keep.append(chars)
        records[k].data = chars
        records[k].size = len(data)
    return records


def from_c(ffi: Any, records: Any, count: int) -> np.ndarray:
    """The first `count` strings of `records` as an object array of `str`
    (bytes that are not UTF-8 are decoded with replacement characters)."""
    out = np.empty(count, dtype=object)
    for k in range(count):
        size = int(records[k].size)
        out[k] = ffi.unpack(records[k].data, size).decode(errors="replace") if size else ""
    return out
