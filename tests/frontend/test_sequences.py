"""Sequences and optionals resolved at compile time (onnxc/static_sequences.py):
compiled models compared with onnxruntime (exactly: only data movement and
one addition per element), the Python side of sequence and optional inputs
and outputs. What only the run can tell is in test_run_time_sequences.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from onnxc.errors import OnnxcError, RunError
from tests.mcu.tools import needs_arm

ort = pytest.importorskip("onnxruntime")

F = TensorProto.FLOAT
value = helper.make_tensor_value_info
sequence = helper.make_tensor_sequence_value_info


def checked_model(nodes, inputs, outputs, initializers=()) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model)
    return model


def _onnxruntime(model: onnx.ModelProto, feeds: dict) -> list:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _sequence_in_and_out() -> onnx.ModelProto:
    """A sequence input grows by one tensor at a constant position; its
    elements are summed by SequenceMap and concatenated."""
    body = helper.make_graph(
        [helper.make_node("Add", ["e", "x_in"], ["sum"])],
        "body",
        [value("e", F, [2, 3]), value("x_in", F, [2, 3])],
        [value("sum", F, [2, 3])],
    )
    return checked_model(
        [
            helper.make_node("SequenceInsert", ["s", "x", "front"], ["t"]),
            helper.make_node("SequenceMap", ["t", "x"], ["mapped"], body=body),
            helper.make_node("ConcatFromSequence", ["mapped"], ["joined"], axis=1, new_axis=1),
            helper.make_node("SequenceErase", ["t"], ["shorter"]),
        ],
        [sequence("s", F, [2, 3]), value("x", F, [2, 3])],
        [value("joined", F, [2, 4, 3]), sequence("shorter", F, [2, 3])],
        [numpy_helper.from_array(np.array(0, np.int64), "front")],
    )


@pytest.mark.parametrize("target", ["host", pytest.param("cortex-m4", marks=needs_arm)])
def test_sequence_input_and_output_match_onnxruntime(target: str) -> None:
    model = _sequence_in_and_out()
    rng = np.random.default_rng(0)
    items = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    compiled = onnxc.compile(model, shapes={"s": [(2, 3)] * 3}, target=target)
    assert compiled.input_names == ["s", "x"]
    assert compiled.output_names == ["joined", "shorter"]
    got = compiled.run({"s": items, "x": x})
    joined, shorter = _onnxruntime(model, {"s": items, "x": x})
    np.testing.assert_array_equal(got["joined"], joined)
    assert len(got["shorter"]) == len(shorter) == 3
    for mine, theirs in zip(got["shorter"], shorter, strict=True):
        np.testing.assert_array_equal(mine, theirs)


def test_sequence_input_of_another_length_is_refused_at_run_time() -> None:
    compiled = onnxc.compile(_sequence_in_and_out(), shapes={"s": [(2, 3)] * 3})
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(RunError, match="compiled for 3 tensors; give a list of that many"):
        compiled.run({"s": [x, x], "x": x})


def test_sequence_input_needs_its_shapes() -> None:
    with pytest.raises(OnnxcError, match=r"input 's' is a sequence: give its tensors' shapes"):
        onnxc.compile(_sequence_in_and_out())


def test_split_to_sequence_output_is_a_list() -> None:
    model = checked_model(
        [helper.make_node("SplitToSequence", ["x", "split"], ["parts"], axis=1)],
        [value("x", F, [2, 5])],
        [sequence("parts", F, None)],
        [numpy_helper.from_array(np.array(2, np.int64), "split")],
    )
    x = np.arange(10, dtype=np.float32).reshape(2, 5)
    (got,) = onnxc.compile(model)(x)
    (expected,) = _onnxruntime(model, {"x": x})
    assert [a.shape for a in got] == [(2, 2), (2, 2), (2, 1)]
    for mine, theirs in zip(got, expected, strict=True):
        np.testing.assert_array_equal(mine, theirs)


def _optional_model() -> onnx.ModelProto:
    optional = helper.make_tensor_type_proto(F, [3])
    return checked_model(
        [
            helper.make_node("OptionalHasElement", ["o"], ["has"]),
            helper.make_node("Optional", ["x"], ["wrapped"]),
            helper.make_node("OptionalGetElement", ["wrapped"], ["y"]),
        ],
        [
            helper.make_value_info("o", helper.make_optional_type_proto(optional)),
            value("x", F, [3]),
        ],
        [value("has", TensorProto.BOOL, []), value("y", F, [3])],
    )


@pytest.mark.parametrize("present", [True, False])
def test_optional_input_present_or_absent(present: bool) -> None:
    model = _optional_model()
    x = np.arange(3, dtype=np.float32)
    given = x if present else None
    compiled = onnxc.compile(model, shapes={} if present else {"o": None})
    got = compiled.run({"o": given, "x": x})
    has, y = _onnxruntime(model, {"o": given, "x": x})
    assert bool(got["has"]) is bool(has) is present
    np.testing.assert_array_equal(got["y"], y)
    with pytest.raises(RunError, match="was compiled (present|absent)"):
        compiled.run({"o": None if present else x, "x": x})


def test_sequence_position_input_is_fixed_to_its_default() -> None:
    model = checked_model(
        [
            helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
            helper.make_node("SequenceAt", ["s", "at"], ["y"]),
        ],
        [value("a", F, [2]), value("b", F, [2]), value("at", TensorProto.INT64, [])],
        [value("y", F, [2])],
        [numpy_helper.from_array(np.array(-1, np.int64), "at")],
    )
    compiled = onnxc.compile(model)
    a, b = np.zeros(2, np.float32), np.ones(2, np.float32)
    np.testing.assert_array_equal(compiled.run({"a": a, "b": b})["y"], b)
    with pytest.raises(RunError, match="'at' gives a sequence position and was fixed"):
        compiled.run({"a": a, "b": b, "at": np.array(0, np.int64)})


@pytest.mark.parametrize(
    ("nodes", "message"),
    [
        (
            [
                helper.make_node("SequenceConstruct", ["a", "a"], ["s"]),
                helper.make_node("SequenceAt", ["s", "three"], ["y"]),
            ],
            "position 3 is out of range for a sequence of 2 tensors",
        ),
        (
            [
                helper.make_node("SequenceEmpty", [], ["s"], dtype=F),
                helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0),
            ],
            "concatenates an empty sequence",
        ),
    ],
)
def test_what_needs_a_run_time_sequence_is_a_one_line_error(nodes, message: str) -> None:
    model = checked_model(
        nodes,
        [value("a", F, [2]), value("n", TensorProto.INT64, [])],
        [value("y", F, [2])],
        [numpy_helper.from_array(np.array(3, np.int64), "three")],
    )
    with pytest.raises(OnnxcError, match=message) as error:
        onnxc.compile(model)
    assert "\n" not in str(error.value)


def test_run_time_positions_select_between_tensors_of_one_shape() -> None:
    """SequenceInsert, SequenceErase and SequenceAt at positions given at run
    time (negative ones counted from the back): the tensors, of one shape,
    are selected elementwise."""
    i64 = TensorProto.INT64
    model = checked_model(
        [
            helper.make_node("SequenceConstruct", ["a", "b", "c"], ["s"]),
            helper.make_node("SequenceInsert", ["s", "x", "insert"], ["t"]),
            helper.make_node("SequenceErase", ["t", "erase"], ["u"]),
            helper.make_node("SequenceAt", ["u", "at"], ["y"]),
            helper.make_node("ConcatFromSequence", ["u"], ["all"], axis=0),
        ],
        [
            *(value(n, F, [2]) for n in "abcx"),
            value("insert", i64, []),
            value("erase", i64, []),
            value("at", i64, []),
        ],
        [value("y", F, [2]), value("all", F, [6])],
    )
    compiled = onnxc.compile(model)
    a, b, c, x = (np.full(2, k, np.float32) for k in range(4))
    for insert, erase, at in [(0, 1, 0), (3, -1, 2), (-2, 0, -1), (1, 3, 1)]:
        feeds = {"a": a, "b": b, "c": c, "x": x}
        feeds |= {
            k: np.array(v, np.int64)
            for k, v in zip(("insert", "erase", "at"), (insert, erase, at), strict=True)
        }
        got = compiled.run(feeds)
        y, joined = _onnxruntime(model, feeds)
        np.testing.assert_array_equal(got["y"], y)
        np.testing.assert_array_equal(got["all"], joined)


def test_command_line_gives_a_sequence_input_its_shapes(tmp_path) -> None:
    """`--shape s=(2,3),(2,3),(2,3)` gives the sequence input three tensors: the
    C takes them as three inputs, checked warning-free as C99."""
    path = tmp_path / "seq.onnx"
    onnx.save(_sequence_in_and_out(), path)
    out = tmp_path / "c"
    command = [sys.executable, "-m", "onnxc", "compile", str(path), "-o", str(out)]
    result = subprocess.run(
        [*command, "--shape", "s=(2,3),(2,3),(2,3)"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    header = (out / "seq.h").read_text()
    assert "int seq_run(const float *s_0_, const float *s_1_, const float *s_2_," in header
    source = str(out / "seq.c")
    flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-c", "-o", os.devnull]
    subprocess.run(["gcc", *flags, f"-I{out}", source], check=True)


def _loop_model(trips: onnx.ValueInfoProto | None) -> onnx.ModelProto:
    """A Loop that inserts `x * i` into a carried sequence at each of its
    iterations and scans out the running sum; then ConcatFromSequence."""
    i64 = TensorProto.INT64
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Cast", ["i"], ["i_float"], to=F),
            helper.make_node("Mul", ["x", "i_float"], ["scaled"]),
            helper.make_node("SequenceInsert", ["seq_in", "scaled"], ["seq_out"]),
            helper.make_node("Add", ["sum_in", "scaled"], ["sum_out"]),
            helper.make_node("Identity", ["sum_out"], ["running"]),
        ],
        "body",
        [
            value("i", i64, []),
            value("cond_in", TensorProto.BOOL, []),
            sequence("seq_in", F, [2]),
            value("sum_in", F, [2]),
        ],
        [
            value("cond_out", TensorProto.BOOL, []),
            sequence("seq_out", F, [2]),
            value("sum_out", F, [2]),
            value("running", F, [2]),
        ],
    )
    inputs = [value("x", F, [2]), value("zero", F, [2])]
    initializers = []
    if trips is None:
        initializers.append(numpy_helper.from_array(np.array(3, np.int64), "trips"))
    else:
        inputs.append(trips)
    return checked_model(
        [
            helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
            helper.make_node(
                "Loop", ["trips", "", "empty", "zero"], ["s", "total", "sums"], body=body
            ),
            helper.make_node("ConcatFromSequence", ["s"], ["joined"], axis=0),
        ],
        inputs,
        [value("joined", F, [6]), value("total", F, [2]), value("sums", F, [3, 2])],
        initializers,
    )


def test_loop_carrying_a_sequence_is_unrolled() -> None:
    """A constant trip count and a condition the body keeps: the iterations
    are inlined, the sequence grows one tensor a trip (onnxruntime's results
    exactly)."""
    model = _loop_model(None)
    feeds = {"x": np.array([1.5, -2.0], np.float32), "zero": np.zeros(2, np.float32)}
    got = onnxc.compile(model).run(feeds)
    for mine, theirs in zip(got.values(), _onnxruntime(model, feeds), strict=True):
        np.testing.assert_array_equal(mine, theirs)


def _run_time_optional(size: int | str) -> onnx.ModelProto:
    """An If whose then-branch makes an empty optional and whose else-branch
    an optional holding x + 1 (a tensor of `size` elements): its presence is
    known at run time; `has` reads it, `value` is the optional itself."""
    then_branch = helper.make_graph(
        [helper.make_node("Optional", [], ["none"], type=helper.make_tensor_type_proto(F, [size]))],
        "then",
        [],
        [
            helper.make_value_info(
                "none", helper.make_optional_type_proto(helper.make_tensor_type_proto(F, [size]))
            )
        ],
    )
    else_branch = helper.make_graph(
        [
            helper.make_node("Add", ["x", "one"], ["plus"]),
            helper.make_node("Optional", ["plus"], ["some"]),
        ],
        "else",
        [],
        [
            helper.make_value_info(
                "some", helper.make_optional_type_proto(helper.make_tensor_type_proto(F, [size]))
            )
        ],
    )
    nodes = [
        helper.make_node("If", ["cond"], ["opt"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("OptionalHasElement", ["opt"], ["has"]),
        helper.make_node("Identity", ["opt"], ["value"]),
    ]
    optional = helper.make_optional_type_proto(helper.make_tensor_type_proto(F, [size]))
    graph = helper.make_graph(
        nodes,
        "g",
        [value("cond", TensorProto.BOOL, []), value("x", F, [size])],
        [value("has", TensorProto.BOOL, []), helper.make_value_info("value", optional)],
        [numpy_helper.from_array(np.array(1.0, np.float32), "one")],
        value_info=[helper.make_value_info("opt", optional)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("cond", [True, False])
def test_an_optional_one_branch_holds_is_present_at_run_time(cond: bool) -> None:
    """Its presence becomes a bool flag each branch sets (a C output beside
    the value's tensors), OptionalHasElement reads it, and run() returns
    None where it is empty, as onnxruntime does."""
    model = _run_time_optional(3)
    feeds = {"cond": np.array(cond), "x": np.array([1, 2, 3], np.float32)}
    has, wanted = _onnxruntime(model, feeds)
    got = onnxc.compile(model).run(feeds)
    assert bool(got["has"]) == bool(has) == (not cond)
    if wanted is None:
        assert got["value"] is None
    else:
        np.testing.assert_array_equal(got["value"], wanted)


@pytest.mark.parametrize("cond", [True, False])
def test_getting_the_element_of_an_optional_empty_at_run_time_stops(cond: bool) -> None:
    """OptionalGetElement of the optional an If leaves empty is an error
    (the spec's, and onnxruntime's): the model stops with ONNXC_ERR_SHAPE
    instead of giving the zeros the empty branch holds."""
    model = _run_time_optional(3)
    model.graph.node.append(helper.make_node("OptionalGetElement", ["opt"], ["got"]))
    model.graph.output.append(value("got", F, [3]))
    feeds = {"cond": np.array(cond), "x": np.array([1, 2, 3], np.float32)}
    compiled = onnxc.compile(model)
    if cond:  # the then-branch: empty
        with pytest.raises(RunError, match="status -5"):
            compiled.run(feeds)
    else:
        np.testing.assert_array_equal(compiled.run(feeds)["got"], [2, 3, 4])


def test_an_optional_one_branch_holds_needs_its_static_shape() -> None:
    with pytest.raises(OnnxcError, match="needs its value's static shape") as error:
        onnxc.compile(_run_time_optional("N"))
    assert "\n" not in str(error.value)


def test_containers_survive_the_compilation_cache() -> None:
    """What the cache stores of the containers reads back the same: a
    sequence, an optional known now, one known at run time, ZipMap's maps."""
    from onnxc.container_io import from_plain, to_plain
    from onnxc.containers import Containers, Maps, Opt, Seq

    containers = Containers(
        {"s": Seq(("s[0]", "s[1]")), "o": Opt(None)},
        {"p": Opt(Seq(("p[0]",)), "p?present"), "t": Opt("t"), "m": Maps("m", ("a", "b"))},
        ["fixed"],
    )
    assert from_plain(json.loads(json.dumps(to_plain(containers)))) == containers


@pytest.mark.parametrize("cond", [True, False])
def test_an_optional_string_one_branch_holds(cond: bool) -> None:
    """The empty branch of a string optional holds empty strings."""
    strings = helper.make_tensor_type_proto(TensorProto.STRING, [2])
    optional = helper.make_optional_type_proto(strings)
    then_branch = helper.make_graph(
        [helper.make_node("Optional", [], ["none"], type=strings)],
        "then",
        [],
        [helper.make_value_info("none", optional)],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Optional", ["x"], ["some"])],
        "else",
        [],
        [helper.make_value_info("some", optional)],
    )
    graph = helper.make_graph(
        [helper.make_node("If", ["cond"], ["y"], then_branch=then_branch, else_branch=else_branch)],
        "g",
        [value("cond", TensorProto.BOOL, []), value("x", TensorProto.STRING, [2])],
        [helper.make_value_info("y", optional)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    feeds = {"cond": np.array(cond), "x": np.array(["a", "bé"], dtype=object)}
    (wanted,) = _onnxruntime(model, feeds)
    got = onnxc.compile(model).run(feeds)["y"]
    assert (got is None) == (wanted is None) == cond
    if not cond:
        assert got.tolist() == wanted.tolist()
