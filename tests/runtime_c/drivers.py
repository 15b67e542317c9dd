"""Small C programs built against the runtime header, for its tests: each
reads lines from stdin and prints what the runtime computes for them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from onnxc.runtime_c import runtime_dir


def build_driver(folder: Path, source: str) -> Path:
    """Compile `source` (C99, strict warnings) with the runtime header in
    `folder`; skips the test without a C compiler."""
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    (folder / "driver.c").write_text(source)
    program = folder / "driver"
    subprocess.run(
        [
            "cc",
            "-std=c99",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
            "-O2",
            "-I",
            str(runtime_dir()),
            str(folder / "driver.c"),
            "-o",
            str(program),
            "-lm",
        ],
        check=True,
    )
    return program


def run_driver(driver: Path, text: str) -> list[str]:
    """The driver's output words for input `text`."""
    out = subprocess.run([str(driver)], input=text, capture_output=True, text=True, check=True)
    return out.stdout.split()
