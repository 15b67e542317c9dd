"""ResNet-18 and ResNet-50 (He et al., torchvision's layer layout) in plain
torch, with seeded random weights and BatchNorm statistics, for the
benchmarks: no download, no torchvision.

    model, example = resnet("resnet50")
"""

from __future__ import annotations

from typing import Any

BLOCKS = {"resnet18": ("basic", (2, 2, 2, 2)), "resnet50": ("bottleneck", (3, 4, 6, 3))}


def resnet(name: str, size: int = 224, seed: int = 0) -> tuple[Any, Any]:
    """The model (eval mode) and an example input (1, 3, size, size)."""
    import torch  # noqa: PLC0415
    from torch import nn  # noqa: PLC0415

    kind, counts = BLOCKS[name]
    expansion = 4 if kind == "bottleneck" else 1

    def norm(channels: int) -> nn.BatchNorm2d:
        return nn.BatchNorm2d(channels)

    class Block(nn.Module):
        def __init__(self, cin: int, width: int, stride: int) -> None:
            super().__init__()
            cout = width * expansion
            if kind == "basic":
                self.body = nn.Sequential(
                    nn.Conv2d(cin, width, 3, stride, 1, bias=False),
                    norm(width),
                    nn.ReLU(),
                    nn.Conv2d(width, width, 3, 1, 1, bias=False),
                    norm(width),
                )
            else:
                self.body = nn.Sequential(
                    nn.Conv2d(cin, width, 1, bias=False),
                    norm(width),
                    nn.ReLU(),
                    nn.Conv2d(width, width, 3, stride, 1, bias=False),
                    norm(width),
                    nn.ReLU(),
                    nn.Conv2d(width, cout, 1, bias=False),
                    norm(cout),
                )
            self.shortcut = (
                nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), norm(cout))
                if stride != 1 or cin != cout
                else nn.Identity()
            )

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.body(x) + self.shortcut(x))

    layers: list[nn.Module] = [
        nn.Conv2d(3, 64, 7, 2, 3, bias=False),
        norm(64),
        nn.ReLU(),
        nn.MaxPool2d(3, 2, 1),
    ]
    cin = 64
    for stage, count in enumerate(counts):
        width = 64 << stage
        for k in range(count):
            layers.append(Block(cin, width, 2 if k == 0 and stage > 0 else 1))
            cin = width * expansion
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 1000)]
    model = nn.Sequential(*layers).eval()
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, nn.Conv2d | nn.Linear):
                fan_in = module.weight[0].numel()
                module.weight.copy_(
                    torch.randn(module.weight.shape, generator=generator) * (2 / fan_in) ** 0.5
                )
            elif isinstance(module, nn.BatchNorm2d):
                mean, var = module.running_mean, module.running_var
                assert mean is not None and var is not None  # tracked statistics
                shape = mean.shape
                mean.copy_(torch.randn(shape, generator=generator) * 0.1)
                var.copy_(torch.rand(shape, generator=generator) + 0.5)
                module.weight.copy_(torch.rand(shape, generator=generator) * 0.5 + 0.5)
                module.bias.copy_(torch.randn(shape, generator=generator) * 0.1)
    return model, torch.randn((1, 3, size, size), generator=generator)
