"""The benchmark models, in plain torch with seeded random weights: no
download, no torchvision.

    model, inputs = MODELS["mobilenet_v2"]()
    path = export("mobilenet_v2", Path("/tmp/zoo"))

Each builder returns the model in eval mode and a tuple holding its one
example input (batch 1). The models follow the published layer layouts:

- resnet18, resnet50: torchvision's (benchmarks/resnets.py), 224x224.
- mobilenet_v2: torchvision's (inverted residuals, ReLU6, width 1.0), 224x224.
- squeezenet1_1: torchvision's SqueezeNet 1.1 (Fire modules, max pooling
  with ceil_mode), 224x224.
- efficientnet_b0: torchvision's EfficientNet-B0 (MBConv with SiLU,
  squeeze-and-excitation with a Sigmoid gate, depthwise 3x3 and 5x5), 224x224.
- bert_base, minilm: post-norm transformer encoders shaped like BERT-base
  (12 layers, width 768, 12 heads, feed-forward 3072) and MiniLM-L6 (6
  layers, width 384, 12 heads, feed-forward 1536) with a 30522-token
  vocabulary (benchmarks/big_models.py), token ids 1x128.
- lstm, gru: two layers of hidden size 256 over 50 steps of 80 features,
  then a Linear head over each step.
- audio_cnn: six Conv1d+BatchNorm1d+ReLU blocks (64 to 256 channels) over
  80 mel bands x 1000 frames, global average pooling, Linear head.
- dbnet: a DBNet text detector as PaddleOCR's mobile one: MobileNetV3-Large
  backbone at width 0.5 (HardSwish, squeeze-and-excitation with
  HardSigmoid), FPN with nearest x2/x4/x8 Resizes and a Concat, head with
  two stride-2 ConvTranspose and a Sigmoid; 640x640.
- yolov8n: YOLOv8n (width 0.25, depth 0.33): Conv+BN+SiLU, C2f blocks
  (Split, Concat), SPPF (5x5 max pooling), upsample+concat neck, decoupled
  head for 80 classes whose three scales are concatenated to 1x144x8400,
  without the box decoding; 640x640.

Weights are He-normal from a fixed seed. The BatchNorm layers get random
scales and shifts, then running statistics measured on the example input
(one forward pass in training mode), so that every activation stays in a
sane range however deep the model; the ResNets keep resnets.py's random
statistics. `export` writes the ONNX file once (the legacy exporter, opset
17, constant folding on, so that BatchNorm folds into the convolutions as
in tests/models.py; the one after dbnet's first ConvTranspose stays a
BatchNormalization node) and reuses it while it exists.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from pathlib import Path

_HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(_HERE), str(_HERE.parent)]

import torch  # noqa: E402
from big_models import _encoder  # noqa: E402
from resnets import resnet  # noqa: E402
from torch import nn  # noqa: E402

from tests.models import export as export_model  # noqa: E402

Builder = Callable[[], tuple[nn.Module, tuple[torch.Tensor, ...]]]


def _divisible(value: float, divisor: int = 8) -> int:
    """torchvision's `_make_divisible`: round to a multiple of `divisor`,
    never down by more than 10%."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded


def _init(model: nn.Module, inputs: tuple[torch.Tensor, ...]) -> nn.Module:
    """He-normal weights, small biases, random BatchNorm scales and shifts
    and running statistics from one training-mode pass over `inputs`; the
    model back in eval mode. Uses torch's global generator (seed it first)."""
    norms = (nn.BatchNorm1d, nn.BatchNorm2d)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.Conv1d | nn.Conv2d | nn.Linear):
                fan_in = module.weight[0].numel()
                module.weight.normal_(0.0, math.sqrt(2.0 / fan_in))
            elif isinstance(module, nn.ConvTranspose2d):
                # Stride equal to the kernel: each output sees in_channels inputs.
                fan_in = module.weight.shape[0] * module.groups
                module.weight.normal_(0.0, math.sqrt(2.0 / fan_in))
            else:
                continue
            if module.bias is not None:
                module.bias.uniform_(-0.1, 0.1)
        momenta: dict[nn.Module, float | None] = {}
        for module in model.modules():
            if isinstance(module, norms):
                module.weight.uniform_(0.5, 1.5)
                module.bias.uniform_(-0.25, 0.25)
                momenta[module] = module.momentum
                module.momentum = 1.0  # the running statistics become this batch's
        model.train()
        model(*inputs)
        for module, momentum in momenta.items():
            assert isinstance(module, norms)
            module.momentum = momentum
    return model.eval()


# MobileNetV2 ----------------------------------------------------------------


def _conv_bn(
    cin: int, cout: int, k: int, stride: int = 1, groups: int = 1, act: nn.Module | None = None
) -> nn.Sequential:
    layers: list[nn.Module] = [
        nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
    ]
    if act is not None:
        layers.append(act)
    return nn.Sequential(*layers)


class _InvertedResidual(nn.Module):
    """MobileNetV2's block (1x1 expansion, k x k depthwise, 1x1 projection,
    ReLU6), or with SiLU and a squeeze-and-excitation after the depthwise
    convolution EfficientNet's MBConv."""

    def __init__(
        self, cin: int, cout: int, stride: int, expand: int, k: int = 3, mbconv: bool = False
    ) -> None:
        super().__init__()
        hidden = cin * expand

        def act() -> nn.Module:
            return nn.SiLU() if mbconv else nn.ReLU6()

        layers: list[nn.Module] = []
        if expand != 1:
            layers.append(_conv_bn(cin, hidden, 1, act=act()))
        layers.append(_conv_bn(hidden, hidden, k, stride, groups=hidden, act=act()))
        if mbconv:
            layers.append(_SqueezeExcite(hidden, max(1, cin // 4), nn.SiLU(), nn.Sigmoid()))
        layers.append(_conv_bn(hidden, cout, 1))
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) if self.residual else self.body(x)


def _inverted_residual_net(
    stages: list[tuple[int, int, int, int, int]], mbconv: bool
) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    """MobileNetV2 (ReLU6) or, with `mbconv`, EfficientNet-B0 (SiLU, SE):
    a 3x3 stem, the stages (expand, kernel, stride, out channels, blocks),
    a 1x1 to 1280 channels, pooling and a 1000-way Linear head; 224x224."""

    def act() -> nn.Module:
        return nn.SiLU() if mbconv else nn.ReLU6()

    layers: list[nn.Module] = [_conv_bn(3, 32, 3, 2, act=act())]
    cin = 32
    for expand, k, stride, cout, count in stages:
        for n in range(count):
            layers.append(
                _InvertedResidual(cin, cout, stride if n == 0 else 1, expand, k, mbconv=mbconv)
            )
            cin = cout
    layers += [
        _conv_bn(cin, 1280, 1, act=act()),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Dropout(0.2),
        nn.Linear(1280, 1000),
    ]
    inputs = (torch.randn(1, 3, 224, 224),)
    return _init(nn.Sequential(*layers), inputs), inputs


def mobilenet_v2(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    stages = [  # expand, kernel, stride, out channels, blocks
        (1, 3, 1, 16, 1),
        (6, 3, 2, 24, 2),
        (6, 3, 2, 32, 3),
        (6, 3, 2, 64, 4),
        (6, 3, 1, 96, 3),
        (6, 3, 2, 160, 3),
        (6, 3, 1, 320, 1),
    ]
    return _inverted_residual_net(stages, mbconv=False)


# SqueezeNet 1.1 -------------------------------------------------------------


class _Fire(nn.Module):
    def __init__(self, cin: int, squeeze: int, expand1: int, expand3: int) -> None:
        super().__init__()
        self.squeeze = nn.Sequential(nn.Conv2d(cin, squeeze, 1), nn.ReLU())
        self.expand1 = nn.Sequential(nn.Conv2d(squeeze, expand1, 1), nn.ReLU())
        self.expand3 = nn.Sequential(nn.Conv2d(squeeze, expand3, 3, padding=1), nn.ReLU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.squeeze(x)
        return torch.cat([self.expand1(x), self.expand3(x)], 1)


def squeezenet1_1(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    model = nn.Sequential(
        nn.Conv2d(3, 64, 3, 2),
        nn.ReLU(),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        _Fire(64, 16, 64, 64),
        _Fire(128, 16, 64, 64),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        _Fire(128, 32, 128, 128),
        _Fire(256, 32, 128, 128),
        nn.MaxPool2d(3, 2, ceil_mode=True),
        _Fire(256, 48, 192, 192),
        _Fire(384, 48, 192, 192),
        _Fire(384, 64, 256, 256),
        _Fire(512, 64, 256, 256),
        nn.Dropout(0.5),
        nn.Conv2d(512, 1000, 1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
    )
    inputs = (torch.randn(1, 3, 224, 224),)
    return _init(model, inputs), inputs


# EfficientNet-B0 ------------------------------------------------------------


class _SqueezeExcite(nn.Module):
    """Global average, 1x1 reduce, activation, 1x1 expand, gate, scale."""

    def __init__(self, channels: int, squeeze: int, act: nn.Module, gate: nn.Module) -> None:
        super().__init__()
        self.scale = nn.Sequential(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(channels, squeeze, 1),
            act,
            nn.Conv2d(squeeze, channels, 1),
            gate,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.scale(x)


def efficientnet_b0(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    stages = [  # expand, kernel, stride, out channels, blocks
        (1, 3, 1, 16, 1),
        (6, 3, 2, 24, 2),
        (6, 5, 2, 40, 2),
        (6, 3, 2, 80, 3),
        (6, 5, 1, 112, 3),
        (6, 5, 2, 192, 4),
        (6, 3, 1, 320, 1),
    ]
    return _inverted_residual_net(stages, mbconv=True)


# Encoders -------------------------------------------------------------------


def bert_base(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    model, ids = _encoder(30522, 768, 12, 12, 3072)
    return model, (ids,)


def minilm(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    model, ids = _encoder(30522, 384, 6, 12, 1536)
    return model, (ids,)


# Recurrent ------------------------------------------------------------------


class _Recurrent(nn.Module):
    def __init__(self, cell: type[nn.LSTM] | type[nn.GRU], features: int, classes: int) -> None:
        super().__init__()
        self.rnn = cell(features, 256, num_layers=2, batch_first=True)
        self.head = nn.Linear(256, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.rnn(x)[0])


def _recurrent(
    cell: type[nn.LSTM] | type[nn.GRU], seed: int
) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)  # the recurrent weights keep torch's uniform initialisation
    model = _Recurrent(cell, 80, 32)
    inputs = (torch.randn(1, 50, 80),)
    return _init(model, inputs), inputs


def lstm(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return _recurrent(nn.LSTM, seed)


def gru(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    return _recurrent(nn.GRU, seed)


# 1D-conv audio model --------------------------------------------------------


def audio_cnn(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    cin = 80
    for cout, stride in ((64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (256, 2)):
        layers += [
            nn.Conv1d(cin, cout, 5, stride, 2, bias=False),
            nn.BatchNorm1d(cout),
            nn.ReLU(),
        ]
        cin = cout
    layers += [nn.AdaptiveAvgPool1d(1), nn.Flatten(), nn.Linear(cin, 35)]
    inputs = (torch.randn(1, 80, 1000),)
    return _init(nn.Sequential(*layers), inputs), inputs


# DBNet ----------------------------------------------------------------------


class _V3Block(nn.Module):
    """MobileNetV3's block: 1x1 expand, depthwise, optional squeeze-and-
    excitation (ReLU, HardSigmoid), 1x1 linear projection."""

    def __init__(
        self, cin: int, k: int, hidden: int, cout: int, se: bool, swish: bool, stride: int
    ) -> None:
        super().__init__()

        def act() -> nn.Module:
            return nn.Hardswish() if swish else nn.ReLU()

        layers: list[nn.Module] = []
        if hidden != cin:
            layers.append(_conv_bn(cin, hidden, 1, act=act()))
        layers.append(_conv_bn(hidden, hidden, k, stride, groups=hidden, act=act()))
        if se:
            layers.append(
                _SqueezeExcite(hidden, _divisible(hidden / 4), nn.ReLU(), nn.Hardsigmoid())
            )
        layers.append(_conv_bn(hidden, cout, 1))
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) if self.residual else self.body(x)


class _DBNet(nn.Module):
    # MobileNetV3-Large: kernel, expansion, out, SE, HardSwish, stride
    LARGE = [
        (3, 16, 16, False, False, 1),
        (3, 64, 24, False, False, 2),
        (3, 72, 24, False, False, 1),
        (5, 72, 40, True, False, 2),
        (5, 120, 40, True, False, 1),
        (5, 120, 40, True, False, 1),
        (3, 240, 80, False, True, 2),
        (3, 200, 80, False, True, 1),
        (3, 184, 80, False, True, 1),
        (3, 184, 80, False, True, 1),
        (3, 480, 112, True, True, 1),
        (3, 672, 112, True, True, 1),
        (5, 672, 160, True, True, 2),
        (5, 960, 160, True, True, 1),
        (5, 960, 160, True, True, 1),
    ]

    def __init__(self, scale: float = 0.5, inner: int = 96) -> None:
        super().__init__()
        cin = _divisible(16 * scale)
        self.stem = _conv_bn(3, cin, 3, 2, act=nn.Hardswish())
        # Four stages, ending at strides 4, 8, 16 and 32 (each stride-2 block
        # after the first starts one), as PaddleOCR's det backbone.
        stages: list[list[nn.Module]] = [[]]
        widths: list[int] = []
        for n, (k, expansion, out, se, swish, stride) in enumerate(self.LARGE):
            if stride == 2 and n > 1:
                widths.append(cin)
                stages.append([])
            hidden, cout = _divisible(expansion * scale), _divisible(out * scale)
            stages[-1].append(_V3Block(cin, k, hidden, cout, se, swish, stride))
            cin = cout
        last = _divisible(960 * scale)
        stages[-1].append(_conv_bn(cin, last, 1, act=nn.Hardswish()))
        widths.append(last)
        self.stages = nn.ModuleList(nn.Sequential(*blocks) for blocks in stages)
        self.lateral = nn.ModuleList(nn.Conv2d(w, inner, 1, bias=False) for w in widths)
        self.smooth = nn.ModuleList(
            nn.Conv2d(inner, inner // 4, 3, padding=1, bias=False) for _ in widths
        )
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        quarter = inner // 4
        self.head = nn.Sequential(
            _conv_bn(inner, quarter, 3, act=nn.ReLU()),
            nn.ConvTranspose2d(quarter, quarter, 2, 2),
            nn.BatchNorm2d(quarter),
            nn.ReLU(),
            nn.ConvTranspose2d(quarter, 1, 2, 2),
            nn.Sigmoid(),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        features = []
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        inner = [lateral(f) for lateral, f in zip(self.lateral, features, strict=True)]
        for k in range(len(inner) - 2, -1, -1):  # top-down: add the upsampled coarser level
            inner[k] = inner[k] + self.up(inner[k + 1])
        maps = [smooth(f) for smooth, f in zip(self.smooth, inner, strict=True)]
        fused = torch.cat(
            [
                nn.functional.interpolate(m, scale_factor=2**k, mode="nearest") if k else m
                for k, m in enumerate(maps)
            ][::-1],
            1,
        )
        return self.head(fused)


def dbnet(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    inputs = (torch.randn(1, 3, 640, 640),)
    return _init(_DBNet(), inputs), inputs


# YOLOv8n --------------------------------------------------------------------


def _conv(cin: int, cout: int, k: int = 1, stride: int = 1) -> nn.Sequential:
    """Ultralytics' Conv: Conv2d without bias, BatchNorm, SiLU."""
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride, k // 2, bias=False),
        nn.BatchNorm2d(cout, eps=0.001, momentum=0.03),
        nn.SiLU(),
    )


class _Bottleneck(nn.Module):
    def __init__(self, channels: int, shortcut: bool) -> None:
        super().__init__()
        self.body = nn.Sequential(_conv(channels, channels, 3), _conv(channels, channels, 3))
        self.shortcut = shortcut

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) if self.shortcut else self.body(x)


class _C2f(nn.Module):
    def __init__(self, cin: int, cout: int, n: int, shortcut: bool) -> None:
        super().__init__()
        self.c = cout // 2
        self.cv1 = _conv(cin, 2 * self.c)
        self.cv2 = _conv((2 + n) * self.c, cout)
        self.m = nn.ModuleList(_Bottleneck(self.c, shortcut) for _ in range(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = list(self.cv1(x).split((self.c, self.c), 1))
        y.extend(m(y[-1]) for m in self.m)
        return self.cv2(torch.cat(y, 1))


class _SPPF(nn.Module):
    def __init__(self, cin: int, cout: int) -> None:
        super().__init__()
        self.cv1 = _conv(cin, cin // 2)
        self.cv2 = _conv(cin // 2 * 4, cout)
        self.m = nn.MaxPool2d(5, 1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = [self.cv1(x)]
        y.extend(self.m(y[-1]) for _ in range(3))
        return self.cv2(torch.cat(y, 1))


class _YOLOv8(nn.Module):
    def __init__(self, width: float = 0.25, depth: float = 0.33, classes: int = 80) -> None:
        super().__init__()
        c1, c2, c3, c4, c5 = (int(c * width) for c in (64, 128, 256, 512, 1024))

        def n(count: int) -> int:
            return max(round(count * depth), 1)

        self.b1 = nn.Sequential(_conv(3, c1, 3, 2), _conv(c1, c2, 3, 2), _C2f(c2, c2, n(3), True))
        self.b2 = nn.Sequential(_conv(c2, c3, 3, 2), _C2f(c3, c3, n(6), True))  # P3
        self.b3 = nn.Sequential(_conv(c3, c4, 3, 2), _C2f(c4, c4, n(6), True))  # P4
        self.b4 = nn.Sequential(_conv(c4, c5, 3, 2), _C2f(c5, c5, n(3), True), _SPPF(c5, c5))
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.n1 = _C2f(c5 + c4, c4, n(3), False)
        self.n2 = _C2f(c4 + c3, c3, n(3), False)  # P3 out
        self.d1 = _conv(c3, c3, 3, 2)
        self.n3 = _C2f(c3 + c4, c4, n(3), False)  # P4 out
        self.d2 = _conv(c4, c4, 3, 2)
        self.n4 = _C2f(c4 + c5, c5, n(3), False)  # P5 out
        reg = 16  # distribution focal loss bins per box side
        box, cls = max(16, c3 // 4, 4 * reg), max(c3, min(classes, 100))
        self.box = nn.ModuleList(
            nn.Sequential(_conv(c, box, 3), _conv(box, box, 3), nn.Conv2d(box, 4 * reg, 1))
            for c in (c3, c4, c5)
        )
        self.cls = nn.ModuleList(
            nn.Sequential(_conv(c, cls, 3), _conv(cls, cls, 3), nn.Conv2d(cls, classes, 1))
            for c in (c3, c4, c5)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p3 = self.b2(self.b1(x))
        p4 = self.b3(p3)
        p5 = self.b4(p4)
        h4 = self.n1(torch.cat([self.up(p5), p4], 1))
        o3 = self.n2(torch.cat([self.up(h4), p3], 1))
        o4 = self.n3(torch.cat([self.d1(o3), h4], 1))
        o5 = self.n4(torch.cat([self.d2(o4), p5], 1))
        outputs = [
            torch.cat([box(o), cls(o)], 1).flatten(2)
            for o, box, cls in zip((o3, o4, o5), self.box, self.cls, strict=True)
        ]
        return torch.cat(outputs, 2)


def yolov8n(seed: int = 0) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    torch.manual_seed(seed)
    inputs = (torch.randn(1, 3, 640, 640),)
    return _init(_YOLOv8(), inputs), inputs


# The set --------------------------------------------------------------------


def _resnet(name: str) -> Builder:
    def build() -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
        model, example = resnet(name)
        return model, (example,)

    return build


MODELS: dict[str, Builder] = {
    "resnet18": _resnet("resnet18"),
    "resnet50": _resnet("resnet50"),
    "mobilenet_v2": mobilenet_v2,
    "squeezenet1_1": squeezenet1_1,
    "efficientnet_b0": efficientnet_b0,
    "bert_base": bert_base,
    "minilm": minilm,
    "lstm": lstm,
    "gru": gru,
    "audio_cnn": audio_cnn,
    "dbnet": dbnet,
    "yolov8n": yolov8n,
}
"""Model name (also the C prefix) -> builder of (model in eval mode, inputs)."""


def export(name: str, folder: Path) -> Path:
    """The model `name` as `folder/name.onnx`, exported if the file is not
    there yet: with the legacy exporter at opset 17 (BatchNorm folded, as
    tests/models.py does), or with the dynamo exporter if that fails."""
    path = folder / f"{name}.onnx"
    if path.exists():
        return path
    model, inputs = MODELS[name]()
    (example,) = inputs
    partial = folder / f"{name}.partial.onnx"
    # Without grad (as export_model runs) an eval-mode nn.TransformerEncoderLayer
    # takes its fused fast path, which the legacy exporter cannot export.
    fastpath = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        export_model(model, example, partial, dynamo=False, opset=17)
    except Exception:  # any failure of the legacy exporter: try the other one
        export_model(model, example, partial, dynamo=True, opset=17)
    finally:
        torch.backends.mha.set_fastpath_enabled(fastpath)
    partial.replace(path)
    return path
