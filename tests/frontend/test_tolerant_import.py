"""Models as exporters write them, imported as onnxruntime does: `-1` dims
and dim_params named `?` or empty are unknown (`check-model`), a declared
shape that contradicts shape inference is dropped with a one-line warning
(`infer-shapes`), and `onnxc run --random` asks only for sizes a user can
give. Each model reproduces one pattern; each compiles and matches
onnxruntime."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from onnxc.errors import OnnxcError, OnnxcWarning
from onnxc.frontend import prepare_model
from onnxc.tools.cli import main

ort = pytest.importorskip("onnxruntime")

F = TensorProto.FLOAT
RNG = np.random.default_rng(24)
Shape = Sequence[int | str | None]


def _model(
    nodes: list[onnx.NodeProto],
    inputs: Mapping[str, Shape],
    outputs: Mapping[str, tuple[int, Shape]],
    value_info: Mapping[str, tuple[int, Shape]] | None = None,
    initializers: Mapping[str, np.ndarray] | None = None,
) -> onnx.ModelProto:
    """A float-input model; outputs and value_info give (element, shape)."""
    graph = helper.make_graph(
        nodes,
        "tolerant",
        [helper.make_tensor_value_info(n, F, list(s)) for n, s in inputs.items()],
        [helper.make_tensor_value_info(n, e, list(s)) for n, (e, s) in outputs.items()],
        [numpy_helper.from_array(a, n) for n, a in (initializers or {}).items()],
        value_info=[
            helper.make_tensor_value_info(n, e, list(s)) for n, (e, s) in (value_info or {}).items()
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    return model


def _matches_onnxruntime(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    reference: onnx.ModelProto | None = None,
    **options: object,
) -> onnxc.CompiledModel:
    """Compile `model` and check it gives onnxruntime's outputs (run on
    `reference`, when onnxruntime refuses `model` itself)."""
    compiled = onnxc.compile(model, **options)  # type: ignore[arg-type]
    session = ort.InferenceSession(
        (reference or model).SerializeToString(), providers=["CPUExecutionProvider"]
    )
    expected = session.run(None, dict(feeds))
    got = compiled.run(dict(feeds))
    for name, want in zip(compiled.output_names, expected, strict=True):
        assert got[name].shape == want.shape, name
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-5)
    return compiled


def _floats(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def _chain(x: Shape, r: Shape, y: tuple[int, Shape], r_type: int = F) -> onnx.ModelProto:
    """y = Sigmoid(r = Relu(x)), `r` declared in value_info."""
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Sigmoid", ["r"], ["y"])]
    return _model(nodes, {"x": x}, {"y": y}, {"r": (r_type, r)})


def _ocr_head() -> onnx.ModelProto:
    """An OCR recogniser's head as Paddle exports it: -1 and `?` dims, the
    features reshaped to (batch, width, classes) and a softmax over classes,
    but the output declared rank 2, as in a model whose export lost a dim."""
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["features"], pads=[1, 1, 1, 1]),
        helper.make_node("ReduceMean", ["features", "axes"], ["pooled"], keepdims=0),
        helper.make_node("Transpose", ["pooled"], ["columns"], perm=[0, 2, 1]),
        helper.make_node("Softmax", ["columns"], ["probs"], axis=2),
    ]
    return _model(
        nodes,
        {"x": [-1, 3, 8, "?"]},
        {"probs": (F, ["?", -1])},
        {"features": (F, [-1, 5, 8, -1]), "columns": (F, [-1, -1, 5])},
        {"w": _floats(5, 3, 3, 3), "axes": np.array([2], np.int64)},
    )


def test_minus_one_dims_are_unknown_dims() -> None:
    """-1 on an input, an intermediate and an output: the input's become
    free dimensions named like unnamed ones; `--shape` fixes them."""
    model = _chain([-1, 3, -1], [-1, 3, -1], (F, [-1, 3, -1]))
    compiled = _matches_onnxruntime(model, {"x": _floats(2, 3, 5)})
    assert compiled.generated.dims == ["x_dim0", "x_dim2"]
    compiled.run({"x": _floats(4, 3, 1)})
    _matches_onnxruntime(model, {"x": _floats(1, 3, 7)}, shapes={"x": (1, 3, 7)})


def test_question_mark_and_empty_dim_params_are_unnamed() -> None:
    """`?` is no name shared by every dim so written: a 2x3 input runs, as
    in onnxruntime, and the dims are free as `x_dim0`, `x_dim1`."""
    model = _chain(["?", ""], ["?", "?"], (F, ["?", "?"]))
    compiled = _matches_onnxruntime(model, {"x": _floats(2, 3)})
    assert compiled.generated.dims == ["x_dim0", "x_dim1"]
    _matches_onnxruntime(model, {"x": _floats(3, 3)})


def test_output_declared_with_a_wrong_rank() -> None:
    """The OCR head's rank-2 declaration of a rank-3 output is dropped with
    a warning; the model compiles, free or with its shape given."""
    model = _ocr_head()
    with pytest.warns(OnnxcWarning, match=r"output 'probs' is declared FLOAT\[\?,\?\]"):
        compiled = _matches_onnxruntime(model, {"x": _floats(2, 3, 8, 6)})
    assert compiled.generated.dims == ["x_dim0", "x_dim3"]
    with pytest.warns(OnnxcWarning, match=r"gives FLOAT\[1,12,5\]"):
        _matches_onnxruntime(model, {"x": _floats(1, 3, 8, 12)}, shapes={"x": (1, 3, 8, 12)})


def test_intermediate_declared_with_a_wrong_shape() -> None:
    """A stale value_info (7 where the graph computes 2) is dropped."""
    model = _chain([2, 3], [7, 3], (F, [2, 3]))
    with pytest.warns(OnnxcWarning, match=r"value 'r' is declared FLOAT\[7,3\]"):
        _matches_onnxruntime(model, {"x": _floats(2, 3)})


def test_declarations_that_only_add_information_stay() -> None:
    """Next to a contradicting declaration (dropped), one that gives dims
    inference cannot know (a Reshape to a run-time shape) stays."""
    nodes = [
        helper.make_node("Relu", ["x"], ["r"]),
        helper.make_node("Reshape", ["r", "to"], ["y"]),
    ]
    model = _model(
        nodes,
        {"x": [2, 3], "to": [2]},
        {"y": (F, [3, 2])},
        {"r": (F, [2, 4])},
    )
    model.graph.input[1].type.tensor_type.elem_type = TensorProto.INT64
    with pytest.warns(OnnxcWarning, match="value 'r'"):
        prepared = prepare_model(model)
    graph = prepared.model.graph
    assert [v.name for v in model.graph.value_info] == ["r"]
    (y,) = graph.output
    assert [d.dim_value for d in y.type.tensor_type.shape.dim] == [3, 2]
    (r,) = [v for v in graph.value_info if v.name == "r"]
    assert [d.dim_value for d in r.type.tensor_type.shape.dim] == [2, 3]


def test_output_dim_params_are_hints() -> None:
    """An output declared with an input's dim_param that it does not have at
    run time (a cache's length declared as the mask's, as onnxruntime-genai
    declares its presents): onnxruntime returns what the graph computes, and
    so does onnxc; the dim_param does not hold the output to N."""
    nodes = [helper.make_node("Concat", ["x", "y"], ["z"], axis=0)]
    model = _model(nodes, {"x": ["N"], "y": ["M"]}, {"z": (F, ["N"])})
    compiled = _matches_onnxruntime(model, {"x": _floats(3), "y": _floats(2)})
    assert compiled.generated.dims == ["N", "M"]
    _matches_onnxruntime(model, {"x": _floats(1), "y": _floats(0)})


def test_intermediate_declared_with_a_wrong_type() -> None:
    """An intermediate declared INT64 where the graph computes FLOAT: the
    declaration is dropped (onnxruntime refuses the model; it runs the
    model without it)."""
    model = _chain([2, 3], [2, 3], (F, [2, 3]), r_type=TensorProto.INT64)
    reference = _chain([2, 3], [2, 3], (F, [2, 3]))
    with pytest.warns(OnnxcWarning, match=r"value 'r' is declared INT64\[2,3\]"):
        _matches_onnxruntime(model, {"x": _floats(2, 3)}, reference)


def test_output_declared_with_a_wrong_type_is_an_error() -> None:
    """An output's element type is the interface: a contradiction is a
    one-line error, as onnxruntime refuses it too."""
    model = _chain([2, 3], [2, 3], (TensorProto.DOUBLE, [2, 3]))
    with pytest.raises(
        OnnxcError, match="^output 'y' is declared DOUBLE, but the graph computes FLOAT$"
    ):
        onnxc.compile(model)


def _cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    code = main(list(args))
    return code, capsys.readouterr().err.strip().splitlines()


def test_the_warning_is_one_line_naming_the_value(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the command line: one line per dropped declaration, given again
    when the compilation cache answers; none with --quiet."""
    monkeypatch.setenv("ONNXC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ONNXC_NO_CACHE")
    path = str(tmp_path / "ocr.onnx")
    onnx.save(_ocr_head(), path)
    expected = (
        "onnxc: warning: output 'probs' is declared FLOAT[?,?], but shape inference "
        "gives FLOAT[x_dim0,?,5]: the declaration is dropped"
    )
    for _ in range(2):  # compiled, then from the cache
        code, lines = _cli(capsys, "compile", path, "-o", str(tmp_path / "out"), "-q")
        assert code == 0 and lines == []
        code, lines = _cli(capsys, "compile", path, "-o", str(tmp_path / "out"))
        assert code == 0
        assert [line for line in lines if "warning" in line] == [expected]


def test_the_hint_names_only_dims_a_user_can_bind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`run --random` without sizes names each free dim once, by a name
    `--dim` takes (never `?`), or asks for `--shape`; the flags work."""
    cases = {
        "question": (["?", 4], "--dim x_dim0=SIZE", ["--dim", "x_dim0=2"]),
        "repeated": (["n", "n"], "--dim n=SIZE", ["--dim", "n=2"]),
        "spaced": (["batch size", 4], "--dim 'batch size'=SIZE", ["--dim", "batch size=2"]),
        "equals": (["a=b", 4], "--shape x=SIZE,4", ["--shape", "x=2,4"]),
    }
    for name, (shape, hint, sizes) in cases.items():
        path = str(tmp_path / f"{name}.onnx")
        onnx.save(_chain(shape, shape, (F, shape)), path)
        code, lines = _cli(capsys, "run", path, "--random", "-q")
        assert code == 1 and len(lines) == 1, lines
        assert re.fullmatch(rf"onnxc: error: .*give their sizes: {re.escape(hint)}", lines[0])
        code, lines = _cli(capsys, "run", path, "--random", "-q", *sizes)
        assert code == 0, lines


def test_an_invalid_model_is_not_made_valid_by_dropping() -> None:
    """A declaration is not dropped for an inferred shape with negative sizes
    (a MaxPool window wider than its input): the model is invalid, and
    inference's one-line error stands (a mutant found the traceback)."""
    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[240])],
        "wide_window",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 31])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(OnnxcError, match="shape inference failed") as raised:
        onnxc.compile(model, cache=False)
    assert "\n" not in str(raised.value)
