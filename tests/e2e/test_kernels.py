"""The blocked kernels (`select-kernels` on the host targets) against
onnxruntime: every convolution geometry the kernel takes (padded, asymmetric
pads, strided, dilated, 1x1, depthwise, channel counts that fill no whole
block, a batch of two), the fused epilogues (Relu, Clip, residual Add, in
place) and the blocked poolings; rtol 1e-5, atol 1e-6. Each case also checks
that the kernels were chosen, so that a silent fallback to the plain loops
cannot pass for them."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from onnxc.dialects import kernel
from onnxc.frontend import import_model
from onnxc.pipeline import lower

ort = pytest.importorskip("onnxruntime")


def _conv(name: str, x: str, y: str, c: int, m: int, k: int, rng, **attributes):
    group = attributes.get("group", 1)
    w = (rng.standard_normal((m, c // group, k, k)) / (k * np.sqrt(c // group))).astype(np.float32)
    b = rng.standard_normal(m).astype(np.float32)
    node = helper.make_node("Conv", [x, f"{name}_w", f"{name}_b"], [y], name=name, **attributes)
    return node, [numpy_helper.from_array(w, f"{name}_w"), numpy_helper.from_array(b, f"{name}_b")]


def _model(nodes, weights, x_shape, outputs=(("y", None),)) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "kernels",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n, shape in outputs],
        initializer=weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    return onnx.shape_inference.infer_shapes(model)


def _single(c, m, k, x_hw, batch=1, **attributes):
    rng = np.random.default_rng(c * 100 + m + k)
    node, weights = _conv("conv", "x", "y", c, m, k, rng, **attributes)
    return _model([node], weights, [batch, c, *x_hw])


CONVS = {
    "3x3_pad1": lambda: _single(16, 16, 3, (9, 11), pads=[1, 1, 1, 1]),
    "asymmetric_pads": lambda: _single(8, 16, 3, (7, 10), pads=[0, 2, 1, 0]),
    "stride2": lambda: _single(16, 32, 3, (12, 13), pads=[1, 1, 1, 1], strides=[2, 2]),
    "dilated": lambda: _single(8, 8, 3, (11, 11), pads=[2, 2, 2, 2], dilations=[2, 2]),
    "1x1_stride2": lambda: _single(32, 24, 1, (8, 8), strides=[2, 2]),
    "odd_channels": lambda: _single(3, 20, 5, (14, 14), pads=[2, 2, 2, 2]),
    "one_channel_in": lambda: _single(1, 6, 5, (12, 12)),
    "wide_kernel": lambda: _single(4, 16, 3, (30, 9), pads=[1, 0, 1, 0], strides=[2, 1]),
    "depthwise": lambda: _single(24, 24, 3, (10, 10), pads=[1, 1, 1, 1], group=24),
    "depthwise_stride2": lambda: _single(
        40, 40, 3, (9, 9), pads=[1, 1, 1, 1], strides=[2, 2], group=40
    ),
    # a row narrower than a register block: one masked block
    "depthwise_narrow": lambda: _single(32, 32, 3, (7, 5), pads=[1, 1, 1, 1], group=32),
    "batch2": lambda: _single(16, 16, 3, (6, 6), batch=2, pads=[1, 1, 1, 1]),
    # masked blocks at both borders around a loop of inside ones
    "wide_row": lambda: _single(8, 16, 3, (5, 40), pads=[1, 1, 1, 1]),
    # 18 input channels: blocks of 16, the second with padding lanes
    "partial_input_block": lambda: _single(18, 16, 3, (6, 6), pads=[1, 1, 1, 1]),
    # padding wider than a block: whole blocks see only padding
    "pads_beyond_a_block": lambda: _single(2, 8, 3, (4, 30), pads=[0, 10, 0, 10]),
    # rows of one output pixel whose window is wider than the input row (a
    # random graph: gcc 12 vectorised the loop over such rows wrongly)
    "window_wider_than_rows": lambda: _wide_window(),
}


def _wide_window() -> onnx.ModelProto:
    w = np.random.default_rng(5).standard_normal((2, 1, 1, 4)).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", pads=[1, 1, 1, 1])
    return _model([node], [numpy_helper.from_array(w, "w")], [2, 1, 3, 2])


def _epilogues() -> onnx.ModelProto:
    """Conv+Relu, Conv+Add(its own input)+Relu, a stride-2 shortcut computed
    after the conv it is added to (in place), +Clip (ReLU6), a depthwise conv, then a
    MaxPool and two AveragePools on the blocked layout."""
    rng = np.random.default_rng(7)
    convs, weights = {}, []
    for name, x, y, c, m, k, attributes in [
        ("c1", "x", "a", 8, 16, 3, {"pads": [1, 1, 1, 1]}),
        ("c2", "r", "b", 16, 16, 3, {"pads": [1, 1, 1, 1]}),
        ("c3", "s", "d", 16, 32, 3, {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
        ("c4", "s", "e", 16, 32, 1, {"strides": [2, 2]}),
        ("c5", "g", "h", 32, 32, 3, {"pads": [1, 1, 1, 1], "group": 32}),
    ]:
        convs[name], w = _conv(name, x, y, c, m, k, rng, **attributes)
        weights += w
    lo = numpy_helper.from_array(np.array(0.0, np.float32), "lo")
    hi = numpy_helper.from_array(np.array(6.0, np.float32), "hi")
    nodes = [
        convs["c1"],
        helper.make_node("Relu", ["a"], ["r"]),
        convs["c2"],
        helper.make_node("Add", ["b", "r"], ["t"]),
        helper.make_node("Relu", ["t"], ["s"]),
        convs["c3"],
        convs["c4"],
        helper.make_node("Add", ["d", "e"], ["f"]),
        helper.make_node("Clip", ["f", "lo", "hi"], ["g"]),
        convs["c5"],
        helper.make_node("MaxPool", ["h"], ["p"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("AveragePool", ["p"], ["q"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node(
            "AveragePool",
            ["p"],
            ["q2"],
            kernel_shape=[3, 3],
            pads=[1, 1, 1, 1],
            count_include_pad=0,
        ),
        helper.make_node("Add", ["q2", "p"], ["u"]),
        helper.make_node("GlobalAveragePool", ["u"], ["y"]),
    ]
    outputs = (("y", [1, 32, 1, 1]), ("q", [1, 32, 3, 3]))
    return _model(nodes, [*weights, lo, hi], [1, 8, 12, 12], outputs=outputs)


def _kernel_ops(model: onnx.ModelProto, target: str) -> list[str]:
    module = lower(import_model(model).module, "kernels", target=target)
    return [op.name for op in module.walk() if isinstance(op, kernel.ConvOp | kernel.PoolOp)]


def _compare(model: onnx.ModelProto, target: str) -> None:
    x_shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in model.graph.output]
    expected = session.run(names, {"x": x})
    got = onnxc.compile(model, target=target).run({"x": x})
    for name, want in zip(names, expected, strict=True):
        # the README's float32 bound: 1e-5 relative to the output's scale (a
        # folded BatchNormalization rounds W * s once: its error follows the
        # summed terms, not an element the sum cancels down, which on a Zen 3
        # host was 3.2e-6 off at -0.165 of an output of scale 1)
        scale = float(np.abs(want).max())
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-5 * scale)


@pytest.mark.parametrize("name", list(CONVS))
def test_convolution(name: str) -> None:
    model = CONVS[name]()
    assert _kernel_ops(model, "host") == ["kernel.conv"]
    _compare(model, "host")


@pytest.mark.parametrize("target", ["host", "host-portable"])
def test_epilogues_and_pools(target: str) -> None:
    model = _epilogues()
    ops = _kernel_ops(model, target)
    # the Add of two pools' results runs blocked (elementwise_layout.py), so
    # the GlobalAveragePool after it is a blocked pool too
    assert ops.count("kernel.conv") == 5 and ops.count("kernel.pool") == 4
    _compare(model, target)


def test_fused_ops_leave_the_graph() -> None:
    module = lower(import_model(_epilogues()).module, "kernels", target="host-portable")
    names = [op.name for op in module.walk()]
    assert "onnx.Relu" not in names and "onnx.Clip" not in names
    assert names.count("onnx.Add") == 1  # q2 + p: no convolution's result (blocked)
    assert names.count("kernel.unblock") == 2  # the results y and q
    convs = [op for op in module.walk() if isinstance(op, kernel.ConvOp)]
    # c3 over c4's result; not c2, whose residual is its own input
    assert [c.attr("in_place") for c in convs] == [0, 0, 0, 1, 0]
    assert sum(1 for op in module.walk() if isinstance(op, kernel.BlockOp)) == 1  # x only


def test_targets_without_kernels_keep_plain_loops() -> None:
    assert _kernel_ops(CONVS["3x3_pad1"](), "cortex-m0") == []


def _gemm(rows: int, depth: int, outputs: int, trans_b: int, relu: bool, **attributes):
    rng = np.random.default_rng(rows * 1000 + outputs)
    shape = (outputs, depth) if trans_b else (depth, outputs)
    b = (rng.standard_normal(shape) / np.sqrt(depth)).astype(np.float32)
    c = rng.standard_normal(outputs).astype(np.float32)
    nodes = [helper.make_node("Gemm", ["x", "b", "c"], ["g"], transB=trans_b, **attributes)]
    nodes.append(helper.make_node("Relu" if relu else "Identity", ["g"], ["y"]))
    weights = [numpy_helper.from_array(b, "b"), numpy_helper.from_array(c, "c")]
    return _model(nodes, weights, [rows, depth], outputs=(("y", [rows, outputs]),))


GEMMS = {
    "one_row_many_blocks_relu": lambda: _gemm(1, 400, 120, 1, True),
    "rows_one_block": lambda: _gemm(5, 64, 10, 1, False),
    "not_transposed": lambda: _gemm(1, 84, 10, 0, True),
}


@pytest.mark.parametrize("name", list(GEMMS))
def test_gemm(name: str) -> None:
    model = GEMMS[name]()
    assert _kernel_ops(model, "host") == ["kernel.conv"]
    _compare(model, "host")
    if "relu" in name:
        module = lower(import_model(model).module, "kernels", target="host")
        assert "onnx.Relu" not in [op.name for op in module.walk()]


def test_gemm_kernels_leave_what_they_do_not_compute() -> None:
    """alpha != 1 stays with the plain lowering; many rows of many blocks
    (the result would need a transposition) are no 1x1 convolution (the
    matrix-product kernel takes them: tests/e2e/test_matmul_kernels.py)."""
    assert _kernel_ops(_gemm(1, 16, 8, 1, False, alpha=0.5), "host") == []
    wide = _gemm(4, 32, 40, 1, False)
    assert _kernel_ops(wide, "host") == []
    _compare(wide, "host")


def test_tanh_epilogues() -> None:
    """Conv+Tanh (6 channels: a block of 6 with accumulators of 8 lanes) with
    an AveragePool on its blocked result, and Gemm+Tanh (84 outputs: blocks
    of 12 with accumulators of 16), as LeNet-5 has them."""
    rng = np.random.default_rng(5)
    conv, weights = _conv("conv", "x", "c", 1, 6, 5, rng)
    b = (rng.standard_normal((84, 96)) / 4).astype(np.float32)
    nodes = [
        conv,
        helper.make_node("Tanh", ["c"], ["t"]),
        helper.make_node("AveragePool", ["t"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "b", "bias"], ["g"], transB=1),
        helper.make_node("Tanh", ["g"], ["y"]),
    ]
    weights += [
        numpy_helper.from_array(b, "b"),
        numpy_helper.from_array(rng.standard_normal(84).astype(np.float32), "bias"),
    ]
    model = _model(nodes, weights, [1, 1, 12, 12], outputs=(("y", [1, 84]),))
    module = lower(import_model(model).module, "kernels", target="host")
    activations = [op.attr("activation") for op in module.walk() if isinstance(op, kernel.ConvOp)]
    assert activations == ["Tanh", "Tanh"]
    assert _kernel_ops(model, "host").count("kernel.pool") == 1
    _compare(model, "host")


@pytest.mark.parametrize("target", ["host", "cortex-m4"])
def test_batch_normalization_folds_into_the_convolution(target: str) -> None:
    """Conv+BatchNormalization+Relu (statistics far from 0 and 1, a conv
    without bias, a depthwise one with) is one kernel: the normalisation in
    its weights and bias; within rtol 1e-5 of onnxruntime."""
    rng = np.random.default_rng(11)
    first, weights = _conv("c1", "x", "a", 8, 16, 3, rng, pads=[1, 1, 1, 1])
    first.input.pop()  # no bias
    weights.pop()
    second, more = _conv("c2", "r", "d", 16, 16, 3, rng, pads=[1, 1, 1, 1], group=16)
    weights += more
    nodes = [first, second]
    for name, x, y in [("n1", "a", "b"), ("n2", "d", "y")]:
        statistics = {
            f"{name}_scale": rng.uniform(0.5, 2.0, 16),
            f"{name}_bias": rng.standard_normal(16),
            f"{name}_mean": rng.standard_normal(16) * 3,
            f"{name}_var": rng.uniform(0.1, 4.0, 16),
        }
        weights += [numpy_helper.from_array(v.astype(np.float32), k) for k, v in statistics.items()]
        nodes.append(
            helper.make_node("BatchNormalization", [x, *statistics], [y], epsilon=1e-3, name=name)
        )
    nodes.insert(3, helper.make_node("Relu", ["b"], ["r"]))
    nodes = [nodes[0], nodes[2], nodes[3], nodes[1], nodes[4]]
    model = _model(nodes, weights, [1, 8, 9, 9], outputs=(("y", [1, 16, 9, 9]),))
    module = lower(import_model(model).module, "kernels", target=target)
    names = [op.name for op in module.walk()]
    assert "onnx.BatchNormalization" not in names and "onnx.Relu" not in names
    assert names.count("kernel.conv") == 2
    _compare(model, target)


def test_hard_swish_epilogues() -> None:
    """HardSwish after a convolution, a depthwise one and a many-row Gemm (the
    matrix-product kernel), as MobileNetV3 has them: fused, as the plain
    lowering computes it."""
    rng = np.random.default_rng(13)
    first, weights = _conv("c1", "x", "a", 8, 16, 3, rng, pads=[1, 1, 1, 1])
    second, more = _conv("c2", "b", "c", 16, 16, 3, rng, pads=[1, 1, 1, 1], group=16)
    b = (rng.standard_normal((64, 40)) / 8).astype(np.float32)
    nodes = [
        first,
        helper.make_node("HardSwish", ["a"], ["b"]),
        second,
        helper.make_node("HardSwish", ["c"], ["d"]),
        helper.make_node("Reshape", ["d", "shape"], ["e"]),
        helper.make_node("Gemm", ["e", "w", "bias"], ["g"]),
        helper.make_node("HardSwish", ["g"], ["y"]),
    ]
    weights += [
        *more,
        numpy_helper.from_array(np.array([16, 64], np.int64), "shape"),
        numpy_helper.from_array(b, "w"),
        numpy_helper.from_array(rng.standard_normal(40).astype(np.float32), "bias"),
    ]
    model = _model(nodes, weights, [1, 8, 8, 8], outputs=(("y", [16, 40]),))
    module = lower(import_model(model).module, "kernels", target="host")
    names = [op.name for op in module.walk()]
    assert "onnx.HardSwish" not in names, names
    _compare(model, "host")
