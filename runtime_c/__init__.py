"""The tiny C runtime shipped with generated code (``onnxc_runtime.h``).

A compile copies :func:`runtime_files` next to ``NAME.c``; a C build adds
:func:`runtime_dir` to its include path.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["runtime_dir", "runtime_files"]


def runtime_dir() -> Path:
    """The folder holding the runtime's C files."""
    return Path(__file__).resolve().parent


def runtime_files() -> list[Path]:
    """The runtime files a generated model needs next to its ``NAME.c``, sorted."""
    folder = runtime_dir()
    return sorted([*folder.glob("*.h"), *folder.glob("*.c")])
