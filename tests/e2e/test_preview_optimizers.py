"""ai.onnx.preview.training's optimizers (Adagrad, Adam, Momentum in its
standard and nesterov modes) compiled through their expansions
(`onnxc/frontend/expansions/training_optimizers.py`).

Each case is one node updating one or two tensors (X1 [3, 4], X2 [5]) at
T = 0 and T > 0, with the default attributes and with others, in float32
and float64, compared with onnx.reference (onnxruntime has these kernels
only in its training builds). The reference runs one node per tensor: with
several tensors its Adam rounds every output to float32. Tolerances: rtol
1e-5 and atol 1e-6 for float32 (the reference computes R's adjustment in
float64, onnxc in X's type); rtol and atol 1e-12 for float64.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator

import onnxc
from tests.e2e.contrib_ops import assert_refused_in_one_line
from tests.e2e.test_preview_training import TRAINING, declared, training_model

RNG = np.random.default_rng(29)
SHAPES = [[3, 4], [5]]
TOLERANCES: dict[type, tuple[float, float]] = {np.float32: (1e-5, 1e-6), np.float64: (1e-12, 1e-12)}
"""(rtol, atol) by element type."""

STATES: dict[str, list[str]] = {"Adagrad": ["H"], "Adam": ["V", "H"], "Momentum": ["V"]}
"""What each optimizer keeps per tensor, in the order of its inputs and outputs."""

NONNEGATIVE = {"H"}
"""States that are sums of squares."""


@dataclass
class Optimizer:
    """One optimizer node: its operator, attributes, update count T and
    how many tensors it updates; which outputs it leaves empty (`dropped`,
    by name) and R's element type (None: X's)."""

    op: str
    attributes: dict[str, Any]
    steps: int
    count: int
    dropped: set[str] = field(default_factory=set[str])
    rate: type | None = None

    def kinds(self) -> list[str]:
        return ["X", "G", *STATES[self.op]]

    def inputs(self, i: int) -> list[str]:
        """The names of R, T and tensor `i`'s inputs (all tensors: None)."""
        return ["R", "T", *(f"{kind}{i}" for kind in self.kinds())]

    def outputs(self, i: int) -> list[str]:
        return [f"{kind}{i}_new" for kind in ["X", *STATES[self.op]]]


CASES: dict[str, Optimizer] = {
    "adagrad_defaults": Optimizer("Adagrad", {}, 0, 1),
    "adagrad_two_tensors": Optimizer(
        "Adagrad", {"norm_coefficient": 0.01, "decay_factor": 0.1, "epsilon": 1e-3}, 3, 2
    ),
    "adam_defaults": Optimizer("Adam", {}, 0, 1),
    "adam_started": Optimizer("Adam", {}, 4, 1),
    "adam_two_tensors": Optimizer(
        "Adam",
        {
            "alpha": 0.8,
            "beta": 0.95,
            "epsilon": 1e-4,
            "norm_coefficient": 0.02,
            "norm_coefficient_post": 0.05,
        },
        5,
        2,
    ),
    "momentum_first": Optimizer(
        "Momentum", {"alpha": 0.9, "beta": 0.5, "mode": "standard", "norm_coefficient": 0.0}, 0, 1
    ),
    "momentum_two_tensors": Optimizer(
        "Momentum", {"alpha": 0.7, "beta": 0.4, "mode": "standard", "norm_coefficient": 0.01}, 2, 2
    ),
    "nesterov_first": Optimizer(
        "Momentum", {"alpha": 0.9, "beta": 0.5, "mode": "nesterov", "norm_coefficient": 0.0}, 0, 1
    ),
    "nesterov_two_tensors": Optimizer(
        "Momentum", {"alpha": 0.7, "beta": 0.4, "mode": "nesterov", "norm_coefficient": 0.01}, 2, 2
    ),
}

EXTRA: dict[str, tuple[Optimizer, type]] = {
    "adam_without_x2_and_v1": (
        Optimizer("Adam", {"alpha": 0.85}, 2, 2, dropped={"X2_new", "V1_new"}),
        np.float32,
    ),
    "momentum_only_new_x": (
        Optimizer(
            "Momentum",
            {"alpha": 0.9, "beta": 0.1, "mode": "nesterov", "norm_coefficient": 0.0},
            1,
            2,
            dropped={"V1_new", "V2_new"},
        ),
        np.float64,
    ),
    "adagrad_float32_rate_float64_tensors": (
        Optimizer("Adagrad", {"decay_factor": 0.3}, 3, 2, rate=np.float32),
        np.float64,
    ),
    "adam_float32_rate_float64_tensors": (
        Optimizer("Adam", {"alpha": 0.8}, 3, 2, rate=np.float32),
        np.float64,
    ),
}
"""Cases of one element type: empty outputs, and an R of another type than X."""


def _feeds(case: Optimizer, dtype: type) -> dict[str, np.ndarray]:
    feeds = {
        "R": np.array(0.1, case.rate or dtype),
        "T": np.array(case.steps, np.int64),
    }
    for kind in case.kinds():
        for i in range(1, case.count + 1):
            values = RNG.standard_normal(SHAPES[i - 1])
            feeds[f"{kind}{i}"] = (np.abs(values) if kind in NONNEGATIVE else values).astype(dtype)
    return feeds


def _node(case: Optimizer, inputs: Sequence[str], outputs: Sequence[str]) -> onnx.NodeProto:
    return helper.make_node(
        case.op, list(inputs), list(outputs), name="optimize", domain=TRAINING, **case.attributes
    )


def _model(case: Optimizer, feeds: Mapping[str, np.ndarray]) -> onnx.ModelProto:
    """One node updating all the case's tensors: its inputs R, T, then each
    kind's tensors; its outputs each kind's new tensors (empty names for the
    dropped ones, trailing ones too: ONNX's shape inference wants them all)."""
    tensors = range(1, case.count + 1)
    inputs = ["R", "T", *(f"{kind}{i}" for kind in case.kinds() for i in tensors)]
    kept = ["X", *STATES[case.op]]
    outputs = [f"{kind}{i}_new" for kind in kept for i in tensors]
    named = ["" if name in case.dropped else name for name in outputs]
    graph = helper.make_graph(
        [_node(case, inputs, named)],
        "optimizer",
        [declared(name, feeds[name]) for name in inputs],
        [declared(name, feeds[name.removesuffix("_new")]) for name in named if name],
    )
    return training_model(graph)


def _expected(case: Optimizer, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """onnx.reference's outputs, one single-tensor node at a time."""
    found: dict[str, np.ndarray] = {}
    for i in range(1, case.count + 1):
        names = case.inputs(i)
        node = _node(case, names, case.outputs(i))
        values = ReferenceEvaluator(node).run(None, {name: feeds[name] for name in names})
        found |= {n: np.asarray(v) for n, v in zip(case.outputs(i), values, strict=True)}
    return found


def assert_matches_reference(case: Optimizer, dtype: type) -> None:
    feeds = _feeds(case, dtype)
    model = _model(case, feeds)
    got = onnxc.compile(model, cache=False).run(feeds)
    expected = _expected(case, feeds)
    assert set(got) == {output.name for output in model.graph.output}
    rtol, atol = TOLERANCES[dtype]
    for name, value in got.items():
        assert (value.shape, value.dtype) == (expected[name].shape, np.dtype(dtype)), name
        np.testing.assert_allclose(value, expected[name], rtol=rtol, atol=atol, err_msg=name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_reference(name: str, dtype: type) -> None:
    assert_matches_reference(CASES[name], dtype)


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_partial_outputs_and_mixed_types(name: str) -> None:
    assert_matches_reference(*EXTRA[name])


def test_unknown_momentum_mode_is_refused() -> None:
    case = Optimizer(
        "Momentum", {"alpha": 0.9, "beta": 0.1, "mode": "heavy", "norm_coefficient": 0.0}, 1, 1
    )
    model = _model(case, _feeds(case, np.float32))
    assert_refused_in_one_line(model, r"node 'optimize' \(Momentum\): mode 'heavy'")


def test_incomplete_groups_are_refused() -> None:
    case = Optimizer("Adam", {}, 1, 1)
    model = _model(case, _feeds(case, np.float32))
    del model.graph.node[0].input[-1]
    del model.graph.input[-1]
    pattern = r"node 'optimize' \(Adam\): its 5 inputs are not R, T and n of each of X, G, V, H"
    assert_refused_in_one_line(model, pattern)
