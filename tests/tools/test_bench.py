"""`onnxc bench`: it times both runners on the same inputs and reports what it
measured (no speed is asserted: timings belong in benchmarks, not tests)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxc.api import generate_with
from onnxc.errors import OnnxcError
from onnxc.options import CompileOptions
from onnxc.tools.bench import bench, format_result
from onnxc.tools.bench_layers import node_names
from onnxc.tools.bench_mcu import bench_mcu, format_mcu_result
from tests.mcu.tools import needs_arm

pytest.importorskip("onnxruntime")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "digits_cnn.onnx"


def test_bench_times_both_on_the_same_inputs() -> None:
    result = bench(EXAMPLE, CompileOptions.make(), rounds=2)
    assert result.onnxc_ms > 0 and result.onnxruntime_ms > 0
    assert result.macs == 80_896  # the size report's total for the example
    assert result.max_abs_difference < 1e-4  # same inputs, same logits
    assert result.rounds == 2 and result.repeat >= 1
    assert result.ratio == result.onnxruntime_ms / result.onnxc_ms
    lines = format_result("digits_cnn", result).splitlines()
    assert lines[0].split()[:4] == ["model", "onnxruntime", "ms", "onnxc"]
    assert lines[1].split()[0] == "digits_cnn"


def test_bench_times_only_the_host() -> None:
    with pytest.raises(OnnxcError, match="not timed but counted"):
        bench(EXAMPLE, CompileOptions.make(target="cortex-m4"))


@needs_arm
def test_bench_counts_an_mcu_inference_and_its_steps() -> None:
    """On an MCU target, bench counts instructions: the outputs match
    onnxruntime's, and the steps of the profiling build (one per node or
    fused kernel, each counted to the timer's tick of 40 instructions: a
    view is free) add up to the plain build's whole within 2% (the marks
    change the code a little), the Conv steps most."""
    result = bench_mcu(EXAMPLE, CompileOptions.make(target="cortex-m4"), per_layer=True)
    assert result.macs == 80_896 and result.max_abs_difference < 1e-4
    assert result.instructions > result.macs
    assert result.steps is not None and all(s.instructions % 40 == 0 for s in result.steps)
    assert sum(s.macs for s in result.steps) == result.macs
    steps_total = sum(s.instructions for s in result.steps)
    assert abs(steps_total - result.instructions) < 0.02 * result.instructions
    assert result.steps[0].label.startswith("Conv")
    lines = format_mcu_result("digits_cnn", result).splitlines()
    assert lines[1].split()[:3] == ["digits_cnn", "cortex-m4", f"{result.instructions:,}"]
    assert len(lines) == 5 + len(result.steps)


def test_cli_prints_the_table() -> None:
    command = [sys.executable, "-m", "onnxc", "bench", str(EXAMPLE), "--rounds", "1", "--quiet"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[1].split()[0] == "digits_cnn"
    per_layer = subprocess.run(
        [*command, "--per-layer"], capture_output=True, text=True, check=False
    )
    assert per_layer.returncode == 0, per_layer.stderr
    assert "sum of the nodes" in per_layer.stdout.splitlines()[-1]
    bad = subprocess.run([*command[:-3], "--rounds", "0"], capture_output=True, text=True)
    assert bad.returncode == 1
    assert bad.stderr.strip() == "onnxc: error: bench: --rounds must be 1 or more"


def _two_convs(path: Path) -> Path:
    """Conv 3x3 -> Relu -> Conv 3x3, 16 channels at 32x32 (4.7 M MACs): enough
    work that the C, not Python's `run`, takes most of a call."""
    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(rng.standard_normal((16, 16, 3, 3)).astype(np.float32), name)
        for name in ("w1", "w2")
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], name="conv1", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["a"], ["r"], name="relu1"),
        helper.make_node("Conv", ["r", "w2"], ["y"], name="conv2", pads=[1, 1, 1, 1]),
    ]
    graph = helper.make_graph(
        nodes,
        "two_convs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 32, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 32, 32])],
        initializer=weights,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)
    return path


def test_per_layer_times_every_step(tmp_path: Path) -> None:
    """The profiling build times every step of the model's code; the steps
    add up to most of a call (Python's `run` adds the rest), their MACs to
    the model's, and onnxruntime's profile sits beside the convolutions."""
    model = _two_convs(tmp_path / "two_convs.onnx")
    result = bench(model, CompileOptions.make(), rounds=3, per_layer=True)
    profile = result.layers
    assert profile is not None and profile.layers
    times = [layer.ms for layer in profile.layers]
    assert times == sorted(times, reverse=True) and min(times) >= 0
    assert 0.5 * profile.call_ms < profile.total_ms < 1.1 * profile.call_ms
    assert sum(layer.macs for layer in profile.layers) == result.macs == 2 * 16 * 16 * 9 * 32 * 32
    convs = [layer for layer in profile.layers if layer.label.startswith("Conv ")]
    assert convs and all(layer.gflops() is not None for layer in convs if layer.macs)
    assert all(layer.onnxruntime_ms is not None for layer in convs)
    lines = format_result("two_convs", result).splitlines()
    title = "per layer (onnxc's profiling build; onnxruntime's own profiler):"
    table = lines[lines.index(title) + 1 :]
    assert table[0].split() == ["share", "onnxc", "ms", "GFLOP/s", "onnxrt", "ms", "node"]
    rows = [line for line in table[1:] if line.split()[0].endswith("%")]
    assert len(rows) == len(profile.layers) + 1  # and the sum
    assert sum(float(row.split()[0][:-1]) for row in rows[:-1]) == pytest.approx(100, abs=0.5)
    assert "sum of the nodes" in rows[-1]


def test_profiling_build_adds_only_the_marks() -> None:
    """A profiling build is the plain C with a hook call at each step (and
    its option in the banner, and the comment of a step whose code prints
    nothing); a plain build calls no hook."""
    plain = generate_with(EXAMPLE, CompileOptions.make()).c_source
    profiled = generate_with(EXAMPLE, CompileOptions.make(profile=True)).c_source
    assert "onnxc_profile_mark" not in plain
    marks = [line for line in profiled.splitlines() if "onnxc_profile_mark(" in line]
    assert len(marks) >= 3 and marks[-1].strip().endswith(', "");')
    assert [int(m.split("(")[1].split(",")[0]) for m in marks] == list(range(len(marks)))

    def code(text: str) -> list[str]:
        return [
            line
            for line in text.splitlines()
            if "onnxc_profile_mark(" not in line and not line.lstrip().startswith(("/*", "*"))
        ]

    assert code(profiled) == code(plain)
    assert " * Options: target='host', profile=True" in profiled.splitlines()


def test_node_names_of_a_label() -> None:
    assert node_names("Conv conv1+relu1") == ["conv1", "relu1"]
    assert node_names("copy to graph output") == ["to graph output"]
    assert node_names("Reshape") == []


def test_bench_compares_sequence_outputs(tmp_path: Path) -> None:
    """A sequence input (random tensors grouped into its list) and a
    sequence output compared tensor by tensor."""
    i64 = TensorProto.INT64
    graph = helper.make_graph(
        [helper.make_node("SequenceInsert", ["s", "t"], ["grown"])],
        "g",
        [
            helper.make_tensor_sequence_value_info("s", i64, [None]),
            helper.make_tensor_value_info("t", i64, [3]),
        ],
        [helper.make_tensor_sequence_value_info("grown", i64, [None])],
    )
    path = tmp_path / "seq.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)
    result = bench(path, CompileOptions.make(shapes={"s": [(4,), (2,)]}), rounds=1)
    assert result.max_abs_difference == 0


def test_macs_inside_an_if_are_counted(tmp_path: Path) -> None:
    """The work of a model inside an If's branch counts (the larger branch):
    GFLOP/s are not 0."""
    from tests.tools.test_report import _branch_model

    path = tmp_path / "branch.onnx"
    onnx.save(_branch_model(), path)
    result = bench(path, CompileOptions.make(), rounds=1)
    assert result.macs == 4 * 8 * 8
    assert result.gflops(result.onnxc_ms) > 0
    assert result.max_abs_difference < 1e-5  # the same inputs, the same branch


def test_free_dimensions_are_asked_for_before_compiling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import onnxc.tools.bench

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
    )
    path = tmp_path / "free.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled before asking for the sizes")

    monkeypatch.setattr(onnxc.tools.bench, "compile_with", refuse)
    message = "input 'x' has free dimension(s) N; give their sizes: --dim N=SIZE"
    with pytest.raises(OnnxcError, match=re.escape(message)):
        bench(path, CompileOptions.make())
