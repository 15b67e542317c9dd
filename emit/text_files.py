"""Large generated texts (a model's C can be hundreds of megabytes) hashed and
written a slice at a time, so that neither makes a second whole copy of the
text as bytes."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import TextIO

_SLICE = 1 << 24
"""Characters encoded at a time."""


def digest(parts: Iterable[str]) -> str:
    """The sha256 (hex) of the UTF-8 of `parts` joined by NUL characters."""
    found = hashlib.sha256()
    for k, part in enumerate(parts):
        if k:
            found.update(b"\0")
        for start in range(0, len(part), _SLICE):
            found.update(part[start : start + _SLICE].encode())
    return found.hexdigest()


def write_text(path: Path, text: str) -> None:
    """Write `text` to `path` as UTF-8 (as `Path.write_text` does)."""
    with path.open("w", encoding="utf-8") as stream:
        write_slices(stream, text)


def write_slices(stream: TextIO, text: str) -> None:
    """Write `text` to the text stream a slice at a time."""
    for start in range(0, len(text), _SLICE):
        stream.write(text[start : start + _SLICE])
