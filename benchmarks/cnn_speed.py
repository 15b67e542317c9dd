"""Speed of the test-suite CNNs against onnxruntime, side by side in one process.

    python benchmarks/cnn_speed.py [--rounds 7] [--per-layer] [MODEL ...]

Each model (tests/models.py, exported with the legacy exporter, BatchNorm
folded) is timed by `onnxc.tools.bench` (what `onnxc bench` runs): compiled for the
host, loaded into onnxruntime with one intra-op and one inter-op thread, both
fed the same inputs, timed in alternating rounds, medians compared. Prints
per model: onnxruntime ms, onnxc ms, the ratio (onnxruntime time / onnxc
time: above 1 means onnxc is faster) and onnxc's NAME_WORKSPACE_SIZE; with
--per-layer, each model's per-layer table (`onnxc bench --per-layer`) after
its row. Needs torch (to export the models).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import onnxc  # noqa: E402
from onnxc.options import CompileOptions  # noqa: E402
from onnxc.tools.bench import bench  # noqa: E402
from onnxc.tools.bench_layers import format_layers  # noqa: E402
from tests.models import MODEL_CLASSES, build, export  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("models", nargs="*", default=sorted(MODEL_CLASSES))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--per-layer", action="store_true", help="where each model's time goes")
    args = parser.parse_args()
    print(f"{'model':18} {'onnxruntime ms':>15} {'onnxc ms':>10} {'ratio':>7} {'workspace B':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            model, example = build(name)
            path = export(model, example, Path(tmp) / f"{name}.onnx", dynamo=False)
            options = CompileOptions.make(name=name)
            result = bench(path, options, rounds=args.rounds, per_layer=args.per_layer)
            if result.max_abs_difference > 1e-4:
                raise SystemExit(f"{name}: outputs differ by {result.max_abs_difference:.3g}")
            workspace = onnxc.compile(path, name=name).workspace_size
            print(
                f"{name:18} {result.onnxruntime_ms:15.4f} {result.onnxc_ms:10.4f} "
                f"{result.ratio:7.3f} {workspace:12d}"
            )
            if result.layers is not None:
                print(format_layers(result.layers), end="\n\n")


if __name__ == "__main__":
    main()
