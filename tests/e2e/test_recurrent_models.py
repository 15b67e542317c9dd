"""RNN, GRU and LSTM compiled by onnxc match onnxruntime.

Single nodes cover the attributes the backend suite leaves out (layout 1,
sequence_lens with the reverse and bidirectional directions, initial states,
activations with alpha and beta, clip, linear_before_reset, input_forget,
peepholes, every optional output); small sequence models exported from
PyTorch (both exporters, where they export) cover what the exporters emit
around the recurrent nodes. Tolerance: rtol 1e-4, atol 1e-5 against
onnxruntime.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("torch")

import torch  # noqa: E402
from torch import nn  # noqa: E402

import onnxc  # noqa: E402
from tests.mcu.tools import needs_arm  # noqa: E402
from tests.models import export  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5
SEQ, BATCH, INPUT, HIDDEN = 5, 3, 4, 6
GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


def _node_model(op_type: str, attributes: dict[str, Any], optional: set[str]) -> onnx.ModelProto:
    """One `op_type` node with X, W, R and the `optional` inputs (B,
    sequence_lens, initial_h, initial_c, P) as graph inputs, and every output."""
    directions = 2 if attributes.get("direction") == "bidirectional" else 1
    layout = attributes.get("layout", 0)
    gates = GATES[op_type]
    x_shape = [BATCH, SEQ, INPUT] if layout else [SEQ, BATCH, INPUT]
    state = [BATCH, directions, HIDDEN] if layout else [directions, BATCH, HIDDEN]
    shapes = {
        "X": x_shape,
        "W": [directions, gates * HIDDEN, INPUT],
        "R": [directions, gates * HIDDEN, HIDDEN],
        "B": [directions, 2 * gates * HIDDEN],
        "sequence_lens": [BATCH],
        "initial_h": state,
        "initial_c": state,
        "P": [directions, 3 * HIDDEN],
    }
    order = ["X", "W", "R", "B", "sequence_lens", "initial_h"]
    if op_type == "LSTM":
        order += ["initial_c", "P"]
    names = [n if n in ("X", "W", "R") or n in optional else "" for n in order]
    while names[-1] == "":
        names.pop()
    outputs = ["Y", "Y_h", "Y_c"] if op_type == "LSTM" else ["Y", "Y_h"]
    node = helper.make_node(
        op_type, names, outputs, hidden_size=HIDDEN, name=op_type.lower(), **attributes
    )
    inputs = [
        helper.make_tensor_value_info(
            n, TensorProto.INT32 if n == "sequence_lens" else TensorProto.FLOAT, shapes[n]
        )
        for n in names
        if n
    ]
    graph = helper.make_graph(
        [node],
        "recurrent",
        inputs,
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    model.ir_version = 10
    return onnx.shape_inference.infer_shapes(model)


def _feeds(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    feeds: dict[str, np.ndarray] = {}
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        if value.name == "sequence_lens":
            feeds[value.name] = np.array([SEQ, 2, 0][:BATCH], dtype=np.int32)
        else:
            feeds[value.name] = (rng.standard_normal(shape) * 0.5).astype(np.float32)
    return feeds


CASES: dict[str, tuple[str, dict[str, Any], set[str]]] = {
    "rnn-relu-layout1": ("RNN", {"activations": ["Relu"], "layout": 1}, {"B", "initial_h"}),
    "rnn-bidirectional-alpha": (
        "RNN",
        {
            "direction": "bidirectional",
            "activations": ["LeakyRelu", "HardSigmoid"],
            "activation_alpha": [0.2, 0.3],
            "activation_beta": [0.4],
        },
        {"B"},
    ),
    "rnn-reverse-seqlens": ("RNN", {"direction": "reverse"}, {"B", "sequence_lens", "initial_h"}),
    "gru-linear-before-reset-clip": (
        "GRU",
        {"linear_before_reset": 1, "clip": 0.7},
        {"B", "initial_h"},
    ),
    "gru-bidirectional-seqlens-layout1": (
        "GRU",
        {"direction": "bidirectional", "layout": 1},
        {"B", "sequence_lens", "initial_h"},
    ),
    "gru-activations": (
        "GRU",
        {"activations": ["Softsign", "Elu"], "activation_alpha": [0.5], "direction": "reverse"},
        {"B"},
    ),
    "lstm-peepholes-initial": ("LSTM", {}, {"B", "initial_h", "initial_c", "P"}),
    "lstm-bidirectional-seqlens": (
        "LSTM",
        {"direction": "bidirectional"},
        {"B", "sequence_lens", "initial_h", "initial_c", "P"},
    ),
    "lstm-input-forget-clip-layout1": (
        "LSTM",
        {"input_forget": 1, "clip": 0.5, "layout": 1},
        {"B", "P"},
    ),
    "lstm-activations": (
        "LSTM",
        {
            "activations": ["HardSigmoid", "Affine", "ScaledTanh"],
            "activation_alpha": [0.3, 0.8, 1.5],
            "activation_beta": [0.45, 0.1, 0.7],
        },
        {"B"},
    ),
    "lstm-softplus-thresholded": (
        "LSTM",
        {"activations": ["Sigmoid", "Softplus", "ThresholdedRelu"], "activation_alpha": [0.1]},
        set(),
    ),
}


def _onnxruntime(
    op_type: str, attributes: dict[str, Any], optional: set[str], feeds: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The node's outputs from onnxruntime; layout 1, which it does not run
    for GRU and LSTM, through the layout-0 node on transposed tensors."""
    layout = attributes.get("layout", 0)
    model = _node_model(op_type, {**attributes, "layout": 0}, optional)
    swapped = {k: v.swapaxes(0, 1) if layout and v.ndim == 3 else v for k, v in feeds.items()}
    for name in ("W", "R"):
        swapped[name] = feeds[name]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in model.graph.output]
    outputs = dict(zip(names, session.run(None, swapped), strict=True))
    if layout:
        outputs = {
            k: v.transpose(2, 0, 1, 3) if v.ndim == 4 else v.swapaxes(0, 1)
            for k, v in outputs.items()
        }
    return outputs


@pytest.mark.parametrize("case", sorted(CASES))
def test_node_matches_onnxruntime(case: str) -> None:
    op_type, attributes, optional = CASES[case]
    model = _node_model(op_type, attributes, optional)
    feeds = _feeds(model)
    names = [o.name for o in model.graph.output]
    expected = _onnxruntime(op_type, attributes, optional, feeds)
    got = onnxc.compile(model, name=case.replace("-", "_")).run(feeds)
    for name in names:
        np.testing.assert_allclose(got[name], expected[name], rtol=RTOL, atol=ATOL, err_msg=name)


def test_only_the_final_state() -> None:
    """Y omitted: only Y_h (and no buffer for Y)."""
    model = _node_model("GRU", {"direction": "bidirectional"}, {"B"})
    model.graph.node[0].output[0] = ""
    del model.graph.output[0]
    feeds = _feeds(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (expected,) = session.run(None, feeds)
    got = onnxc.compile(model, name="gru_final").run(feeds)["Y_h"]
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


class LSTMTagger(nn.Module):
    """A two-layer bidirectional LSTM over a batch-first sequence, and a
    linear layer on each step."""

    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(8, 12, num_layers=2, bidirectional=True, batch_first=True)
        self.head = nn.Linear(24, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        steps, _ = self.lstm(x)
        return self.head(steps)


class GRUClassifier(nn.Module):
    """A GRU over a time-major sequence, classifying from its last state."""

    def __init__(self) -> None:
        super().__init__()
        self.gru = nn.GRU(8, 16)
        self.head = nn.Linear(16, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _, last = self.gru(x)
        return self.head(last[-1])


class ReluRNN(nn.Module):
    """An Elman RNN with ReLU, batch-first, its whole output sequence."""

    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.RNN(8, 10, nonlinearity="relu", batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.rnn(x)[0]


MODELS: dict[str, tuple[type[nn.Module], tuple[int, ...]]] = {
    "lstm-tagger": (LSTMTagger, (2, 7, 8)),
    "gru-classifier": (GRUClassifier, (7, 2, 8)),
    "relu-rnn": (ReluRNN, (2, 7, 8)),
}


@pytest.mark.parametrize("dynamo", [False, True], ids=["legacy", "dynamo"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_pytorch_model_matches_onnxruntime(tmp_path, name: str, dynamo: bool) -> None:
    cls, shape = MODELS[name]
    torch.manual_seed(0)
    model = cls()
    example = torch.randn(*shape)
    path = export(model, example, tmp_path / f"{name}.onnx", dynamo=dynamo)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    expected = ort.InferenceSession(str(path)).run(None, {"input": x})[0]
    got = onnxc.compile(path).run({"input": x})["output"]
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=ATOL)


@needs_arm
@pytest.mark.parametrize("name", ["lstm-tagger", "gru-classifier"])
def test_pytorch_model_runs_on_cortex_m4(tmp_path, name: str) -> None:
    """The recurrent models on an emulated Cortex-M4 match the host build
    (the same C; float results within 1e-6)."""
    cls, shape = MODELS[name]
    torch.manual_seed(0)
    path = export(cls(), torch.randn(*shape), tmp_path / f"{name}.onnx", dynamo=False)
    host = onnxc.compile(path, name=name.replace("-", "_"))
    mcu = onnxc.compile(path, name=name.replace("-", "_"), target="cortex-m4")
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    got, want = mcu.run({"input": x})["output"], host.run({"input": x})["output"]
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
