"""Speed of the test-suite CNNs against onnxruntime, side by side in one process.

    python benchmarks/cnn_speed.py [--repeat 200] [--rounds 7] [MODEL ...]

Each model (tests/models.py, exported with the legacy exporter, BatchNorm
folded) is compiled by onnxc for the host and loaded into onnxruntime with one
intra-op and one inter-op thread. Timing alternates between the two runners in
rounds, each round timing `--repeat` calls of each; the medians of the rounds
are compared, so machine noise hits both alike. Prints per model: onnxruntime
ms, onnxc ms, the ratio (onnxruntime time / onnxc time: above 1 means onnxc is
faster) and onnxc's NAME_WORKSPACE_SIZE. Needs torch (to export the models).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import onnxruntime as ort  # noqa: E402

import onnxc  # noqa: E402
from tests.models import MODEL_CLASSES, build, export  # noqa: E402


def _per_call_ms(call: Callable[[], object], repeat: int) -> float:
    start = time.perf_counter()
    for _ in range(repeat):
        call()
    return (time.perf_counter() - start) * 1e3 / repeat


def measure(name: str, folder: Path, repeat: int, rounds: int) -> tuple[float, float, int]:
    model, example = build(name)
    path = export(model, example, folder / f"{name}.onnx", dynamo=False)
    x = np.random.default_rng(0).standard_normal(example.shape).astype(np.float32)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    compiled = onnxc.compile(path, name=name)
    feeds = {"input": x}
    want = session.run(None, feeds)[0]
    assert isinstance(want, np.ndarray)
    got = compiled.run(feeds)["output"]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    ort_times, onnxc_times = [], []
    for _ in range(rounds):
        ort_times.append(_per_call_ms(lambda: session.run(None, feeds), repeat))
        onnxc_times.append(_per_call_ms(lambda: compiled.run(feeds), repeat))
    workspace = compiled.workspace_size
    assert workspace is not None  # the CNNs have static shapes
    return statistics.median(ort_times), statistics.median(onnxc_times), workspace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("models", nargs="*", default=sorted(MODEL_CLASSES))
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    print(f"{'model':18} {'onnxruntime ms':>15} {'onnxc ms':>10} {'ratio':>7} {'workspace B':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            ort_ms, onnxc_ms, workspace = measure(name, Path(tmp), args.repeat, args.rounds)
            print(
                f"{name:18} {ort_ms:15.4f} {onnxc_ms:10.4f} "
                f"{ort_ms / onnxc_ms:7.3f} {workspace:12d}"
            )


if __name__ == "__main__":
    main()
