"""Sequences known only at run time (onnxc/ragged_sequences.py,
carried_loops.py) match onnxruntime exactly (they only move data).

Covered: a Loop with a run-time trip count growing a sequence, SequenceAt,
SequenceInsert and SequenceErase at run-time positions among tensors of
different shapes, SequenceLength, SplitToSequence with a split given at run
time (a scalar along the first and a later axis, sizes along the first,
none along an axis of run-time size), ConcatFromSequence and its stacking
form, an If whose branches make sequences of different lengths, an If whose
branches give a tensor of different sizes, the C interface of a sequence
output (`NAME` and `NAME?shapes`), and the one-line errors for what the
representation cannot give.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from onnxc.errors import OnnxcError, RunError
from tests.e2e.run_time import assert_builds_warning_free
from tests.frontend.test_sequences import F, checked_model, sequence, value

ort = pytest.importorskip("onnxruntime")

I64 = TensorProto.INT64


def _same(model: onnx.ModelProto, feeds: dict, shapes: dict | None = None) -> None:
    """onnxc's outputs are onnxruntime's, exactly (sequences as lists)."""
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)
    got = list(onnxc.compile(model, shapes=shapes or {}).run(feeds).values())
    assert len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        if isinstance(theirs, list):
            assert len(mine) == len(theirs)
            for a, b in zip(mine, theirs, strict=True):
                assert a.shape == b.shape
                np.testing.assert_array_equal(a, b)
        else:
            assert mine.shape == theirs.shape
            np.testing.assert_array_equal(mine, theirs)


def _growing_loop() -> onnx.ModelProto:
    """A Loop of a run-time trip count inserting x[:i + 1] into a sequence:
    the sequence, its concatenation and its length."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["i", "one"], ["end"]),
            helper.make_node("Unsqueeze", ["end", "zero"], ["ends"]),
            helper.make_node("Slice", ["x", "zero", "ends"], ["piece"]),
            helper.make_node("SequenceInsert", ["seq_in", "piece"], ["seq_out"]),
        ],
        "body",
        [value("i", I64, []), value("cond_in", TensorProto.BOOL, []), sequence("seq_in", F, None)],
        [value("cond_out", TensorProto.BOOL, []), sequence("seq_out", F, None)],
    )
    return checked_model(
        [
            helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
            helper.make_node("Loop", ["trips", "", "empty"], ["s"], body=body),
            helper.make_node("ConcatFromSequence", ["s"], ["joined"], axis=0),
            helper.make_node("SequenceLength", ["s"], ["count"]),
        ],
        [value("trips", I64, []), value("x", F, [6])],
        [sequence("s", F, [None]), value("joined", F, [None]), value("count", I64, [])],
        [
            numpy_helper.from_array(np.array([0], np.int64), "zero"),
            numpy_helper.from_array(np.array(1, np.int64), "one"),
        ],
    )


@pytest.mark.parametrize("trips", [1, 3, 6])
def test_loop_grows_a_sequence(trips: int) -> None:
    x = np.arange(1, 7, dtype=np.float32)
    _same(_growing_loop(), {"trips": np.array(trips), "x": x})


def _positions() -> onnx.ModelProto:
    """A sequence input of tensors of different shapes: one inserted, one
    read and one erased, each at a run-time position."""
    return checked_model(
        [
            helper.make_node("SequenceInsert", ["s", "t", "put"], ["inserted"]),
            helper.make_node("SequenceAt", ["inserted", "get"], ["picked"]),
            helper.make_node("SequenceErase", ["inserted", "drop"], ["erased"]),
            helper.make_node("SequenceLength", ["erased"], ["count"]),
        ],
        [
            sequence("s", I64, [None]),
            value("t", I64, [3]),
            value("put", I64, []),
            value("get", I64, []),
            value("drop", I64, []),
        ],
        [
            sequence("inserted", I64, [None]),
            value("picked", I64, [None]),
            sequence("erased", I64, [None]),
            value("count", I64, []),
        ],
    )


def _position_feeds(put: int, get: int, drop: int) -> dict:
    """A sequence of three tensors of different shapes, and the positions."""
    items = [np.arange(4), np.arange(10, 13), np.arange(20, 22)]
    return {
        "s": items,
        "t": np.array([-1, -2, -3]),
        "put": np.array(put),
        "get": np.array(get),
        "drop": np.array(drop),
    }


@pytest.mark.parametrize(("put", "get", "drop"), [(0, 0, -1), (3, -1, 0), (1, 2, 2), (-1, 1, 3)])
def test_insert_read_erase_at_run_time_positions(put: int, get: int, drop: int) -> None:
    feeds = _position_feeds(put, get, drop)
    _same(_positions(), feeds, {"s": [(4,), (3,), (2,)]})


@pytest.mark.parametrize(("put", "get", "drop"), [(5, 0, 0), (0, 4, 0), (0, 0, -5), (-5, 0, 0)])
def test_positions_out_of_range_stop_the_model(put: int, get: int, drop: int) -> None:
    """A position out of range is the spec's error: ONNXC_ERR_SHAPE, not a
    clamped read."""
    feeds = _position_feeds(put, get, drop)
    compiled = onnxc.compile(_positions(), shapes={"s": [(4,), (3,), (2,)]})
    with pytest.raises(RunError, match="status -5"):
        compiled.run(feeds)


def test_position_among_tensors_of_one_shape_is_checked() -> None:
    """SequenceAt at a run-time position among tensors of one static shape
    (selected elementwise) also stops on a position out of range."""
    model = checked_model(
        [
            helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
            helper.make_node("SequenceAt", ["s", "at"], ["y"]),
        ],
        [value("a", F, [2]), value("b", F, [2]), value("at", I64, [])],
        [value("y", F, [2])],
    )
    compiled = onnxc.compile(model)
    a, b = np.array([1, 2], np.float32), np.array([3, 4], np.float32)
    np.testing.assert_array_equal(compiled.run({"a": a, "b": b, "at": np.array(-1)})["y"], b)
    with pytest.raises(RunError, match="status -5"):
        compiled.run({"a": a, "b": b, "at": np.array(2)})


def _split(axis: int, split: onnx.ValueInfoProto | None, keepdims: int = 1) -> onnx.ModelProto:
    inputs = [value("x", F, ["N", 3] if axis == 0 else [3, "N"])]
    node_inputs = ["x"]
    if split is not None:
        inputs.append(split)
        node_inputs.append(split.name)
    return checked_model(
        [helper.make_node("SplitToSequence", node_inputs, ["s"], axis=axis, keepdims=keepdims)],
        inputs,
        [sequence("s", F, None)],
    )


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("chunk", [1, 3, 7, 9])
def test_split_by_a_run_time_size(axis: int, chunk: int) -> None:
    x = np.arange(21 if axis == 0 else 21, dtype=np.float32).reshape((3, 7))
    model = _split(axis, value("split", I64, []))
    _same(model, {"x": x if axis == 1 else x.T.copy(), "split": np.array(chunk)})


def test_split_by_run_time_sizes_along_the_first_axis() -> None:
    model = _split(0, value("split", I64, [None]))
    x = np.arange(21, dtype=np.float32).reshape(7, 3)
    _same(model, {"x": x, "split": np.array([2, 0, 5])})


def test_split_into_pieces_of_one_along_a_run_time_axis() -> None:
    model = _split(0, None, keepdims=0)
    _same(model, {"x": np.arange(12, dtype=np.float32).reshape(4, 3)})


def test_stack_a_run_time_sequence() -> None:
    """ConcatFromSequence with new_axis: the tensors stacked along axis 1."""
    model = checked_model(
        [
            helper.make_node("SplitToSequence", ["x", "split"], ["s"], axis=0),
            helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=1, new_axis=1),
        ],
        [value("x", F, [6, 2]), value("split", I64, [])],
        [value("y", F, [None, None, None])],
    )
    _same(model, {"x": np.arange(12, dtype=np.float32).reshape(6, 2), "split": np.array(2)})


def _branches() -> onnx.ModelProto:
    """An If whose then-branch makes a sequence of two tensors and whose
    else-branch one of one; and a tensor output of different sizes."""
    then_branch = helper.make_graph(
        [
            helper.make_node("SequenceConstruct", ["a", "b"], ["two"]),
            helper.make_node("Concat", ["a", "a"], ["doubled"], axis=0),
        ],
        "then",
        [],
        [sequence("two", F, None), value("doubled", F, [None])],
    )
    else_branch = helper.make_graph(
        [
            helper.make_node("SequenceConstruct", ["b"], ["one"]),
            helper.make_node("Identity", ["a"], ["same"]),
        ],
        "else",
        [],
        [sequence("one", F, None), value("same", F, [None])],
    )
    return checked_model(
        [
            helper.make_node(
                "If", ["c"], ["s", "t"], then_branch=then_branch, else_branch=else_branch
            )
        ],
        [value("c", TensorProto.BOOL, []), value("a", F, [2]), value("b", F, [3])],
        [sequence("s", F, None), value("t", F, [None])],
    )


@pytest.mark.parametrize("take", [True, False])
def test_if_branches_of_different_lengths_and_sizes(take: bool) -> None:
    feeds = {
        "c": np.array(take),
        "a": np.array([1, 2], np.float32),
        "b": np.array([3, 4, 5], np.float32),
    }
    _same(_branches(), feeds)


def test_sequence_output_is_two_c_tensors() -> None:
    """A sequence output known only at run time is its data and its shape
    table (rank, then sizes) in C."""
    compiled = onnxc.compile(_growing_loop())
    names = [spec.name for spec in compiled.runner.outputs]
    assert names[:2] == ["s", "s?shapes"]


@pytest.mark.parametrize("compiler", ["gcc", "clang", "arm-none-eabi-gcc"])
def test_c_is_warning_free(compiler: str, tmp_path) -> None:
    assert_builds_warning_free(_growing_loop(), "seqloop", tmp_path, compiler)


def test_mixed_ranks_cannot_be_read() -> None:
    """SequenceAt of a sequence whose tensors have different ranks: the
    result's rank would depend on data."""
    model = checked_model(
        [
            helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
            helper.make_node("SequenceAt", ["s", "at"], ["y"]),
        ],
        [value("a", F, [2]), value("b", F, [2, 2]), value("at", I64, [])],
        [value("y", F, [None])],
    )
    with pytest.raises(OnnxcError, match=r"different ranks \(1, 2\)") as error:
        onnxc.compile(model)
    assert "\n" not in str(error.value)


def test_concatenation_along_a_later_axis_is_refused() -> None:
    model = checked_model(
        [
            helper.make_node("SplitToSequence", ["x", "split"], ["s"], axis=0),
            helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=1),
        ],
        [value("x", F, [6, 2]), value("split", I64, [])],
        [value("y", F, [None, None])],
    )
    with pytest.raises(OnnxcError, match="along axis 1 \\(not the first\\)"):
        onnxc.compile(model)
