"""Instructions of one inference of a model compiled for an emulated MCU.

    model = onnxc.compile("model.onnx", target="cortex-m4")
    counted = count_instructions(model, [x])
    counted.instructions, counted.outputs

What is measured: the model is built again with the emulator harness's
``ONNXC_HARNESS_SYSTICK`` (``runtime_c/onnxc_harness.c``), which starts the
core's SysTick timer on the processor clock just before the `NAME_invoke`
call and reads it just after, and is run under qemu's ``-icount shift=0``,
which advances qemu's virtual clock by exactly 1 ns per executed guest
instruction. The timer's ticks times 1e9 / `Target.clock_hz` are then the
instructions executed by the call, to within one tick (40 instructions at
the MPS2 boards' 25 MHz), including a handful for starting and reading the
timer. These are instructions, not cycles: qemu models no pipeline, flash
wait states or multi-cycle FPU and load instructions.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from onnxc.api import CompiledModel, GeneratedC
from onnxc.emit.cross import EmulatedC, build_elf
from onnxc.errors import OnnxcError, RunError
from onnxc.targets import get_target

__all__ = ["ICOUNT_FLAGS", "InstructionCount", "StepCount", "count_instructions", "count_steps"]

ICOUNT_FLAGS = ("-icount", "shift=0")
"""qemu flags making its virtual clock count guest instructions (1 ns each)."""


@dataclass(frozen=True)
class InstructionCount:
    """The instructions of one `NAME_invoke` call, the SysTick ticks they were
    read from, and the outputs of that run (in NAME_outputs order)."""

    instructions: int
    ticks: int
    outputs: list[np.ndarray]


def count_instructions(
    model: CompiledModel, inputs: Sequence[np.ndarray], *, opt_level: int = 2
) -> InstructionCount:
    """Run `model` (compiled for an MCU target) once in the emulator on
    `inputs` (in NAME_inputs order, as `EmulatedC.call` takes them) and count
    the instructions of the inference (see the module docstring). The ELF is
    built at `opt_level`, as `onnxc.compile` builds it."""
    timeout = model.runner.timeout if isinstance(model.runner, EmulatedC) else None
    counted, _ = _run_counted(model.generated, model.target, inputs, opt_level, timeout)
    return counted


@dataclass(frozen=True)
class StepCount:
    """The instructions of one step of a profiling build (one ONNX node, or
    the nodes fused into one kernel) and its label ("Conv conv1+relu1")."""

    label: str
    instructions: int


def count_steps(
    generated: GeneratedC,
    target: str,
    inputs: Sequence[np.ndarray],
    *,
    opt_level: int = 2,
    timeout: float | None = None,
) -> tuple[InstructionCount, list[StepCount]]:
    """As `count_instructions`, for the C of a profiling build of a model
    for `target` (`generate_with` with the compile option `profile`; the
    harness defines its hook): the whole inference and each step of it, in
    order.
    The harness's hook reads the timer at each step's start; its own
    instructions are outside the steps (but for its call and return), so
    the steps add up to a little less than the whole."""
    return _run_counted(generated, target, inputs, opt_level, timeout, profile=True)


def _run_counted(
    generated: GeneratedC,
    target_name: str,
    inputs: Sequence[np.ndarray],
    opt_level: int,
    timeout: float | None,
    profile: bool = False,
) -> tuple[InstructionCount, list[StepCount]]:
    target = get_target(target_name)
    if target.is_host or not target.clock_hz:
        raise OnnxcError(f"target '{target.name}' has no emulated clock to count instructions")
    defines = ("ONNXC_HARNESS_SYSTICK", *(("ONNXC_HARNESS_PROFILE",) if profile else ()))
    elf = build_elf(generated.name, generated.files, target, opt_level=opt_level, defines=defines)
    runner = EmulatedC(
        elf,
        generated.name,
        generated.inputs,
        generated.outputs,
        generated.workspace_size,
        target,
        emulator_flags=ICOUNT_FLAGS,
        **({} if timeout is None else {"timeout": timeout}),
    )
    with tempfile.TemporaryDirectory(prefix="onnxc-count-") as tmp:
        folder = Path(tmp)
        outputs = runner.call_in(folder, inputs)
        text = (folder / "ticks.txt").read_text().strip()
        lines = (folder / "steps.txt").read_text().splitlines() if profile else []
    if not text.isdigit():
        raise RunError(f"{generated.name} on {target.name}: ticks.txt holds {text!r}")

    def instructions(ticks: int) -> int:
        return ticks * 1_000_000_000 // target.clock_hz

    steps: list[StepCount] = []
    for line in lines:
        ticks, _, label = line.partition(" ")
        if not ticks.isdigit():
            raise RunError(f"{generated.name} on {target.name}: steps.txt holds {line!r}")
        steps.append(StepCount(label, instructions(int(ticks))))
    ticks = int(text)
    return InstructionCount(instructions(ticks), ticks, outputs), steps
