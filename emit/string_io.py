"""String tensors across the cffi boundary: numpy object arrays of `str` to
arrays of `onnxc_string` records and back.

An input's strings are encoded as UTF-8 and joined into one byte buffer; its
records, a numpy array laid out as `onnxc_string` (a pointer and a size_t),
point into it. Both stay alive (in `keep`) until the C returns. An output's
strings point into the inputs, the model's constants or the workspace, and
are copied into Python `str` objects right after the call, before any of
those is released or reused.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from onnxc.errors import RunError

RECORD = np.dtype([("data", np.uintp), ("size", np.uintp)])
"""`onnxc_string` as numpy lays it out: two pointer-sized words."""


def to_c(ffi: Any, model: str, name: str, array: np.ndarray, keep: list[Any]) -> Any:
    """The `onnxc_string[]` records of `array`'s elements (`str` or `bytes`),
    what they point into appended to `keep`; RunError naming input `name`
    for an element that is not a string."""
    flat = array.reshape(-1).tolist()
    encoded = [v.encode() if isinstance(v, str) else v for v in flat]
    for k, value in enumerate(encoded):
        if not isinstance(value, bytes):
            kind = type(flat[k]).__name__
            raise RunError(f"{model}: input '{name}' holds strings; element {k} is {kind}")
    sizes = np.fromiter(map(len, encoded), dtype=np.uintp, count=len(encoded))
    joined = np.frombuffer(b"".join(encoded) + b"\0", np.uint8)  # never NULL, even if empty
    base = int(ffi.cast("uintptr_t", ffi.from_buffer(joined, require_writable=False)))
    records = np.zeros(max(1, len(encoded)), RECORD)
    records["data"][: len(encoded)] = base + np.cumsum(sizes) - sizes
    records["size"][: len(encoded)] = sizes
    keep += [joined, records]
    return ffi.cast("onnxc_string *", ffi.from_buffer(records))


def from_c(ffi: Any, records: Any, count: int) -> np.ndarray:
    """The first `count` strings of `records` as an object array of `str`
    (bytes that are not UTF-8 are decoded with replacement characters)."""
    out = np.empty(count, dtype=object)
    if not count:
        return out
    table = np.frombuffer(ffi.buffer(records, count * RECORD.itemsize), RECORD)
    at, sizes = table["data"].tolist(), table["size"].tolist()
    out[:] = [
        ctypes.string_at(a, s).decode(errors="replace") for a, s in zip(at, sizes, strict=True)
    ]
    return out
