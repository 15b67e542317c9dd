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


GATHER = "onnxc_strings_gather"
"""The function, compiled into the extension of a model with string tensors,
that copies the bytes of `count` records one after the other into `out`."""

GATHER_SOURCE = """
static void onnxc_strings_gather(const onnxc_string *records, size_t count, char *out) {
  size_t i, k, at = 0;
  for (i = 0; i < count; ++i) {
    for (k = 0; k < records[i].size; ++k) {
      out[at++] = records[i].data[k];
    }
  }
}
"""

GATHER_CDEF = "void onnxc_strings_gather(const onnxc_string *, size_t, char *);\n"


def from_c(ffi: Any, records: Any, count: int, gather: Any = None) -> np.ndarray:
    """The first `count` strings of `records` as an object array of `str`
    (bytes that are not UTF-8 are decoded with replacement characters).

    With `gather` (the extension's `GATHER`), all bytes are copied out at
    once and, when they are UTF-8 with every string starting a character,
    decoded at once and sliced by character; otherwise each string is read
    and decoded on its own."""
    out = np.empty(count, dtype=object)
    if not count:
        return out
    table = np.frombuffer(ffi.buffer(records, count * RECORD.itemsize), RECORD)
    sizes = table["size"].astype(np.int64)
    if gather is not None:
        data = np.empty(max(1, int(sizes.sum())), np.uint8)
        gather(records, count, ffi.from_buffer(data))
        found = _sliced(data[: int(sizes.sum())], sizes)
        if found is not None:
            out[:] = found
            return out
    at, lengths = table["data"].tolist(), sizes.tolist()
    out[:] = [
        ctypes.string_at(a, s).decode(errors="replace") for a, s in zip(at, lengths, strict=True)
    ]
    return out


def _sliced(data: np.ndarray, sizes: np.ndarray) -> list[str] | None:
    """The strings of `sizes` bytes each, one after the other in `data`,
    decoded at once; None when `data` is not UTF-8 or a string boundary falls
    inside a character (each is then decoded on its own)."""
    try:
        text = data.tobytes().decode()
    except UnicodeDecodeError:
        return None
    lead = (data & 0xC0) != 0x80  # the first byte of each character
    ends = np.cumsum(sizes)
    starts = ends - sizes
    inside = ends[ends < data.size]
    if not lead[inside].all():
        return None  # a string ends inside a character the next one finishes
    chars = np.concatenate([[0], np.cumsum(lead)])  # characters before each byte
    first, last = chars[starts].tolist(), chars[ends].tolist()
    return [text[a:b] for a, b in zip(first, last, strict=True)]
