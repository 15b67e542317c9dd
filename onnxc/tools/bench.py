"""`onnxc bench`: onnxc's speed against onnxruntime's on one model, side by
side in one process, one thread each (or N each: `CompileOptions.threads`,
onnxc's build with OpenMP and onnxruntime's intra-op threads).

Both run the same random inputs (seeded). Timing alternates between the two
in rounds; each round times `repeat` calls of each (chosen so that a round of
the slower takes about `ROUND_SECONDS`), and the medians over the rounds are
compared, so that a noisy machine slows both alike. onnxc is timed through
`CompiledModel.run`, as a Python user calls it (its overhead included), and
onnxruntime through `InferenceSession.run` with as many intra-op threads
and one inter-op thread. GFLOP/s count two operations per multiply-accumulate of the
nodes the size report counts (Conv, ConvTranspose, Gemm, MatMul and their
integer forms, inside If, Loop and Scan bodies too: `report.node_work`);
other work is not counted. Free dimensions need sizes (`--dim`), asked for
before the model is compiled (`free_dims.ask_for_sizes`). With `per_layer`,
a profiling build says where onnxc's time goes, node by node
(`onnxc.tools.bench_layers`).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from onnxc import container_io
from onnxc.api import CompiledModel, compile_with
from onnxc.errors import OnnxcError
from onnxc.frontend import import_model, load_model
from onnxc.options import CompileOptions
from onnxc.pipeline import lower
from onnxc.targets import get_target
from onnxc.tools.bench_layers import (
    LayerProfile,
    assemble,
    format_layers,
    onnxruntime_nodes,
    profiled_model,
    time_steps,
)
from onnxc.tools.free_dims import ask_for_sizes
from onnxc.tools.random_inputs import random_input
from onnxc.tools.report import node_macs

ROUND_SECONDS = 0.2
"""About how long one round of the slower runner takes."""


@dataclass(frozen=True)
class BenchResult:
    """Median milliseconds per call of each runner, the MACs counted, the
    largest difference of their outputs, and the rounds and calls timed."""

    onnxc_ms: float
    onnxruntime_ms: float
    macs: int
    max_abs_difference: float
    rounds: int
    repeat: int
    threads: int = 1
    layers: LayerProfile | None = None
    """Where the time goes (`bench(per_layer=True)`), else None."""

    @property
    def ratio(self) -> float:
        """onnxruntime's time over onnxc's: above 1, onnxc is faster."""
        return self.onnxruntime_ms / self.onnxc_ms

    def gflops(self, ms: float) -> float:
        return 2 * self.macs / (ms * 1e6) if ms > 0 else 0.0


def _session(path: Path, threads: int = 1) -> Any:
    """onnxruntime's session of `path`, on `threads` intra-op threads."""
    try:
        import onnxruntime
    except ImportError:
        raise OnnxcError("bench: onnxruntime is not installed (pip install onnxruntime)") from None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    try:
        return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own exception types
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise OnnxcError(f"bench: onnxruntime cannot load the model ({first})") from None


def _per_call_ms(call: Callable[[], object], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        call()
    return (time.perf_counter() - start) * 1e3 / repeat


def random_feeds(model: CompiledModel, dims: dict[str, int], seed: int) -> dict[str, Any]:
    """Random inputs, a sequence input's tensors grouped into its list."""
    rng = np.random.default_rng(seed)
    tensors = {
        spec.name: random_input(spec, dims, rng)
        for spec in model.runner.inputs
        if spec.name not in model.generated.input_defaults
    }
    return container_io.group_inputs(tensors, model.generated.containers)


def macs_by_node(path: Path, options: CompileOptions) -> dict[str, int]:
    """The multiply-accumulates the size report counts, by ONNX node name."""
    imported = import_model(path, options.dims, options.shapes, options.max_dims)
    found: dict[str, int] = {}
    for name, count in node_macs(lower(imported.module, "onnx")):
        found[name] = found.get(name, 0) + count
    return found


def macs_of(path: Path, options: CompileOptions) -> int:
    """The multiply-accumulates the size report counts for the model."""
    return sum(macs_by_node(path, options).values())


def _feeds_for(session: Any, feeds: dict[str, Any]) -> dict[str, Any]:
    """The feeds `session` takes (onnxruntime refuses the others)."""
    wanted = {i.name for i in session.get_inputs()}
    return {k: v for k, v in feeds.items() if k in wanted}


def onnxruntime_outputs(path: Path, feeds: dict[str, Any], names: list[str]) -> list[Any]:
    """onnxruntime's outputs `names` of `path` on `feeds` (one thread)."""
    session = _session(path)
    return session.run(names, _feeds_for(session, feeds))


def difference(ours: dict[str, Any], theirs: list[Any]) -> float:
    """The largest absolute difference between onnxc's outputs and
    onnxruntime's (in the same order), over every output."""
    return max(
        (
            _difference(a, np.asarray(b) if isinstance(b, np.ndarray | np.generic) else b)
            for a, b in zip(ours.values(), theirs, strict=True)
        ),
        default=0.0,
    )


def _difference(ours: Any, theirs: Any) -> float:
    """The largest absolute difference of two outputs (tensors, or sequences
    of them tensor by tensor); for strings, maps and presence, 0 when they
    are equal, else infinity."""
    if isinstance(ours, list) and ours and not isinstance(ours[0], dict):
        if not isinstance(theirs, list) or len(ours) != len(theirs):
            return float("inf")
        return max(_difference(a, b) for a, b in zip(ours, theirs, strict=True))
    if not isinstance(ours, np.ndarray) or not isinstance(theirs, np.ndarray):
        return 0.0 if ours == theirs else float("inf")
    if not ours.size:
        return 0.0
    if ours.dtype == object or theirs.dtype == object:
        return 0.0 if ours.tolist() == theirs.tolist() else float("inf")
    return float(np.max(np.abs(ours.astype(np.float64) - theirs.astype(np.float64))))


def bench(
    path: Path,
    options: CompileOptions,
    *,
    rounds: int = 7,
    seed: int = 0,
    per_layer: bool = False,
) -> BenchResult:
    """Compile `path` for the host and time it against onnxruntime; with
    `per_layer`, profile both node by node too."""
    if rounds < 1:
        raise OnnxcError("bench: --rounds must be 1 or more")
    if not get_target(options.target).is_host:
        raise OnnxcError(
            "bench: an MCU target is not timed but counted (onnxc.tools.bench_mcu.bench_mcu)"
        )
    ask_for_sizes(path, options, {})
    model = compile_with(path, options)
    session = _session(path, options.threads)
    feeds = random_feeds(model, dict(options.dims), seed)
    ort_feeds = _feeds_for(session, feeds)
    largest = difference(model.run(feeds), session.run(model.output_names, ort_feeds))
    once = max(
        _per_call_ms(lambda: model.run(feeds), 1),
        _per_call_ms(lambda: session.run(None, ort_feeds), 1),
    )
    repeat = max(1, min(10_000, int(ROUND_SECONDS * 1e3 / max(once, 1e-3))))
    onnxc_times: list[float] = []
    ort_times: list[float] = []
    for _ in range(rounds):
        onnxc_times.append(_per_call_ms(lambda: model.run(feeds), repeat))
        ort_times.append(_per_call_ms(lambda: session.run(None, ort_feeds), repeat))
    macs = macs_by_node(path, options)
    layers = None
    if per_layer:
        profiled = profiled_model(path, options)
        labels, ms, call_ms = time_steps(profiled, lambda: profiled.run(feeds), rounds, repeat)
        theirs = onnxruntime_nodes(path, ort_feeds)
        layers = assemble(labels, ms, call_ms, macs, theirs, load_model(path))
    return BenchResult(
        onnxc_ms=statistics.median(onnxc_times),
        onnxruntime_ms=statistics.median(ort_times),
        macs=sum(macs.values()),
        max_abs_difference=largest,
        rounds=rounds,
        repeat=repeat,
        threads=options.threads,
        layers=layers,
    )


def format_result(name: str, result: BenchResult) -> str:
    """The table of one model: header line and row."""
    header = (
        f"{'model':20} {'onnxruntime ms':>15} {'onnxc ms':>10} {'ratio':>7} "
        f"{'onnxrt GFLOP/s':>15} {'onnxc GFLOP/s':>14} {'max |diff|':>11}"
    )
    row = (
        f"{name:20} {result.onnxruntime_ms:15.4f} {result.onnxc_ms:10.4f} {result.ratio:7.3f} "
        f"{result.gflops(result.onnxruntime_ms):15.2f} {result.gflops(result.onnxc_ms):14.2f} "
        f"{result.max_abs_difference:11.3g}"
    )
    footer = (
        f"({result.rounds} rounds of {result.repeat} calls each, alternating; medians; "
        "ratio = onnxruntime / onnxc, above 1 is faster; "
        + ("one thread each)" if result.threads == 1 else f"{result.threads} threads each)")
    )
    lines = [header, row, footer]
    if result.layers is not None:
        lines += ["", "per layer (onnxc's profiling build; onnxruntime's own profiler):"]
        lines.append(format_layers(result.layers))
    return "\n".join(lines)
