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


MODEL_CLASSES: dict[str, Callable[[], nn.Module]] = {
    "LeNet5": LeNet5,
    "ResNet8": ResNet8,
    "MobileNetV2Small": MobileNetV2Small,
    "DSCNN": DSCNN,
}


def build(name: str, seed: int = 0) -> tuple[nn.Module, torch.Tensor]:
    """Build model ``name`` with seeded weights, randomised BatchNorm, in eval mode.

    Returns the model and a seeded example input of the model's ``input_shape``.
    """
    torch.manual_seed(seed)
    model = MODEL_CLASSES[name]()
    _randomise_batchnorm(model)
    model.eval()
    shape: tuple[int, ...] = model.input_shape  # type: ignore[assignment]
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
    if dynamo:
        options["verbose"] = False
        options["external_data"] = False
        options["optimize"] = fold_constants
        if dynamic_batch:
            options["dynamic_shapes"] = ({0: torch.export.Dim("N")},)
    else:
        options["do_constant_folding"] = fold_constants
        if dynamic_batch:
            options["dynamic_axes"] = {INPUT_NAME: {0: "N"}, OUTPUT_NAME: {0: "N"}}
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
