"""NAME_invoke with output capacities too small: every output's shape is
written before ONNXC_ERR_CAPACITY, so one retry with those shapes succeeds,
and nothing is written into the outputs that were too small."""

import math

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import onnxc
from onnxc.emit.runner import ERR_CAPACITY

F = TensorProto.FLOAT


def _model(static_output: bool):
    """Outputs of several sizes following from the free dimension N (and one
    of a fixed shape when `static_output`)."""
    nodes = [
        helper.make_node("Concat", ["x", "x"], ["twice"], axis=0),
        helper.make_node("Relu", ["x"], ["relu"]),
        helper.make_node("Mul", ["twice", "twice"], ["square"]),
        helper.make_node("ReduceSum", ["x"], ["total"], keepdims=1),
    ]
    outputs = [
        helper.make_tensor_value_info("twice", F, ["2N", 3]),
        helper.make_tensor_value_info("relu", F, ["N", 3]),
        helper.make_tensor_value_info("square", F, ["2N", 3]),
    ]
    if static_output:
        outputs.append(helper.make_tensor_value_info("total", F, [1, 1]))
    else:
        nodes.pop()
    graph = helper.make_graph(
        nodes, "capacities", [helper.make_tensor_value_info("x", F, ["N", 3])], outputs
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _invoke(runner, x: np.ndarray, capacities: list[int], fill: float):
    """One call of NAME_invoke; returns the status, the shapes written and the
    output buffers (filled with `fill` before the call)."""
    ffi = runner.ffi
    shape_in = ffi.new("int64_t[]", list(x.shape))
    tensors_in = ffi.new("onnxc_tensor[]", 1)
    tensors_in[0].data = ffi.cast("void *", ffi.from_buffer(x))
    tensors_in[0].capacity = x.size
    tensors_in[0].shape = shape_in
    count = len(runner.outputs)
    tensors_out = ffi.new("onnxc_tensor[]", count)
    shapes = [ffi.new("int64_t[]", [-7] * len(s.shape)) for s in runner.outputs]
    buffers = [np.full(max(1, c), fill, np.float32) for c in capacities]
    for k in range(count):
        tensors_out[k].data = ffi.cast("void *", ffi.from_buffer(buffers[k]))
        tensors_out[k].capacity = capacities[k]
        tensors_out[k].shape = shapes[k]
    size = runner.size_function(x.shape[0]) if runner.size_function else runner.workspace_size
    workspace = np.zeros(int(size) + 64, np.uint8)
    start = -workspace.ctypes.data % 16
    pointer = ffi.cast("void *", ffi.from_buffer(workspace[start:]))
    size_in = ffi.new("size_t *", int(size))
    status = runner.invoke(pointer, size_in, tensors_in, tensors_out)
    ranks = [len(s.shape) for s in runner.outputs]
    written = [[int(shapes[k][d]) for d in range(rank)] for k, rank in enumerate(ranks)]
    return status, written, buffers


@pytest.mark.parametrize("static_output", [False, True])
def test_one_retry_suffices(static_output: bool) -> None:
    model = _model(static_output)
    compiled = onnxc.compile(model, cache=False)
    runner = compiled.runner
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    status, shapes, buffers = _invoke(runner, x, [0] * len(runner.outputs), fill=7.0)
    assert status == ERR_CAPACITY
    session = ort.InferenceSession(model.SerializeToString())
    want = [np.asarray(w) for w in session.run(None, {"x": x})]
    if not static_output:
        # every shape known from the input sizes is written; nothing computed
        assert shapes == [list(w.shape) for w in want]
        assert all((b == 7.0).all() for b in buffers)
    needed = [math.prod(s) for s in shapes]
    if static_output:  # the fixed-shape outputs are checked first, by invoke
        assert shapes[-1] == [1, 1]
        status, shapes, buffers = _invoke(runner, x, [*[0] * 3, 1], fill=7.0)
        assert status == ERR_CAPACITY
        assert shapes[:3] == [list(w.shape) for w in want[:3]]
        assert (buffers[3] == 7.0).all()
        needed = [math.prod(s) for s in shapes]
    status, shapes, buffers = _invoke(runner, x, needed, fill=7.0)
    assert status == 0
    for got, shape, expected in zip(buffers, shapes, want, strict=True):
        np.testing.assert_allclose(got.reshape(shape), expected, rtol=1e-6, atol=1e-6)


def test_short_by_one_in_the_middle() -> None:
    """Only the second output short: the call stops before writing any."""
    model = _model(False)
    runner = onnxc.compile(model, cache=False).runner
    x = np.ones((4, 3), np.float32)
    status, shapes, buffers = _invoke(runner, x, [24, 11, 24], fill=7.0)
    assert status == ERR_CAPACITY
    assert shapes == [[8, 3], [4, 3], [8, 3]]
    assert all((b == 7.0).all() for b in buffers)
