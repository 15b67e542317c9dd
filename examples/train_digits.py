"""Train the bundled example model: a small CNN on scikit-learn's 8x8 digits.

Run from the repository root (needs torch, scikit-learn and onnxruntime; no
network access, the digits data set ships with scikit-learn):

    python examples/train_digits.py

It trains for a few seconds on CPU with fixed seeds, prints the held-out
accuracy, and writes next to this script:

- ``digits_cnn.onnx``: the model, legacy exporter, opset 17, input "image"
  (1x1x8x8 float32, pixels scaled to [0, 1]), output "logits" (1x10). The
  exporter folds the BatchNorm into the first convolution.
- ``digit_input.npy``: one held-out test image, 1x1x8x8 float32.
- ``digit_expected.npy``: onnxruntime's logits for that image, 1x10 float32.

The data split is deterministic (scikit-learn's ``train_test_split`` with a
fixed ``random_state``) and so is training (``torch.manual_seed`` and one
thread), so rerunning on the same torch version reproduces the files.
"""

from __future__ import annotations

import pathlib

import numpy as np
import onnx
import onnxruntime
import torch
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.utils import Bunch
from torch import nn

HERE = pathlib.Path(__file__).resolve().parent
SEED = 0
EPOCHS = 30
BATCH_SIZE = 64
# The held-out image saved as the example input.
EXAMPLE_INDEX = 0


class DigitsCNN(nn.Module):
    """conv3x3(1->8)+BN+ReLU, conv3x3(8->16)+ReLU, maxpool 2, flatten, linear 10."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn1(self.conv1(x)))
        x = self.pool(torch.relu(self.conv2(x)))
        return self.fc(torch.flatten(x, 1))


def load_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The digits as N x 1 x 8 x 8 float32 in [0, 1], split 75/25, stratified."""
    digits = load_digits()
    assert isinstance(digits, Bunch)  # not return_X_y
    images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    labels = digits.target.astype(np.int64)
    split = train_test_split(images, labels, test_size=0.25, random_state=SEED, stratify=labels)
    x_train, x_test, y_train, y_test = (np.asarray(part) for part in split)
    return x_train, x_test, y_train, y_test


def train(x_train: np.ndarray, y_train: np.ndarray) -> DigitsCNN:
    model = DigitsCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    inputs = torch.from_numpy(x_train)
    targets = torch.from_numpy(y_train)
    generator = torch.Generator().manual_seed(SEED)
    model.train()
    for _ in range(EPOCHS):
        order = torch.randperm(len(inputs), generator=generator)
        for start in range(0, len(inputs), BATCH_SIZE):
            batch = order[start : start + BATCH_SIZE]
            optimizer.zero_grad()
            loss = loss_fn(model(inputs[batch]), targets[batch])
            loss.backward()
            optimizer.step()
    model.eval()
    return model


def accuracy(model: nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    with torch.no_grad():
        predicted = model(torch.from_numpy(x)).argmax(dim=1).numpy()
    return float((predicted == y).mean())


def main() -> None:
    torch.manual_seed(SEED)
    torch.set_num_threads(1)
    x_train, x_test, y_train, y_test = load_data()
    model = train(x_train, y_train)
    print(f"train accuracy {accuracy(model, x_train, y_train):.4f}")
    print(f"test accuracy  {accuracy(model, x_test, y_test):.4f} ({len(y_test)} images)")

    onnx_path = HERE / "digits_cnn.onnx"
    example = x_test[EXAMPLE_INDEX : EXAMPLE_INDEX + 1]
    with torch.no_grad():
        torch.onnx.export(
            model,
            (torch.from_numpy(example),),
            str(onnx_path),
            input_names=["image"],
            output_names=["logits"],
            opset_version=17,
            dynamo=False,
        )
    onnx.checker.check_model(str(onnx_path), full_check=True)

    session = onnxruntime.InferenceSession(str(onnx_path), providers=["CPUExecutionProvider"])
    (logits,) = session.run(["logits"], {"image": example})
    logits = np.asarray(logits, dtype=np.float32)
    np.save(HERE / "digit_input.npy", example)
    np.save(HERE / "digit_expected.npy", logits)

    ops = sorted({node.op_type for node in onnx.load(str(onnx_path)).graph.node})
    print(f"wrote {onnx_path.name} ({onnx_path.stat().st_size} bytes), ops {ops}")
    print(
        f"example: test image {EXAMPLE_INDEX}, label {y_test[EXAMPLE_INDEX]}, "
        f"predicted {int(logits.argmax())}"
    )


if __name__ == "__main__":
    main()
