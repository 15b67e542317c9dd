"""The Python API: `onnxc.compile(model, ...)` -> a model you can run.

    m = onnxc.compile("model.onnx", dims={"N": 1})
    outputs = m.run({"x": x})      # dict name -> array, in graph-output order
    y, = m(x)                      # positional inputs, outputs in order

`compile` imports the model, lowers it through the pipeline to loops, prints C,
builds that C with cffi into a cached extension and loads it. For a
microcontroller target (`target="cortex-m4"`, see `emit/targets.py`) it
cross-compiles the C with a semihosting harness into an ELF instead, and `run`
executes that ELF in the target's emulator.
`generate_c` stops after printing and `GeneratedC.write` writes the sources.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from onnxc import __version__
from onnxc.dialects.constants import released_resources
from onnxc.emit.build import CompiledC, build_extension
from onnxc.emit.c_printer import print_c_files
from onnxc.emit.cross import DEFAULT_TIMEOUT, EmulatedC, build_elf
from onnxc.emit.header import CParam
from onnxc.emit.targets import TARGETS as TARGET_TABLE
from onnxc.emit.targets import get_target
from onnxc.errors import OnnxcError
from onnxc.importer import ModelLike, import_model
from onnxc.pipeline import lower
from onnxc.runtime_c import runtime_files

TARGETS = tuple(TARGET_TABLE)
"""Targets `compile` can build and run: the host, then the emulated MCUs."""


@dataclass
class GeneratedC:
    """The C of one model: its files (`NAME.c`, `NAME.h`, optionally
    `NAME_weights.c`) by file name, and what describes its interface."""

    name: str
    files: dict[str, str]
    input_names: list[str]
    output_names: list[str]
    input_defaults: dict[str, np.ndarray] = field(default_factory=dict)
    params: list[CParam] = field(default_factory=list)
    """The inputs then outputs as C parameters (name, element type, shape)."""
    workspace_size: int = 0
    """`NAME_WORKSPACE_SIZE`: the bytes of the planned arena."""

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

    def c_files(self) -> list[str]:
        """The names of the model's .c files (to compile with the runtime's)."""
        return sorted(f for f in self.files if f.endswith(".c"))

    def write(self, directory: str | Path) -> list[Path]:
        """Write the model's files and the runtime files into `directory`."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for file_name, text in self.files.items():
            (out / file_name).write_text(text)
            written.append(out / file_name)
        for source in runtime_files():
            shutil.copyfile(source, out / source.name)
            written.append(out / source.name)
        return written


def model_name(model: ModelLike, name: str | None) -> str:
    """The C name of a model: `name`, else the file's stem, sanitised."""
    if name is None:
        name = Path(model).stem if not hasattr(model, "graph") else "model"
    cleaned = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not cleaned or not cleaned[0].isalpha():
        cleaned = "m_" + cleaned
    return cleaned


def _options_comment(options: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in options.items() if v)


def generate_c(
    model: ModelLike,
    *,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, Sequence[int]] | None = None,
    name: str | None = None,
    target: str = "host",
    separate_weights: bool = False,
    on_stage: Callable[[str, ModuleOp], None] | None = None,
) -> GeneratedC:
    """Compile `model` to C sources (nothing is built); with `separate_weights`
    the weights go to their own file, `NAME_weights.c`. `on_stage(stage, module)`
    sees the IR after each pipeline stage (see `onnxc.pipeline.lower`)."""
    get_target(target)
    c_name = model_name(model, name)
    with released_resources():
        imported = import_model(model, dims=dims, shapes=shapes)
        module = lower(imported.module, "loops", on_stage=on_stage)
        options = {
            "dims": dict(dims or {}),
            "shapes": dict(shapes or {}),
            "target": target,
        }
        printed = print_c_files(
            module,
            c_name,
            options_comment=_options_comment(options),
            version=__version__,
            separate_weights=separate_weights,
        )
    return GeneratedC(
        c_name,
        printed.files,
        imported.input_names,
        imported.output_names,
        imported.input_defaults,
        printed.params,
        printed.workspace_size,
    )


class CompiledModel:
    """A compiled and loaded model. `run` takes a dict of numpy arrays by input
    name and returns a dict by output name (in graph-output order); calling the
    model takes the inputs positionally and returns a list of outputs. On an MCU
    target `compiled` is an `EmulatedC`, and each run boots the emulator."""

    def __init__(
        self, generated: GeneratedC, compiled: CompiledC | EmulatedC, target: str = "host"
    ):
        self.generated = generated
        self.name = generated.name
        self.target = target
        self._compiled = compiled
        self.input_names: list[str] = list(generated.input_names)
        self.output_names: list[str] = list(generated.output_names)
        self.input_shapes = [shape for _, shape in compiled.input_info]
        self.output_shapes = [shape for _, shape in compiled.output_info]
        self.workspace_size = compiled.workspace_size

    @property
    def c_source(self) -> str:
        return self.generated.c_source

    @property
    def header_source(self) -> str:
        return self.generated.header_source

    def run(self, inputs: Mapping[str, Any]) -> dict[str, np.ndarray]:
        unknown = sorted(set(inputs) - set(self.input_names))
        if unknown:
            raise OnnxcError(
                f"{self.name}: unknown input(s) {', '.join(map(repr, unknown))} "
                f"(inputs: {', '.join(self.input_names)})"
            )
        arrays: list[np.ndarray] = []
        for index, input_name in enumerate(self.input_names):
            if input_name in inputs:
                value = inputs[input_name]
            elif input_name in self.generated.input_defaults:
                value = self.generated.input_defaults[input_name]
            else:
                raise OnnxcError(f"{self.name}: missing input '{input_name}'")
            arrays.append(self._prepare(index, input_name, value))
        outputs = self._compiled.call(arrays)
        return dict(zip(self.output_names, outputs, strict=True))

    def _prepare(self, index: int, input_name: str, value: Any) -> np.ndarray:
        from onnxc.emit.build import NUMPY_OF_C

        dtype = np.dtype(NUMPY_OF_C[self._compiled.arg_types[index]])
        array = np.asarray(value)
        if array.dtype != dtype and not np.can_cast(array.dtype, dtype, "same_kind"):
            raise OnnxcError(
                f"{self.name}: input '{input_name}' must be {dtype}, got {array.dtype}"
            )
        shape = self.input_shapes[index]
        if array.shape != shape:
            raise OnnxcError(
                f"{self.name}: input '{input_name}' must have shape {shape}, got {array.shape}"
            )
        return np.require(array.astype(dtype, copy=False), requirements="C")

    def __call__(self, *inputs: Any) -> list[np.ndarray]:
        if len(inputs) > len(self.input_names):
            raise OnnxcError(
                f"{self.name}: takes {len(self.input_names)} inputs, got {len(inputs)}"
            )
        return list(self.run(dict(zip(self.input_names, inputs, strict=False))).values())


def compile(  # noqa: A001 - the public name DESIGN.md gives
    model: ModelLike,
    *,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, Sequence[int]] | None = None,
    name: str | None = None,
    target: str = "host",
    opt_level: int = 2,
    timeout: float = DEFAULT_TIMEOUT,
) -> CompiledModel:
    """Compile an ONNX model (a path or ModelProto) and load it for running.

    `dims` binds dim_params, `shapes` fixes whole input shapes, `name` is the C
    prefix (default: the file's stem), `opt_level` the C compiler's -O level.
    `target` is "host" or an MCU target from `TARGETS`: the model is then
    cross-compiled into an ELF and each run executes it in the target's
    emulator, stopped after `timeout` seconds.
    """
    if not 0 <= opt_level <= 3:
        raise OnnxcError(f"opt_level must be 0 to 3, got {opt_level}")
    chosen = get_target(target)
    generated = generate_c(model, dims=dims, shapes=shapes, name=name, target=target)
    if not chosen.is_host:
        elf = build_elf(generated.name, generated.files, chosen, opt_level=opt_level)
        emulated = EmulatedC(
            elf, generated.name, generated.params, generated.workspace_size, chosen, timeout=timeout
        )
        return CompiledModel(generated, emulated, target)
    extension = build_extension(
        generated.c_source,
        generated.header_source,
        generated.name,
        extra_cflags=(f"-O{opt_level}",),
    )
    return CompiledModel(generated, CompiledC(extension, generated.name))
