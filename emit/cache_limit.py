"""A size limit for the cache directory: compilations, C builds and MCU builds
together stay under `limit_bytes()`, the least recently used going first.

A big model's entry is large (BERT-base: 1.2 GB of C, and its built extension
450 MB), so a cache that only grew would fill a disk. Each file's mtime is its
last use: a hit touches it, and after each new file is written the oldest
files are removed until the whole fits, never the new one. Removing a file
another process has open or loaded is safe on POSIX systems (it keeps its
copy); that process simply compiles or builds again next time.

`ONNXC_CACHE_MAX_MB` sets the limit in megabytes (default 4096); 0 means none.
"""

from __future__ import annotations

import os
from pathlib import Path

from onnxc.emit.build import built_extensions, cache_dir
from onnxc.emit.cross import built_elfs
from onnxc.errors import OnnxcError

DEFAULT_LIMIT_MB = 4096

ENTRY_PREFIX = "generated-"
ENTRY_SUFFIX = ".entry"
WEIGHTS_SUFFIX = ".weights"
"""How the compilation cache (`onnxc.compile_cache`) names its entries, and
the weights files beside the entries of models that have one."""


def limit_bytes() -> int | None:
    """The limit in bytes, or None for no limit."""
    text = os.environ.get("ONNXC_CACHE_MAX_MB", "").strip()
    if not text:
        return DEFAULT_LIMIT_MB * 1024 * 1024
    try:
        megabytes = int(text)
    except ValueError:
        raise OnnxcError(f"ONNXC_CACHE_MAX_MB={text!r}: expected a whole number of MB") from None
    if megabytes < 0:
        raise OnnxcError(f"ONNXC_CACHE_MAX_MB={text!r}: expected 0 (no limit) or more")
    return megabytes * 1024 * 1024 if megabytes else None


def compilation_entries() -> list[Path]:
    """The compilation entries in the cache directory and their weights files
    (not the C builds)."""
    folder = cache_dir()
    if not folder.is_dir():
        return []
    return sorted(
        [
            *folder.glob(f"{ENTRY_PREFIX}*{ENTRY_SUFFIX}"),
            *folder.glob(f"{ENTRY_PREFIX}*{WEIGHTS_SUFFIX}"),
        ]
    )


def cached_files() -> list[Path]:
    """Every file the cache holds: compilation entries, built extensions and
    emulator ELFs."""
    return [*compilation_entries(), *built_extensions(), *built_elfs()]


def touch(path: Path) -> None:
    """Mark `path` as just used."""
    try:
        os.utime(path)
    except OSError:
        pass  # gone meanwhile, or read-only: its age does not matter then


def prune(keep: Path) -> None:
    """Remove the least recently used files until the cache fits its limit;
    `keep` (the file just written) stays."""
    limit = limit_bytes()
    if limit is None:
        return
    found: list[tuple[float, int, Path]] = []
    for path in cached_files():
        try:
            stat = path.stat()
        except OSError:
            continue
        found.append((stat.st_mtime, stat.st_size, path))
    total = sum(size for _, size, _ in found)
    for _, size, path in sorted(found):
        if total <= limit:
            break
        if path == keep:
            continue
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
