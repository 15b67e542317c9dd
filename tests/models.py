"""Small PyTorch models and an ONNX export helper for end-to-end tests.

The models are tiny stand-ins for the networks onnxc targets (LeNet-5, a CIFAR
ResNet-8, a MobileNetV2-style net and a DS-CNN keyword spotter). Each builder
seeds torch, randomises BatchNorm running statistics (so BatchNorm folding has
something to fold) and returns the model in eval mode with an example input.

torch is optional for onnxc's tests: importing this module under pytest skips
the importing test module when torch is missing, and a dynamo export skips
when onnxscript is missing. Tests should still say so explicitly, with
``pytest.importorskip("torch")`` before importing from here.
"""

from __future__ import annotations

import math
import pathlib
import warnings
from collections.abc import Callable
from typing import Any

import onnx
import pytest

pytest.importorskip("torch")

import torch  # noqa: E402
from torch import nn  # noqa: E402

INPUT_NAME = "input"
OUTPUT_NAME = "output"


def _randomise_batchnorm(model: nn.Module) -> None:
    """Give every BatchNorm non-trivial affine parameters and running statistics.

    Freshly built BatchNorm layers have mean 0, variance 1, weight 1 and bias 0,
    which makes a wrong folding invisible.
    """
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d | nn.BatchNorm1d):
            # The running statistics exist: the layers track them (the default).
            assert module.running_mean is not None and module.running_var is not None
            with torch.no_grad():
                module.running_mean.uniform_(-0.5, 0.5)
                module.running_var.uniform_(0.5, 1.5)
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.5, 0.5)


class LeNet5(nn.Module):
    """LeNet-5 on a 1x1x32x32 image.

    Mixes tanh and ReLU, max and average pooling, and flattens with
    ``x.view(x.size(0), -1)`` so the legacy exporter emits Shape/Gather/Reshape.
    """

    input_shape = (1, 1, 32, 32)

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5)
        self.bn1 = nn.BatchNorm2d(6)
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.pool2 = nn.AvgPool2d(2)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool1(torch.relu(self.bn1(self.conv1(x))))
        x = self.pool2(torch.tanh(self.conv2(x)))
        x = x.view(x.size(0), -1)
        x = torch.relu(self.fc1(x))
        x = torch.tanh(self.fc2(x))
        return self.fc3(x)


class _BasicBlock(nn.Module):
    """A ResNet basic block; a 1x1 convolution projects the shortcut on downsampling."""

    def __init__(self, in_channels: int, out_channels: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_channels, out_channels, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_channels)
        self.shortcut: nn.Module = nn.Identity()
        if stride != 1 or in_channels != out_channels:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_channels, out_channels, 1, stride=stride, bias=False),
                nn.BatchNorm2d(out_channels),
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + self.shortcut(x))


class ResNet8(nn.Module):
    """CIFAR-style ResNet-8 on 1x3x32x32: stem, three stages of 16/32/64 channels."""

    input_shape = (1, 3, 32, 32)

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU(),
        )
        self.stage1 = _BasicBlock(16, 16, stride=1)
        self.stage2 = _BasicBlock(16, 32, stride=2)
        self.stage3 = _BasicBlock(32, 64, stride=2)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stage3(self.stage2(self.stage1(self.stem(x))))
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


class _InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand, 3x3 depthwise, 1x1 linear projection."""

    def __init__(self, in_channels: int, out_channels: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = in_channels * expand
        self.use_residual = stride == 1 and in_channels == out_channels
        self.body = nn.Sequential(
            nn.Conv2d(in_channels, hidden, 1, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride=stride, padding=1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, out_channels, 1, bias=False),
            nn.BatchNorm2d(out_channels),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        return x + y if self.use_residual else y


class MobileNetV2Small(nn.Module):
    """MobileNetV2 inverted residual blocks on 1x3x32x32; ReLU6 exports as Clip."""

    input_shape = (1, 3, 32, 32)

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(16),
            nn.ReLU6(),
        )
        self.blocks = nn.Sequential(
            _InvertedResidual(16, 16, stride=1, expand=4),
            _InvertedResidual(16, 24, stride=2, expand=4),
            _InvertedResidual(24, 24, stride=1, expand=4),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(24, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.stem(x))
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


class DSCNN(nn.Module):
    """DS-CNN keyword spotter on 1x1x49x10 MFCC features, 12 classes."""

    input_shape = (1, 1, 49, 10)

    def __init__(self, channels: int = 32, blocks: int = 2, num_classes: int = 12):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(1, channels, (10, 4), stride=2, padding=(5, 1), bias=False),
            nn.BatchNorm2d(channels),
            nn.ReLU(),
        )
        layers: list[nn.Module] = []
        for _ in range(blocks):
            layers += [
                nn.Conv2d(channels, channels, 3, padding=1, groups=channels, bias=False),
                nn.BatchNorm2d(channels),
                nn.ReLU(),
                nn.Conv2d(channels, channels, 1, bias=False),
                nn.BatchNorm2d(channels),
                nn.ReLU(),
            ]
        self.blocks = nn.Sequential(*layers)
        # The stem output is 25x5; pool it whole, as the MLPerf Tiny DS-CNN does.
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(channels, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.blocks(self.stem(x)))
        x = torch.flatten(x, 1)
        return self.fc(x)


class MobileNetV1Tiny(nn.Module):
    """MLPerf Tiny's visual wake words network: MobileNetV1 at width 0.25
    on 96x96 RGB, two classes (a ReLU after every BatchNorm)."""

    input_shape = (1, 3, 96, 96)

    def __init__(self) -> None:
        super().__init__()
        layers = _conv_bn_relu(3, 8, 3, 2)
        plan = [(8, 16, 1), (16, 32, 2), (32, 32, 1), (32, 64, 2), (64, 64, 1), (64, 128, 2)]
        plan += [(128, 128, 1)] * 5 + [(128, 256, 2), (256, 256, 1)]
        for cin, cout, stride in plan:
            layers += _conv_bn_relu(cin, cin, 3, stride, groups=cin)
            layers += _conv_bn_relu(cin, cout, 1, 1)
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(256, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(self.features(x).mean((2, 3)))


def _conv_bn_relu(cin: int, cout: int, k: int, stride: int, groups: int = 1) -> list[nn.Module]:
    conv = nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False)
    return [conv, nn.BatchNorm2d(cout), nn.ReLU()]


class FCAutoencoder(nn.Module):
    """MLPerf Tiny's anomaly detection network: 640 log-mel values through
    fully connected layers of 128 (four), 8, 128 (four) and 640, each but
    the last followed by BatchNorm and ReLU."""

    input_shape = (1, 640)

    def __init__(self) -> None:
        super().__init__()
        widths = [640, 128, 128, 128, 128, 8, 128, 128, 128, 128]
        layers: list[nn.Module] = []
        for a, b in zip(widths, widths[1:], strict=False):
            layers += [nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU()]
        self.net = nn.Sequential(*layers, nn.Linear(128, 640))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


class _SelfAttention(nn.Module):
    """Multi-head self-attention written with ``x.shape`` sizes, so both
    exporters keep the batch and sequence sizes symbolic."""

    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(width, width)
        self.k = nn.Linear(width, width)
        self.v = nn.Linear(width, width)
        self.out = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq, width = x.shape
        depth = width // self.heads

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.reshape(batch, seq, self.heads, depth).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(depth)
        mixed = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.out(mixed.transpose(1, 2).reshape(batch, seq, width))


class EncoderLayer(nn.Module):
    """A post-norm transformer encoder layer (attention, LayerNorm, a ReLU
    feed-forward, LayerNorm) on [batch, seq, 32]."""

    input_shape = (2, 5, 32)

    def __init__(self, width: int = 32, heads: int = 4, hidden: int = 64) -> None:
        super().__init__()
        self.attention = _SelfAttention(width, heads)
        self.norm1 = nn.LayerNorm(width)
        self.feed = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, width))
        self.norm2 = nn.LayerNorm(width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm1(x + self.attention(x))
        return self.norm2(x + self.feed(x))


class TorchEncoderLayer(nn.Module):
    """``torch.nn.TransformerEncoderLayer`` (batch first, no dropout) on
    [batch, seq, 32]. Its legacy export fixes the sequence length in a
    reshape (onnxruntime fails on other lengths too), so it is exported with
    dynamo only."""

    input_shape = (2, 5, 32)

    def __init__(self) -> None:
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(
            d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layer(x)


class UNet(nn.Module):
    """A two-level U-Net on [1, 3, 32, 32]: Conv/ReLU encoders, MaxPool down,
    one way up by ConvTranspose (stride 2) and one by bilinear Resize, skip
    connections joined by Concat, a 1x1 Conv head."""

    input_shape = (1, 3, 32, 32)

    def __init__(self) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> nn.Module:
            return nn.Sequential(
                nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU()
            )

        self.enc1, self.enc2, self.bottom = block(3, 8), block(8, 16), block(16, 32)
        self.pool = nn.MaxPool2d(2)
        self.up2 = nn.ConvTranspose2d(32, 16, 2, stride=2)
        self.dec2 = block(32, 16)
        self.up1 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.dec1 = block(24, 8)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottom(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.head(d1)


class DetectorHead(nn.Module):
    """A YOLO-style detection head on [1, 16, 8, 8]: a 1x1 Conv predicts, per
    cell and anchor, box offsets, objectness and class scores; the
    prediction is split, decoded (sigmoid offsets plus the cell grid, exp
    sizes times anchors, sigmoid scores) and concatenated into [1, 192, 9]."""

    input_shape = (1, 16, 8, 8)
    anchors = 3
    classes = 4
    grid: torch.Tensor
    anchor_sizes: torch.Tensor

    def __init__(self) -> None:
        super().__init__()
        self.predict = nn.Conv2d(16, self.anchors * (5 + self.classes), 1)
        ys, xs = torch.meshgrid(torch.arange(8.0), torch.arange(8.0), indexing="ij")
        self.register_buffer("grid", torch.stack([xs, ys], -1).reshape(1, 1, 64, 2))
        sizes = torch.tensor([[1.0, 1.5], [2.0, 1.0], [3.0, 3.5]]).reshape(1, 3, 1, 2)
        self.register_buffer("anchor_sizes", sizes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = self.predict(x).reshape(1, self.anchors, 5 + self.classes, 64).transpose(2, 3)
        xy, wh, objectness, scores = torch.split(p, [2, 2, 1, self.classes], dim=-1)
        xy = (torch.sigmoid(xy) + self.grid) / 8.0
        wh = torch.exp(wh) * self.anchor_sizes / 8.0
        decoded = torch.cat([xy, wh, torch.sigmoid(objectness), torch.sigmoid(scores)], -1)
        return decoded.reshape(1, self.anchors * 64, 5 + self.classes)


MODEL_CLASSES: dict[str, Callable[[], nn.Module]] = {
    "LeNet5": LeNet5,
    "ResNet8": ResNet8,
    "MobileNetV2Small": MobileNetV2Small,
    "DSCNN": DSCNN,
}
"""The CNNs of the end-to-end and memory-plan tests."""

SEQUENCE_MODELS: dict[str, Callable[[], nn.Module]] = {
    "EncoderLayer": EncoderLayer,
    "TorchEncoderLayer": TorchEncoderLayer,
}
"""Models over [batch, seq, width] for the dynamic-size tests."""

OTHER_MODELS: dict[str, Callable[[], nn.Module]] = {
    "UNet": UNet,
    "DetectorHead": DetectorHead,
}
"""Other architectures of the real-model tests."""


MLPERF_TINY: dict[str, Callable[[], nn.Module]] = {
    "ResNet8": ResNet8,
    "DSCNN64": lambda: DSCNN(64, 4),
    "MobileNetV1Tiny": MobileNetV1Tiny,
    "FCAutoencoder": FCAutoencoder,
}
"""MLPerf Tiny's four reference networks (image classification, keyword
spotting at 64 channels and 4 blocks, visual wake words, anomaly
detection), for the int8 tests."""


def build(name: str, seed: int = 0) -> tuple[nn.Module, torch.Tensor]:
    """Build model ``name`` with seeded weights, randomised BatchNorm, in eval mode.

    Returns the model and a seeded example input of the model's ``input_shape``.
    """
    torch.manual_seed(seed)
    model = {**MODEL_CLASSES, **SEQUENCE_MODELS, **OTHER_MODELS, **MLPERF_TINY}[name]()
    _randomise_batchnorm(model)
    model.eval()
    shape = model.input_shape
    assert isinstance(shape, tuple)
    example = torch.randn(*shape)
    return model, example


def export(
    model: nn.Module,
    example_input: torch.Tensor,
    path: str | pathlib.Path,
    *,
    dynamo: bool,
    opset: int | None = None,
    dynamic_batch: bool = False,
    dynamic_axes: dict[int, str] | None = None,
    fold_constants: bool = True,
) -> pathlib.Path:
    """Export ``model`` to ONNX at ``path`` and check the file with onnx.checker.

    ``dynamo=False`` uses the legacy TorchScript exporter, ``dynamo=True`` the
    torch.export-based one; ``opset=None`` keeps the chosen exporter's default.
    The graph has one input named "input" and one output named "output", and
    the weights are stored inside the file.

    By default every shape is static. ``dynamic_batch=True`` names the batch
    dimension "N" (bind it with ``dims={"N": 1}``); the legacy exporter then
    computes LeNet5's flatten with Shape/Gather/Unsqueeze/Concat/Reshape.
    ``dynamic_axes`` names more: axis -> dim_param, of the input and output.
    ``fold_constants=False`` turns off the exporter's graph optimisation
    (legacy: ``do_constant_folding``, dynamo: ``optimize``), which keeps
    BatchNormalization nodes in the graph instead of folding them into Conv.
    """
    if dynamo:
        pytest.importorskip("onnxscript")
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model.eval()
    options: dict[str, Any] = {}
    if opset is not None:
        options["opset_version"] = opset
    axes = dict(dynamic_axes or {})
    if dynamic_batch:
        axes[0] = "N"
    if dynamo:
        options["verbose"] = False
        options["external_data"] = False
        options["optimize"] = fold_constants
        if axes:
            options["dynamic_shapes"] = (
                {axis: torch.export.Dim(name) for axis, name in axes.items()},
            )
    else:
        options["do_constant_folding"] = fold_constants
        if axes:
            options["dynamic_axes"] = {INPUT_NAME: axes, OUTPUT_NAME: axes}
    with torch.no_grad(), warnings.catch_warnings():
        # The legacy exporter is used on purpose; its deprecation notice is noise.
        warnings.filterwarnings(
            "ignore",
            message=".*legacy TorchScript-based ONNX export",
            category=DeprecationWarning,
        )
        torch.onnx.export(
            model,
            (example_input,),
            str(path),
            input_names=[INPUT_NAME],
            output_names=[OUTPUT_NAME],
            dynamo=dynamo,
            **options,
        )
    onnx.checker.check_model(str(path), full_check=True)
    return path
