"""A build with threads (`threads=N`, `--threads N`): the host kernels' outer
loops split over N OpenMP threads, results identical to one thread's, to the
bit; the option refused where it has no meaning; the written Makefile's
THREADS; and an MCU target's C without the mark."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

import onnxc
from onnxc.errors import OnnxcError
from tests.e2e.conv_graphs import ConvGraph
from tests.models import build, export

RNG = np.random.default_rng(5)
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "digits_cnn.onnx"


def _single_block() -> onnx.ModelProto:
    """Convolutions of one output block (the rows are split), a depthwise one
    and one of a single row (nothing to split)."""
    g = ConvGraph(RNG)
    y = g.conv("x", "dense", 8, 8, 3)
    y = g.conv(y, "depthwise", 8, 8, 5, group=8)
    return g.model([2, 8, 13, 11], g.conv(y, "pointwise", 8, 16, 1), [2, 16, 13, 11])


def _products() -> onnx.ModelProto:
    """MatMuls of a batch of products, of one product, and of a column tail."""
    w = onnx.numpy_helper.from_array(RNG.standard_normal((48, 40)).astype(np.float32), "w")
    nodes = [
        onnx.helper.make_node("MatMul", ["x", "w"], ["p"]),
        onnx.helper.make_node("Transpose", ["p"], ["t"], perm=[0, 2, 1]),
        onnx.helper.make_node("MatMul", ["p", "t"], ["y"]),
    ]
    graph = onnx.helper.make_graph(
        nodes,
        "g",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [3, 37, 48])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [3, 37, 37])],
        [w],
    )
    return onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)])


def _identical(model: onnx.ModelProto | Path, threads: int) -> None:
    one = onnxc.compile(model)
    many = onnxc.compile(model, threads=threads)
    assert "ONNXC_PARALLEL_FOR" in one.c_source
    assert many.c_source == one.c_source  # the same C: only the build differs
    feeds = {
        name: RNG.standard_normal([d if isinstance(d, int) else 1 for d in shape]).astype("f4")
        for name, shape in zip(one.input_names, one.input_shapes, strict=True)
    }
    want = one.run(feeds)
    for _ in range(3):  # whatever thread takes which part
        got = many.run(feeds)
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value)


@pytest.mark.parametrize("threads", [2, 3])
@pytest.mark.parametrize("name", ["single-block", "products"])
def test_identical_to_one_thread(name: str, threads: int) -> None:
    _identical(_single_block() if name == "single-block" else _products(), threads)


def test_test_suite_cnn_identical(tmp_path: Path) -> None:
    model, example = build("MobileNetV2Small")
    _identical(export(model, example, tmp_path / "m.onnx", dynamo=False), 2)


def test_refused_where_meaningless() -> None:
    with pytest.raises(OnnxcError, match="threads are for host targets: cortex-m4 runs"):
        onnxc.compile(EXAMPLE, target="cortex-m4", threads=2)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(OnnxcError, match="threads must be a whole number of at least 1"):
            onnxc.compile(EXAMPLE, threads=bad)  # type: ignore[arg-type]


def test_mcu_c_has_no_mark() -> None:
    generated = onnxc.generate_c(EXAMPLE, target="cortex-m4")
    assert "ONNXC_PARALLEL_FOR" not in generated.c_source


def test_cli_and_makefile(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, "-m", "onnxc", "compile", str(EXAMPLE), "-o", str(out), "--threads", "2"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    makefile = (out / "Makefile").read_text()
    assert "THREADS = 2\n" in makefile and "-fopenmp -DONNXC_THREADS=$(THREADS)" in makefile
    np.load(ROOT / "examples" / "digit_input.npy").astype("<f4").tofile(out / "input0.bin")
    for threads in ("2", "1"):
        run = subprocess.run(
            ["make", "-C", str(out), "run", f"THREADS={threads}", "-B"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        got = np.fromfile(out / "output0.bin", dtype="<f4")
        expected = np.load(ROOT / "examples" / "digit_expected.npy").reshape(-1)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
