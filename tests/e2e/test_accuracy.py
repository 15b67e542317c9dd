"""A text recogniser's pattern, compiled and compared with onnxruntime and with
float64: a Conv stem, 24 residual feed-forward layers (LayerNorm written out
as ReduceMean/Sub/Pow/ReduceMean/Add/Sqrt/Div, as older exporters and
TF-converted models write it; Linear; GELU exported as
Div/Erf/Add/Mul/Mul), and a 6625-class Softmax (PaddleOCR's Chinese
character set with blank and space) over 32 time steps, with seeded random
weights (torch's initialisation) and a head that gives each step a trained
CTC model's logits: one class ahead (blank, with probability 0.7 to 0.99)
and thousands of others 14 to 21 below it, whose exponentials are about
float's ulp beside 1.

How the outputs are compared: the error of an output is the largest
absolute difference over all its elements divided by the largest magnitude
of the reference (its scale: 1 for these probabilities), so a relative
tolerance of 1e-5 is an absolute one of 1e-5 * scale; element-wise relative
differences of tiny probabilities say nothing about the model.

What this catches: Softmax summed its 6625 exponentials in float, in order.
Beside a running total near 1, the thousands of terms near 1e-7 are each
rounded to a multiple of float's ulp there, mostly the same way, and the
sum, by which every probability is divided, was off by 4e-5 relative (on
host and host-portable alike): 3.6e-5 from onnxruntime, 3.9e-5 from float64
where onnxruntime is 3.2e-6 from it. Long float sums now accumulate in
double (reduction/blocks.py's `sum_type`): 3.2e-6 from onnxruntime, 7.6e-7
from float64.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import torch  # noqa: E402
from torch import nn  # noqa: E402

import onnxc  # noqa: E402
from tests.models import export  # noqa: E402

ort = pytest.importorskip("onnxruntime")

CLASSES = 6625
WIDTH = 64
HIDDEN = 256
LAYERS = 24
INPUT_SHAPE = (1, 3, 32, 128)
TOLERANCE = 1e-5
"""Of the difference from onnxruntime, relative to the output's scale."""


class OpsLayerNorm(nn.Module):
    """LayerNorm over the last axis written out in the operators older
    exporters emit: ReduceMean, Sub, Pow(2), ReduceMean, Add eps, Sqrt, Div,
    then the affine Mul and Add."""

    def __init__(self, width: int, eps: float = 1e-5) -> None:
        super().__init__()
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(width))
        self.bias = nn.Parameter(0.05 * torch.randn(width))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        centred = x - x.mean(-1, keepdim=True)
        variance = centred.pow(2).mean(-1, keepdim=True)
        return centred / torch.sqrt(variance + self.eps) * self.weight + self.bias


class FeedForward(nn.Module):
    """x + Linear(GELU(Linear(LayerNorm(x)))): a pre-norm residual layer."""

    def __init__(self, width: int, hidden: int) -> None:
        super().__init__()
        self.norm = OpsLayerNorm(width)
        self.up = nn.Linear(width, hidden)
        self.act = nn.GELU()  # exported as Div by sqrt(2), Erf, Add 1, Mul, Mul 0.5
        self.down = nn.Linear(hidden, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(self.act(self.up(self.norm(x))))


class Recogniser(nn.Module):
    """[1, 3, 32, 128] image -> [1, 32, CLASSES] probabilities per time step."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 16, 3, 2, 1),
            nn.GELU(),
            nn.Conv2d(16, 32, 3, 2, 1),
            nn.GELU(),
            nn.Conv2d(32, WIDTH, (8, 1)),  # the height folded away: 32 steps
        )
        self.layers = nn.Sequential(*[FeedForward(WIDTH, HIDDEN) for _ in range(LAYERS)])
        self.norm = OpsLayerNorm(WIDTH)
        self.head = nn.Linear(WIDTH, CLASSES)
        with torch.no_grad():  # a trained head's logits: see the module docstring
            self.head.weight.normal_(0.0, 0.25)
            self.head.weight[0].mul_(3.0)  # blank: ahead by a margin that varies
            self.head.bias.normal_(0.0, 1.0)
            self.head.bias[0] = 12.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x).flatten(2).transpose(1, 2)
        return torch.softmax(self.head(self.norm(self.layers(x))), dim=-1)


def _error(got: np.ndarray, want: np.ndarray) -> float:
    """The largest difference relative to the reference's scale."""
    want64 = want.astype(np.float64)
    return float(np.max(np.abs(got.astype(np.float64) - want64)) / np.max(np.abs(want64)))


@pytest.fixture(scope="module")
def recogniser(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, np.ndarray]:
    """The exported model, an input, and the float64 result of the same
    module on it."""
    torch.manual_seed(0)
    model = Recogniser().eval()
    x = torch.rand(*INPUT_SHAPE)
    folder = tmp_path_factory.mktemp("accuracy")
    # opset 17: from 20 on, the exporter writes nn.GELU as one Gelu node
    path = export(model, x, folder / "recogniser.onnx", dynamo=False, opset=17)
    with torch.no_grad():
        exact = model.double()(x.double()).numpy()
    return path, x.numpy(), exact


def test_the_export_has_the_pattern(recogniser: tuple[Path, np.ndarray, np.ndarray]) -> None:
    import onnx

    ops = [node.op_type for node in onnx.load(str(recogniser[0])).graph.node]
    for op, count in [("Erf", LAYERS + 2), ("Pow", LAYERS + 1), ("Sqrt", LAYERS + 1)]:
        assert ops.count(op) == count, op
    assert ops.count("ReduceMean") == 2 * (LAYERS + 1)
    assert "LayerNormalization" not in ops and "Gelu" not in ops
    assert ops.count("Softmax") == 1


def test_probabilities_are_a_trained_recognisers(
    recogniser: tuple[Path, np.ndarray, np.ndarray],
) -> None:
    """Each step has a winner (blank), mostly a confident one, and thousands
    of classes whose probabilities are about float's ulp beside 1."""
    exact = recogniser[2][0]
    top = exact.max(axis=-1)
    assert 0.5 < top.min() < 0.9 < np.median(top) < top.max() < 1.0
    assert np.all(exact.argmax(axis=-1) == 0)
    assert np.median(np.sum((exact > 1e-9) & (exact < 1e-6), axis=-1)) > 1000


@pytest.mark.parametrize("target", ["host", "host-portable"])
def test_matches_onnxruntime_and_float64(
    recogniser: tuple[Path, np.ndarray, np.ndarray], target: str
) -> None:
    path, x, exact = recogniser
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"input": x})
    (got,) = onnxc.compile(path, name="recogniser", target=target)(x)
    assert got.shape == want.shape == exact.shape
    assert _error(got, want) <= TOLERANCE
    # at least as close to float64 as onnxruntime (a little slack for the
    # order products are summed in)
    assert _error(got, exact) <= 1.5 * _error(want, exact)
