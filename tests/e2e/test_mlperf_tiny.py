"""MLPerf Tiny's four reference networks (ResNet-8, DS-CNN at 64 channels,
MobileNetV1 at width 0.25 for visual wake words, the fully connected
autoencoder), and the test suite's MobileNetV2-style and 32-channel DS-CNN,
quantized by onnxruntime's tool (int8 activations, int8 weights per output
channel) in both its formats, on onnxc's integer kernels.

Every convolution and fully connected layer of them becomes `kernel.qconv`
on the Cortex-M4, and its arena holds int8 activations (at most half the
float build's). Outputs equal onnxruntime's on the host and on the emulated
Cortex-M4 and Cortex-M0 (host-portable builds the host's C without -march:
`test_quantized_kernels.py` covers it): the model's output is dequantized
from int8, so they are compared in steps of its scale. onnxruntime runs each
model with its int8 weights stored as uint8 (`onnxc.tools.exact_integer`),
where its integer products are exact on every x86 CPU (without VNNI its
uint8 x int8 ones saturate: MobileNetV2Small's output was 103 steps off).
ResNet-8 is allowed one step: onnxruntime on x86 runs a convolution whose
int8 input another operator also reads (a residual block's) in float, in an
order of its own, where onnxc sums exactly; the others have no such input
and must be equal. Instruction
counts are the benchmark's (README "Speed"), not asserted here.
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

import onnxc  # noqa: E402
from onnxc.dialects import kernel  # noqa: E402
from onnxc.dialects import onnx as onnx_dialect  # noqa: E402
from onnxc.frontend import import_model  # noqa: E402
from onnxc.pipeline import lower  # noqa: E402
from onnxc.tools import exact_integer  # noqa: E402
from tests.mcu.tools import MISSING_ARM_TOOLS  # noqa: E402
from tests.models import MLPERF_TINY, build, export  # noqa: E402

NETWORKS = [*MLPERF_TINY, "MobileNetV2Small", "DSCNN"]
"""The networks compared with onnxruntime: MLPerf Tiny's and two of the
test suite's CNNs."""

ALLOWED_STEPS = {"ResNet8": 1}
"""Steps of the output scale a network may differ by (see the docstring)."""


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self, shape: tuple[int, ...]) -> None:
        rng = np.random.default_rng(3)
        self.batches = iter(
            [{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(8)]
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.batches, None)


@pytest.fixture(scope="module")
def quantized(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], Path]:
    """Each network in each format, and its float model under (name, "float")."""
    folder = tmp_path_factory.mktemp("mlperf_tiny")
    paths: dict[tuple[str, str], Path] = {}
    for name in NETWORKS:
        model, example = build(name)
        source = export(model, example, folder / f"{name}.onnx", dynamo=False)
        paths[name, "float"] = source
        for quant_format in ("QDQ", "QOperator"):
            path = folder / f"{name}.{quant_format}.onnx"
            quantization.quantize_static(
                str(source),
                str(path),
                _Calibration(tuple(example.shape)),
                quant_format=getattr(quantization.QuantFormat, quant_format),
                activation_type=quantization.QuantType.QInt8,
                weight_type=quantization.QuantType.QInt8,
                per_channel=True,
            )
            paths[name, quant_format] = path
    return paths


def _steps(path: Path, target: str, requantize: str = "exact") -> float:
    """The largest difference from onnxruntime, in steps of the output's scale."""
    model = onnx.load(path)
    (last,) = [n for n in model.graph.node if n.output[0] == model.graph.output[0].name]
    assert last.op_type == "DequantizeLinear", last.op_type
    scales = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(7).standard_normal(shape).astype(np.float32)
    session = exact_integer.session(model)
    want = session.run(None, {"input": x})[0]
    got = onnxc.compile(path, target=target, requantize=requantize).run({"input": x})["output"]
    return float(np.abs(got.astype(np.float64) - want).max() / float(scales[last.input[1]]))


@pytest.mark.parametrize("quant_format", ["QDQ", "QOperator"])
@pytest.mark.parametrize("name", NETWORKS)
@pytest.mark.parametrize("target", ["host", "cortex-m4", "cortex-m0"])
def test_matches_onnxruntime(
    quantized: dict[tuple[str, str], Path], name: str, quant_format: str, target: str
) -> None:
    if target != "host" and MISSING_ARM_TOOLS is not None:
        pytest.skip(MISSING_ARM_TOOLS)
    assert _steps(quantized[name, quant_format], target) <= ALLOWED_STEPS.get(name, 0)


@pytest.mark.parametrize("name", list(MLPERF_TINY))
def test_fixed_point_requantization_on_the_cortex_m0(
    quantized: dict[tuple[str, str], Path], name: str
) -> None:
    """`requantize="fixed"` (no float arithmetic in the convolutions): each
    requantization within one step of the exact one; at the networks'
    outputs, at most one step from onnxruntime's (none seen)."""
    if MISSING_ARM_TOOLS is not None:
        pytest.skip(MISSING_ARM_TOOLS)
    assert _steps(quantized[name, "QDQ"], "cortex-m0", "fixed") <= 1


@pytest.mark.parametrize("name", list(MLPERF_TINY))
def test_int8_on_the_cortex_m4(quantized: dict[tuple[str, str], Path], name: str) -> None:
    """Every convolution and fully connected layer is an integer kernel, and
    the arena holds int8 activations: at most half the float build's (DS-CNN's
    pooling included, as `kernel.qaverage_pool`)."""
    path = quantized[name, "QDQ"]
    module = lower(import_model(onnx.load(path)).module, "kernels", target="cortex-m4")
    float_layers = (kernel.ConvOp, kernel.MatmulOp, onnx_dialect.ConvOp, onnx_dialect.GemmOp)
    assert not [op.name for op in module.walk() if isinstance(op, float_layers)]
    assert any(isinstance(op, kernel.QconvOp) for op in module.walk())
    if MISSING_ARM_TOOLS is None:
        fused = onnxc.compile(path, target="cortex-m4").workspace_size
        plain = onnxc.compile(quantized[name, "float"], target="cortex-m4").workspace_size
        assert fused is not None and plain is not None
        assert fused * 2 <= plain
