"""Weights as one binary file beside the C (`NAME.weights`), for models whose
weights are too big to be C text: a 400 MB encoder as C is about 1 GB of
source that a C compiler reads for minutes, and a library the size of its
weights. With the blob, the C holds the code alone and reads each weight at
an offset from one pointer the caller gives once (`NAME_set_weights`); the
Python loader maps the file, so the weights are neither copied nor compiled.

The file is a header of `HEADER_BYTES` (the magic `MAGIC`, a 64-bit
identifier of the contents and the file's size, little-endian), then each
weight's storage elements in little-endian order at an offset aligned to
`ALIGN` bytes (what the kernels' vector loads like), zero bytes between.
`NAME_set_weights` checks the pointer's alignment, the size and the header
against the ones compiled into the C, so a file of another model or another
compile is refused instead of read as weights.

Weights of at most `LISTED_BYTES` stay C literals (a scalar is faster as a
constant the compiler sees); microcontroller targets keep every weight as
`static const` arrays in flash.
"""

from __future__ import annotations

import hashlib
import math
import struct
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType, ModuleOp

from onnxc.emit.c_types import row

MAGIC = b"ONNXCW01"
"""The first bytes of a weights file (format version 1)."""

HEADER_BYTES = 64
ALIGN = 64
"""Every weight starts at a multiple of this many bytes from the file's start,
and the file itself must be mapped at such an address."""

SUFFIX = ".weights"
"""The file's name is the model's C name with this suffix."""


def file_name(model: str) -> str:
    return f"{model}{SUFFIX}"


@dataclass
class WeightBlob:
    """The weights of one model laid out in one file: add each weight's
    storage (`add`, in the order the C is printed), then `finish`."""

    parts: list[tuple[int, np.ndarray]] = field(default_factory=list[tuple[int, np.ndarray]])
    """Each weight's offset and its bytes (uint8, little-endian storage)."""
    end: int = HEADER_BYTES

    def add(self, data: np.ndarray) -> int:
        """Place the bytes `data`; the offset they get."""
        offset = -(-self.end // ALIGN) * ALIGN
        self.parts.append((offset, data))
        self.end = offset + data.size
        return offset

    def finish(self) -> np.ndarray:
        """The file's bytes (uint8, at an `ALIGN`-aligned address, so the
        loader can hand them to the C as they are): header, then every
        weight in place."""
        out = aligned_bytes(-(-self.end // ALIGN) * ALIGN)
        for offset, data in self.parts:
            out[offset : offset + data.size] = data
        identity = hashlib.blake2b(out[HEADER_BYTES:].data, digest_size=8).digest()
        start = header(identity, out.size).ljust(HEADER_BYTES, b"\0")
        out[:HEADER_BYTES] = np.frombuffer(start, np.uint8)
        self.parts.clear()
        return out


def aligned_bytes(size: int) -> np.ndarray:
    """`size` zero bytes at an `ALIGN`-aligned address."""
    storage = np.zeros(size + ALIGN, np.uint8)
    start = -storage.ctypes.data % ALIGN
    return storage[start : start + size]


def header(identity: bytes, size: int) -> bytes:
    """The bytes a file starts with: magic, identifier, size."""
    return MAGIC + identity + struct.pack("<Q", size)


def identity_of(blob: np.ndarray) -> bytes:
    """The header `blob` starts with (what the C checks)."""
    return blob[: len(header(b"\0" * 8, 0))].tobytes()


def c_lines(model: str, blob: np.ndarray) -> list[str]:
    """NAME.c's part of the interface: the pointer the weights are read
    through, the header it expects and `NAME_set_weights`."""
    expected = identity_of(blob)
    literal = ", ".join(str(b) for b in expected)
    return [
        f"static const unsigned char *{model}_weight_data = NULL;",
        f"static const unsigned char {model}_weight_header[{len(expected)}] = {{{literal}}};",
        "",
        f"int {model}_set_weights(const void *data, size_t size) {{",
        "  const unsigned char *bytes = (const unsigned char *)data;",
        "  size_t k;",
        "  if (data == NULL) {",
        "    return ONNXC_ERR_NULL_ARG;",
        "  }",
        f"  if ((uintptr_t)data % {ALIGN} != 0) {{",
        "    return ONNXC_ERR_MISALIGNED;",
        "  }",
        f"  if (size != (size_t){model}_WEIGHTS_BYTES) {{",
        "    return ONNXC_ERR_WEIGHTS;",
        "  }",
        f"  for (k = 0; k < sizeof {model}_weight_header; ++k) {{",
        f"    if (bytes[k] != {model}_weight_header[k]) {{",
        "      return ONNXC_ERR_WEIGHTS;",
        "    }",
        "  }",
        f"  {model}_weight_data = bytes;",
        "  return ONNXC_OK;",
        "}",
        "",
    ]


def header_lines(model: str, blob: np.ndarray) -> list[str]:
    """NAME.h's part: the file's size and `NAME_set_weights`."""
    return [
        f"/* The weights are in {file_name(model)} ({blob.size} bytes), not in the C:",
        f"   give its contents to {model}_set_weights once, before the first run (map",
        "   the file; the bytes must stay valid and unchanged while the model runs).",
        f"   The address must be {ALIGN}-byte aligned (ONNXC_ERR_MISALIGNED); a file",
        "   of another size or another model is refused (ONNXC_ERR_WEIGHTS), and so",
        "   is every run before the weights are given. */",
        f"#define {model}_WEIGHTS_BYTES {blob.size}",
        f"int {model}_set_weights(const void *data, size_t size);",
        "",
    ]


def access(model: str, c_type: str, offset: int) -> str:
    """The C expression of a weight at `offset`, as an array of `c_type`."""
    return f"((const {c_type} *)({model}_weight_data + {offset}))"


def weight_bytes(module: ModuleOp) -> int:
    """The bytes of the weights (`memref.global` constants) of `module`."""
    total = 0
    for op in module.ops:
        if isinstance(op, memref.GlobalOp) and isinstance(op.type, MemRefType):
            element = row(op.type.element_type)
            total += element.storage_bytes(math.prod(op.type.get_shape()))
    return total
