"""`onnxc bench --target cortex-m4` (or cortex-m0): the instructions of one
inference on the emulated microcontroller, total and, with `per_layer`,
step by step, with the multiply-accumulates of each.

An emulator does not run at the core's speed, so an MCU target is not timed
against onnxruntime: its instructions are counted instead
(`onnxc.tools.instruction_count`: SysTick around `NAME_invoke` under qemu's
`-icount shift=0`). The outputs of that run are compared with onnxruntime's
on the host, on the same seeded random inputs. Per layer, a profiling build
(compile option `profile`) is run the same way, the harness reading the
timer where each step starts. Instructions are not cycles: qemu models no
pipeline, wait states or multi-cycle instructions.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from onnxc.api import compile_with, generate_with
from onnxc.options import CompileOptions
from onnxc.tools.bench import difference, macs_by_node, onnxruntime_outputs, random_feeds
from onnxc.tools.bench_layers import node_names
from onnxc.tools.free_dims import ask_for_sizes
from onnxc.tools.instruction_count import count_instructions, count_steps
from onnxc.tools.short_names import shorten


@dataclass(frozen=True)
class Step:
    """One step: its label, instructions and the MACs of its nodes."""

    label: str
    instructions: int
    macs: int


@dataclass(frozen=True)
class McuBenchResult:
    """The instructions of one inference on `target`, the MACs counted, the
    largest difference from onnxruntime's outputs, and the steps (per layer)
    slowest first, or None."""

    target: str
    instructions: int
    macs: int
    max_abs_difference: float
    steps: list[Step] | None = None


def bench_mcu(
    path: Path, options: CompileOptions, *, seed: int = 0, per_layer: bool = False
) -> McuBenchResult:
    """Count the instructions of one inference of `path` on the emulated
    `options.target` (see the module docstring)."""
    ask_for_sizes(path, options, {})
    model = compile_with(path, options)
    feeds = random_feeds(model, dict(options.dims), seed)
    ordered = [feeds[spec.name] for spec in model.runner.inputs]  # MCU inputs are tensors
    counted = count_instructions(model, ordered, opt_level=options.opt_level)
    ours = dict(zip(model.output_names, counted.outputs, strict=True))
    theirs = onnxruntime_outputs(path, feeds, model.output_names)
    macs = macs_by_node(path, options)
    steps = None
    if per_layer:
        profiled = generate_with(path, dataclasses.replace(options, profile=True))
        _, counted_steps = count_steps(
            profiled,
            options.target,
            ordered,
            opt_level=options.opt_level,
            timeout=options.timeout,
        )
        steps = sorted(
            (
                Step(s.label, s.instructions, sum(macs.get(n, 0) for n in node_names(s.label)))
                for s in counted_steps
            ),
            key=lambda s: -s.instructions,
        )
    return McuBenchResult(
        target=options.target,
        instructions=counted.instructions,
        macs=sum(macs.values()),
        max_abs_difference=difference(ours, theirs),
        steps=steps,
    )


def format_mcu_result(name: str, result: McuBenchResult) -> str:
    """The line of one model, and its steps when counted."""
    per_mac = f"{result.instructions / result.macs:.2f}" if result.macs else "-"
    lines = [
        f"{'model':20} {'target':10} {'instructions':>14} {'MACs':>12} {'per MAC':>8} "
        f"{'max |diff|':>11}",
        f"{name:20} {result.target:10} {result.instructions:14,} {result.macs:12,} "
        f"{per_mac:>8} {result.max_abs_difference:11.3g}",
        "(one inference under qemu -icount shift=0: instructions, not cycles; "
        "max |diff| against onnxruntime on the host, same inputs)",
    ]
    if result.steps is not None:
        total = sum(s.instructions for s in result.steps) or 1
        lines += ["", f"{'step':48} {'instructions':>14} {'share':>6} {'per MAC':>8}"]
        for step in result.steps:
            share = 100 * step.instructions / total
            ratio = f"{step.instructions / step.macs:.2f}" if step.macs else "-"
            lines.append(
                f"{shorten(step.label, 48):48} {step.instructions:14,} {share:5.1f}% {ratio:>8}"
            )
    return "\n".join(lines)
