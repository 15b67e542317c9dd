"""If whose branches yield a result at different shapes (as exporters of
scripted control flow write them): the result's sizes are the taken branch's,
and everything after it runs at those sizes. Compared with onnxruntime (exact:
the values are copied, then Relu or a sum of a few elements, rtol 1e-6)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import onnxc

X = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)


def _if_model(
    then: list[onnx.NodeProto],
    then_shape: list[int | str],
    other: list[onnx.NodeProto],
    other_shape: list[int],
    after: list[onnx.NodeProto],
    out_shape: list[int | str],
) -> onnx.ModelProto:
    choose = h.make_node(
        "If",
        ["c"],
        ["y"],
        then_branch=h.make_graph(
            then, "then", [], [h.make_tensor_value_info("a", T.FLOAT, then_shape)]
        ),
        else_branch=h.make_graph(
            other, "else", [], [h.make_tensor_value_info("b", T.FLOAT, other_shape)]
        ),
    )
    graph = h.make_graph(
        [choose, *after],
        "g",
        [h.make_tensor_value_info("x", T.FLOAT, [2, 3]), h.make_tensor_value_info("c", T.BOOL, [])],
        [h.make_tensor_value_info("z", T.FLOAT, out_shape)],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])


def _check(model: onnx.ModelProto) -> set[tuple[int, ...]]:
    """The output's shapes for both conditions, each matched against onnxruntime."""
    import onnxruntime as ort

    compiled = onnxc.compile(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    shapes = set()
    for c in (True, False):
        feeds = {"x": X, "c": np.array(c)}
        want = np.asarray(session.run(None, feeds)[0])
        got = compiled.run(feeds)["z"]
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6)
        shapes.add(got.shape)
    return shapes


def test_rows_differ() -> None:
    shapes = _check(
        _if_model(
            [h.make_node("Identity", ["x"], ["a"])],
            [2, 3],
            [h.make_node("Concat", ["x", "x"], ["b"], axis=0)],
            [4, 3],
            [h.make_node("Relu", ["y"], ["z"])],
            ["rows", 3],
        )
    )
    assert shapes == {(2, 3), (4, 3)}


@pytest.mark.parametrize("axis", [0, 1])
def test_every_axis_differs(axis: int) -> None:
    """The then branch is a 1x2 slice, the else branch the 3x2 transpose: the
    result feeds a reduction over `axis`."""
    starts = h.make_tensor("s", T.INT64, [2], [0, 0])
    ends = h.make_tensor("e", T.INT64, [2], [1, 2])
    model = _if_model(
        [
            h.make_node("Constant", [], ["s"], value=starts),
            h.make_node("Constant", [], ["e"], value=ends),
            h.make_node("Slice", ["x", "s", "e"], ["a"]),
        ],
        [1, 2],
        [h.make_node("Transpose", ["x"], ["b"], perm=[1, 0])],
        [3, 2],
        [h.make_node("ReduceSum", ["y", "axes"], ["z"], keepdims=0)],
        ["n"],
    )
    model.graph.initializer.append(h.make_tensor("axes", T.INT64, [1], [axis]))
    assert _check(model) == ({(2,)} if axis == 0 else {(1,), (3,)})


def _ranks_model(after: list[onnx.NodeProto], out_shape: list[int | str]) -> onnx.ModelProto:
    """then_branch yields x [2, 3], else_branch x flattened to [6]."""
    model = _if_model(
        [h.make_node("Identity", ["x"], ["a"])],
        [2, 3],
        [h.make_node("Reshape", ["x", "flat"], ["b"])],
        [6],
        after,
        out_shape,
    )
    model.graph.initializer.append(h.make_tensor("flat", T.INT64, [1], [6]))
    model.graph.initializer.append(h.make_tensor("three_two", T.INT64, [2], [3, 2]))
    return model


@pytest.mark.parametrize(
    ("after", "out_shape"),
    [
        ([h.make_node("ReduceSum", ["y"], ["z"], keepdims=0)], []),
        (
            [h.make_node("Relu", ["y"], ["r"]), h.make_node("ReduceMax", ["r"], ["z"], keepdims=0)],
            [],
        ),
        ([h.make_node("Reshape", ["y", "three_two"], ["z"])], [3, 2]),
        ([h.make_node("Flatten", ["y"], ["z"], axis=0)], [1, 6]),
    ],
    ids=["reduce", "relu-then-reduce", "reshape", "flatten"],
)
def test_ranks_differ_until_a_consumer_agrees(
    after: list[onnx.NodeProto], out_shape: list[int | str]
) -> None:
    """The consumers move into the branches until the ranks agree."""
    assert len(_check(_ranks_model(after, out_shape))) == 1


def test_ranks_that_never_agree_name_the_consumers() -> None:
    model = _ranks_model(
        [h.make_node("Relu", ["y"], ["r"]), h.make_node("Add", ["y", "r"], ["q"]),
         h.make_node("ReduceSum", ["q"], ["z"], keepdims=0)],
        [],
    )  # fmt: skip
    with pytest.raises(
        onnxc.OnnxcError, match=r"its consumers .*\(Relu\), .*\(Add\) need one rank"
    ):
        onnxc.compile(model)


def test_sizes_from_data_in_a_branch() -> None:
    """The then branch keeps x's positive elements (Compress: a size known
    only once the branch has run), the else branch x's first row; what
    follows is copied out of the branch's storage at that size."""
    model = _if_model(
        [
            h.make_node("Reshape", ["x", "flat"], ["f"]),
            h.make_node("Greater", ["f", "zero"], ["keep"]),
            h.make_node("Compress", ["f", "keep"], ["a"], axis=0),
        ],
        ["kept"],
        [h.make_node("Gather", ["x", "first"], ["b"], axis=0)],
        [3],
        [h.make_node("Relu", ["y"], ["r"]), h.make_node("Add", ["r", "y"], ["z"])],
        ["n"],
    )
    model.graph.initializer.extend(
        [
            h.make_tensor("flat", T.INT64, [1], [-1]),
            h.make_tensor("zero", T.FLOAT, [], [0.0]),
            h.make_tensor("first", T.INT64, [], [0]),
        ]
    )
    assert _check(model) == {(int((X > 0).sum()),), (3,)}
