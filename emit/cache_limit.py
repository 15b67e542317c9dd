"""A size limit for the cache directory: compilations, C builds and MCU builds
together stay under `limit_bytes()`, the least recently used going first.

A big model's entry is large (BERT-base: 1.2 GB of C, and its built extension
450 MB), so a cache that only grew would fill a disk. Each file's mtime is its
last use: a hit touches it, and after each new file is written the oldest
files are removed until the whole fits, never the new one. Removing a file
another process has open or loaded is safe on POSIX systems (it keeps its
copy); that process simply compiles or builds again next time.

Listing and measuring the whole folder takes a while once it holds thousands
of builds (half a second at 15,000 files: a third of the time of a small
model's compile and build), so a ledger file (`LEDGER`) keeps the total: each
new file adds its size, and the folder is measured again only when the total
passes the limit or after `SCAN_EVERY` additions (processes writing at once
may lose an addition; the next scan sets the total right).

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


LEDGER = "size-ledger"
"""The ledger's file name in the cache folder: the bytes the cache held at the
last count, and the files added since the last scan."""

SCAN_EVERY = 64


def _ledger() -> tuple[int, int] | None:
    try:
        total, added = (int(word) for word in (cache_dir() / LEDGER).read_text().split())
    except (OSError, ValueError):
        return None
    return total, added


def _write_ledger(total: int, added: int) -> None:
    try:
        (cache_dir() / LEDGER).write_text(f"{total} {added}\n")
    except OSError:
        pass  # a read-only cache: every prune scans


def forget_total() -> None:
    """Remove the ledger (the cache was emptied): the next prune measures."""
    try:
        (cache_dir() / LEDGER).unlink(missing_ok=True)
    except OSError:
        pass


def prune(keep: Path) -> None:
    """Remove the least recently used files until the cache fits its limit;
    `keep` (the file just written) stays."""
    limit = limit_bytes()
    if limit is None:
        return
    ledger = _ledger()
    if ledger is not None:
        try:
            size = keep.stat().st_size
        except OSError:
            size = 0
        total, added = ledger[0] + size, ledger[1] + 1
        if total <= limit and added < SCAN_EVERY:
            _write_ledger(total, added)
            return
    _write_ledger(_remove_oldest(limit, keep), 0)


def _remove_oldest(limit: int, keep: Path) -> int:
    """Measure the cache, remove the least recently used files but `keep`
    until it fits `limit`; the bytes it holds then."""
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
    return total
