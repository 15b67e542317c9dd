"""The fast path of calls (emit/call_plan.py): a call with the shapes of an
earlier one reuses its plan, with the same results as the checked path, fresh
output arrays, the same errors for bad inputs, a plan per thread, and at most
MAX_PLANS plans per thread."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from onnx import TensorProto, helper

import onnxc
from onnxc.emit.build import MAX_PLANS, CompiledC
from onnxc.errors import RunError


def _model(shape: list[int | str]) -> onnxc.CompiledModel:
    nodes = [helper.make_node("Mul", ["x", "x"], ["y"]), helper.make_node("Relu", ["y"], ["z"])]
    graph = helper.make_graph(
        nodes,
        "square",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, shape)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return onnxc.compile(model, name=f"square_{len(shape)}")


def test_repeated_calls_match_and_return_fresh_arrays() -> None:
    model = _model([2, 3])
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (first,) = model(x)
    (second,) = model(x)
    (third,) = model(x + 1)
    assert isinstance(model.runner, CompiledC) and model.runner.plans_here() == 1
    np.testing.assert_array_equal(first, x * x)
    np.testing.assert_array_equal(second, x * x)
    np.testing.assert_array_equal(third, (x + 1) * (x + 1))
    assert first is not second and not np.shares_memory(first, second)


def test_bad_inputs_after_a_plan_get_the_checked_errors() -> None:
    model = _model([2, 3])
    model(np.ones((2, 3), np.float32))
    with pytest.raises(RunError, match="must be float32, got int64"):
        model.runner.call([np.ones((2, 3), np.int64)])
    with pytest.raises(RunError, match="C-contiguous"):
        model.runner.call([np.ones((3, 2), np.float32).T])
    with pytest.raises(RunError, match="must have shape"):
        model(np.ones((3, 3), np.float32))


def test_each_thread_has_its_own_plan() -> None:
    model = _model([64])
    failures: list[str] = []

    def work(seed: int) -> None:
        x = np.random.default_rng(seed).standard_normal(64).astype(np.float32)
        for _ in range(300):
            (z,) = model(x)
            if not np.array_equal(z, x * x):
                failures.append(f"thread {seed}")
                return

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_free_dimensions_keep_a_plan_per_shape_up_to_the_limit() -> None:
    model = _model(["n"])
    for n in range(1, MAX_PLANS + 4):
        x = np.arange(n, dtype=np.float32) - 2
        (z,) = model(x)
        np.testing.assert_array_equal(z, np.maximum(x * x, 0))
    assert isinstance(model.runner, CompiledC) and model.runner.plans_here() == MAX_PLANS
