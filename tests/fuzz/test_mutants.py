"""Bad input gets one line, never a traceback, a crash or a hang.

(a) One test per cause the mutation fuzzer (`mutants.py`) found, each on the
smallest model that shows it, built here, compiled through the command line
(in a forked child where the failure was a crash or a hang); (b) the CI
slice: a fixed seed's first mutants, none of them bad.

`ONNXC_MUTANTS=START:END` runs other mutants of the slice's seed (the default
is 0:600)."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

from onnxc.dialects.onnx import TARGET_OPSET
from onnxc.errors import OnnxcError
from onnxc.frontend import prepare_model
from onnxc.frontend.graph_importer import MAX_TENSOR_BYTES
from onnxc.tools.cli import main
from tests.fuzz.mutants import Mutant, Outcome, fuzz_environment, run_mutant, run_range

value = h.make_tensor_value_info
SEED = 7
START, END = (int(x) for x in os.environ.get("ONNXC_MUTANTS", "0:600").split(":"))


def _model(nodes, inputs, outputs, initializers=(), opset=21) -> onnx.ModelProto:
    graph = h.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)])


def compile_model(
    model: onnx.ModelProto, folder: Path, capsys: pytest.CaptureFixture[str], **files: bytes
) -> tuple[int, list[str]]:
    """`onnxc compile` of `model` (written with `files` beside it), in this
    process: the exit status and the lines on stderr."""
    path = folder / "model.onnx"
    path.write_bytes(model.SerializeToString())
    for name, data in files.items():
        (folder / name).write_bytes(data)
    capsys.readouterr()
    status = main(["compile", str(path), "-o", str(folder / "out")])
    return status, capsys.readouterr().err.splitlines()


def assert_one_error(result: tuple[int, list[str]], *phrases: str) -> None:
    status, lines = result
    assert status == 1 and len(lines) == 1, lines
    assert lines[0].startswith("onnxc: error: "), lines
    for phrase in phrases:
        assert phrase in lines[0], lines


def compile_in_child(model: onnx.ModelProto, folder: Path, timeout: float = 60) -> Outcome:
    """`onnxc compile` of `model` in a forked child (see `mutants.py`): a
    crash or a hang is an outcome, not the end of the test run."""
    return run_mutant(Mutant(0, "test", data=model.SerializeToString()), folder, timeout)


# --- 00-03: external data entries ---------------------------------------------


def _external(**entries: str) -> onnx.ModelProto:
    weight = numpy_helper.from_array(np.ones(4, np.float32), "w")
    weight.ClearField("raw_data")
    weight.data_location = T.EXTERNAL
    for key, text in entries.items():
        entry = weight.external_data.add()
        entry.key, entry.value = key, text
    return _model([h.make_node("Relu", ["w"], ["y"])], [], [value("y", T.FLOAT, [4])], [weight])


WEIGHTS = np.ones(4, np.float32).tobytes()


@pytest.mark.parametrize(
    ("entries", "phrase"),
    [
        ({"location": "w.bin", "offset": "-1"}, "offset '-1' is not a non-negative integer"),
        ({"location": "w.bin", "offset": "x"}, "offset 'x' is not a non-negative integer"),
        ({"location": "w.bin", "length": "-1"}, "length '-1' is not a non-negative integer"),
        ({"location": "w.bin", "length": "x"}, "length 'x' is not a non-negative integer"),
        ({"location": "w\x00.bin"}, "a NUL byte in its external data location"),
        ({"offset": "0"}, "no external data location"),
        ({"location": "w" * 5000}, "cannot be read"),
        ({"location": "w.bin", "offset": str(2**62)}, "cannot read external data"),
    ],
)
def test_external_data_entries(entries, phrase, tmp_path, capsys) -> None:
    result = compile_model(_external(**entries), tmp_path, capsys, **{"w.bin": WEIGHTS})
    assert_one_error(result, "tensor 'w'", phrase)


def test_external_data_that_is_right_still_loads(tmp_path, capsys) -> None:
    model = _external(location="w.bin", offset="0", length="16")
    assert compile_model(model, tmp_path, capsys, **{"w.bin": WEIGHTS})[0] == 0


# --- 04: tensor data against dims and element type ----------------------------


def _raw(name: str, count: int, dims=(3,)) -> onnx.TensorProto:
    tensor = numpy_helper.from_array(np.zeros(dims, np.float32), name)
    tensor.raw_data = bytes(count)
    return tensor


def test_constant_value_of_the_wrong_size(tmp_path, capsys) -> None:
    constant = h.make_node("Constant", [], ["y"], value=_raw("v", 13))
    model = _model([constant], [], [value("y", T.FLOAT, [3])])
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "(Constant): tensor attribute 'value'", "13 bytes", "take 12")


def test_initializer_of_the_wrong_size(tmp_path, capsys) -> None:
    model = _model(
        [h.make_node("Relu", ["w"], ["y"])], [], [value("y", T.FLOAT, [3])], [_raw("w", 13)]
    )
    assert_one_error(compile_model(model, tmp_path, capsys), "initializer 'w'", "13 bytes")
    typed = onnx.TensorProto(name="w", data_type=T.FLOAT, dims=[3], float_data=[1.0, 2.0])
    model = _model([h.make_node("Relu", ["w"], ["y"])], [], [value("y", T.FLOAT, [3])], [typed])
    assert_one_error(compile_model(model, tmp_path, capsys), "float_data holds 2 values")


# --- 05: a dim_param that is not ASCII ------------------------------------------


def test_non_ascii_dim_param_compiles(tmp_path, capsys) -> None:
    model = _model(
        [h.make_node("Relu", ["x"], ["y"])],
        [value("x", T.FLOAT, [3, "é", 5])],
        [value("y", T.FLOAT, [3, "é", 5])],
    )
    status, lines = compile_model(model, tmp_path, capsys)
    assert status == 0, lines
    assert (tmp_path / "out" / "model.c").read_text().isascii()


# --- 06: a string attribute that is not UTF-8 -----------------------------------


def test_string_attribute_not_utf8(tmp_path, capsys) -> None:
    node = h.make_node("Pad", ["x", "p"], ["y"])
    node.attribute.append(onnx.AttributeProto(name="mode", type=onnx.AttributeProto.STRING))
    node.attribute[0].s = b"\xff\xfe"
    pads = numpy_helper.from_array(np.array([1, 1], np.int64), "p")
    model = _model([node], [value("x", T.FLOAT, [3])], [value("y", T.FLOAT, [5])], [pads])
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "node 'Pad_0' (Pad): attribute 'mode' is not valid UTF-8")


# --- 07: a run-time shape tensor declared with 2^31 elements (a hang) ----------


@pytest.mark.parametrize("op", ["Pad", "ReduceLogSum", "CenterCropPad"])
@pytest.mark.parametrize("length", [2**31, 2**40])
def test_long_run_time_shape_tensor(op, length, tmp_path) -> None:
    node = h.make_node(op, ["x", "shape_tensor"], ["y"])
    inputs = [value("x", T.FLOAT, [3]), value("shape_tensor", T.INT64, [length])]
    model = _model([node], inputs, [value("y", T.FLOAT, [None])])
    outcome = compile_in_child(model, tmp_path, timeout=60)
    assert outcome.kind == "error", outcome
    if length * 8 <= MAX_TENSOR_BYTES:  # the lowering would load each element
        assert f"({op}): a shape tensor of {length} elements known only at run time" in (
            outcome.output
        )
    else:  # more than an input onnxc compiles at all
        assert "graph input 'shape_tensor' has 1099511627776 elements" in outcome.output


# --- 08: RotaryEmbedding's operands of the wrong rank ----------------------------


def _rotary(position_ids: np.ndarray | None, sin_shape=(8, 2)) -> onnx.ModelProto:
    inputs = [
        value("X", T.FLOAT, [2, 2, 3, 4]),
        value("cos", T.FLOAT, [8, 2]),
        value("sin", T.FLOAT, list(sin_shape)),
    ]
    names = ["X", "cos", "sin"]
    constants = []
    if position_ids is not None:
        names.append("ids")
        constants.append(numpy_helper.from_array(position_ids, "ids"))
    node = h.make_node("RotaryEmbedding", names, ["Y"])
    return _model([node], inputs, [value("Y", T.FLOAT, [2, 2, 3, 4])], constants, opset=23)


def test_rotary_position_ids_of_the_wrong_rank(tmp_path, capsys) -> None:
    result = compile_model(_rotary(np.array([0, 1], np.int64)), tmp_path, capsys)
    assert_one_error(result, "(RotaryEmbedding): position_ids must be 2-D")


def test_rotary_caches_of_different_ranks(tmp_path, capsys) -> None:
    ids = np.zeros((2, 3), np.int64)
    result = compile_model(_rotary(ids, sin_shape=(8, 2, 1)), tmp_path, capsys)
    assert_one_error(result, "(RotaryEmbedding): sin_cache: rank 3 where 2 is needed")


# --- 09: negative dims crash onnx's version converter and shape inference -------


def _gather_nd(last: int, opset: int = 13) -> onnx.ModelProto:
    inputs = [value("x", T.FLOAT, [2, 2]), value("i", T.INT64, [2, last])]
    node = h.make_node("GatherND", ["x", "i"], ["y"])
    model = _model([node], inputs, [value("y", T.FLOAT, None)], opset=opset)
    model.graph.output[0].type.tensor_type.shape.dim.add()
    return model


@pytest.mark.parametrize("opset", [13, 21])
def test_negative_dim_is_refused(opset, tmp_path) -> None:
    outcome = compile_in_child(_gather_nd(-7, opset), tmp_path)
    assert outcome.kind == "error", outcome
    assert "value 'i' is declared with dimension -7" in outcome.output


@pytest.mark.parametrize("opset", [13, 21])
def test_minus_one_is_an_unknown_dim(opset, tmp_path) -> None:
    outcome = compile_in_child(_gather_nd(-1, opset), tmp_path)
    assert outcome.kind == "error", outcome  # GatherND needs that size: said in one line
    assert "(GatherND): the last axis of indices must be known" in outcome.output
    relu = _model(
        [h.make_node("Relu", ["x"], ["y"])],
        [value("x", T.FLOAT, [-1, 3])],
        [value("y", T.FLOAT, [-1, 3])],
        opset=opset,
    )
    assert compile_in_child(relu, tmp_path).kind == "ok"


def test_version_converter_crash_is_one_line(monkeypatch) -> None:
    def crash(model: onnx.ModelProto, target: int) -> onnx.ModelProto:
        os.kill(os.getpid(), signal.SIGSEGV)
        return model

    monkeypatch.setattr(onnx.version_converter, "convert_version", crash)
    relu = _model(
        [h.make_node("Relu", ["x"], ["y"])],
        [value("x", T.FLOAT, [2])],
        [value("y", T.FLOAT, [2])],
        opset=13,
    )
    with pytest.raises(OnnxcError) as error:
        prepare_model(relu)
    assert str(error.value) == (
        f"cannot upgrade the model from opset 13 to {TARGET_OPSET}: "
        "the version converter crashed (signal 11)"
    )


def test_upgrade_in_a_child_gives_the_converter_proto() -> None:
    from onnxc.frontend.rewrites.upgrade_opset import _convert, _convert_in_child

    model = _model(
        [h.make_node("Unsqueeze", ["x"], ["y"], axes=[0])],
        [value("x", T.FLOAT, [2])],
        [value("y", T.FLOAT, [1, 2])],
        opset=11,
    )
    direct = onnx.version_converter.convert_version(model, TARGET_OPSET)
    assert _convert_in_child(model, 11) == direct == _convert(model, 11)


# --- 10, 12: a scalar operand with no element ------------------------------------


def test_mel_weight_matrix_of_an_empty_scalar(tmp_path, capsys) -> None:
    constants = [
        numpy_helper.from_array(np.array(16, np.int64), "length"),
        numpy_helper.from_array(np.array(8000, np.int64), "rate"),
        numpy_helper.from_array(np.array(4000, np.float32), "high"),
    ]
    nodes = [
        h.make_node("Shape", ["x"], ["bins"]),  # of a 0-D tensor: no element
        h.make_node("MelWeightMatrix", ["bins", "length", "rate", "low", "high"], ["y"]),
    ]
    inputs = [value("x", T.FLOAT, []), value("low", T.FLOAT, [])]
    model = _model(nodes, inputs, [value("y", T.FLOAT, [None, None])], constants)
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "(MelWeightMatrix): num_mel_bins must hold one element, not 0")


def test_stft_of_an_empty_frame_length(tmp_path, capsys) -> None:
    nodes = [
        h.make_node("Shape", ["z"], ["length"]),
        h.make_node("STFT", ["x", "step", "", "length"], ["y"]),
    ]
    inputs = [value("x", T.FLOAT, [1, 16, 1]), value("z", T.FLOAT, [])]
    step = numpy_helper.from_array(np.array(4, np.int64), "step")
    model = _model(nodes, inputs, [value("y", T.FLOAT, [None] * 4)], [step], opset=17)
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "(STFT): frame_length must hold one element, not 0")


# --- 11: shape inference failing in prelu-channel-slopes -------------------------


def test_prelu_slopes_inference_error(tmp_path, capsys) -> None:
    slope = numpy_helper.from_array(np.ones(3, np.float32), "s")
    model = _model(
        [h.make_node("PRelu", ["x", "s"], ["y"])],
        [value("x", T.FLOAT, [1, 3, 4]), value("s", T.FLOAT, [1, 1])],
        [value("y", T.FLOAT, [1, 3, 4])],
        [slope],
        opset=6,
    )
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "shape inference failed", "differ in rank")


# --- found by the campaigns ------------------------------------------------------


def test_loop_body_without_its_carried_output(tmp_path, capsys) -> None:
    body = h.make_graph(
        [h.make_node("Identity", ["c"], ["c_out"])],
        "body",
        [value("i", T.INT64, []), value("c", T.BOOL, []), value("v", T.FLOAT, [2])],
        [value("c_out", T.BOOL, [])],  # the carried v is not given back
    )
    loop = h.make_node("Loop", ["n", "", "v0"], ["v_final"], body=body)
    model = _model(
        [loop],
        [value("n", T.INT64, []), value("v0", T.FLOAT, [2])],
        [value("v_final", T.FLOAT, [2])],
    )
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "(Loop): the body takes 3 inputs and gives 1 outputs")


def test_split_to_sequence_axis_out_of_range(tmp_path, capsys) -> None:
    split = h.make_node("SplitToSequence", ["x"], ["s"], axis=-(2**63))
    at = h.make_node("SequenceAt", ["s", "zero"], ["y"])
    zero = numpy_helper.from_array(np.array(0, np.int64), "zero")
    model = _model(
        [split, at], [value("x", T.FLOAT, [3, 2])], [value("y", T.FLOAT, [None])], [zero]
    )
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "(SplitToSequence): axis -9223372036854775808 is out of range")


def test_string_field_not_utf8(tmp_path, capsys) -> None:
    model = _model(
        [h.make_node("Relu", ["x"], ["y"], name="relu_node")],
        [value("x", T.FLOAT, [2])],
        [value("y", T.FLOAT, [2])],
    )
    data = model.SerializeToString().replace(b"relu_node", b"relu\xffnode")
    (tmp_path / "model.onnx").write_bytes(data)
    status = main(["compile", str(tmp_path / "model.onnx"), "-o", str(tmp_path / "out")])
    lines = capsys.readouterr().err.splitlines()
    assert_one_error((status, lines), "model.graph.node[0].name is not UTF-8 text")


def test_unknown_external_data_key(tmp_path, capsys) -> None:
    model = _external(location="w.bin", __class__="x")
    result = compile_model(model, tmp_path, capsys, **{"w.bin": WEIGHTS})
    assert_one_error(result, "tensor 'w': unknown external data key '__class__'")


def test_clip_bound_of_a_higher_rank(tmp_path, capsys) -> None:
    alpha = h.make_node("Constant", [], ["a"], value_float=0.2)
    clip = h.make_node("Clip", ["a", "x"], ["y"])  # min: a tensor, not a scalar
    model = _model([alpha, clip], [value("x", T.FLOAT, [3, 4])], [value("y", T.FLOAT, [])])
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "(Clip): input 1 of rank 2 does not broadcast to rank 0")


def test_folding_gather_elements_of_a_huge_index(tmp_path) -> None:
    data = numpy_helper.from_array(np.zeros((5, 2), np.float32), "data")
    indices = numpy_helper.from_array(np.array([[2**40, 0]], np.int64), "indices")
    gather = h.make_node("GatherElements", ["data", "indices"], ["y"], axis=0)
    model = _model([gather], [], [value("y", T.FLOAT, [1, 2])], [data, indices])
    outcome = compile_in_child(model, tmp_path, timeout=60)  # numpy's choose took hours
    assert outcome.kind == "error", outcome
    assert "(GatherElements): index 1099511627776 is out of range for axis 0 of size 5" in (
        outcome.output
    )


def _split(outputs: int, opset: int) -> onnx.ModelProto:
    names = [f"y{k}" for k in range(outputs)]
    split = h.make_node("Split", ["x"], names, num_outputs=2)
    return _model(
        [split], [value("x", T.FLOAT, [4])], [value(n, T.FLOAT, [2]) for n in names], opset=opset
    )


@pytest.mark.parametrize("opset", [18, 21])
def test_split_with_more_outputs_than_num_outputs(opset, tmp_path) -> None:
    outcome = compile_in_child(_split(3, opset), tmp_path)  # a C++ assertion in onnx
    assert outcome.kind == "error", outcome
    assert "(Split): num_outputs is 2, but the node has 3 outputs" in outcome.output


def test_version_converter_abort_is_one_line(monkeypatch) -> None:
    def abort(model: onnx.ModelProto, target: int) -> onnx.ModelProto:
        os.write(2, b"stl_vector.h:1130: Assertion '__n < this->size()' failed.\n")
        os.abort()

    monkeypatch.setattr(onnx.version_converter, "convert_version", abort)
    with pytest.raises(OnnxcError) as error:  # a Split of 3 outputs for num_outputs 2 did
        prepare_model(_split(2, 18))
    assert str(error.value) == (
        f"cannot upgrade the model from opset 18 to {TARGET_OPSET}: the version converter "
        "crashed (signal 6: stl_vector.h:1130: Assertion '__n < this->size()' failed.)"
    )


def test_lstm_recurrence_of_the_wrong_rank(tmp_path, capsys) -> None:
    recurrence = numpy_helper.from_array(np.zeros(4, np.float32), "R")  # not [1, 12, 3]
    lstm = h.make_node("LSTM", ["X", "W", "R"], ["Y"], hidden_size=3)
    inputs = [value("X", T.FLOAT, [1, 1, 2]), value("W", T.FLOAT, [1, 12, 2])]
    model = _model([lstm], inputs, [value("Y", T.FLOAT, [1, 1, 1, 3])], [recurrence])
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "(LSTM): R must be 3-D")


def test_top_k_of_two_ks(tmp_path, capsys) -> None:
    top = h.make_node("TopK", ["x", "k"], ["values", "indices"])
    inputs = [value("x", T.FLOAT, [3, 4]), value("k", T.INT64, [2])]
    outputs = [value("values", T.FLOAT, [3, None]), value("indices", T.INT64, [3, None])]
    result = compile_model(_model([top], inputs, outputs), tmp_path, capsys)
    assert_one_error(result, "(TopK): K must hold one element, not 2")


def test_resize_of_2_31_run_time_scales(tmp_path) -> None:
    resize = h.make_node("Resize", ["X", "", "scales"], ["Y"])
    inputs = [value("X", T.FLOAT, [1, 1, 4, 4]), value("scales", T.FLOAT, [2**31])]
    model = _model([resize], inputs, [value("Y", T.FLOAT, [None] * 4)])
    outcome = compile_in_child(model, tmp_path, timeout=60)  # a load per scale: a hang
    assert outcome.kind == "error", outcome
    assert "(Resize): 2147483648 scales for 4 axes" in outcome.output


def test_folding_prints_no_numpy_warning(tmp_path, capsys) -> None:
    zero = numpy_helper.from_array(np.zeros(2, np.float32), "zero")
    log = h.make_node("Log", ["zero"], ["y"])  # -inf, which numpy warns about
    model = _model([log], [], [value("y", T.FLOAT, [2])], [zero])
    assert compile_model(model, tmp_path, capsys) == (0, [])


def test_loop_of_a_trip_count_with_no_element(tmp_path, capsys) -> None:
    body = h.make_graph(
        [
            h.make_node(
                "Constant", [], ["x"], value=numpy_helper.from_array(np.ones(1, np.float32))
            ),
            h.make_node("SequenceInsert", ["s", "x"], ["s_out"]),
            h.make_node("Identity", ["c"], ["c_out"]),
        ],
        "body",
        [
            value("i", T.INT64, []),
            value("c", T.BOOL, []),
            h.make_tensor_sequence_value_info("s", T.FLOAT, [1]),
        ],
        [value("c_out", T.BOOL, []), h.make_tensor_sequence_value_info("s_out", T.FLOAT, [1])],
    )
    constants = [
        numpy_helper.from_array(np.zeros(0, np.int64), "trips"),  # a scalar with no element
        numpy_helper.from_array(np.array(True), "go"),
    ]
    nodes = [
        h.make_node("SequenceEmpty", [], ["empty"], dtype=T.FLOAT),
        h.make_node("Loop", ["trips", "go", "empty"], ["s_final"], body=body),
        h.make_node("ConcatFromSequence", ["s_final"], ["y"], axis=0),
    ]
    model = _model(nodes, [], [value("y", T.FLOAT, [None])], constants)
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "(Loop): the trip count M must hold one element, not 0")


def test_static_size_past_64_bits(tmp_path, capsys) -> None:
    model = _model(
        [h.make_node("ReduceL1", ["x"], ["y"], keepdims=0)],
        [value("x", T.FLOAT, [3, 2**62, 2])],  # the memory plan's sizes overflowed i64
        [value("y", T.FLOAT, [])],
    )
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "graph input 'x' has 27670116110564327424 elements of float")


def test_celu_of_a_tiny_alpha_compiles(tmp_path, capsys) -> None:
    celu = h.make_node("Celu", ["x"], ["y"], alpha=1e-45)  # 1 / alpha: inf in f32
    model = _model([celu], [value("x", T.FLOAT, [3])], [value("y", T.FLOAT, [3])])
    assert compile_model(model, tmp_path, capsys) == (0, [])


def test_stft_of_a_2d_signal(tmp_path, capsys) -> None:
    constants = [
        numpy_helper.from_array(np.zeros((2, 16), np.float32), "signal"),  # no last axis
        numpy_helper.from_array(np.array(8, np.int64), "length"),
    ]
    stft = h.make_node("STFT", ["signal", "step", "", "length"], ["y"])
    inputs = [value("step", T.INT64, [])]
    model = _model([stft], inputs, [value("y", T.FLOAT, [None] * 4)], constants, opset=17)
    result = compile_model(model, tmp_path, capsys)
    assert_one_error(result, "(STFT): the signal must be 3-D")


# --- the CI slice ----------------------------------------------------------------


def test_mutants_slice() -> None:
    """Mutants START..END of seed 7, each compiled in a forked child: none
    ends with a traceback, another exit status, a signal or a timeout."""
    with fuzz_environment() as scratch:
        tally = run_range(SEED, range(START, END), scratch)
    found = [
        f"{cause}: python -m tests.fuzz.mutants --seed {SEED} --only {mutants[0].index}"
        for cause, mutants in tally.causes.items()
    ]
    assert not found, "\n".join(found)
    assert tally.counts.get("ok", 0) > (END - START) // 10  # mutants that still compile
