"""Cross-build generated C into an ELF for a microcontroller target, and run it
in the target's emulator.

`build_elf` compiles ``NAME.c`` (and ``NAME_weights.c``) with the semihosting
harness (``runtime_c/onnxc_harness.c``) into one ELF, with the target's CPU,
libc and memory-map flags, strict C99 warnings as errors, and
``ONNXC_NO_DEFAULT_ARENA`` (the harness passes its own aligned workspace). The
ELF is cached like the host build (``$ONNXC_CACHE_DIR`` or ``~/.cache/onnxc``,
under ``elf/``), keyed by a sha256 of the sources, the harness, the flags and
the compiler's version, and moved into place atomically.

`EmulatedC` runs such an ELF: each `call` writes the inputs to ``inputK.bin`` in
a fresh temporary folder, boots the emulator there (qemu resolves semihosting
paths against its working directory), and reads ``outputK.bin`` back. It has the
members `onnxc.api.CompiledModel` uses of the host build's `CompiledC`.

Every failure raises `OnnxcError` with one line: a missing tool (naming the
Debian packages), a compiler error (its first error line), the emulator's
nonzero exit (with the harness's message) or a timeout (with its length).
"""

from __future__ import annotations

import functools
import math
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from onnxc.element_types import Kind
from onnxc.emit.build import cache_dir, mark_stored, mark_used
from onnxc.emit.runner import TensorSpec, check_inputs
from onnxc.emit.text_files import digest, write_text
from onnxc.errors import BuildError, OnnxcError, RunError
from onnxc.options import DEFAULT_TIMEOUT
from onnxc.runtime_c import harness_source, runtime_dir, runtime_files
from onnxc.targets import SECTION_FLAGS, STRICT_FLAGS, Target

__all__ = [
    "COMMON_CFLAGS",
    "EmulatedC",
    "build_elf",
    "compile_flags",
    "elf_size",
    "harness_flags",
    "link_flags",
    "require_tool",
]


def require_tool(tool: str, packages: Sequence[str], target: Target) -> str:
    """The path of `tool`, or an OnnxcError naming the packages that provide it."""
    path = shutil.which(tool)
    if path is None:
        raise OnnxcError(
            f"{tool} not found on PATH; the {target.name} target needs it "
            f"(Debian/Ubuntu: apt-get install {' '.join(packages)})"
        )
    return path


COMMON_CFLAGS = (*STRICT_FLAGS, "-ffp-contract=off", *SECTION_FLAGS)
"""Flags of every build of generated C for a target, besides -O and the CPU's.
``-ffp-contract=off`` keeps the compiler from fusing multiply-adds, so results
are rounded as on the host build."""


def compile_flags(target: Target, opt_level: int) -> list[str]:
    """Flags compiling generated C for `target` (no libc or harness flags); the
    target's `cflags` come last, as in its build recipe."""
    return [*COMMON_CFLAGS, f"-O{opt_level}", *target.cpu_flags, *target.cflags]


def harness_flags(target: Target, name: str, defines: Sequence[str] = ()) -> list[str]:
    """Flags the harness needs to drive model `name` (also used on the model's
    files); `defines` are further harness macros (``ONNXC_HARNESS_SYSTICK``)."""
    return [
        f'-DONNXC_MODEL_HEADER="{name}.h"',
        f"-DONNXC_MODEL={name}",
        "-DONNXC_NO_DEFAULT_ARENA",
        *(f"-D{macro}" for macro in (*target.harness_defines, *defines)),
    ]


def link_flags(target: Target) -> list[str]:
    """Flags linking an emulator ELF: libc, start-up code, memory map, section GC."""
    return [*target.libc_flags, *target.link_flags(), "-Wl,--gc-sections"]


@functools.cache
def _compiler_version(cc_path: str) -> str:
    out = subprocess.run([cc_path, "--version"], capture_output=True, text=True, check=False)
    return out.stdout.splitlines()[0] if out.stdout else ""


def _check_specs(cc_path: str, target: Target) -> None:
    """Each ``--specs=FILE`` must be installed: gcc only says so at link time."""
    for flag in target.libc_flags:
        if not flag.startswith("--specs="):
            continue
        spec = flag.removeprefix("--specs=")
        found = subprocess.run(
            [cc_path, f"-print-file-name={spec}"], capture_output=True, text=True, check=False
        ).stdout.strip()
        if not os.path.isabs(found):
            raise OnnxcError(
                f"{target.cc} cannot find {spec}; the {target.name} target needs its C library "
                f"(Debian/Ubuntu: apt-get install {' '.join(target.packages)})"
            )


_OVERFLOW = re.compile(r"region [`'](\w+)' overflowed by (\d+) bytes")


_SHOWN = {"flash": "flash", "ram": "RAM"}


def _overflow(log: str, target: Target) -> str | None:
    """What the linker's "region `flash' overflowed by N bytes" lines mean,
    with the figures: the bytes needed and the target's size of each region."""
    if target.memory is None:
        return None
    sizes = {"flash": target.memory[0][1], "ram": target.memory[1][1]}
    found = [(region, int(over)) for region, over in _OVERFLOW.findall(log) if region in sizes]
    if not found:
        return None
    parts = [
        f"it needs {sizes[region] + over:,} bytes of {_SHOWN[region]} and {target.name} "
        f"has {sizes[region]:,} ({over:,} too many)"
        for region, over in dict(found).items()
    ]
    return "; ".join(parts)


def _first_error(log: str, folder: Path) -> str:
    """The first line of `log` naming an error, with the build folder's paths
    shortened to file names."""
    log = log.replace(f"{folder}{os.sep}", "")
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    for line in lines:
        if "error" in line.lower():
            return line
    return lines[0] if lines else "no message"


def built_elfs() -> list[Path]:
    """The emulator ELFs in the cache directory."""
    return sorted((cache_dir() / "elf").glob("*.elf"))


def build_elf(
    name: str,
    files: Mapping[str, str],
    target: Target,
    *,
    opt_level: int = 2,
    defines: Sequence[str] = (),
) -> Path:
    """Build (or reuse from the cache) the emulator ELF of model `name`.

    `files` maps file names (``NAME.c``, ``NAME.h``, optionally
    ``NAME_weights.c``) to their text; `defines` are further harness macros.
    Returns the cached ELF's path.
    """
    if target.is_host:
        raise OnnxcError(f"target '{target.name}' has no emulator to build an ELF for")
    sources = sorted(f for f in files if f.endswith(".c"))
    flags = [*compile_flags(target, opt_level), *harness_flags(target, name, defines)]
    linking = link_flags(target)
    runtime = [p.read_text() for p in [*runtime_files(), harness_source()]]
    key_parts = [target.name, *flags, *linking, *runtime]
    for file_name in sorted(files):
        key_parts += [file_name, files[file_name]]
    cc_path = shutil.which(target.cc)
    key_parts.append(_compiler_version(cc_path) if cc_path else target.cc)
    key = digest(key_parts)[:24]
    elf = cache_dir() / "elf" / f"{name}-{target.name}-{key}.elf"
    if elf.exists():
        mark_used(elf)
        return elf

    cc_path = require_tool(target.cc, target.packages, target)
    _check_specs(cc_path, target)
    elf.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=elf.parent, prefix=".build-") as tmp:
        folder = Path(tmp)
        for file_name, text in files.items():
            write_text(folder / file_name, text)
        command = [
            cc_path,
            *flags,
            f"-I{folder}",
            f"-I{runtime_dir()}",
            str(harness_source()),
            *(str(folder / s) for s in sources),
            *linking,
            "-o",
            str(folder / "prog.elf"),
        ]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            cause = _overflow(result.stderr, target) or _first_error(result.stderr, folder)
            raise BuildError(f"building {name} for {target.name} failed: {cause}")
        os.replace(folder / "prog.elf", elf)  # atomic: a concurrent build is identical
    mark_stored(elf)
    return elf


def elf_size(target: Target, elf: Path) -> dict[str, int]:
    """text, data and bss bytes of an ELF, from the target's size tool."""
    tool = require_tool(target.size_tool, target.packages, target)
    out = subprocess.run([tool, str(elf)], capture_output=True, text=True, check=True).stdout
    text, data, bss = (int(v) for v in out.splitlines()[1].split()[:3])
    return {"text": text, "data": data, "bss": bss}


class EmulatedC:
    """A model built into an emulator ELF: `call` runs it on numpy arrays.

    `inputs` and `outputs` describe its interface as the C printer declared it
    (the host build reads the same from the compiled tables), and
    `workspace_size` is `NAME_WORKSPACE_SIZE`; `emulator_flags` go on the
    emulator's command line after the target's (qemu's ``-icount``).
    """

    def __init__(
        self,
        elf: Path,
        name: str,
        inputs: Sequence[TensorSpec],
        outputs: Sequence[TensorSpec],
        workspace_size: int | None,
        target: Target,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        emulator_flags: Sequence[str] = (),
    ) -> None:
        self.elf = elf
        self.name = name
        self.target = target
        self.timeout = timeout
        self.emulator = require_tool(target.emulator[0], target.emulator_packages, target)
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.workspace_size = workspace_size
        self.emulator_flags = tuple(emulator_flags)

    def size(self) -> dict[str, int]:
        """text, data and bss bytes of the ELF (model, harness and libc)."""
        return elf_size(self.target, self.elf)

    def call(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run once in the emulator; inputs in NAME_inputs order, outputs likewise."""
        with tempfile.TemporaryDirectory(prefix="onnxc-run-") as tmp:
            return self.call_in(Path(tmp), inputs)

    def call_in(self, folder: Path, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """`call` with the harness's files in `folder` (an empty directory),
        where the caller can read what else the harness wrote."""
        strings = [s.name for s in [*self.inputs, *self.outputs] if s.element.kind is Kind.STRING]
        if strings:
            raise RunError(
                f"{self.name} on {self.target.name}: the emulator harness passes tensors as "
                f"bytes and cannot pass string tensors ('{strings[0]}'); the C itself builds "
                "for the target"
            )
        check_inputs(self.name, self.inputs, inputs)
        for k, (array, spec) in enumerate(zip(inputs, self.inputs, strict=True)):
            little = spec.element.pack_dtype.newbyteorder("<")
            spec.element.pack(array).astype(little, copy=False).tofile(folder / f"input{k}.bin")
            if not spec.is_static:
                np.array(array.shape, dtype="<i8").tofile(folder / f"input{k}.shape")
        self._run(folder)
        outputs: list[np.ndarray] = []
        for k, spec in enumerate(self.outputs):
            little = spec.element.pack_dtype.newbyteorder("<")
            stored = np.fromfile(folder / f"output{k}.bin", dtype=little)
            shape = tuple(int(d) for d in np.fromfile(folder / f"output{k}.shape", "<i8"))
            count = math.prod(shape)
            expected = spec.element.storage_count(count)
            if len(shape) != len(spec.shape) or stored.size != expected:
                raise RunError(
                    f"{self.name} on {self.target.name}: output{k}.bin ('{spec.name}') holds "
                    f"{stored.size} values for the shape {shape} of output{k}.shape"
                )
            values = spec.element.unpack(stored.astype(spec.element.pack_dtype), count)
            outputs.append(values.reshape(shape))
        return outputs

    def _run(self, folder: Path) -> None:
        where = f"{self.name} on {self.target.name}"
        command = [
            self.emulator,
            *self.target.emulator[1:],
            *self.emulator_flags,
            "-kernel",
            str(self.elf),
        ]
        try:
            result = subprocess.run(
                command,
                cwd=folder,
                capture_output=True,
                text=True,
                errors="replace",
                stdin=subprocess.DEVNULL,
                timeout=self.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise RunError(
                f"{where}: the emulator did not finish within {self.timeout:g} s "
                "(stopped; pass a larger timeout=)"
            ) from None
        if result.returncode != 0:
            lines = [line.strip() for line in result.stderr.splitlines() if line.strip()]
            harness = [line for line in lines if line.startswith("onnxc_harness:")]
            message = (harness or lines or ["no message on stderr"])[0]
            raise RunError(
                f"{where}: the emulator exited with status {result.returncode}: {message}"
            )
