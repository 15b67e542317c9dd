"""The compilation cache: what `generate_with` printed for a model and options,
kept beside the C builds (`emit/build.cache_dir()`, `$ONNXC_CACHE_DIR`), so that
compiling the same model again skips import, lowering and printing.

An entry is keyed by a sha256 of the model's serialized ModelProto (after
loading, so external data included, and a path and its proto share a key), the
options that shape the C in a canonical form, the C name, and the compiler
itself: its version, the source of its packages and C runtime, and the xDSL and
onnx versions, so a changed compiler never serves an old entry. An entry is
one file (a header line and the C texts as they are, so reading one back
holds each text once), written to a temporary file in the cache directory and
moved into place with `os.replace`, so a reader never sees half of one. A
model whose weights are a binary file keeps it beside its entry
(`write_weights`), mapped when read back. This module only
stores and finds entries; `api.GeneratedC` encodes them. `ONNXC_NO_CACHE=1`
turns the cache off.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib
import io
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import BinaryIO

import numpy as np
import onnx

from onnxc import __version__
from onnxc.emit.build import cache_dir
from onnxc.emit.cache_limit import ENTRY_PREFIX, ENTRY_SUFFIX, WEIGHTS_SUFFIX
from onnxc.emit.text_files import write_slices
from onnxc.options import CompileOptions
from onnxc.targets import get_target

_PACKAGES = ("onnxc", "onnxc.dialects", "onnxc.lowering", "onnxc.emit", "onnxc.runtime_c")
"""The packages whose source makes the compiler (setuptools maps each to a folder)."""

_NOT_SHAPING_C = frozenset({"name", "opt_level", "timeout", "threads"})
"""Options that do not change the printed C: the C name enters the key resolved
(a path's stem when `name` is None); -O, the threads and the emulator timeout
act later."""


def enabled() -> bool:
    """False when `ONNXC_NO_CACHE` is set to anything but "" or "0"."""
    return os.environ.get("ONNXC_NO_CACHE", "") in ("", "0")


def _installed_version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "unknown"


@functools.cache
def compiler_hash() -> str:
    """A sha256 of onnxc's own source (.py files, the runtime's .c and .h) and
    the versions of onnxc, xDSL and onnx; computed once per process."""
    digest = hashlib.sha256()
    for package in (__version__, _installed_version("xdsl"), onnx.__version__):
        digest.update(package.encode() + b"\0")
    for name in _PACKAGES:
        for folder in importlib.import_module(name).__path__:
            root = Path(folder)
            sources = [*root.rglob("*.py"), *root.glob("*.c"), *root.glob("*.h")]
            for path in sorted(sources):
                digest.update(f"{name}/{path.relative_to(root)}\0".encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def entry_key(model: onnx.ModelProto, c_name: str, options: CompileOptions) -> str:
    """The key of `model` (loaded, external data in place) compiled under the C
    name `c_name` with `options`."""
    shaping = {k: v for k, v in dataclasses.asdict(options).items() if k not in _NOT_SHAPING_C}
    # json writes tuples as lists and sorts the dicts: equal options, equal text
    # the host's kernels depend on this machine's CPU
    kernels = repr(get_target(options.target).kernels)
    options_text = json.dumps({**shaping, "c_name": c_name, "kernels": kernels}, sort_keys=True)
    digest = hashlib.sha256()
    digest.update(compiler_hash().encode() + b"\0")
    digest.update(options_text.encode() + b"\0")
    digest.update(model.SerializeToString(deterministic=True))
    return digest.hexdigest()


def entry_path(key: str) -> Path:
    return cache_dir() / f"{ENTRY_PREFIX}{key}{ENTRY_SUFFIX}"


Entry = tuple[str, dict[str, str]]
"""What an entry holds: a one-line header (the caller's, e.g. JSON) and files
by name (the C texts, stored as they are, not escaped into the header)."""


def read(key: str) -> Entry | None:
    """The entry stored under `key`, or None when there is none or it cannot
    be read (a damaged entry is a miss). A hit counts as a use (`cache_limit`)."""
    from onnxc.emit.cache_limit import touch

    path = entry_path(key)
    entry = read_entry(path)
    if entry is not None:
        touch(path)
    return entry


def read_entry(path: Path) -> Entry | None:
    """The entry in the file `path` (see `write`), or None."""
    try:
        with path.open(encoding="utf-8", newline="") as stream:
            table = json.loads(stream.readline())
            header = stream.readline().removesuffix("\n")
            files: dict[str, str] = {}
            for name, length in table["files"]:
                text = stream.read(length)
                if len(text) != length:
                    return None
                files[str(name)] = text
            if stream.read(1):
                return None
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None
    return header, files


def write(key: str, header: str, files: Mapping[str, str]) -> None:
    """Store `header` (one line) and `files` under `key` atomically: a line
    naming the files and their lengths, the header's line, then the files'
    texts one after the other."""
    if "\n" in header:
        raise ValueError("an entry's header is one line")

    def fill(stream: BinaryIO) -> None:
        text = io.TextIOWrapper(stream, encoding="utf-8", newline="")
        text.write(json.dumps({"files": [[n, len(t)] for n, t in files.items()]}) + "\n")
        text.write(header + "\n")
        for part in files.values():
            write_slices(text, part)
        text.flush()
        text.detach()  # the caller closes the file

    _store(entry_path(key), fill)


def weights_path(key: str) -> Path:
    """Where the weights file of the entry `key` is kept (models whose weights
    are a binary file, `emit/c_weight_blob.py`)."""
    return cache_dir() / f"{ENTRY_PREFIX}{key}{WEIGHTS_SUFFIX}"


def write_weights(key: str, data: np.ndarray) -> None:
    """Store the weights file of the entry `key` (before the entry itself,
    so that an entry is never without them but when they were pruned)."""
    _store(weights_path(key), data.tofile)


def _store(target: Path, fill: Callable[[BinaryIO], object]) -> None:
    """Write `target` through `fill` into a temporary file of the cache
    folder, move it into place (a reader never sees half of it) and keep the
    cache within its limit. A cache that cannot be written is not an error:
    the compilation it would have saved has already succeeded."""
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{ENTRY_PREFIX}", suffix=".tmp"
        )
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as stream:
            fill(stream)
        os.replace(temporary, target)
        from onnxc.emit.cache_limit import prune

        prune(keep=target)
    except OSError:
        Path(temporary).unlink(missing_ok=True)


def read_weights(key: str) -> np.ndarray | None:
    """The weights file of the entry `key`, mapped read-only (at a page
    boundary, aligned as the C needs), or None when it is gone. The C checks
    its header, so a damaged file is refused when the model is loaded."""
    from onnxc.emit.cache_limit import touch

    path = weights_path(key)
    try:
        mapped = np.memmap(path, dtype=np.uint8, mode="r")
    except (OSError, ValueError):
        return None
    touch(path)
    return mapped


def leftovers() -> list[Path]:
    """Temporary files of writes that were interrupted."""
    folder = cache_dir()
    if not folder.is_dir():
        return []
    return sorted(folder.glob(f".{ENTRY_PREFIX}*.tmp"))
