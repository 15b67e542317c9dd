"""The tiny C runtime shipped with generated code (``onnxc_runtime.h``), and the
semihosting harness that runs a generated model on an emulated board.

A compile copies :func:`runtime_files` next to ``NAME.c``; a C build adds
:func:`runtime_dir` to its include path. A runtime source that only some models
need (``onnxc_image.c``, the image decoder; ``onnxc_strings.h``, the string
helpers) is not among them: the C printer adds it to the files of a model
that calls it (:func:`sources_for`), and every build compiles it with the
model. The harness (:func:`harness_source`) is
not part of the runtime: it is a test driver with a ``main``, compiled only into
emulator ELFs and copied only next to a build recipe that can make one.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["HARNESS_FILE", "harness_source", "runtime_dir", "runtime_files", "sources_for"]

HARNESS_FILE = "onnxc_harness.c"

_STRINGS = '#include "onnxc_strings.h"'

OPTIONAL_SOURCES = {
    "onnxc_image.c": "onnxc_image_decode(",
    "onnxc_strings.h": _STRINGS,
    "onnxc_case.h": _STRINGS,
    "onnxc_regex.h": _STRINGS,
}
"""Runtime files shipped only with the models that need them: file name ->
the text (the start of a call, an include) that a model needing it has.
Sources (`.c`) are compiled with the model; headers are included by it."""


def runtime_dir() -> Path:
    """The folder holding the runtime's C files."""
    return Path(__file__).resolve().parent


def runtime_files() -> list[Path]:
    """The runtime files a generated model needs next to its ``NAME.c``, sorted."""
    folder = runtime_dir()
    found = [*folder.glob("*.h"), *folder.glob("*.c")]
    return sorted(p for p in found if p.name != HARNESS_FILE and p.name not in OPTIONAL_SOURCES)


def sources_for(c_source: str) -> dict[str, str]:
    """The optional runtime sources that the generated `c_source` calls into:
    file name -> text."""
    folder = runtime_dir()
    return {
        file: (folder / file).read_text()
        for file, call in OPTIONAL_SOURCES.items()
        if call in c_source
    }


def harness_source() -> Path:
    """``onnxc_harness.c``: a model-independent ``main`` that reads inputs from
    files, calls ``NAME_invoke`` and writes outputs to files (see its comment)."""
    return runtime_dir() / HARNESS_FILE
