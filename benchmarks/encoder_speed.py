"""Speed of a transformer encoder layer against onnxruntime, side by side.

    python benchmarks/encoder_speed.py [--rounds 9] [--repeat 3] [WIDTH:SEQ ...]

For each size (default 64:64 128:64 256:64 256:128 384:128), the
EncoderLayer of tests/models.py (post-norm, 4 heads, 6 from width 384 on,
feed-forward 4x the width) is exported with the legacy exporter at batch 1
and that sequence length, all shapes static, and timed `repeat` times by
`onnxc.tools.bench` (what `onnxc bench` runs: one thread each, alternating rounds,
medians). Prints each run's milliseconds, ratio (onnxruntime time / onnxc
time: above 1 means onnxc is faster) and GFLOP/s, then the median ratio.
Needs torch (to export the models).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402

from onnxc.options import CompileOptions  # noqa: E402
from onnxc.tools.bench import bench  # noqa: E402
from tests.models import EncoderLayer, export  # noqa: E402

SIZES = ["64:64", "128:64", "256:64", "256:128", "384:128"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("sizes", nargs="*", default=SIZES, metavar="WIDTH:SEQ")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes:
            width, seq = (int(part) for part in size.split(":"))
            torch.manual_seed(0)
            layer = EncoderLayer(width, 6 if width >= 384 else 4, 4 * width)
            path = export(layer, torch.randn(1, seq, width), Path(tmp) / "e.onnx", dynamo=False)
            ratios = []
            for _ in range(args.repeat):
                result = bench(
                    path, CompileOptions.make(name=f"encoder_{width}_{seq}"), rounds=args.rounds
                )
                if result.max_abs_difference > 1e-4:
                    raise SystemExit(f"{size}: outputs differ by {result.max_abs_difference:.3g}")
                ratios.append(result.ratio)
                print(
                    f"d{width} seq{seq}: onnxruntime {result.onnxruntime_ms:.4f} ms "
                    f"({result.gflops(result.onnxruntime_ms):.0f} GFLOP/s), onnxc "
                    f"{result.onnxc_ms:.4f} ms ({result.gflops(result.onnxc_ms):.0f} GFLOP/s), "
                    f"ratio {result.ratio:.3f}",
                    flush=True,
                )
            print(f"d{width} seq{seq}: median ratio {statistics.median(ratios):.3f}", flush=True)


if __name__ == "__main__":
    main()
