"""Speed of the benchmark set against onnxruntime, one table.

    python benchmarks/speed.py [--rounds 7] [--threads 1] [--dir DIR] [MODEL ...]

The models are those of benchmarks/zoo.py (ResNet-18 and -50, MobileNetV2,
SqueezeNet 1.1, EfficientNet-B0, BERT-base- and MiniLM-shaped encoders at
sequence 128, 2-layer LSTM and GRU, a 1D-conv audio model, a DBNet-style and
a YOLOv8n-style detector) and the CNNs of the test suite (tests/models.py,
`MODEL_CLASSES`); default all of them, in that order. The zoo's ONNX files
are exported once into --dir (default ~/.cache/onnxc-bench; delete a file to
export it again), the test-suite CNNs again on every run.

Each model is timed by `onnxc.tools.bench` (what `onnxc bench` runs):
compiled for the host, loaded into onnxruntime with one intra-op and one
inter-op thread, both fed the same seeded random inputs (standard normal
floats; token ids in [0, 10), valid for the encoders' vocabulary), timed in
alternating rounds, medians compared. With --threads N, onnxc's C is built
with N threads (`CompileOptions.threads`) and onnxruntime gets N intra-op
threads. Prints per model: the multiply-accumulates counted
(GMAC), onnxruntime ms, onnxc ms, the ratio (onnxruntime time / onnxc time:
above 1 means onnxc is faster), onnxc's GFLOP/s (two operations per counted
multiply-accumulate) and its share of `PEAK_GFLOPS` (times the threads), and the largest
difference of the two outputs; then the geometric mean of the ratios. The
count is `bench`'s: Conv, ConvTranspose, Gemm and MatMul only, so the LSTM
and GRU rows count their Linear heads and not the recurrent layers. A
model that fails to export, compile or run gets "failed: " and the first
line of the error, and the others go on. Needs torch (to export the models).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import zoo  # noqa: E402 - beside this file

from onnxc.options import CompileOptions  # noqa: E402
from onnxc.tools.bench import BenchResult, bench  # noqa: E402
from tests.models import MODEL_CLASSES, build  # noqa: E402
from tests.models import export as export_test_model  # noqa: E402

PEAK_GFLOPS = 117.6
"""Single-core fp32 GFLOP/s, measured on the machine these benchmarks were
written on (an AMD Zen 4 vCPU: 12 independent chains of fused multiply-adds,
thread CPU time): the 100% of "% of peak". Its clock varies (ResNet-8's
small convolutions have run above it), so the share is a guide, not a bound."""

DEFAULT_DIR = Path.home() / ".cache" / "onnxc-bench"

HEADER = (
    f"{'model':18} {'GMAC':>7} {'onnxruntime ms':>15} {'onnxc ms':>10} {'ratio':>7} "
    f"{'onnxc GFLOP/s':>14} {'% of peak':>10} {'max |diff|':>11}"
)


def model_file(name: str, folder: Path) -> Path:
    """The ONNX file of `name`: a zoo model's is exported once, a test-suite
    CNN's on every call."""
    if name in zoo.MODELS:
        return zoo.export(name, folder)
    model, example = build(name)
    return export_test_model(model, example, folder / "tests" / f"{name}.onnx", dynamo=False)


def row(name: str, result: BenchResult) -> str:
    gflops = result.gflops(result.onnxc_ms)
    return (
        f"{name:18} {result.macs / 1e9:7.4f} {result.onnxruntime_ms:15.3f} "
        f"{result.onnxc_ms:10.3f} {result.ratio:7.3f} {gflops:14.2f} "
        f"{100 * gflops / (PEAK_GFLOPS * result.threads):9.1f}% "
        f"{result.max_abs_difference:11.3g}"
    )


def first_line(error: Exception) -> str:
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
    return text if len(text) <= 150 else text[:147] + "..."


def main() -> None:
    names = [*zoo.MODELS, *MODEL_CLASSES]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("models", nargs="*", default=names, metavar="MODEL", help=" ".join(names))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1, help="threads of each runner")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="where the ONNX files go")
    args = parser.parse_args()
    unknown = [name for name in args.models if name not in names]
    if unknown:
        parser.error(f"unknown model {', '.join(unknown)} (the models: {' '.join(names)})")
    args.dir.mkdir(parents=True, exist_ok=True)
    print(HEADER, flush=True)
    ratios: list[float] = []
    for name in args.models:
        try:
            path = model_file(name, args.dir)
            options = CompileOptions.make(name=name, threads=args.threads)
            result = bench(path, options, rounds=args.rounds)
        except Exception as error:  # any failure is the model's row; the others go on
            print(f"{name:18} failed: {first_line(error)}", flush=True)
            continue
        ratios.append(result.ratio)
        print(row(name, result), flush=True)
    if ratios:
        mean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        print(
            f"geometric mean of the ratios over {len(ratios)} of {len(args.models)} models: "
            f"{mean:.3f}"
        )
    print(
        f"(medians of {args.rounds} alternating rounds, {args.threads} thread(s) each; "
        f"ratio = onnxruntime / onnxc, above 1 is faster; peak {PEAK_GFLOPS} GFLOP/s)"
    )


if __name__ == "__main__":
    main()
