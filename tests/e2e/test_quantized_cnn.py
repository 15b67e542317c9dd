"""A small CNN quantized by onnxruntime's static quantization tool, compiled
by onnxc, matches onnxruntime.

The float model (PyTorch, exported by both exporters: convolution,
depthwise convolution with stride, ReLU, max pooling, a MatMul classifier)
is calibrated on random inputs and
quantized (uint8 activations, int8 weights per output channel) in both of the
tool's formats: QDQ (QuantizeLinear/DequantizeLinear pairs around float
operators) and QOperator (QLinearConv, QLinearMatMul). The model's output is
dequantized from the last quantized tensor, so it moves in steps of that
tensor's scale: onnxc must agree with onnxruntime to within one step (in
practice it agrees exactly: it requantizes as onnxruntime does). Both
formats also run on an emulated Cortex-M4, equal to the host build.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")
quantization = pytest.importorskip("onnxruntime.quantization")

import torch  # noqa: E402
from torch import nn  # noqa: E402

import onnxc  # noqa: E402
from onnxc.tools import exact_integer  # noqa: E402
from tests.mcu.tools import needs_arm  # noqa: E402
from tests.models import export  # noqa: E402

STEPS = 1
"""The tolerance, in steps of the output's quantization scale."""


class SmallCNN(nn.Module):
    """1x3x12x12 -> 10 scores, through the operators the quantizer handles."""

    input_shape = (1, 3, 12, 12)

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = nn.Conv2d(8, 8, 3, stride=2, padding=1, groups=8)
        self.pool = nn.MaxPool2d(2)
        self.weight = nn.Parameter(torch.randn(8 * 3 * 3, 10) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.conv(x))
        x = self.pool(torch.relu(self.depthwise(x)))
        return torch.matmul(x.flatten(1), self.weight)


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self, count: int = 16) -> None:
        rng = np.random.default_rng(3)
        shape = SmallCNN.input_shape
        self.batches = iter(
            [{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(count)]
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.batches, None)


def _quantized(tmp_path: Path, quant_format: str, dynamo: bool) -> Path:
    torch.manual_seed(0)
    model = SmallCNN().eval()
    example = torch.randn(*SmallCNN.input_shape)
    float_path = export(model, example, tmp_path / "cnn.onnx", dynamo=dynamo)
    path = tmp_path / f"cnn_{quant_format}.onnx"
    quantization.quantize_static(
        str(float_path),
        str(path),
        _Calibration(),
        quant_format=getattr(quantization.QuantFormat, quant_format),
        activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=["Conv", "MatMul", "Relu", "MaxPool"],
    )
    return path


def _output_scale(model: onnx.ModelProto) -> float:
    """The scale of the DequantizeLinear that produces the output."""
    (last,) = [n for n in model.graph.node if n.output[0] == "output"]
    assert last.op_type == "DequantizeLinear", last.op_type
    weights = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return float(weights[last.input[1]])


@pytest.mark.parametrize("dynamo", [False, True], ids=["legacy", "dynamo"])
@pytest.mark.parametrize("quant_format", ["QDQ", "QOperator"])
def test_quantized_cnn_matches_onnxruntime(tmp_path: Path, quant_format: str, dynamo: bool) -> None:
    path = _quantized(tmp_path, quant_format, dynamo)
    model = onnx.load(path)
    op_types = {n.op_type for n in model.graph.node}
    expected_ops = {"QuantizeLinear", "DequantizeLinear"}
    if quant_format == "QOperator":
        expected_ops |= {"QLinearConv", "QLinearMatMul"}
    assert expected_ops <= op_types, op_types
    scale = _output_scale(model)
    compiled = onnxc.compile(path, name=f"quantized_cnn_{quant_format}_{int(dynamo)}")
    session = exact_integer.session(path)
    rng = np.random.default_rng(4)
    for _ in range(3):
        x = rng.standard_normal(SmallCNN.input_shape).astype(np.float32)
        want = session.run(None, {"input": x})[0]
        got = compiled.run({"input": x})["output"]
        steps = np.abs(got.astype(np.float64) - want) / scale
        assert steps.max() <= STEPS + 1e-3, f"{steps.max():.3f} steps apart"


@needs_arm
@pytest.mark.parametrize("quant_format", ["QDQ", "QOperator"])
def test_quantized_cnn_runs_on_cortex_m4(tmp_path: Path, quant_format: str) -> None:
    """The quantized model on an emulated Cortex-M4 equals the host build
    exactly (integer arithmetic, and the float steps in the same order)."""
    path = _quantized(tmp_path, quant_format, False)
    name = f"quantized_cnn_mcu_{quant_format}"
    host = onnxc.compile(path, name=name)
    mcu = onnxc.compile(path, name=name, target="cortex-m4")
    assert mcu.workspace_size is not None and mcu.workspace_size > 0
    x = np.random.default_rng(5).standard_normal(SmallCNN.input_shape).astype(np.float32)
    np.testing.assert_array_equal(mcu.run({"input": x})["output"], host.run({"input": x})["output"])
