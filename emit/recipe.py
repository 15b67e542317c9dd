"""Build recipes written next to generated C: a Makefile and a CMake fragment.

`write_recipe` writes, for one model and one target:

- ``Makefile``: ``make`` builds ``libNAME.a`` (the model's sources with the
  target's compiler, CPU flags and strict C99 warnings as errors); ``make run``
  builds the model with ``onnxc_harness.c`` (copied alongside) into a program
  and runs it, natively on the host or in the target's emulator, on
  ``inputK.bin`` files in the folder, writing ``outputK.bin``; ``make size``
  prints its text/data/bss.
- ``NAME.cmake``: ``include()`` it from a firmware project's CMakeLists.txt to
  get a static library target ``NAME`` (the project's toolchain file chooses the
  compiler and CPU flags, as firmware projects do).

The compile flags come from `emit/targets.py` and `emit/cross.py`, so a recipe
builds exactly as `onnxc.compile(..., target=...)` does, with `-Os` for MCUs.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

from onnxc.emit.cross import COMMON_CFLAGS, harness_flags, link_flags
from onnxc.runtime_c import HARNESS_FILE, harness_source
from onnxc.targets import Target

__all__ = ["write_recipe"]


def _shell_word(word: str) -> str:
    """`word` quoted for a Makefile recipe line run by /bin/sh."""
    return f"'{word}'" if any(c in word for c in "\"' $()") else word


def _makefile(
    name: str,
    sources: Sequence[str],
    target: Target,
    version: str,
    weights: str | None,
    threads: int = 1,
) -> str:
    opt_level = "2" if target.is_host else "s"
    defines = harness_flags(target, "$(NAME)")
    if weights is not None:
        defines.append(f'-DONNXC_HARNESS_WEIGHTS="{weights}"')
    if target.is_host:
        program, run = "$(NAME)_harness", "./$(PROGRAM)"
        ldflags = ["-Wl,--gc-sections", "-lm"]
    else:
        program, run = "$(NAME).elf", "$(EMULATOR) -kernel $(PROGRAM)"
        ldflags = link_flags(target)
    lines = [
        f"# Build recipe for the onnxc model {name}, target {target.name}: {target.description}.",
        f"# Written by onnxc {version}.",
        "#",
        f"#   make          build lib{name}.a, the model as a static library",
        "#   make run      build the model with onnxc_harness.c and run it"
        + ("" if target.is_host else " in the emulator")
        + ":",
        "#                 it reads input0.bin, input1.bin, ... (raw little-endian, row-major)",
        "#                 and writes output0.bin, ... here; a nonzero exit status is a failure",
        "#   make size     text, data and bss of that program",
        "#",
        "# make CPPFLAGS=-DONNXC_NO_DEFAULT_ARENA drops the model's built-in arena: call",
        f"# {name}_run_with_workspace or {name}_invoke with your own workspace.",
        *(
            [
                "# make THREADS=N builds with OpenMP: the kernels' outer loops on N threads,",
                "# results identical to one thread's (THREADS=1: no OpenMP).",
            ]
            if target.is_host
            else []
        ),
        "",
        f"NAME = {name}",
        f"CC = {target.cc}",
        f"AR = {target.ar}",
        f"SIZE = {target.size_tool}",
        f"CPU_FLAGS = {' '.join((*target.cpu_flags, *target.cflags))}",
        f"OPT = -O{opt_level}",
        f"CFLAGS = {' '.join(COMMON_CFLAGS)} $(OPT) $(CPU_FLAGS)",
        "CPPFLAGS =",
        f"HARNESS_FLAGS = {' '.join(_shell_word(d) for d in defines)}",
        f"LDFLAGS = {' '.join(ldflags)}",
        *(
            [
                f"THREADS = {threads}",
                "ifneq ($(THREADS),1)",
                "CFLAGS += -fopenmp -DONNXC_THREADS=$(THREADS)",
                "LDFLAGS += -fopenmp",
                "endif",
            ]
            if target.is_host
            else []
        ),
        *([] if target.is_host else [f"EMULATOR = {' '.join(target.emulator)}"]),
        f"SOURCES = {' '.join(sources)}",
        "OBJECTS = $(SOURCES:.c=.o)",
        f"PROGRAM = {program}",
        "",
        ".PHONY: all run size clean",
        "",
        "all: lib$(NAME).a",
        "",
        "lib$(NAME).a: $(OBJECTS)",
        "\t$(AR) rcs $@ $(OBJECTS)",
        "",
        "%.o: %.c $(NAME).h onnxc_runtime.h",
        "\t$(CC) $(CPPFLAGS) $(CFLAGS) -I. -c $< -o $@",
        "",
        f"$(PROGRAM): {HARNESS_FILE} $(SOURCES) $(NAME).h onnxc_runtime.h",
        f"\t$(CC) $(CFLAGS) $(HARNESS_FLAGS) -I. {HARNESS_FILE} $(SOURCES) $(LDFLAGS) -o $@",
        "",
        "run: $(PROGRAM)",
        f"\t{run}",
        "",
        "size: $(PROGRAM)",
        "\t$(SIZE) $(PROGRAM)",
        "",
        "clean:",
        "\trm -f $(OBJECTS) lib$(NAME).a $(PROGRAM)",
        "",
    ]
    return "\n".join(lines)


def _cmake(name: str, sources: Sequence[str], target: Target, version: str) -> str:
    listed = " ".join(f"${{CMAKE_CURRENT_LIST_DIR}}/{s}" for s in sources)
    cpu = " ".join(target.cpu_flags) or "none"
    return "\n".join(
        [
            f"# CMake fragment for the onnxc model {name} (written by onnxc {version}).",
            "# In a project's CMakeLists.txt:",
            f"#   include(path/to/{name}.cmake)",
            f"#   target_link_libraries(firmware PRIVATE {name})",
            "# The project's toolchain file picks the compiler and CPU flags; for",
            f"# {target.name}: {cpu}.",
            "# Define ONNXC_NO_DEFAULT_ARENA (target_compile_definitions) to drop the",
            "# built-in arena, and ONNXC_WEIGHT_ATTRIBUTES to place the weights.",
            f"add_library({name} STATIC {listed})",
            f"target_include_directories({name} PUBLIC ${{CMAKE_CURRENT_LIST_DIR}})",
            f"set_target_properties({name} PROPERTIES",
            "  C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)",
            'if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")',
            f"  target_compile_options({name} PRIVATE -ffunction-sections -fdata-sections)",
            "endif()",
            "if(NOT MSVC)",
            f"  target_link_libraries({name} PUBLIC m)",
            "endif()",
            "",
        ]
    )


def write_recipe(
    directory: str | Path,
    name: str,
    sources: Sequence[str],
    target: Target,
    version: str,
    weights: str | None = None,
    threads: int = 1,
) -> list[Path]:
    """Write the Makefile, ``NAME.cmake`` and ``onnxc_harness.c`` into `directory`
    (which already holds the model's `sources` and headers, and its weights
    file `weights` if it has one, which the harness then reads); return their
    paths. A host Makefile builds with `threads` (its THREADS)."""
    out = Path(directory)
    makefile = out / "Makefile"
    makefile.write_text(_makefile(name, sources, target, version, weights, threads))
    cmake = out / f"{name}.cmake"
    cmake.write_text(_cmake(name, sources, target, version))
    harness = out / HARNESS_FILE
    shutil.copyfile(harness_source(), harness)
    return [makefile, cmake, harness]
