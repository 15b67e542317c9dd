"""Small C programs built against the runtime header, for its tests: each
reads lines from stdin and prints what the runtime computes for them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from onnxc.runtime_c import runtime_dir


def build_driver(folder: Path, source: str, flags: tuple[str, ...] = ()) -> Path:
    """Compile `source` (C99, strict warnings, and `flags`) with the runtime
    header in `folder`; skips the test without a C compiler."""
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
            *flags,
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


_SWEEP = r"""
#include <stdio.h>
#include <string.h>
#include "onnxc_runtime.h"
static int right(uint32_t bits) {
  float x, got, want;
  memcpy(&x, &bits, sizeof x);
  got = GOT;
  want = WANT;
  if (isnan(want)) return isnan(got);
  return memcmp(&got, &want, sizeof got) == 0;  /* the sign of zero too */
}
int main(void) {
  unsigned long stride, checked = 0, wrong = 0;
  unsigned long long u;
  if (scanf("%lu", &stride) != 1) return 1;
  for (u = 0; u <= 0xFFFFFFFFull; u += stride) {
    ++checked;
    wrong += !right((uint32_t)u);
  }
  while (scanf("%llx", &u) == 1) {  /* special values, by bit pattern */
    ++checked;
    wrong += !right((uint32_t)u);
  }
  printf("%lu %lu\n", checked, wrong);
  return 0;
}
"""


def build_float_sweep(folder: Path, got: str, want: str, flags: tuple[str, ...] = ()) -> Path:
    """A driver comparing the C expressions `got` and `want` of a float `x`
    bit for bit (any NaN equal to any other) on float bit patterns; see
    `float_sweep_wrong`."""
    return build_driver(folder, _SWEEP.replace("GOT", got).replace("WANT", want), flags)


def float_sweep_wrong(driver: Path, stride: int, special: list[int]) -> int:
    """How many of every `stride`-th float bit pattern and the `special` ones
    a `build_float_sweep` driver finds wrong."""
    words = run_driver(driver, f"{stride}\n" + "".join(f"{s:x}\n" for s in special))
    assert int(words[0]) == 2**32 // stride + 1 + len(special)
    return int(words[1])


def cffi_module(folder: Path, name: str, cdef: str, source: str) -> ModuleType:
    """`source` (which may include the runtime headers) built with cffi into
    an extension module `name` in `folder`, declaring `cdef`, and loaded."""
    import importlib.util

    import cffi

    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    ffi = cffi.FFI()
    ffi.cdef(cdef)
    ffi.set_source(
        name,
        source,
        include_dirs=[str(runtime_dir())],
        extra_compile_args=["-std=c99", "-O2"],
    )
    built = ffi.compile(tmpdir=str(folder), verbose=False)
    spec = importlib.util.spec_from_file_location(name, built)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
