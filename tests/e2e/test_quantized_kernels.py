"""The integer convolution kernel (`kernel.qconv`) against onnxruntime, to
the bit: convolutions quantized by onnxruntime's own tool, in both its
formats, over the geometries the kernel takes (odd channel counts on both
sides, one input channel, strides, dilations, asymmetric padding, wide and
1x1 windows, Conv1d, a batch of two; depthwise ones with and without border
pixels), with int8 and uint8 activations and
weights per tensor and per channel.

Every target fuses the QDQ form into a QLinearConv (`onnx-fuse-quantized`).
The Cortex-M targets run it on the kernel of SMLAD pairs; the hosts on the
kernel of byte rows (`kernels/qconv_rows.py`) when its rows are long, else
on the float kernels, which compute it exactly (`select_kernels/
exact_float.py`). Each case checks which one was chosen, so that a fallback
to the plain integer loops cannot pass for it, and runs the hosts' cases
both ways (the float kernels' turned off). onnxruntime runs both forms as
QLinearConv and requantizes in float as the kernels do, so the outputs must
be equal, not close.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import TensorType

import onnxc
from onnxc.dialects import kernel
from onnxc.dialects import onnx as onnx_dialect
from onnxc.frontend import import_model
from onnxc.lowering.select_kernels import quantized
from onnxc.pipeline import lower
from onnxc.tools import exact_integer
from tests.mcu.tools import MISSING_ARM_TOOLS, needs_arm

ort = pytest.importorskip("onnxruntime")
quantization = pytest.importorskip("onnxruntime.quantization")


def _conv(name: str, x: str, y: str, c: int, m: int, kernel_shape: list[int], rng, **attributes):
    w = rng.standard_normal((m, c // attributes.get("group", 1), *kernel_shape)).astype(np.float32)
    b = rng.standard_normal(m).astype(np.float32)
    node = helper.make_node("Conv", [x, f"{name}_w", f"{name}_b"], [y], name=name, **attributes)
    return node, [numpy_helper.from_array(w, f"{name}_w"), numpy_helper.from_array(b, f"{name}_b")]


def _float_model(nodes, weights, x_shape) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "qconv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return onnx.shape_inference.infer_shapes(model)


def _single(c: int, m: int, kernel_shape: list[int], x_size: list[int], batch=1, **attributes):
    rng = np.random.default_rng(c * 100 + m + len(x_size))
    node, weights = _conv("conv", "x", "y", c, m, kernel_shape, rng, **attributes)
    return _float_model([node], weights, [batch, c, *x_size])


def _chain() -> onnx.ModelProto:
    """Five convolutions with Relus between them (which the quantizer folds
    into the quantization ranges): odd and even channel counts, 3x3 padded,
    1x1 strided, dilated, a 5x1 window with asymmetric padding, and a
    depthwise 3x3 one with stride 2."""
    rng = np.random.default_rng(11)
    nodes, weights = [], []
    for name, x, y, c, m, k, attributes in [
        ("c1", "x", "a", 3, 5, [3, 3], {"pads": [1, 1, 1, 1]}),
        ("c2", "ra", "b", 5, 8, [1, 1], {"strides": [2, 2]}),
        ("c3", "rb", "c", 8, 7, [3, 3], {"pads": [2, 2, 2, 2], "dilations": [2, 2]}),
        ("c4", "rc", "d", 7, 4, [5, 1], {"pads": [2, 0, 1, 0]}),
        ("c5", "rd", "y", 4, 4, [3, 3], {"pads": [1, 1, 1, 1], "strides": [2, 2], "group": 4}),
    ]:
        node, w = _conv(name, x, y, c, m, k, rng, **attributes)
        nodes.append(node)
        weights += w
        if y != "y":
            nodes.append(helper.make_node("Relu", [y], [f"r{y}"]))
    return _float_model(nodes, weights, [1, 3, 11, 9])


CONVS = {
    "3x3_pad1": lambda: _single(4, 6, [3, 3], [7, 9], pads=[1, 1, 1, 1]),
    "odd_channels": lambda: _single(3, 5, [3, 3], [6, 6], pads=[1, 1, 1, 1]),
    "one_channel": lambda: _single(1, 1, [5, 5], [9, 9]),
    # one input channel: the window gathered in pairs of taps, an odd count of them
    "one_channel_padded": lambda: _single(1, 4, [3, 3], [7, 6], pads=[1, 1, 1, 1], strides=[2, 1]),
    "one_channel_stem": lambda: _single(1, 6, [10, 4], [49, 10], pads=[5, 1, 5, 1], strides=[2, 2]),
    "stride2": lambda: _single(8, 16, [3, 3], [9, 8], pads=[1, 1, 1, 1], strides=[2, 2]),
    "dilated": lambda: _single(6, 4, [3, 3], [10, 10], pads=[2, 2, 2, 2], dilations=[2, 2]),
    "asymmetric_pads": lambda: _single(5, 8, [3, 3], [7, 10], pads=[0, 2, 1, 0]),
    "1x1": lambda: _single(16, 9, [1, 1], [5, 5]),
    "wide_window": lambda: _single(2, 3, [1, 7], [4, 12], pads=[0, 3, 0, 3]),
    "conv1d": lambda: _single(6, 5, [3], [17], pads=[1, 1], strides=[2]),
    "batch2": lambda: _single(4, 4, [3, 3], [5, 5], batch=2, pads=[1, 1, 1, 1]),
    "depthwise": lambda: _single(8, 8, [3, 3], [9, 7], pads=[1, 1, 1, 1], group=8),
    "depthwise_stride2_dilated": lambda: _single(
        5, 5, [3, 3], [11, 12], pads=[2, 1, 0, 2], strides=[2, 2], dilations=[2, 1], group=5
    ),
    "depthwise_5x5_batch2": lambda: _single(
        3, 3, [5, 5], [6, 6], batch=2, pads=[2, 2, 2, 2], group=3
    ),
    "depthwise_conv1d": lambda: _single(4, 4, [5], [13], pads=[2, 2], group=4),
    "depthwise_no_interior": lambda: _single(2, 2, [3, 3], [2, 2], pads=[1, 1, 1, 1], group=2),
    # rows of 576 bytes, which the hosts run on the kernel of rows as they are:
    # 3 pixels and 2 channels past the last whole blocks
    "long_rows": lambda: _single(64, 6, [3, 3], [5, 7], pads=[1, 1, 1, 1]),
    # a 1x1 window reads the channels-last rows themselves (520 bytes and zeros)
    "long_1x1": lambda: _single(520, 5, [1, 1], [3, 3]),
}
LONG = ("long_rows", "long_1x1")


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self, shape: list[int]) -> None:
        rng = np.random.default_rng(3)
        self.batches = iter(
            [{"x": rng.standard_normal(shape).astype(np.float32)} for _ in range(4)]
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.batches, None)


def _quantized(
    model: onnx.ModelProto, folder: Path, quant_format: str, activations: str, per_channel: bool
) -> onnx.ModelProto:
    source, path = folder / "float.onnx", folder / "quantized.onnx"
    onnx.save(model, source)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    quantization.quantize_static(
        str(source),
        str(path),
        _Calibration(shape),
        quant_format=getattr(quantization.QuantFormat, quant_format),
        activation_type=getattr(quantization.QuantType, activations),
        weight_type=quantization.QuantType.QInt8,
        per_channel=per_channel,
    )
    return onnx.load(path)


def _kernels(model: onnx.ModelProto, target: str) -> list[str]:
    """The convolutions at the kernel stage: kernel.qconv, or what they stayed."""
    module = lower(import_model(model).module, "kernels", target=target)
    convs = (kernel.QconvOp, kernel.ConvOp, onnx_dialect.ConvOp, onnx_dialect.QLinearConvOp)
    return [op.name for op in module.walk() if isinstance(op, convs)]


def _assert_exact(model: onnx.ModelProto, target: str, seed: int = 1, cache: bool = True) -> None:
    x_shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = (np.random.default_rng(seed).standard_normal(x_shape) * 1.5).astype(np.float32)
    session = exact_integer.session(model)
    want = session.run(None, {"x": x})[0]
    got = onnxc.compile(model, target=target, cache=cache).run({"x": x})["y"]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("integer", [False, True], ids=["as_chosen", "integer"])
@pytest.mark.parametrize("name", list(CONVS))
def test_qlinear_conv_on_the_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, integer: bool
) -> None:
    """On the host, a QLinearConv of long rows runs on the kernel of rows,
    a shorter one on the float kernels; with those turned off (`integer`),
    a dense one runs on the kernel of rows and a depthwise one on the
    integer depthwise kernel."""
    per_channel = name != "1x1"
    unsigned = ("odd_channels", "dilated", "conv1d", "depthwise", "depthwise_conv1d", "long_1x1")
    activations = "QUInt8" if name in unsigned else "QInt8"
    model = _quantized(CONVS[name](), tmp_path, "QOperator", activations, per_channel)
    if integer:
        monkeypatch.setattr(quantized, "exact_in_float", lambda weights, bias: False)
    expected = "kernel.qconv" if integer or name in LONG else "kernel.conv"
    assert _kernels(model, "host") == [expected]
    _assert_exact(model, "host", cache=not integer)


@pytest.mark.parametrize("activations", ["QInt8", "QUInt8"])
def test_qdq_chain_is_fused(tmp_path: Path, activations: str) -> None:
    """The QDQ chain becomes five kernel.qconv on the Cortex-M targets and
    five exact float convolutions on the host (its rows are short), and
    all agree."""
    model = _quantized(_chain(), tmp_path, "QDQ", activations, True)
    assert _kernels(model, "cortex-m4") == ["kernel.qconv"] * 5
    assert _kernels(model, "cortex-m0") == ["kernel.qconv"] * 5
    assert _kernels(model, "host") == ["kernel.conv"] * 5
    _assert_exact(model, "host")


@needs_arm
@pytest.mark.parametrize("target", ["cortex-m4", "cortex-m0"])
@pytest.mark.parametrize("quant_format", ["QDQ", "QOperator"])
def test_quantized_chain_on_mcu(tmp_path: Path, target: str, quant_format: str) -> None:
    """On the emulated cores the chain's integer kernels (SMLAD and SXTB16 on
    the M4, the portable C on the M0) give onnxruntime's outputs exactly."""
    model = _quantized(_chain(), tmp_path, quant_format, "QInt8", True)
    _assert_exact(model, target, seed=2)


def _fully_connected() -> onnx.ModelProto:
    """Two fully connected layers, as torch's Linear exports them (B
    transposed) and as a plain Gemm (B as is), a Relu between them."""
    rng = np.random.default_rng(13)
    w1 = rng.standard_normal((24, 40)).astype(np.float32) * 0.2
    w2 = rng.standard_normal((24, 10)).astype(np.float32) * 0.2
    weights = [
        numpy_helper.from_array(w1, "w1"),
        numpy_helper.from_array(rng.standard_normal(24).astype(np.float32), "b1"),
        numpy_helper.from_array(w2, "w2"),
        numpy_helper.from_array(rng.standard_normal(10).astype(np.float32), "b2"),
    ]
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["a"], name="fc1", transB=1),
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("Gemm", ["r", "w2", "b2"], ["y"], name="fc2"),
    ]
    return _float_model(nodes, weights, [3, 40])


@pytest.mark.parametrize("target", ["host", "cortex-m4", "cortex-m0"])
def test_qdq_gemm_is_a_one_by_one_convolution(tmp_path: Path, target: str) -> None:
    """A QDQ Gemm (weights per output channel, along either axis of B) runs
    on the integer kernels as the 1x1 convolution of a 1x1 image it is: its
    weights int8, its outputs onnxruntime's."""
    model = _quantized(_fully_connected(), tmp_path, "QDQ", "QInt8", True)
    expected = "kernel.conv" if target == "host" else "kernel.qconv"  # rows of 40 and 24
    assert _kernels(model, target) == [expected] * 2
    if target == "host" or MISSING_ARM_TOOLS is None:
        _assert_exact(model, target)


def _residual() -> onnx.ModelProto:
    """A residual block: conv, Relu, conv, the block's input added, Relu."""
    rng = np.random.default_rng(12)
    c1, w1 = _conv("c1", "x", "a", 8, 8, [3, 3], rng, pads=[1, 1, 1, 1])
    c2, w2 = _conv("c2", "r", "b", 8, 8, [3, 3], rng, pads=[1, 1, 1, 1])
    nodes = [
        c1,
        helper.make_node("Relu", ["a"], ["r"]),
        c2,
        helper.make_node("Add", ["b", "x"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"]),
    ]
    return _float_model(nodes, [*w1, *w2], [1, 8, 6, 7])


def _fused_adds(model: onnx.ModelProto, target: str) -> int:
    module = lower(import_model(model).module, "kernels", target=target)
    return sum(isinstance(op, kernel.QaddOp) for op in module.walk())


@pytest.mark.parametrize("target", ["host", "cortex-m4", "cortex-m0"])
def test_qdq_residual_add_is_fused(tmp_path: Path, target: str) -> None:
    """The QDQ residual Add is one kernel.qadd, with no float tensor between
    the quantized ones; its results are the float chain's, which
    onnxruntime's equal here."""
    model = _quantized(_residual(), tmp_path, "QDQ", "QInt8", True)
    assert _fused_adds(model, target) == 1
    if target == "host" or MISSING_ARM_TOOLS is None:
        _assert_exact(model, target)


@needs_arm
def test_qdq_chain_weights_and_activations_are_int8(tmp_path: Path) -> None:
    """Fused, the chain's weights are int8 in the C (packed into int32 words,
    four to a word) and its activations int8 in the arena: the Cortex-M4
    build's weights and workspace are well under the float build's."""
    float_model = _chain()
    model = _quantized(float_model, tmp_path, "QDQ", "QInt8", True)
    fused = onnxc.compile(model, target="cortex-m4")
    plain = onnxc.compile(float_model, target="cortex-m4")
    assert fused.workspace_size is not None and plain.workspace_size is not None
    assert fused.workspace_size * 2 < plain.workspace_size


POOLS: dict[str, dict[str, Any]] = {
    "whole_map": dict(kernel_shape=[5, 7]),  # DS-CNN's: one average per channel
    "border_counts": dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    "ceil_mode": dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1),
}


def _pooled(attributes: dict[str, Any]) -> onnx.ModelProto:
    """A convolution, Relu, then an AveragePool of `attributes`."""
    rng = np.random.default_rng(13)
    c1, w1 = _conv("c1", "x", "a", 8, 8, [3, 3], rng, pads=[1, 1, 1, 1])
    nodes = [
        c1,
        helper.make_node("Relu", ["a"], ["r"]),
        helper.make_node("AveragePool", ["r"], ["y"], **attributes),
    ]
    return _float_model(nodes, w1, [1, 8, 5, 7])


@pytest.mark.parametrize("quant_format", ["QDQ", "QOperator"])
@pytest.mark.parametrize("target", ["host", "cortex-m4", "cortex-m0"])
@pytest.mark.parametrize("pool", list(POOLS))
def test_quantized_average_pool_is_fused(
    tmp_path: Path, pool: str, target: str, quant_format: str
) -> None:
    """DequantizeLinear -> AveragePool -> QuantizeLinear (or QLinearAveragePool)
    is one kernel.qaverage_pool, with no float copy of its input, and gives
    onnxruntime's bytes."""
    activations = "QUInt8" if pool == "ceil_mode" else "QInt8"
    model = _quantized(_pooled(POOLS[pool]), tmp_path, quant_format, activations, True)
    module = lower(import_model(model).module, "kernels", target=target)
    assert sum(isinstance(op, kernel.QaveragePoolOp) for op in module.walk()) == 1
    if target == "host" or MISSING_ARM_TOOLS is None:
        _assert_exact(model, target)


def test_fixed_point_multipliers() -> None:
    """`fixed_point` gives M * 2^-n within half a unit of M's last bit of
    each multiplier, M a 31-bit mantissa; 0 and multipliers below 2^-32 are
    0; one of 2^29 or more (or negative) keeps the float multiply."""
    scale = np.array([0.75, 1e-3, 0.5, 3.0, 2.0**-20, 1.9999999, 0.0, 2.0**-40], np.float32)
    pairs = quantized.fixed_point(scale)
    assert pairs is not None and pairs.dtype == np.int32
    words, shifts = pairs[:, 0].astype(np.float64), pairs[:, 1]
    live = scale >= 2.0**-32
    assert ((words[live] >= 2**30) & (words[live] < 2**31)).all()
    assert ((shifts >= 1) & (shifts <= 62)).all()
    values = words * 2.0 ** -shifts.astype(np.float64)
    assert np.all(np.abs(values - scale) <= 2.0 ** (-shifts.astype(np.float64)) / 2)
    assert list(pairs[~live].reshape(-1)) == [0, 31, 0, 31]
    assert quantized.fixed_point(np.array([0.5, 2.0**29], np.float32)) is None
    assert quantized.fixed_point(np.array([-0.5], np.float32)) is None


@pytest.mark.parametrize("target", ["cortex-m0", "cortex-m4"])
@pytest.mark.parametrize("name", ["3x3_pad1", "depthwise", "stride2", "one_channel_stem"])
def test_fixed_point_requantization_is_within_one_step(
    tmp_path: Path, target: str, name: str
) -> None:
    """`requantize="fixed"`: the Cortex-M kernels requantize with an int32
    mantissa and shift per channel, no float; every output within one step
    of onnxruntime's (ties round up, the mantissa has 31 bits)."""
    activations = "QUInt8" if name == "depthwise" else "QInt8"
    model = _quantized(CONVS[name](), tmp_path, "QDQ", activations, True)
    module = lower(import_model(model).module, "kernels", target=target, requantize="fixed")
    convs = [op for op in module.walk() if isinstance(op, kernel.QconvOp)]
    assert convs and all(
        isinstance(op.S.type, TensorType) and op.S.type.get_shape()[1:] == (2,) for op in convs
    )
    if MISSING_ARM_TOOLS is not None:
        pytest.skip(MISSING_ARM_TOOLS)
    x_shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = (np.random.default_rng(1).standard_normal(x_shape) * 1.5).astype(np.float32)
    session = exact_integer.session(model)
    want = session.run(None, {"x": x})[0].astype(np.int64)
    got = onnxc.compile(model, target=target, requantize="fixed").run({"x": x})["y"]
    assert np.abs(got.astype(np.int64) - want).max() <= 1


def test_fixed_point_requantization_is_for_the_cortex_m_targets() -> None:
    """A one-line error where it does not apply, or for another name."""
    with pytest.raises(onnxc.OnnxcError, match="requantize='fixed' is for the Cortex-M targets"):
        onnxc.compile(CONVS["3x3_pad1"](), requantize="fixed")
    with pytest.raises(onnxc.OnnxcError, match="requantize must be one of exact, fixed"):
        onnxc.compile(CONVS["3x3_pad1"](), target="cortex-m0", requantize="tflite")


def test_fixed_point_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`onnxc compile --requantize fixed`: the C says so in its banner and
    holds the multipliers as int32 pairs; on the host it is a one-line error."""
    from onnxc.tools.cli import main

    path = tmp_path / "conv.onnx"
    onnx.save(_quantized(CONVS["3x3_pad1"](), tmp_path, "QDQ", "QInt8", True), path)
    out = tmp_path / "c"
    assert (
        main(
            [
                "compile",
                str(path),
                "--target",
                "cortex-m0",
                "--requantize",
                "fixed",
                "-q",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    source = (out / "conv.c").read_text()
    assert "requantize='fixed'" in source.splitlines()[1]
    assert main(["compile", str(path), "--requantize", "fixed", "-q", "-o", str(out)]) != 0
    (error,) = capsys.readouterr().err.strip().splitlines()
    assert "requantize='fixed' is for the Cortex-M targets" in error


def _random_qlinear_conv(seed: int) -> tuple[onnx.ModelProto, np.ndarray]:
    """A QLinearConv of random geometry, scales, zero points and bias, and
    an input for it: y's scale puts most sums inside the output's range;
    odd seeds make every scale a power of two, so that sums land on exact
    half steps (ties, which the fixed-point rounding breaks upwards)."""
    rng = np.random.default_rng(seed)
    c, m = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    k = int(rng.choice([1, 3]))
    group = c if c == m and rng.random() < 0.4 else 1
    h, w = (int(v) for v in rng.integers(k, 9, 2))
    x_scale = float(np.exp(rng.uniform(-5, 0)))
    w_scale = np.exp(rng.uniform(-5, -3, m))
    spread = x_scale * float(w_scale.mean()) * 5000 * np.sqrt(c // group * k * k)
    y_scale = spread / float(rng.choice([60, 120]))
    x_point, y_point = (int(v) for v in rng.integers(-20, 21, 2))
    weights = rng.integers(-127, 128, (m, c // group, k, k)).astype(np.int8)
    bias = rng.integers(-5000, 5001, m).astype(np.int32)
    x = rng.integers(-128, 128, (1, c, h, w)).astype(np.int8)
    if seed % 2:  # multipliers of 1/4 and 1/8 of small sums: many exact ties
        x_scale, y_scale = 2.0**-4, 2.0**-8
        w_scale = 2.0 ** -rng.integers(6, 8, m).astype(np.float64)
        weights, bias = weights // 40, bias // 250
        x = (x // 30 + x_point).astype(np.int8)
    w_scale = w_scale.astype(np.float32)
    initializers = {
        "xs": np.array(x_scale, np.float32),
        "xz": np.array(x_point, np.int8),
        "w": weights,
        "ws": w_scale,
        "wz": np.zeros(m, np.int8),
        "ys": np.array(y_scale, np.float32),
        "yz": np.array(y_point, np.int8),
        "b": bias,
    }
    node = helper.make_node(
        "QLinearConv",
        ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
        ["y"],
        group=group,
        pads=[k // 2] * 4,
    )
    graph = helper.make_graph(
        [node],
        "random_qconv",
        [helper.make_tensor_value_info("x", TensorProto.INT8, [1, c, h, w])],
        [helper.make_tensor_value_info("y", TensorProto.INT8, [1, m, h, w])],
        [numpy_helper.from_array(v, n) for n, v in initializers.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model, x


@needs_arm
@pytest.mark.parametrize("seed", range(8))
def test_fixed_point_requantization_of_random_convolutions(seed: int) -> None:
    """Random QLinearConvs on the Cortex-M0 with `requantize="fixed"`: each
    output within one step of onnxruntime's; away from ties (even seeds)
    nearly all equal."""
    model, x = _random_qlinear_conv(seed)
    session = exact_integer.session(model)
    want = session.run(None, {"x": x})[0].astype(np.int64)
    got = onnxc.compile(model, target="cortex-m0", requantize="fixed").run({"x": x})["y"]
    difference = np.abs(got.astype(np.int64) - want)
    assert difference.max() <= 1
    if seed % 2 == 0:
        assert (difference == 0).mean() > 0.95
