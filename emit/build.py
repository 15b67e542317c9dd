"""Build generated C into a Python extension with cffi, cache it, load it, call it.

`build_extension` compiles ``NAME.c`` (plus the runtime header) into a cffi extension
module kept in a cache directory keyed by a sha256 of the sources, flags, compiler
and Python version (``$ONNXC_CACHE_DIR``, default ``~/.cache/onnxc``). A build
happens in a private temporary directory and is moved into place with an atomic
rename, so concurrent builds of the same key are safe. `CompiledC` calls
``NAME_run`` on numpy arrays.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.machinery
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from onnxc.runtime_c import runtime_dir, runtime_files

__all__ = ["BuildError", "CompiledC", "build_extension", "cache_dir"]

DEFAULT_CFLAGS = ("-O3", "-std=c99", "-ffp-contract=off")
NUMPY_OF_C = {
    "float": np.float32,
    "double": np.float64,
    "int8_t": np.int8,
    "int16_t": np.int16,
    "int32_t": np.int32,
    "int64_t": np.int64,
    "uint8_t": np.uint8,
    "uint16_t": np.uint16,
    "uint32_t": np.uint32,
    "uint64_t": np.uint64,
    "ptrdiff_t": np.intp,
}


class BuildError(RuntimeError):
    """The C compiler rejected the generated code; the message holds its output."""


def cache_dir() -> Path:
    """Where built extensions are kept (``$ONNXC_CACHE_DIR`` or ``~/.cache/onnxc``)."""
    env = os.environ.get("ONNXC_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "onnxc"


@functools.lru_cache(maxsize=1)
def _compiler_id() -> str:
    cc = str(sysconfig.get_config_var("CC") or "cc")
    try:
        out = subprocess.run(
            [*cc.split(), "--version"], capture_output=True, text=True, check=False
        ).stdout
    except OSError:
        out = ""
    return f"{cc}\n{out.splitlines()[0] if out else ''}"


@functools.cache
def _tensor_info_typedef() -> str:
    """The `onnxc_tensor_info` typedef, read from the runtime header itself so
    that cffi's view of the record cannot drift from the C one."""
    header = (runtime_dir() / "onnxc_runtime.h").read_text()
    match = re.search(r"typedef struct \{[^}]*\} onnxc_tensor_info;", header)
    assert match is not None, "onnxc_runtime.h lost its onnxc_tensor_info typedef"
    return match.group(0)


def make_cdef(header_source: str, name: str) -> str:
    """The cffi declarations of a generated header: prototypes, sizes, tables."""
    lines = [_tensor_info_typedef()]
    for m in re.finditer(
        rf"^#define ({name}_(?:WORKSPACE_SIZE|NUM_INPUTS|NUM_OUTPUTS)) (\d+)$",
        header_source,
        re.M,
    ):
        lines.append(f"#define {m[1]} {m[2]}")
    lines += [
        f"extern const onnxc_tensor_info {name}_inputs[];",
        f"extern const onnxc_tensor_info {name}_outputs[];",
    ]
    protos = re.findall(rf"^int {name}_run(?:_with_workspace)?\([^)]*\);", header_source, re.M)
    if len(protos) != 2:
        raise BuildError(f"header declares no {name}_run / {name}_run_with_workspace")
    return "\n".join(lines + protos) + "\n"


@contextlib.contextmanager
def _captured_output(log: list[str]) -> Iterator[None]:
    """Send fds 1 and 2 (the compiler's too) to a file; append its text to `log`."""
    with tempfile.TemporaryFile() as sink:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
        try:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
            sink.seek(0)
            log.append(sink.read().decode(errors="replace"))


def _load(module_name: str, path: Path) -> ModuleType:
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise BuildError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[module_name] = module
    return module


def build_extension(
    c_source: str,
    header_source: str,
    name: str,
    *,
    extra_cflags: Sequence[str] = (),
) -> ModuleType:
    """Compile NAME.c/NAME.h with cffi (or reuse the cached build) and load it.

    Returns the cffi extension module: `.lib` has `NAME_run`, `NAME_run_with_workspace`,
    `NAME_WORKSPACE_SIZE`, `NAME_inputs`/`NAME_outputs`; `.ffi` is its FFI. Raises
    `BuildError` with the compiler's messages if compilation fails.
    """
    import cffi

    cflags = [*DEFAULT_CFLAGS, *extra_cflags]
    runtime = "".join(p.read_text() for p in runtime_files())
    key_text = "\0".join(
        [c_source, header_source, name, runtime, *cflags, _compiler_id(), sys.version]
    )
    key = hashlib.sha256(key_text.encode()).hexdigest()[:24]
    module_name = f"_onnxc_{name}_{key}"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    target = cache_dir() / f"{module_name}{suffix}"
    if target.exists():
        return _load(module_name, target)

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        tmpdir = Path(tmp)
        (tmpdir / f"{name}.c").write_text(c_source)
        (tmpdir / f"{name}.h").write_text(header_source)
        ffi = cffi.FFI()
        ffi.cdef(make_cdef(header_source, name))
        ffi.set_source(
            module_name,
            f'#include "{name}.h"\n',
            sources=[str(tmpdir / f"{name}.c")],
            include_dirs=[str(tmpdir), str(runtime_dir())],
            extra_compile_args=cflags,
        )
        log: list[str] = []
        try:
            with _captured_output(log):
                built = Path(ffi.compile(tmpdir=str(tmpdir), verbose=False))
        except cffi.VerificationError as exc:
            raise BuildError(f"compiling {name}.c failed: {exc}\n{''.join(log)}") from exc
        os.replace(built, target)  # atomic: a concurrent build of the key is identical
    return _load(module_name, target)


class CompiledC:
    """A loaded model: calls ``NAME_run`` on numpy arrays.

    Argument dtypes come from the C prototype; input shapes from ``NAME_inputs``.
    """

    def __init__(self, extension: ModuleType, name: str) -> None:
        self.ffi: Any = extension.ffi
        self.lib: Any = extension.lib
        self.name = name
        self.run = getattr(self.lib, f"{name}_run")
        self.num_inputs = int(getattr(self.lib, f"{name}_NUM_INPUTS"))
        self.num_outputs = int(getattr(self.lib, f"{name}_NUM_OUTPUTS"))
        self.workspace_size = int(getattr(self.lib, f"{name}_WORKSPACE_SIZE"))
        self.arg_types: list[str] = [a.item.cname for a in self.ffi.typeof(self.run).args]
        self.input_info = [
            self._info(getattr(self.lib, f"{name}_inputs")[k]) for k in range(self.num_inputs)
        ]
        self.output_info = [
            self._info(getattr(self.lib, f"{name}_outputs")[k]) for k in range(self.num_outputs)
        ]

    def _info(self, rec: Any) -> tuple[str, tuple[int, ...]]:
        shape = tuple(int(rec.shape[d]) for d in range(rec.rank))
        return self.ffi.string(rec.name).decode(), shape

    def _pointer(self, arr: np.ndarray, k: int) -> Any:
        ctype = self.arg_types[k]
        return self.ffi.from_buffer(f"{ctype}[]", arr, require_writable=False)

    def call(
        self,
        inputs: Sequence[np.ndarray],
        output_specs: Sequence[tuple[Sequence[int], Any]] | None = None,
    ) -> list[np.ndarray]:
        """Run once; `output_specs` are (shape, dtype) pairs (default: the header's)."""
        if len(inputs) != self.num_inputs:
            raise ValueError(f"{self.name}: expected {self.num_inputs} inputs")
        if output_specs is None:
            output_specs = [
                (shape, NUMPY_OF_C[self.arg_types[self.num_inputs + k]])
                for k, (_, shape) in enumerate(self.output_info)
            ]
        if len(output_specs) != self.num_outputs:
            raise ValueError(f"{self.name}: expected {self.num_outputs} outputs")
        outputs = [np.empty(tuple(s), dtype=d) for s, d in output_specs]
        specs = [(a, info) for a, info in zip(inputs, self.input_info, strict=True)] + [
            (a, info) for a, info in zip(outputs, self.output_info, strict=True)
        ]
        args = []
        for k, (arr, (tname, shape)) in enumerate(specs):
            want = np.dtype(NUMPY_OF_C[self.arg_types[k]])
            if not isinstance(arr, np.ndarray) or arr.dtype != want:
                got = getattr(arr, "dtype", type(arr).__name__)
                raise TypeError(f"{self.name}: {tname!r} must be {want}, got {got}")
            if arr.shape != shape:
                raise ValueError(f"{self.name}: {tname!r} must have shape {shape}, got {arr.shape}")
            if not arr.flags.c_contiguous:
                raise ValueError(f"{self.name}: {tname!r} must be C-contiguous")
            args.append(self._pointer(arr, k))
        status = self.run(*args)
        if status < 0:
            raise RuntimeError(f"{self.name}_run failed with status {status}")
        return outputs


def clear_cache() -> None:
    """Remove every cached build (for tests and troubleshooting)."""
    shutil.rmtree(cache_dir(), ignore_errors=True)
