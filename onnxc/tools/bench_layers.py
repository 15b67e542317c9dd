"""`onnxc bench --per-layer`: where onnxc's time goes, node by node, with
onnxruntime's own profile beside it.

onnxc's side is a profiling build of the model (compile option `profile`):
its C calls `onnxc_profile_mark` where the code of each step starts (one ONNX
node, or the nodes fused into one kernel: `insert-profile-marks`), and the
hook compiled into the extension (`PROFILE_HOOK`, reading the monotonic clock)
adds the time since the previous mark to that step. The profiled model is
called in rounds like the plain one; a step's time is the median over the
rounds of its mean per call. GFLOP/s count the multiply-accumulates of the
ONNX nodes a step's label names (as `bench` counts them).

onnxruntime's side comes from its own profiler (`enable_profiling`): the mean
kernel time of each node over the profiled calls. onnxruntime names the nodes
it makes from those it replaces ("fused /fc1/Gemm") or from their output
tensors ("/Relu_output_0_nchwc"); each is put beside the onnxc step whose
label names the ONNX node it comes from, and those that come from no ONNX
node (its layout reorders) are listed apart. Its profiler adds overhead of
its own, so its per-node times add up to more than its unprofiled time.
"""

from __future__ import annotations

import dataclasses
import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx

from onnxc.api import CompiledModel, generate_with
from onnxc.emit.build import CompiledC, build_extension
from onnxc.errors import OnnxcError
from onnxc.options import CompileOptions
from onnxc.targets import get_target
from onnxc.tools.short_names import shorten

PROFILE_STEPS = 4096
"""Steps the hook records (later ones are not timed)."""

PROFILE_HOOK = f"""
#include <time.h>
double onnxc_profile_seconds[{PROFILE_STEPS}];
const char *onnxc_profile_labels[{PROFILE_STEPS}];
int32_t onnxc_profile_steps;
static int32_t onnxc_profile_open = -1;
static struct timespec onnxc_profile_since;

void onnxc_profile_mark(int32_t node, const char *label) {{
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (onnxc_profile_open >= 0) {{
    onnxc_profile_seconds[onnxc_profile_open] +=
        (double)(now.tv_sec - onnxc_profile_since.tv_sec) +
        1e-9 * (double)(now.tv_nsec - onnxc_profile_since.tv_nsec);
  }}
  onnxc_profile_open = -1;
  if (label[0] == '\\0') {{
    if (node > onnxc_profile_steps) onnxc_profile_steps = node;
    return;
  }}
  if (node >= 0 && node < {PROFILE_STEPS}) {{
    onnxc_profile_labels[node] = label;
    onnxc_profile_open = node;
  }}
  onnxc_profile_since = now;
}}
"""
"""The hook of a profiling build (C compiled into the cffi extension): the
seconds spent in each step so far, the label of each, and the step count."""

PROFILE_CDEF = f"""
extern double onnxc_profile_seconds[{PROFILE_STEPS}];
extern const char *onnxc_profile_labels[{PROFILE_STEPS}];
extern int32_t onnxc_profile_steps;
"""

ONNXRUNTIME_CALLS = 500
"""Calls onnxruntime's profiler records (each writes events to a JSON file)."""


@dataclass(frozen=True)
class Layer:
    """One step of onnxc's code: its label ("Conv conv1+relu1"), milliseconds
    per call, the MACs of its nodes, and onnxruntime's milliseconds for the
    nodes it put beside it (None: none)."""

    label: str
    ms: float
    macs: int
    onnxruntime_ms: float | None = None

    def gflops(self) -> float | None:
        return 2 * self.macs / (self.ms * 1e6) if self.macs and self.ms > 0 else None


@dataclass(frozen=True)
class LayerProfile:
    """onnxc's steps (slowest first), the wall time of one profiled call
    (what Python's `run` adds included), and onnxruntime's nodes that come
    from no ONNX node, as (label, ms)."""

    layers: list[Layer]
    call_ms: float
    onnxruntime_only: list[tuple[str, float]]

    @property
    def total_ms(self) -> float:
        return sum(layer.ms for layer in self.layers)


def node_names(label: str) -> list[str]:
    """The ONNX node names in a step's label: 'Conv a+b' -> ['a', 'b']
    (the operator comes first; fused nodes are joined by '+')."""
    _, _, names = label.partition(" ")
    return [name for name in names.split("+") if name]


def profiled_model(path: Path, options: CompileOptions) -> CompiledModel:
    """A profiling build of `path`, loaded with the hook."""
    chosen = get_target(options.target)
    generated = generate_with(path, dataclasses.replace(options, profile=True))
    extension = build_extension(
        generated.c_source,
        generated.header_source,
        generated.name,
        extra_cflags=(f"-O{options.opt_level}", *chosen.cflags, *options.thread_cflags()),
        preamble=PROFILE_HOOK,
        cdef=PROFILE_CDEF,
    )
    return CompiledModel(generated, CompiledC(extension, generated.name, generated.weights))


def _step_seconds(model: CompiledModel) -> tuple[list[str], np.ndarray]:
    runner = model.runner
    assert isinstance(runner, CompiledC)
    lib, ffi = runner.lib, runner.ffi
    steps = min(int(lib.onnxc_profile_steps), PROFILE_STEPS)
    labels = [
        ffi.string(lib.onnxc_profile_labels[k]).decode(errors="replace")
        if lib.onnxc_profile_labels[k] != ffi.NULL
        else ""
        for k in range(steps)
    ]
    return labels, np.array([lib.onnxc_profile_seconds[k] for k in range(steps)])


def time_steps(
    model: CompiledModel, call: Callable[[], object], rounds: int, repeat: int
) -> tuple[list[str], list[float], float]:
    """The labels of the steps of a profiled model, the milliseconds per call
    of each (median over `rounds` of `repeat` calls), and the median
    milliseconds of one whole call."""
    call()  # the first call records the labels
    per_round: list[np.ndarray] = []
    walls: list[float] = []
    for _ in range(rounds):
        _, before = _step_seconds(model)
        start = time.perf_counter()
        for _ in range(repeat):
            call()
        walls.append((time.perf_counter() - start) * 1e3 / repeat)
        labels, after = _step_seconds(model)
        per_round.append((after - before) * 1e3 / repeat)
    medians = np.median(np.stack(per_round), axis=0) if per_round else np.zeros(0)
    labels, _ = _step_seconds(model)
    return labels, [float(m) for m in medians], statistics.median(walls)


def onnxruntime_nodes(
    path: Path, feeds: Mapping[str, np.ndarray], calls: int = ONNXRUNTIME_CALLS
) -> dict[str, tuple[str, float]]:
    """onnxruntime's own profile of `path` on one thread: node name ->
    (operator, mean milliseconds of its kernel per call)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    with tempfile.TemporaryDirectory() as tmp:
        options.profile_file_prefix = str(Path(tmp) / "onnxruntime")
        try:
            session = onnxruntime.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
            for _ in range(calls):
                session.run(None, dict(feeds))
            events: list[dict[str, Any]] = json.loads(Path(session.end_profiling()).read_text())
        except Exception as error:  # onnxruntime raises its own exception types
            first = str(error).strip().splitlines()[0] if str(error).strip() else "failed"
            raise OnnxcError(f"bench: onnxruntime's profiler failed ({first})") from None
    found: dict[str, tuple[str, float]] = {}
    for event in events:
        name = str(event.get("name", ""))
        if event.get("cat") != "Node" or not name.endswith("_kernel_time"):
            continue
        node = name.removesuffix("_kernel_time")
        op_type = str(event.get("args", {}).get("op_name", ""))
        previous = found.get(node, (op_type, 0.0))[1]
        found[node] = (op_type, previous + float(event.get("dur", 0)) * 1e-3 / calls)
    return found


def _onnx_node_of(name: str, model: onnx.ModelProto) -> str | None:
    """The ONNX node an onnxruntime node comes from: its own name, the name
    it was fused from ('fused X'), or the node writing the tensor it is
    named after ('Y_nchwc'); None for its own nodes (reorders)."""
    nodes = {n.name for n in model.graph.node}
    writers = {out: n.name for n in model.graph.node for out in n.output}
    for candidate in (name, re.sub(r"^fused ", "", name), re.sub(r"_nchwc$", "", name)):
        if candidate in nodes:
            return candidate
        if candidate in writers:
            return writers[candidate]
    return None


def assemble(
    labels: list[str],
    ms: list[float],
    call_ms: float,
    macs: Mapping[str, int],
    theirs: Mapping[str, tuple[str, float]] | None,
    model: onnx.ModelProto,
) -> LayerProfile:
    """The profile: onnxc's steps with their MACs (by ONNX node name) and
    onnxruntime's nodes put beside the step naming their ONNX node; steps
    with one label (unnamed nodes) are one row."""
    step_of_node: dict[str, int] = {}
    for k, label in enumerate(labels):
        for name in node_names(label):
            step_of_node.setdefault(name, k)
    beside: dict[int, float] = {}
    apart: list[tuple[str, float]] = []
    for name, (op_type, their_ms) in (theirs or {}).items():
        node = _onnx_node_of(name, model)
        if node is not None and node in step_of_node:
            k = step_of_node[node]
            beside[k] = beside.get(k, 0.0) + their_ms
        else:
            apart.append((f"{op_type} {name}", their_ms))
    merged: dict[str, Layer] = {}  # steps of one label (unnamed reshapes) as one row
    for k, (label, t) in enumerate(zip(labels, ms, strict=True)):
        their_ms = beside.get(k) if theirs is not None else None
        if label in merged:
            before = merged[label]
            if before.onnxruntime_ms is not None or their_ms is not None:
                their_ms = (before.onnxruntime_ms or 0.0) + (their_ms or 0.0)
            merged[label] = Layer(label, before.ms + t, before.macs, their_ms)
        else:
            node_macs = sum(macs.get(name, 0) for name in node_names(label))
            merged[label] = Layer(label, t, node_macs, their_ms)
    layers = list(merged.values())
    layers.sort(key=lambda layer: -layer.ms)
    apart.sort(key=lambda item: -item[1])
    return LayerProfile(layers, call_ms, apart)


def format_layers(profile: LayerProfile) -> str:
    """The per-layer table: one row per step, slowest first, then the sums
    (labels shortened: `shorten`)."""
    total = profile.total_ms
    lines = [
        f"{'share':>7} {'onnxc ms':>10} {'GFLOP/s':>8} {'onnxrt ms':>10}  node",
    ]

    def number(value: float | None, width: int, digits: int) -> str:
        return f"{value:{width}.{digits}f}" if value is not None else f"{'-':>{width}}"

    for layer in profile.layers:
        share = 100 * layer.ms / total if total > 0 else 0.0
        lines.append(
            f"{share:6.1f}% {layer.ms:10.4f} {number(layer.gflops(), 8, 2)} "
            f"{number(layer.onnxruntime_ms, 10, 4)}  {shorten(layer.label)}"
        )
    for label, their_ms in profile.onnxruntime_only:
        lines.append(
            f"{'':7} {'':10} {'':8} {their_ms:10.4f}  ({shorten(label)}: onnxruntime only)"
        )
    theirs = [layer.onnxruntime_ms or 0.0 for layer in profile.layers]
    their_total = sum(theirs) + sum(ms for _, ms in profile.onnxruntime_only)
    shown = profile.onnxruntime_only or any(layer.onnxruntime_ms for layer in profile.layers)
    lines.append(
        f"{100.0 if total > 0 else 0.0:6.1f}% {total:10.4f} {'':8} "
        f"{number(their_total if shown else None, 10, 4)}  sum of the nodes "
        f"(one profiled call: {profile.call_ms:.4f} ms)"
    )
    return "\n".join(lines)
