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
import importlib.machinery
import importlib.util
import math
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from onnxc import element_types
from onnxc.element_types import Kind
from onnxc.emit import string_io
from onnxc.emit.call_plan import CallPlan, aligned_bytes, plannable
from onnxc.emit.runner import (
    ERR_CAPACITY,
    ERR_WORKSPACE,
    Dim,
    TensorSpec,
    check_inputs,
    status_error,
)
from onnxc.emit.text_files import digest, write_text
from onnxc.errors import BuildError, InternalError, RunError
from onnxc.runtime_c import runtime_dir, runtime_files, sources_for
from onnxc.targets import host_cpu_flags

__all__ = ["BuildError", "CompiledC", "build_extension", "built_extensions", "cache_dir"]

DEFAULT_CFLAGS = ("-O3", "-std=c99", "-ffp-contract=off")

SANITIZE = "ONNXC_SANITIZE"
"""An environment variable: when set (to a `-fsanitize=` list such as
`address,undefined`), every host build is instrumented with those
sanitizers, stops at the first report (`-fno-sanitize-recover=all`), and is
cached apart from plain builds. The Python process must load the sanitizer
runtimes first: `LD_PRELOAD="$(gcc -print-file-name=libasan.so)
$(gcc -print-file-name=libubsan.so)"` (see `.ci/run`)."""

SANITIZED_OPTIMIZATION = ("-O1", "-g1")
"""Sanitized builds are optimised at -O1, as AddressSanitizer's documentation
advises, with line tables only: the checks instrument every access and
operation of the C either way, and gcc 12 builds a kernel-heavy model about
9x faster (DS-CNN's C: 100 s at -O3 -g, 11 s at -O1 -g1, on a loaded Zen 3;
full debug information alone exceeds gcc's variable-tracking limit there).
Results at the plain builds' -O3 are the plain test run's to compare."""


def sanitizer_flags() -> list[str]:
    """The flags `ONNXC_SANITIZE` asks for (none when it is unset), last on
    the command line so that their optimisation level is the one used."""
    wanted = os.environ.get(SANITIZE, "").strip()
    if not wanted:
        return []
    if not all(part in {"address", "undefined"} for part in wanted.split(",")):
        raise BuildError(f"{SANITIZE}={wanted!r}: expected address, undefined or both")
    return [
        f"-fsanitize={wanted}",
        "-fno-sanitize-recover=all",
        "-fno-omit-frame-pointer",
        *SANITIZED_OPTIMIZATION,
    ]


def cache_dir() -> Path:
    """Where built extensions are kept (``$ONNXC_CACHE_DIR`` or ``~/.cache/onnxc``)."""
    env = os.environ.get("ONNXC_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "onnxc"


EXTENSION_PREFIX = "_onnxc_"


def built_extensions() -> list[Path]:
    """The built extensions in the cache directory."""
    folder = cache_dir()
    if not folder.is_dir():
        return []
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return sorted(folder.glob(f"{EXTENSION_PREFIX}*{suffix}"))


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
def _runtime_typedefs() -> str:
    """The `onnxc_tensor_info`, `onnxc_tensor` and `onnxc_string` typedefs, read
    from the runtime header itself so that cffi's view of the records cannot
    drift from C's."""
    header = (runtime_dir() / "onnxc_runtime.h").read_text()
    found = re.findall(
        r"typedef struct (?:onnxc_string )?\{[^}]*\} onnxc_(?:tensor|tensor_info|string);",
        header,
    )
    assert len(found) == 3, "onnxc_runtime.h lost a record typedef"
    return "\n".join(found)


def make_cdef(header_source: str, name: str) -> str:
    """The cffi declarations of a generated header: prototypes, sizes, tables."""
    lines = [_runtime_typedefs()]
    for m in re.finditer(
        rf"^#define ({name}_(?:WORKSPACE_SIZE|NUM_INPUTS|NUM_OUTPUTS|NUM_DIMS|WEIGHTS_BYTES))"
        r" (\d+)$",
        header_source,
        re.M,
    ):
        lines.append(f"#define {m[1]} {m[2]}")
    lines += [
        f"extern const onnxc_tensor_info {name}_inputs[];",
        f"extern const onnxc_tensor_info {name}_outputs[];",
    ]
    prototypes = re.findall(
        rf"^(?:int|size_t) {name}_(?:run|run_with_workspace|invoke|workspace_size|set_weights)"
        r"\([^;]*\);",
        header_source,
        re.M,
    )
    if not any(p.startswith(f"int {name}_invoke(") for p in prototypes):
        raise BuildError(f"the header of {name} declares no {name}_invoke")
    lines += [" ".join(p.split()) for p in prototypes]
    return "\n".join(lines) + "\n"


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
        raise InternalError(f"internal error: cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[module_name] = module
    return module


def _extension_path(
    c_source: str, header_source: str, name: str, cflags: Sequence[str], extra: Sequence[str] = ()
) -> tuple[str, Path]:
    """The module name and cached path of the extension built from these
    sources, flags and `extra` texts (the key covers the runtime, compiler
    and Python too)."""
    runtime = "".join([*(p.read_text() for p in runtime_files()), *sources_for(c_source).values()])
    key_parts = [c_source, header_source, name, runtime, *cflags, _compiler_id(), sys.version]
    key_parts += extra
    if any(flag.startswith(("-march=native", "-mcpu=native")) for flag in cflags):
        key_parts.append(" ".join(sorted(host_cpu_flags())))  # built for this CPU
    key = digest(key_parts)[:24]
    module_name = f"{EXTENSION_PREFIX}{name}_{key}"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return module_name, cache_dir() / f"{module_name}{suffix}"


def is_built(
    c_source: str, header_source: str, name: str, *, extra_cflags: Sequence[str] = ()
) -> bool:
    """Whether `build_extension` with these arguments finds its build cached."""
    cflags = [*DEFAULT_CFLAGS, *extra_cflags, *sanitizer_flags()]
    return _extension_path(c_source, header_source, name, cflags)[1].exists()


def build_extension(
    c_source: str,
    header_source: str,
    name: str,
    *,
    extra_cflags: Sequence[str] = (),
    preamble: str = "",
    cdef: str = "",
) -> ModuleType:
    """Compile NAME.c/NAME.h with cffi (or reuse the cached build) and load it.

    Returns the cffi extension module: `.lib` has `NAME_run`, `NAME_run_with_workspace`,
    `NAME_WORKSPACE_SIZE`, `NAME_inputs`/`NAME_outputs`; `.ffi` is its FFI. Raises
    `BuildError` with the compiler's messages if compilation fails. `preamble`
    is C compiled into the extension itself (a hook the model calls, such as a
    profiling build's `onnxc_profile_mark`), and `cdef` declares what of it
    Python sees.
    """
    import cffi

    if "onnxc_string" in header_source:  # a model with string tensors: their copier
        preamble, cdef = preamble + string_io.GATHER_SOURCE, cdef + string_io.GATHER_CDEF
    sanitizers = sanitizer_flags()
    cflags = [*DEFAULT_CFLAGS, *extra_cflags, *sanitizers]
    module_name, target = _extension_path(
        c_source, header_source, name, cflags, (preamble, cdef) if preamble or cdef else ()
    )
    if target.exists():
        mark_used(target)
        return _load(module_name, target)

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        tmpdir = Path(tmp)
        write_text(tmpdir / f"{name}.c", c_source)
        (tmpdir / f"{name}.h").write_text(header_source)
        sources = [tmpdir / f"{name}.c"]
        for file, text in sources_for(c_source).items():  # runtime files the model needs
            (tmpdir / file).write_text(text)
            if file.endswith(".c"):
                sources.append(tmpdir / file)
        ffi = cffi.FFI()
        ffi.cdef(make_cdef(header_source, name) + cdef)
        ffi.set_source(
            module_name,
            f'#include "{name}.h"\n' + preamble,
            sources=[str(s) for s in sources],
            include_dirs=[str(tmpdir), str(runtime_dir())],
            extra_compile_args=cflags,
            extra_link_args=[*sanitizers, *(f for f in cflags if f == "-fopenmp")],
        )
        log: list[str] = []
        try:
            with _captured_output(log):
                built = Path(ffi.compile(tmpdir=str(tmpdir), verbose=False))
        except cffi.VerificationError as exc:
            raise BuildError(
                f"compiling {name}.c failed: {_first_error(''.join(log), exc)}"
            ) from exc
        os.replace(built, target)  # atomic: a concurrent build of the key is identical
    mark_stored(target)
    return _load(module_name, target)


def mark_used(path: Path) -> None:
    """A cached build was used (see `cache_limit.py`)."""
    from onnxc.emit.cache_limit import touch  # cache_limit imports this module

    touch(path)


def mark_stored(path: Path) -> None:
    """A build was added to the cache: keep the cache within its limit."""
    from onnxc.emit.cache_limit import prune

    prune(keep=path)


def _first_error(log: str, exc: Exception) -> str:
    lines = [line.strip() for line in log.splitlines() if line.strip()]
    found = next((line for line in lines if "error" in line.lower()), None)
    return found or (lines[0] if lines else str(exc).splitlines()[0])


MAX_PLANS = 8
"""Call plans kept per thread and model (each holds a workspace)."""


class CompiledC:
    """A model loaded in-process, called through ``NAME_invoke`` on numpy arrays.

    The interface (input and output names, element types, shapes with their
    free dimensions and bounds) is read from the compiled ``NAME_inputs`` /
    ``NAME_outputs`` tables. Each call sizes the workspace and the outputs
    from the input shapes (``NAME_workspace_size``; an output whose size the
    model computes gets its bound, or the size a first attempt reports), and
    remembers the sizes that worked for those input shapes."""

    def __init__(self, extension: ModuleType, name: str, weights: np.ndarray | None = None) -> None:
        self.ffi: Any = extension.ffi
        self.lib: Any = extension.lib
        self.name = name
        self.weights = weights
        """The weights file's bytes the C reads (kept alive with the model)."""
        if weights is not None:
            status = getattr(self.lib, f"{name}_set_weights")(
                self.ffi.from_buffer(weights), weights.size
            )
            if status != 0:
                raise status_error(name, status)
        self.invoke = getattr(self.lib, f"{name}_invoke")
        self.size_function = getattr(self.lib, f"{name}_workspace_size", None)
        num_inputs = int(getattr(self.lib, f"{name}_NUM_INPUTS"))
        num_outputs = int(getattr(self.lib, f"{name}_NUM_OUTPUTS"))
        bound = getattr(self.lib, f"{name}_WORKSPACE_SIZE", None)
        self.workspace_size: int | None = None if bound is None else int(bound)
        table_in = getattr(self.lib, f"{name}_inputs")
        table_out = getattr(self.lib, f"{name}_outputs")
        self.inputs = [self._spec(table_in[k]) for k in range(num_inputs)]
        self.outputs = [self._spec(table_out[k]) for k in range(num_outputs)]
        self.dims = list(
            dict.fromkeys(d for s in self.inputs for d in s.shape if isinstance(d, str))
        )
        """The free dimensions, in the order the C takes them (first appearance)."""
        self._sizes: dict[tuple[tuple[int, ...], ...], tuple[int, list[int]]] = {}
        self._plannable = plannable(self.inputs, self.outputs)
        self._dtypes = [s.element.numpy_dtype for s in self.inputs]
        self._local = threading.local()  # this thread's call plans, by input shapes
        self.gather = getattr(self.lib, string_io.GATHER, None)
        """The extension's copier of string outputs' bytes (models with strings)."""

    def _spec(self, record: Any) -> TensorSpec:
        name = self.ffi.string(record.name).decode()
        element = element_types.by_onnx_code(int(record.dtype))
        if element is None:
            raise InternalError(f"internal error: {self.name}: '{name}' has dtype {record.dtype}")
        shape: list[Dim] = []
        for d in range(record.rank):
            size = int(record.shape[d])
            dim_name = record.dim_names[d] if record.dim_names else self.ffi.NULL
            shape.append(
                size if size >= 0 else self.ffi.string(dim_name).decode() if dim_name else None
            )
        bounds = tuple(int(record.max_shape[d]) for d in range(record.rank))
        return TensorSpec(name, element, tuple(shape), bounds)

    def _first_sizes(self, dims: dict[str, int]) -> tuple[int, list[int]]:
        """Workspace bytes and output capacities to try first."""
        if self.size_function is not None:
            workspace = int(self.size_function(*(dims[d] for d in self.dims)))
        else:
            workspace = self.workspace_size or 0
        return workspace, [s.capacity_for(dims) for s in self.outputs]

    def call(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run once on the inputs in order; returns the outputs in order. A
        call with the input shapes of an earlier one in this thread takes its
        plan (`call_plan`): only the data pointers and outputs are new."""
        plans: dict[tuple[tuple[int, ...], ...], CallPlan] | None = getattr(
            self._local, "plans", None
        )
        if plans is not None and len(inputs) == len(self._dtypes):
            shapes: list[tuple[int, ...]] | None = []
            for a, d in zip(inputs, self._dtypes, strict=True):
                if type(a) is not np.ndarray or a.dtype != d or not a.flags.c_contiguous:
                    shapes = None  # the checked path says what is wrong
                    break
                shapes.append(a.shape)
            plan = plans.get(tuple(shapes)) if shapes is not None else None
            if plan is not None:
                status, results = plan.call(self.invoke, inputs)
                if status < 0:
                    raise status_error(self.name, status)
                return results
        outputs = self._call(inputs)
        if self._plannable:
            if plans is None:
                plans = self._local.plans = {}
            key = tuple(a.shape for a in inputs)
            if len(plans) >= MAX_PLANS:  # many shapes: keep the newest
                del plans[next(iter(plans))]
            workspace_bytes, _ = self._sizes[key]
            made = [(tuple(o.shape), o.dtype) for o in outputs]
            names = [s.name for s in self.inputs]
            plans[key] = CallPlan(
                self.ffi, list(key), made, workspace_bytes, self.name, names, self.gather
            )
        return outputs

    def plans_here(self) -> int:
        """How many call plans this thread keeps for the model."""
        return len(getattr(self._local, "plans", {}))

    def _call(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """A call that checks the inputs and finds the sizes it needs."""
        dims = check_inputs(self.name, self.inputs, inputs)
        key = tuple(a.shape for a in inputs)
        workspace_bytes, capacities = self._sizes.get(key) or self._first_sizes(dims)
        ffi = self.ffi
        keep: list[Any] = []
        tensors_in = ffi.new("onnxc_tensor[]", max(1, len(inputs)))
        for k, (array, spec) in enumerate(zip(inputs, self.inputs, strict=True)):
            shape = ffi.new("int64_t[]", list(array.shape) or [0])
            keep.append(shape)
            if spec.element.kind is Kind.STRING:
                data = string_io.to_c(ffi, self.name, spec.name, array, keep)
            else:
                storage = spec.element.pack(array)
                keep.append(storage)
                data = ffi.from_buffer(storage, require_writable=False)
            tensors_in[k].data = ffi.cast("void *", data)
            tensors_in[k].capacity = array.size
            tensors_in[k].shape = shape
        tensors_out = ffi.new("onnxc_tensor[]", max(1, len(self.outputs)))
        shapes = [ffi.new("int64_t[]", max(1, len(s.shape))) for s in self.outputs]
        short = False
        while True:  # each failed attempt asks for more, or the run fails
            buffers = [
                ffi.new("onnxc_string[]", max(1, c))
                if s.element.kind is Kind.STRING
                else np.empty(max(1, s.element.storage_count(c)), s.element.pack_dtype)
                for c, s in zip(capacities, self.outputs, strict=True)
            ]
            for k, (buffer, capacity) in enumerate(zip(buffers, capacities, strict=True)):
                pointer = buffer if isinstance(buffer, ffi.CData) else ffi.from_buffer(buffer)
                tensors_out[k].data = ffi.cast("void *", pointer)
                tensors_out[k].capacity = capacity
                tensors_out[k].shape = shapes[k]
            workspace = aligned_bytes(workspace_bytes)
            size = ffi.new("size_t *", workspace_bytes)
            status = self.invoke(ffi.from_buffer(workspace), size, tensors_in, tensors_out)
            if status == ERR_WORKSPACE and size[0] > workspace_bytes:
                # Short again in one call (a loop's storage growing trip by
                # trip): at least double, so that the attempts stay few.
                workspace_bytes = max(int(size[0]), 2 * workspace_bytes if short else 0)
                short = True
                continue
            if status == ERR_CAPACITY:
                needed = [
                    math.prod(int(shapes[k][d]) for d in range(len(s.shape)))
                    for k, s in enumerate(self.outputs)
                ]
                grown = [max(c, n) for c, n in zip(capacities, needed, strict=True)]
                if grown != capacities:
                    capacities = grown
                    continue
            if status < 0:
                raise status_error(self.name, status)
            self._sizes[key] = (workspace_bytes, capacities)
            outputs: list[np.ndarray] = []
            for k, (buffer, spec) in enumerate(zip(buffers, self.outputs, strict=True)):
                shape = tuple(int(shapes[k][d]) for d in range(len(spec.shape)))
                if isinstance(buffer, ffi.CData):
                    values = string_io.from_c(ffi, buffer, math.prod(shape), self.gather)
                else:
                    values = spec.element.unpack(buffer, math.prod(shape))
                try:
                    outputs.append(values.reshape(shape))
                except ValueError:  # e.g. (0, 2**63 - 1): no elements, but numpy refuses it
                    raise RunError(
                        f"{self.name}: output '{spec.name}' has shape {list(shape)}, "
                        "which a numpy array cannot have"
                    ) from None
            return outputs
