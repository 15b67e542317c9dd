"""`onnxc run`'s inputs (--input checks, --random), outputs (--save, per-row
argmax) and comparisons (--expect, --compare onnxruntime, --rtol/--atol);
`onnxc --version`; the one-line errors of `-o` and `--dim`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxc
from onnxc.tools.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "digits_cnn.onnx")
DIGIT = str(ROOT / "examples" / "digit_input.npy")
EXPECTED = str(ROOT / "examples" / "digit_expected.npy")


def _save_model(path: Path, elem: int, shape: list[int | str], op: str = "Relu") -> str:
    """A one-node model `y = op(x)` with `x` and `y` of `shape`."""
    graph = helper.make_graph(
        [helper.make_node(op, ["x"], ["y"], name="n")],
        "g",
        [helper.make_tensor_value_info("x", elem, shape)],
        [helper.make_tensor_value_info("y", elem, shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    onnx.save(model, path)
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _error_line(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    """The one line `onnxc ARGS` prints on stderr, checking it fails."""
    code, _, err = _run(capsys, *args)
    assert code != 0
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("onnxc: error: "), err
    return lines[0]


def test_version():
    result = subprocess.run(
        [sys.executable, "-m", "onnxc", "--version"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert result.stdout.strip() == f"onnxc {onnxc.__version__}"


def test_random_is_deterministic_with_the_seed(capsys, tmp_path):
    outputs: list[np.ndarray] = []
    for seed, folder in (("3", "a"), ("3", "b"), ("4", "c")):
        code, _, err = _run(
            capsys, "run", EXAMPLE, "--random", "--seed", seed, "--save", str(tmp_path / folder)
        )
        assert code == 0, err
        outputs.append(np.load(tmp_path / folder / "logits.npy"))
    assert np.array_equal(outputs[0], outputs[1])
    assert not np.array_equal(outputs[0], outputs[2])


def test_random_takes_free_dims_from_dim(capsys, tmp_path):
    model = _save_model(tmp_path / "m.onnx", TensorProto.FLOAT, ["N", 4])
    code, out, err = _run(capsys, "run", model, "--random", "--dim", "N=3")
    assert code == 0, err
    assert "y float32[3, 4]" in out


def test_random_names_free_dims_shell_safely(capsys, tmp_path):
    model = _save_model(tmp_path / "m.onnx", TensorProto.FLOAT, ["batch size", 4])
    line = _error_line(capsys, "run", model, "--random")
    assert "--dim 'batch size'=SIZE" in line
    assert "--dim batch size=" not in line


def test_save_writes_the_outputs(capsys, tmp_path):
    folder = tmp_path / "new" / "out"
    code, _, err = _run(capsys, "run", EXAMPLE, "--input", f"image={DIGIT}", "--save", str(folder))
    assert code == 0, err
    saved = np.load(folder / "logits.npy")
    ran = onnxc.compile(EXAMPLE).run({"image": np.load(DIGIT)})["logits"]
    assert saved.dtype == ran.dtype and np.array_equal(saved, ran)


def test_save_into_a_file_is_an_error(capsys, tmp_path):
    target = tmp_path / "file"
    target.write_text("")
    line = _error_line(capsys, "run", EXAMPLE, "--random", "--save", str(target))
    assert "not a folder" in line


def test_argmax_per_row(capsys, tmp_path):
    model = _save_model(tmp_path / "m.onnx", TensorProto.FLOAT, [2, 3], op="Identity")
    np.save(tmp_path / "x.npy", np.array([[0, 5, 1], [7, 0, 0]], np.float32))
    code, out, err = _run(capsys, "run", model, "--input", f"x={tmp_path / 'x.npy'}")
    assert code == 0, err
    assert "y argmax per row: [1, 0]" in out


def test_compare_onnxruntime_passes(capsys):
    pytest.importorskip("onnxruntime")
    code, out, err = _run(capsys, "run", EXAMPLE, "--random", "--compare", "onnxruntime")
    assert code == 0, out + err
    assert "logits: matches onnxruntime (max abs error" in out
    assert "max rel error" in out


def test_compare_onnxruntime_mismatch_fails(capsys, monkeypatch):
    import onnxc.tools.cli_run

    def shifted(model, inputs, names):
        return {name: value + 1 for name, value in onnxc.compile(model).run(inputs).items()}

    monkeypatch.setattr(onnxc.tools.cli_run, "_run_onnxruntime", shifted)
    code, out, _ = _run(capsys, "run", EXAMPLE, "--random", "--compare", "onnxruntime")
    assert code == 1
    assert "logits: DOES NOT match onnxruntime (max abs error 1," in out


def test_compare_without_onnxruntime_is_an_error(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    line = _error_line(capsys, "run", EXAMPLE, "--random", "--compare", "onnxruntime")
    assert "onnxruntime is not installed" in line


def test_expect_uses_rtol_and_atol(capsys, tmp_path):
    shifted = tmp_path / "shifted.npy"
    np.save(shifted, np.load(EXPECTED) + 0.01)
    args = ["run", EXAMPLE, "--input", f"image={DIGIT}", "--expect", str(shifted)]
    code, out, _ = _run(capsys, *args)
    assert code == 1 and "logits: DOES NOT match" in out
    code, out, _ = _run(capsys, *args, "--atol", "0.02")
    assert code == 0 and "logits: matches" in out and "atol 0.02" in out


def test_expect_of_another_shape_is_a_shape_mismatch(capsys):
    code, out, _ = _run(capsys, "run", EXAMPLE, "--input", f"image={DIGIT}", "--expect", DIGIT)
    assert code == 1
    assert "shape mismatch (got [1, 10], expected [1, 1, 8, 8])" in out
    assert "inf" not in out


def test_unknown_input_lists_the_inputs(capsys):
    line = _error_line(capsys, "run", EXAMPLE, "--input", f"img={DIGIT}")
    assert "no input 'img'" in line and "inputs: image" in line


def test_input_of_another_kind_is_an_error(capsys, tmp_path):
    model = _save_model(tmp_path / "m.onnx", TensorProto.INT64, [3], op="Neg")
    np.save(tmp_path / "x.npy", np.zeros(3, np.float32))
    line = _error_line(capsys, "run", model, "--input", f"x={tmp_path / 'x.npy'}")
    assert "expected int64, got float32" in line


def test_input_cast_within_its_kind_runs(capsys, tmp_path):
    np.save(tmp_path / "x.npy", np.load(DIGIT).astype(np.float64))
    code, out, err = _run(
        capsys, "run", EXAMPLE, "--input", f"image={tmp_path / 'x.npy'}", "--expect", EXPECTED
    )
    assert code == 0, out + err


@pytest.mark.parametrize("value", ["0", "-2"])
def test_dims_must_be_positive(capsys, value):
    line = _error_line(capsys, "run", EXAMPLE, "--random", "--dim", f"N={value}")
    assert "dims must be positive" in line


def test_output_onto_a_file_is_an_error(capsys, tmp_path):
    target = tmp_path / "file"
    target.write_text("")
    line = _error_line(capsys, "compile", EXAMPLE, "-o", str(target))
    assert "is a file, not a folder" in line


def test_output_under_a_file_is_an_error(capsys, tmp_path):
    target = tmp_path / "file"
    target.write_text("")
    line = _error_line(capsys, "compile", EXAMPLE, "-o", str(target / "sub"))
    assert "cannot create the folder" in line


def test_error_paths_print_no_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "onnxc", "run", EXAMPLE, "--input", f"img={DIGIT}"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_unbounded_dims_hint_is_shell_safe(capsys, tmp_path):
    model = _save_model(tmp_path / "m.onnx", TensorProto.FLOAT, ["batch size", 4])
    np.save(tmp_path / "x.npy", np.zeros((2, 4), np.float32))
    line = _error_line(
        capsys, "run", model, "--target", "cortex-m4", "--input", f"x={tmp_path / 'x.npy'}"
    )
    assert "'batch size' is not" in line and "--dim NAME=N" in line


def test_string_tensors_run_save_and_compare(capsys, tmp_path):
    """String inputs come from str .npy files or --random (short words);
    string outputs are printed, saved as str arrays and compared exactly."""
    model = _save_model(tmp_path / "m.onnx", TensorProto.STRING, [3], op="Identity")
    words = tmp_path / "x.npy"
    np.save(words, np.array(["héllo", "", "a b"]))
    folder = tmp_path / "out"
    folder.mkdir()
    code, out, err = _run(capsys, "run", model, "--input", f"x={words}", "--save", str(folder))
    assert code == 0, err
    assert "y object[3]" in out
    assert np.load(folder / "y.npy").tolist() == ["héllo", "", "a b"]
    code, out, err = _run(capsys, "run", model, "--input", f"x={words}", "--expect", str(words))
    assert code == 0 and "y: matches" in out, err
    code, out, _ = _run(capsys, "run", model, "--random", "--compare", "onnxruntime")
    assert code == 0 and "y: matches onnxruntime (0 strings differ)" in out
    code, out, _ = _run(capsys, "run", model, "--random", "--expect", str(words))
    assert code == 1 and "y: DOES NOT match" in out


def _sequence_model(path: Path) -> str:
    """A sequence input of two tensors, a tensor inserted at a run-time
    position (a sequence known at run time), its length (a scalar)."""
    i64 = TensorProto.INT64
    graph = helper.make_graph(
        [
            helper.make_node("SequenceInsert", ["s", "t", "at"], ["grown"]),
            helper.make_node("SequenceLength", ["grown"], ["count"]),
        ],
        "g",
        [
            helper.make_tensor_sequence_value_info("s", i64, [None]),
            helper.make_tensor_value_info("t", i64, [3]),
            helper.make_tensor_value_info("at", i64, []),
        ],
        [
            helper.make_tensor_sequence_value_info("grown", i64, [None]),
            helper.make_tensor_value_info("count", i64, []),
        ],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)
    return str(path)


def test_sequences_run_save_and_compare(capsys, tmp_path):
    """Sequence inputs by tensor (`s[0]`), sequence outputs printed, saved
    tensor by tensor and compared with onnxruntime; a scalar output too."""
    model = _sequence_model(tmp_path / "seq.onnx")
    files = {
        "s[0]": np.arange(4),
        "s[1]": np.arange(2),
        "t": np.array([7, 8, 9]),
        "at": np.array(1),
    }
    args = ["run", model, "--shape", "s=(4),(2)", "--compare", "onnxruntime", "-q"]
    for name, array in files.items():
        np.save(tmp_path / f"{name}.npy", array)
        args += ["--input", f"{name}={tmp_path / f'{name}.npy'}"]
    code, out, _ = _run(capsys, *args, "--save", str(tmp_path))
    assert code == 0, out
    assert "grown: a sequence of 3 tensors" in out
    assert "grown[1]: matches onnxruntime" in out and "count: matches onnxruntime" in out
    np.testing.assert_array_equal(np.load(tmp_path / "grown.1.npy"), [7, 8, 9])
    np.testing.assert_array_equal(np.load(tmp_path / "grown.2.npy"), [0, 1])


def _two_inputs_model(path: Path) -> str:
    """`y = x * s` with `x` [N, 4] and `s` [1, ?] (an unnamed dimension)."""
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "s"], ["y"], name="mul")],
        "g",
        [
            helper.make_tensor_value_info("x", f, ["N", 4]),
            helper.make_tensor_value_info("s", f, [1, None]),
        ],
        [helper.make_tensor_value_info("y", f, ["N", 4])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), path)
    return str(path)


def test_random_asks_for_sizes_before_compiling(capsys, tmp_path, monkeypatch):
    """Free dimensions without sizes are asked for before any compile, with
    flags that work (the unnamed one as `INPUT_dimK`); given them, or sizes
    from `--input` files, the run matches onnxruntime (exactly: one product)."""
    import onnxc.api

    model = _two_inputs_model(tmp_path / "m.onnx")
    compiled = onnxc.api.compile_with
    calls: list[str] = []

    def counted(*args, **kwargs):
        calls.append("compile")
        return compiled(*args, **kwargs)

    monkeypatch.setattr(onnxc.api, "compile_with", counted)
    line = _error_line(capsys, "run", model, "--random")
    assert line == (
        "onnxc: error: inputs 'x', 's' have free dimension(s) N, s_dim1; "
        "give their sizes: --dim N=SIZE --dim s_dim1=SIZE"
    )
    np.save(tmp_path / "x.npy", np.ones((3, 4), np.float32))
    line = _error_line(capsys, "run", model, "--random", "--input", f"x={tmp_path / 'x.npy'}")
    assert line.endswith(
        "input 's' has free dimension(s) s_dim1; give their sizes: --dim s_dim1=SIZE"
    )
    assert calls == []
    code, out, err = _run(
        capsys,
        "run",
        model,
        "--random",
        "--dim",
        "s_dim1=4",
        "--input",
        f"x={tmp_path / 'x.npy'}",
        "--compare",
        "onnxruntime",
        "--rtol",
        "0",
        "--atol",
        "0",
    )
    assert code == 0, err
    assert "y float32[3, 4]" in out and "y: matches onnxruntime" in out
    assert calls == ["compile"]


def test_compare_feeds_onnxruntime_the_cast_inputs(capsys, tmp_path):
    """A float64 file for a float32 input: onnxc casts it, and onnxruntime
    gets the same float32 array (not the float64 one, which it refuses)."""
    pytest.importorskip("onnxruntime")
    model = _save_model(tmp_path / "m.onnx", TensorProto.FLOAT, [2, 3], op="Sigmoid")
    np.save(tmp_path / "x.npy", np.linspace(-3, 3, 6).reshape(2, 3))
    code, out, err = _run(
        capsys, "run", model, "--input", f"x={tmp_path / 'x.npy'}", "--compare", "onnxruntime"
    )
    assert code == 0, out + err
    assert "y: matches onnxruntime" in out


def test_a_failed_compile_leaves_no_folder_it_made(capsys, tmp_path):
    """`compile -o` and `run --save` into folders that do not exist: on an
    error, the folders made for them are gone; a folder that was there, and
    its files, stay."""
    model = _save_model(tmp_path / "m.onnx", TensorProto.FLOAT, [2, 3], op="Relu")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    made = tmp_path / "out" / "c"
    _error_line(capsys, "compile", str(broken), "-o", str(made))
    assert not (tmp_path / "out").exists()
    _error_line(capsys, "run", str(broken), "--random", "--save", str(made))
    assert not (tmp_path / "out").exists()
    kept = tmp_path / "kept"
    kept.mkdir()
    _error_line(capsys, "compile", str(broken), "-o", str(kept / "c"))
    assert kept.is_dir() and list(kept.iterdir()) == []
    code, _, err = _run(capsys, "compile", model, "-o", str(made), "-q")
    assert code == 0, err
    assert (made / "m.c").is_file()
