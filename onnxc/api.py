"""The Python API: `onnxc.compile(model, ...)` -> a model you can run.

    m = onnxc.compile("model.onnx", dims={"N": 1})
    outputs = m.run({"x": x})      # dict name -> array, in graph-output order
    y, = m(x)                      # positional inputs, outputs in order

`compile` imports the model, lowers it through the pipeline to loops, prints C,
builds that C with cffi into a cached extension and loads it. For a
microcontroller target (`target="cortex-m4"`, see `onnxc/targets.py`) it
cross-compiles the C with a semihosting harness into an ELF instead, and `run`
executes that ELF in the target's emulator.
`generate_c` stops after printing and `GeneratedC.write` writes the sources.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import shlex
import shutil
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from onnxc import __version__, compile_cache, container_io, element_types
from onnxc.containers import Containers, ShapeArgument
from onnxc.dialects.constants import released_resources
from onnxc.emit import c_weight_blob
from onnxc.emit.build import CompiledC, build_extension, is_built
from onnxc.emit.c_interface import print_c_files
from onnxc.emit.cross import EmulatedC, build_elf
from onnxc.emit.runner import Dim, Runner, TensorSpec
from onnxc.emit.text_files import write_text
from onnxc.errors import OnnxcError, OnnxcWarning, RunError, UnsupportedError
from onnxc.frontend import ImportedModel, ModelLike, import_model, load_model
from onnxc.lowering.node_progress import reporting
from onnxc.options import DEFAULT_TIMEOUT, CompileOptions
from onnxc.pipeline import lower
from onnxc.progress import Progress
from onnxc.runtime_c import runtime_files
from onnxc.targets import TARGETS as TARGET_TABLE
from onnxc.targets import get_target

TARGETS = tuple(TARGET_TABLE)
"""Targets `compile` can build and run: the host, then the emulated MCUs."""


@dataclass
class GeneratedC:
    """The C of one model: its files (`NAME.c`, `NAME.h`, optionally
    `NAME_weights.c`) by file name, and what describes its interface."""

    name: str
    files: dict[str, str]
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    input_defaults: dict[str, np.ndarray] = field(default_factory=dict[str, np.ndarray])
    workspace_size: int | None = 0
    """`NAME_WORKSPACE_SIZE`: the bytes of the planned arena (at the largest
    sizes); None when some size has no bound."""
    dims: list[str] = field(default_factory=list[str])
    """The free dimensions, in the order the C entry points take them."""
    containers: Containers = field(default_factory=Containers)
    """The sequence and optional inputs and outputs, as the tensors they became."""
    warnings_given: list[str] = field(default_factory=list[str])
    """The `OnnxcWarning`s compiling the model gave, which a compilation-cache
    hit gives again (a dropped declaration is news on every compile)."""
    weights: np.ndarray | None = None
    """The contents of `NAME.weights` (uint8, aligned for the C) when the
    weights are a binary file beside the C (`emit/c_weight_blob.py`)."""

    @property
    def bounded(self) -> bool:
        """Whether the workspace and every input and output have a size bound
        (what a target without an allocator needs)."""
        specs = [*self.inputs, *self.outputs]
        return self.workspace_size is not None and all(
            s.is_static or (s.bounds is not None and min(s.bounds, default=0) >= 0) for s in specs
        )

    @property
    def input_names(self) -> list[str]:
        return [s.name for s in self.inputs]

    @property
    def output_names(self) -> list[str]:
        return [s.name for s in self.outputs]

    @property
    def c_source(self) -> str:
        return self.files[f"{self.name}.c"]

    @property
    def header_source(self) -> str:
        return self.files[f"{self.name}.h"]

    @property
    def weights_source(self) -> str | None:
        """`NAME_weights.c` when the weights were written apart, else None."""
        return self.files.get(f"{self.name}_weights.c")

    def weights_file(self) -> str | None:
        """The name of the binary weights file `write` writes, if any."""
        return None if self.weights is None else c_weight_blob.file_name(self.name)

    def c_files(self) -> list[str]:
        """The names of the model's .c files (to compile with the runtime's)."""
        return sorted(f for f in self.files if f.endswith(".c"))

    def write(self, directory: str | Path) -> list[Path]:
        """Write the model's files and the runtime files into `directory`."""
        out = Path(directory)
        try:
            out.mkdir(parents=True, exist_ok=True)
            written: list[Path] = []
            for file_name, text in self.files.items():
                write_text(out / file_name, text)
                written.append(out / file_name)
            blob_name = self.weights_file()
            if self.weights is not None and blob_name is not None:
                blob_path = out / blob_name
                self.weights.tofile(blob_path)
                written.append(blob_path)
            for source in runtime_files():
                shutil.copyfile(source, out / source.name)
                written.append(out / source.name)
        except OSError as error:
            raise OnnxcError(f"cannot write the C files into '{out}': {error.strerror}") from None
        return written

    def to_entry(self) -> compile_cache.Entry | None:
        """This object as a compilation-cache entry: the files, and the rest
        as one line of JSON; None when an input default has no element type
        to name."""
        defaults: dict[str, Any] = {}
        for input_name, array in self.input_defaults.items():
            element = element_types.of_numpy(array.dtype)
            if element is None:
                return None
            defaults[input_name] = {
                "element": element.onnx_code,
                "shape": list(array.shape),
                "data": base64.b64encode(np.ascontiguousarray(array).tobytes()).decode(),
            }
        header = json.dumps(
            {
                "name": self.name,
                "inputs": [_spec_to_plain(s) for s in self.inputs],
                "outputs": [_spec_to_plain(s) for s in self.outputs],
                "input_defaults": defaults,
                "workspace_size": self.workspace_size,
                "dims": self.dims,
                "containers": container_io.to_plain(self.containers),
                "warnings": self.warnings_given,
                "weights_file": self.weights is not None,
            }
        )
        return header, dict(self.files)

    @classmethod
    def from_entry(cls, entry: compile_cache.Entry) -> GeneratedC:
        """The object `to_entry` made. Raises ValueError, KeyError or TypeError
        on an entry it did not make."""
        header, files = entry
        plain = json.loads(header)
        defaults: dict[str, np.ndarray] = {}
        for input_name, stored in plain["input_defaults"].items():
            dtype = _element_of(stored["element"]).numpy_dtype
            data = base64.b64decode(stored["data"], validate=True)
            defaults[input_name] = np.frombuffer(data, dtype).reshape(stored["shape"]).copy()
        workspace_size = plain["workspace_size"]
        if workspace_size is not None and not isinstance(workspace_size, int):
            raise TypeError(f"workspace_size {workspace_size!r}")
        return cls(
            str(plain["name"]),
            files,
            [_spec_from_plain(s) for s in plain["inputs"]],
            [_spec_from_plain(s) for s in plain["outputs"]],
            defaults,
            workspace_size,
            [str(d) for d in plain["dims"]],
            container_io.from_plain(plain["containers"]),
            [str(text) for text in plain.get("warnings", [])],
        )


def _element_of(code: Any) -> element_types.ElementType:
    element = element_types.by_onnx_code(int(code))
    if element is None:
        raise ValueError(f"no element type has code {code!r}")
    return element


def _spec_to_plain(spec: TensorSpec) -> dict[str, Any]:
    return {
        "name": spec.name,
        "element": spec.element.onnx_code,
        "shape": list(spec.shape),
        "bounds": None if spec.bounds is None else list(spec.bounds),
    }


def _spec_from_plain(plain: dict[str, Any]) -> TensorSpec:
    shape: list[Dim] = []
    for d in plain["shape"]:
        if d is not None and not isinstance(d, int | str):
            raise TypeError(f"dimension {d!r}")
        shape.append(d)
    bounds = plain["bounds"]
    return TensorSpec(
        str(plain["name"]),
        _element_of(plain["element"]),
        tuple(shape),
        None if bounds is None else tuple(int(b) for b in bounds),
    )


def model_name(model: ModelLike, name: str | None) -> str:
    """The C name of a model: `name`, else the file's stem, sanitised."""
    if name is None:
        name = "model" if hasattr(model, "graph") else Path(str(model)).stem
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not cleaned or not cleaned[0].isalpha():
        cleaned = "m_" + cleaned
    return cleaned


def generate_with(
    model: ModelLike,
    options: CompileOptions,
    on_stage: Callable[[str, ModuleOp], None] | None = None,
    *,
    cache: bool = True,
    progress: Progress | None = None,
) -> GeneratedC:
    """Compile `model` to C sources with `options` (nothing is built).
    `on_stage(stage, module)` sees the IR after each pipeline stage (see
    `onnxc.pipeline.lower`); `progress` is told each stage's end (nothing is
    reported without it). The result comes from the compilation cache when
    it holds this model, options and compiler (see `onnxc.compile_cache`),
    unless `cache` is False, `ONNXC_NO_CACHE=1` or `on_stage` is given (a
    cached result has no stages to show)."""
    c_name = model_name(model, options.name)
    if not cache or on_stage is not None or not compile_cache.enabled():
        return _generate(model, c_name, options, on_stage, progress)
    proto = load_model(model)
    if progress is not None and not isinstance(model, onnx.ModelProto):
        progress.step("load")
    key = compile_cache.entry_key(proto, c_name, options)
    stored = compile_cache.read(key)
    if stored is not None:
        try:
            generated = GeneratedC.from_entry(stored)
            if json.loads(stored[0]).get("weights_file"):
                generated.weights = compile_cache.read_weights(key)
                if generated.weights is None:
                    raise ValueError("its weights file is gone")
        except (ValueError, KeyError, TypeError):
            pass  # a corrupt entry is a miss: compiled again below and overwritten
        else:
            if progress is not None:
                progress.step("compilation cache", "hit: import, lowering and C printing skipped")
            for text in generated.warnings_given:
                warnings.warn(text, OnnxcWarning, stacklevel=2)
            return generated
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            generated = _generate(proto, c_name, options, None, progress)
    finally:  # passed on as they came (under the caller's filters), failed or not
        for given in caught:
            warnings.warn_explicit(given.message, given.category, given.filename, given.lineno)
    generated.warnings_given = [
        str(w.message) for w in caught if issubclass(w.category, OnnxcWarning)
    ]
    entry = generated.to_entry()
    if entry is not None:
        if generated.weights is not None:
            compile_cache.write_weights(key, generated.weights)
        compile_cache.write(key, *entry)
    return generated


def _generate(
    model: ModelLike,
    c_name: str,
    options: CompileOptions,
    on_stage: Callable[[str, ModuleOp], None] | None,
    progress: Progress | None = None,
) -> GeneratedC:
    """The compiler itself: import, lower to loops, print C (each stage
    reported to `progress`, if given)."""
    with released_resources() as collect:
        module, imported = _import_and_lower(model, options, on_stage, progress, collect)
        printed = print_c_files(
            module,
            c_name,
            options_comment=options.comment(),
            version=__version__,
            separate_weights=options.separate_weights,
            binary_weights=options.weights_in_file(c_weight_blob.weight_bytes(module)),
        )
    if progress is not None:
        blob = "" if printed.weights is None else f", weights file {printed.weights.size} bytes"
        progress.step("print C", f"{sum(len(t) for t in printed.files.values())} bytes{blob}")
    return GeneratedC(
        c_name,
        printed.files,
        printed.inputs,
        printed.outputs,
        imported.input_defaults,
        printed.workspace_size,
        printed.dims,
        imported.containers,
        weights=printed.weights,
    )


def _import_and_lower(
    model: ModelLike,
    options: CompileOptions,
    on_stage: Callable[[str, ModuleOp], None] | None,
    progress: Progress | None,
    collect: Callable[[Operation], None],
) -> tuple[ModuleOp, ImportedModel]:
    """Import `model` and lower it to loops, telling `progress` (if given) the
    end of loading, of the import (shape inference included) and of each
    pipeline stage. After each stage, `collect` drops the resource blobs the
    module no longer holds, unless `on_stage` sees the stages (it may keep
    them)."""
    proto = load_model(model)
    if progress is not None and not isinstance(model, onnx.ModelProto):
        progress.step("load")
    nodes = len(proto.graph.node)
    imported = import_model(
        proto,
        dims=options.dims,
        shapes=options.shapes,
        max_dims=options.max_dims,
        on_node=None
        if progress is None
        else (lambda done, total: progress.count("import", done, total)),
    )
    del proto
    if progress is not None:
        progress.step("import", f"{nodes} node{'s' if nodes != 1 else ''}")

    def stage_ended(stage: str, module: ModuleOp) -> None:
        if progress is not None:
            progress.step(f"lower: {stage}")
        if on_stage is not None:
            on_stage(stage, module)
        else:
            collect(module)

    counting = (
        contextlib.nullcontext()
        if progress is None
        else reporting(lambda done, total: progress.count("lower: linalg", done, total))
    )
    with counting:
        module = lower(
            imported.module,
            "loops",
            on_stage=stage_ended,
            target=options.target,
            requantize=options.requantize,
            profile=options.profile,
        )
    return module, imported


def generate_c(
    model: ModelLike,
    *,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    max_dims: Mapping[str, int] | None = None,
    name: str | None = None,
    target: str = "host",
    separate_weights: bool = False,
    binary_weights: bool | None = None,
    on_stage: Callable[[str, ModuleOp], None] | None = None,
    cache: bool = True,
) -> GeneratedC:
    """Compile `model` to C sources (nothing is built); with `separate_weights`
    the weights go to their own file, `NAME_weights.c`, with `binary_weights`
    to the binary `NAME.weights` (None: when they are big, see `compile`).
    `on_stage(stage, module)`
    sees the IR after each pipeline stage (see `onnxc.pipeline.lower`);
    `cache=False` compiles even when the compilation cache holds the result."""
    options = CompileOptions.make(
        dims=dims,
        shapes=shapes,
        max_dims=max_dims,
        name=name,
        target=target,
        separate_weights=separate_weights,
        binary_weights=binary_weights,
    )
    return generate_with(model, options, on_stage, cache=cache)


def converts_safely(given: np.dtype[Any], wanted: np.dtype[Any]) -> bool:
    """Whether an input of element type `given` is converted to an input's
    `wanted` type rather than refused: numpy casts it safely or within its kind
    (float64 to float32, int64 to int32), never float to int."""
    return given == wanted or bool(np.can_cast(given, wanted, "same_kind"))


_MISSING = object()


class CompiledModel:
    """A compiled and loaded model. `run` takes a dict of numpy arrays by input
    name and returns a dict by output name (in graph-output order); calling the
    model takes the inputs positionally and returns a list of outputs. On an MCU
    target the runner is an `EmulatedC`, and each run boots the emulator."""

    def __init__(self, generated: GeneratedC, runner: Runner, target: str = "host"):
        self.generated = generated
        self.name = generated.name
        self.target = target
        self.runner = runner
        """Runs the C: a `CompiledC` in-process, an `EmulatedC` on MCU targets."""
        containers = generated.containers
        self._tensor_outputs = [s.name for s in runner.outputs]
        """The names of the C's outputs (a container's tensors apart)."""
        self.input_names: list[str] = container_io.grouped_names(
            [s.name for s in runner.inputs], containers.inputs
        )
        self.output_names: list[str] = container_io.grouped_names(
            self._tensor_outputs, containers.outputs
        )
        self.input_shapes: list[tuple[Dim, ...]] = [s.shape for s in runner.inputs]
        self.output_shapes: list[tuple[Dim, ...]] = [s.shape for s in runner.outputs]
        self.workspace_size = runner.workspace_size

    @property
    def c_source(self) -> str:
        return self.generated.c_source

    @property
    def header_source(self) -> str:
        return self.generated.header_source

    def run(self, inputs: Mapping[str, Any]) -> dict[str, Any]:
        """The outputs for `inputs`, by name; a sequence input is given and a
        sequence output returned as a list of arrays, an optional one as an
        array or None."""
        containers = self.generated.containers
        if containers:
            inputs = container_io.flatten_inputs(self.name, inputs, containers)
        arrays: list[np.ndarray] = []
        given = 0
        for spec in self.runner.inputs:
            value = inputs.get(spec.name, _MISSING)
            if value is not _MISSING:
                given += 1
            elif spec.name in self.generated.input_defaults:
                value = self.generated.input_defaults[spec.name]
            else:
                raise RunError(f"{self.name}: missing input '{spec.name}'")
            arrays.append(self._prepare(spec, value))
        if given != len(inputs):
            unknown = sorted(set(inputs) - {s.name for s in self.runner.inputs})
            raise RunError(
                f"{self.name}: unknown input(s) {', '.join(map(repr, unknown))} "
                f"(inputs: {', '.join(self.input_names)})"
            )
        outputs = self.runner.call(arrays)
        named = dict(zip(self._tensor_outputs, outputs, strict=True))
        return container_io.group_outputs(named, containers) if containers else named

    def _prepare(self, spec: TensorSpec, value: Any) -> np.ndarray:
        """`value` as a C-contiguous array of the input's element type; values of
        another type are converted only when numpy casts them safely within
        their kind (float64 to float32, not float to int)."""
        dtype = spec.element.numpy_dtype
        if type(value) is np.ndarray and value.dtype == dtype and value.flags.c_contiguous:
            return value  # as it is: the common case, kept cheap
        array = np.asarray(value)
        if not converts_safely(array.dtype, dtype):
            raise RunError(f"{self.name}: input '{spec.name}' must be {dtype}, got {array.dtype}")
        return np.require(array.astype(dtype, copy=False), requirements="C")

    def __call__(self, *inputs: Any) -> list[Any]:
        if len(inputs) > len(self.input_names):
            raise RunError(f"{self.name}: takes {len(self.input_names)} inputs, got {len(inputs)}")
        return list(self.run(dict(zip(self.input_names, inputs, strict=False))).values())


def compile_with(
    model: ModelLike,
    options: CompileOptions,
    *,
    cache: bool = True,
    progress: Progress | None = None,
) -> CompiledModel:
    """Compile and load `model` with `options` (see `compile`)."""
    chosen = get_target(options.target)
    generated = generate_with(model, options, cache=cache, progress=progress)
    if not chosen.is_host:
        if not generated.bounded:
            # quoted as the shell needs them: a dim_param may hold spaces
            free = ", ".join(map(shlex.quote, generated.dims)) or "sizes computed from data"
            raise UnsupportedError(
                f"{generated.name}: target {chosen.name} needs every dimension bounded, "
                f"and {free} {'is' if len(generated.dims) == 1 else 'are'} not: bind with "
                "dims= (--dim NAME=N) or bound with max_dims= (--max-dim NAME=N)"
            )
        elf = build_elf(generated.name, generated.files, chosen, opt_level=options.opt_level)
        if progress is not None:
            progress.step("C build", f"ELF for {chosen.name}")
        emulated = EmulatedC(
            elf,
            generated.name,
            generated.inputs,
            generated.outputs,
            generated.workspace_size,
            chosen,
            timeout=options.timeout,
        )
        return CompiledModel(generated, emulated, options.target)
    cflags = (f"-O{options.opt_level}", *chosen.cflags, *options.thread_cflags())
    built = progress is not None and is_built(
        generated.c_source, generated.header_source, generated.name, extra_cflags=cflags
    )
    extension = build_extension(
        generated.c_source, generated.header_source, generated.name, extra_cflags=cflags
    )
    if progress is not None:
        progress.step("C build", "cached" if built else "")
    return CompiledModel(generated, CompiledC(extension, generated.name, generated.weights))


def compile(  # noqa: A001 - the public name DESIGN.md gives
    model: ModelLike,
    *,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    max_dims: Mapping[str, int] | None = None,
    name: str | None = None,
    target: str = "host",
    opt_level: int = 2,
    timeout: float = DEFAULT_TIMEOUT,
    binary_weights: bool | None = None,
    requantize: str = "exact",
    threads: int = 1,
    cache: bool = True,
    progress: Progress | None = None,
) -> CompiledModel:
    """Compile an ONNX model (a path or ModelProto) and load it for running.

    `dims` binds dim_params, `shapes` fixes whole input shapes, `max_dims`
    bounds dimensions left free, `name` is the C prefix (default: the file's
    stem), `opt_level` the C compiler's -O level, `binary_weights` whether the
    weights go to a binary file the loaded model maps instead of into the C
    (None: above `onnxc.options.AUTO_BINARY_WEIGHTS` bytes on the host).
    `requantize="fixed"` requantizes the Cortex-M targets' integer
    convolutions in fixed point (`onnxc.options.REQUANTIZE`). `threads`
    above 1 builds the host C with OpenMP: the kernels' outer loops run on
    that many threads, with results identical to one thread's.
    `target` is "host" or an MCU target from `TARGETS`: the model is then
    cross-compiled into an ELF and each run executes it in the target's
    emulator, stopped after `timeout` seconds.
    The generated C is cached (see `onnxc.compile_cache`): compiling the same
    model with the same options again skips the compiler; `cache=False` or
    `ONNXC_NO_CACHE=1` compiles anyway. The C build is cached apart.
    Nothing is printed; `progress=onnxc.progress.Progress(sys.stderr)` reports
    each stage and its seconds.
    """
    options = CompileOptions.make(
        dims=dims,
        shapes=shapes,
        max_dims=max_dims,
        name=name,
        target=target,
        opt_level=opt_level,
        timeout=timeout,
        binary_weights=binary_weights,
        requantize=requantize,
        threads=threads,
    )
    return compile_with(model, options, cache=cache, progress=progress)
