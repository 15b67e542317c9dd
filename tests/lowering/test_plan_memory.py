"""plan-memory on small models: buffers share the arena by liveness, outputs
reuse dying inputs in place, types never share bytes, the workspace is exactly
the plan, and every plan is checked independently and run against numpy."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr

import onnxc
from onnxc.frontend import import_model
from onnxc.pipeline import lower
from tests.lowering.memory_check import check_plan, planned_views

N = 64  # elements per tensor: 256 bytes in f32, a multiple of the alignment


def model(nodes: list[onnx.NodeProto], inits: dict[str, np.ndarray] | None = None):
    graph = helper.make_graph(
        nodes,
        "plan",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, N])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, N])],
        initializer=[numpy_helper.from_array(v, k) for k, v in (inits or {}).items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def memory_of(m: onnx.ModelProto) -> tuple[dict[str, int], int]:
    module = lower(import_model(m).module, "loops")
    fn = next(op for op in module.ops if op.name == "func.func")
    memory = fn.attributes["onnxc.memory"]
    assert isinstance(memory, DictionaryAttr)
    figures = {k: v.value.data for k, v in memory.data.items() if isinstance(v, IntegerAttr)}
    assert len(figures) == len(memory.data)
    return figures, check_plan(module)


def run(m: onnx.ModelProto, x: np.ndarray) -> tuple[np.ndarray, int | None]:
    compiled = onnxc.compile(m)
    return compiled(x)[0], compiled.workspace_size


X = np.random.default_rng(0).standard_normal((1, N)).astype(np.float32)


def test_chain_runs_in_one_buffer():
    m = model(
        [
            helper.make_node("Relu", ["x"], ["a"]),
            helper.make_node("Exp", ["a"], ["b"]),
            helper.make_node("Neg", ["b"], ["c"]),
            helper.make_node("Add", ["c", "k"], ["y"]),
        ],
        {"k": np.full((1, N), 0.5, np.float32)},
    )
    figures, arena = memory_of(m)
    assert arena == figures["arena"] == 4 * N
    assert figures["in_place"] == 2
    assert figures["intermediates"] == 3 * 4 * N
    assert figures["greedy_by_size"] == 2 * 4 * N  # no in-place: two buffers alternate
    y, workspace = run(m, X)
    assert workspace == 4 * N
    np.testing.assert_allclose(y, -np.exp(np.maximum(X, 0)) + 0.5, rtol=1e-6)


def test_input_still_needed_is_not_overwritten():
    # a feeds Exp and then Neg: b cannot take a's bytes, c can (a dies at Neg).
    m = model(
        [
            helper.make_node("Relu", ["x"], ["a"]),
            helper.make_node("Exp", ["a"], ["b"]),
            helper.make_node("Neg", ["a"], ["c"]),
            helper.make_node("Add", ["b", "c"], ["y"]),
        ]
    )
    figures, arena = memory_of(m)
    assert arena == figures["max_live"] == 2 * 4 * N
    y, _ = run(m, X)
    a = np.maximum(X, 0)
    np.testing.assert_allclose(y, np.exp(a) - a, rtol=1e-6)


def test_element_types_never_share_bytes():
    # f32 -> i32 -> f32: the int buffer is born where the float one dies, yet
    # it must not reuse its bytes (C aliasing rules); the second float may.
    m = model(
        [
            helper.make_node("Relu", ["x"], ["a"]),
            helper.make_node("Cast", ["a"], ["b"], to=TensorProto.INT32),
            helper.make_node("Cast", ["b"], ["c"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["c", "x"], ["y"]),
        ]
    )
    module = lower(import_model(m).module, "loops")
    check_plan(module)
    _, views = planned_views(module)
    assert len(views) == 3
    (a, b, c) = sorted(views, key=lambda v: v.start)
    assert b.offset + b.size <= min(a.offset, c.offset) or b.offset >= max(
        a.offset + a.size, c.offset + c.size
    )
    y, workspace = run(m, X * 10)
    assert workspace == 2 * 4 * N
    np.testing.assert_array_equal(y, np.trunc(np.maximum(X * 10, 0)) * (X * 10))


def test_no_intermediates_no_arena():
    m = model([helper.make_node("Relu", ["x"], ["y"])])
    figures, arena = memory_of(m)
    assert arena == figures["arena"] == 0
    compiled = onnxc.compile(m)
    assert compiled.workspace_size == 0
    assert "arena" not in compiled.c_source.split("_run_with_workspace(")[1].split("\n}")[0]


@pytest.mark.parametrize("depth", [2, 5])
def test_branches_reuse_dead_buffers(depth: int):
    # Matmuls cannot run in place; a chain of them needs two buffers however long.
    w = np.random.default_rng(1).standard_normal((N, N)).astype(np.float32) / 8
    names = ["x"] + [f"t{i}" for i in range(depth)] + ["y"]
    pairs = zip(names[:-1], names[1:], strict=True)
    nodes = [helper.make_node("MatMul", [a, "w"], [b]) for a, b in pairs]
    m = model(nodes, {"w": w})
    figures, arena = memory_of(m)
    assert arena == figures["max_live"] == 2 * 4 * N
    y, _ = run(m, X)
    expected = X
    for _ in range(depth + 1):
        expected = expected @ w
    np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)


def _loop_model(body_nodes: list[onnx.NodeProto], trips: int) -> onnx.ModelProto:
    """x carried through `trips` iterations of a Loop whose body maps v to v_out."""
    value = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]), *body_nodes],
        "body",
        [value("i", TensorProto.INT64, []), value("c", TensorProto.BOOL, []),
         value("v", TensorProto.FLOAT, [1, N])],
        [value("c_out", TensorProto.BOOL, []), value("v_out", TensorProto.FLOAT, [1, N])],
    )  # fmt: skip
    return model(
        [helper.make_node("Loop", ["n", "", "x"], ["y"], body=body)],
        {"n": np.array(trips, np.int64)},
    )


def test_loop_body_temporaries_take_one_slot_each_for_every_iteration():
    """A body's three temporaries are planned once, whatever the trip count,
    and never share bytes with each other or with the carried value (the
    output buffer here), which the next iteration still reads."""
    body = [
        helper.make_node("Relu", ["v"], ["a"]),
        helper.make_node("Exp", ["a"], ["b"]),
        helper.make_node("Neg", ["b"], ["d"]),
        helper.make_node("Add", ["d", "v"], ["v_out"]),
    ]
    sizes = set()
    for trips in (1, 7):
        figures, arena = memory_of(_loop_model(body, trips))
        assert arena == figures["arena"] == figures["intermediates"] == 4 * 4 * N
        sizes.add(arena)
    assert len(sizes) == 1
    y, _ = run(_loop_model(body, 3), X)
    expected = X
    for _ in range(3):
        expected = -np.exp(np.maximum(expected, 0)) + expected
    np.testing.assert_allclose(y, expected, rtol=1e-6)


def test_loop_body_buffer_of_computed_size_gets_its_bound():
    """A slice at the iteration number has a size the body computes: its
    bytes are those of its upper bound (the sliced tensor), at the top."""
    starts = helper.make_node("Unsqueeze", ["i", "zero"], ["s"])
    body = [
        starts,
        helper.make_node("Slice", ["v", "s", "big", "one"], ["tail"]),
        helper.make_node("ReduceSum", ["tail", "one"], ["t"], keepdims=1),
        helper.make_node("Add", ["v", "t"], ["v_out"]),
    ]
    m = _loop_model(body, 3)
    for name, array in {"zero": [0], "big": [N], "one": [1]}.items():
        m.graph.initializer.append(numpy_helper.from_array(np.array(array, np.int64), name))
    figures, _ = memory_of(m)
    assert figures["arena"] >= 4 * N
    y, _ = run(m, X)
    expected = X.copy()
    for i in range(3):
        expected = expected + expected[:, i:].sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y, expected, rtol=1e-5)
