"""Compile time, peak memory and C size of large models (issue: big models).

    python benchmarks/big_models.py [--models minilm,cnn20,bertbase,resnet50] [--dir DIR]

Each model is exported from PyTorch with random weights (seeded), then
compiled and built for the host in a fresh process, which reports each
stage's seconds (onnxc's `Progress`), its own peak resident memory and the
C compiler's, and the sizes of the generated C against the weight bytes.
A second compile of the same model in another fresh process shows the
compilation cache. Not a test: the figures go into notes and README.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import onnx

MODELS = ("minilm", "cnn20", "bertbase", "resnet50")


def _encoder(vocab: int, hidden: int, layers: int, heads: int, ffn: int):  # noqa: ANN202
    import torch  # noqa: PLC0415
    from torch import nn  # noqa: PLC0415

    class Encoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tokens = nn.Embedding(vocab, hidden)
            self.positions = nn.Embedding(512, hidden)
            self.norm = nn.LayerNorm(hidden)
            layer = nn.TransformerEncoderLayer(hidden, heads, ffn, batch_first=True)
            self.layers = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            positions = torch.arange(ids.shape[1]).unsqueeze(0)
            return self.layers(self.norm(self.tokens(ids) + self.positions(positions)))

    model = Encoder().eval()
    with torch.no_grad():  # the layers start as copies of one: make every weight its own
        for parameter in model.parameters():
            parameter.copy_(torch.randn_like(parameter) * 0.05)
    return model, torch.zeros((1, 128), dtype=torch.int64)


def _cnn():  # noqa: ANN202
    import torch  # noqa: PLC0415
    from torch import nn  # noqa: PLC0415

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2)]

    model = nn.Sequential(
        *block(3, 64),
        *block(64, 128),
        *block(128, 256),
        nn.Conv2d(256, 512, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(512, 512, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(512, 512, 3, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(512, 1000),
    )
    return model.eval(), torch.zeros((1, 3, 64, 64))


def export(name: str, folder: Path) -> Path:
    """The model `name` as an ONNX file in `folder` (made once)."""
    import torch  # noqa: PLC0415

    path = folder / f"{name}.onnx"
    if path.exists():
        return path
    torch.manual_seed(0)
    if name == "minilm":
        model, example = _encoder(30522, 384, 6, 12, 1536)
    elif name == "bertbase":
        model, example = _encoder(30522, 768, 12, 12, 3072)
    elif name == "resnet50":
        from resnets import resnet  # noqa: PLC0415 - beside this file

        model, example = resnet(name)
    else:
        model, example = _cnn()
    torch.onnx.export(model, (example,), str(path), dynamo=False, opset_version=17)
    return path


_DRIVER = """
import json, resource, sys, time
import onnxc
from onnxc.progress import Progress
class Stages(Progress):
    def _line(self, text):
        self.lines.append(" ".join(text.split()))
p = Stages(sys.stderr, live=False)
p.lines = []
start = time.perf_counter()
model = onnxc.compile(sys.argv[1], name=sys.argv[2], progress=p)
total = time.perf_counter() - start
files = {k: len(v) for k, v in model.generated.files.items()} if hasattr(model, "generated") else {}
print(json.dumps({
    "stages": p.lines,
    "total": total,
    "python_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
}))
"""


def measure(path: Path, name: str, cache: Path) -> dict[str, object]:
    env = {"ONNXC_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"}
    import os  # noqa: PLC0415

    env = {**os.environ, **env}
    out = subprocess.run(
        [sys.executable, "-c", _DRIVER, str(path), name],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def c_build(path: Path, name: str, folder: Path) -> dict[str, float]:
    """The generated C's size, and seconds and peak memory (GNU time) of
    compiling it as the host build does (-O3), in a separate process."""
    import onnxc  # noqa: PLC0415

    out = folder / f"{name}-c"
    onnxc.generate_c(str(path), name=name).write(out)
    timed = subprocess.run(
        ["/usr/bin/time", "-f", "%e %M", "cc", "-O3", "-std=c99", "-c", f"{name}.c", "-I."],
        cwd=out,
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, kilobytes = timed.stderr.split()[-2:]
    return {
        "c_bytes": (out / f"{name}.c").stat().st_size,
        "cc_seconds": float(seconds),
        "cc_peak_mb": int(kilobytes) / 1024,
    }


def weight_bytes(path: Path) -> int:
    model = onnx.load(str(path))
    return sum(len(onnx.numpy_helper.to_array(t).tobytes()) for t in model.graph.initializer)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--models", default="minilm,cnn20")
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "onnxc-big")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    for name in args.models.split(","):
        path = export(name, args.dir)
        cache = Path(tempfile.mkdtemp(prefix="onnxc-cache-"))
        first = measure(path, name, cache)
        second = measure(path, name, cache)
        build = c_build(path, name, args.dir)
        weights = weight_bytes(path)
        print(f"## {name}: {weights / 1e6:.1f} MB of weights")
        print(f"C: {int(build['c_bytes']):,} bytes ({build['c_bytes'] / weights:.2f}x the weights)")
        print(json.dumps({"first": first, "second": second, "cc": build}, indent=1))


if __name__ == "__main__":
    main()
