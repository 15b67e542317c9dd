"""Checks of the distributions of random operators' outputs: ONNX leaves
the generator open, so their values have no oracle, only their
distributions. Each estimate must be within 5 standard errors of what the
distribution gives; the generator is deterministic, so a check passes or
fails the same way on every run."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Statistics = Callable[[dict[str, np.ndarray], np.ndarray], None]
"""Checks an output given the node's inputs by name."""


def within(estimate: Any, expected: float, standard_error: Any, what: str) -> None:
    """`estimate` is within 5 standard errors of `expected`."""
    assert abs(estimate - expected) < 5 * standard_error, (what, estimate, expected)


def uniform_statistics(low: float, high: float) -> Statistics:
    def checked(_: dict[str, np.ndarray], out: np.ndarray) -> None:
        values = out.astype(np.float64).ravel()
        assert values.min() >= low and values.max() <= high  # a narrow type may round to high
        width = high - low
        within(values.mean(), (low + high) / 2, width / np.sqrt(12 * values.size), "mean")
        within(values.var(), width**2 / 12, width**2 / np.sqrt(180 * values.size), "variance")

    return checked


def normal_statistics(mean: float, scale: float) -> Statistics:
    def checked(_: dict[str, np.ndarray], out: np.ndarray) -> None:
        values = out.astype(np.float64).ravel()
        n = values.size
        within(values.mean(), mean, scale / np.sqrt(n), "mean")
        within(values.std(), scale, scale / np.sqrt(2 * n), "standard deviation")
        inside = np.mean(np.abs(values - mean) < scale)
        within(inside, 0.6827, np.sqrt(0.6827 * 0.3173 / n), "share within one deviation")

    return checked


def bernoulli_statistics(feeds: dict[str, np.ndarray], out: np.ndarray) -> None:
    (p,) = (v.astype(np.float64) for v in feeds.values())
    values = out.astype(np.float64)
    assert set(np.unique(values)) <= {0.0, 1.0}
    error = np.sqrt(np.sum(p * (1 - p))) / p.size
    within(float(np.mean(values - p)), 0.0, error, "ones beyond p")


def multinomial_statistics(feeds: dict[str, np.ndarray], out: np.ndarray) -> None:
    (logits,) = (v.astype(np.float64) for v in feeds.values())
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    probabilities = exp / exp.sum(axis=1, keepdims=True)
    batch, classes = logits.shape
    assert out.min() >= 0 and out.max() < classes
    samples = out.shape[1]
    for row in range(batch):
        counts = np.bincount(out[row], minlength=classes) / samples
        for c, p in enumerate(probabilities[row]):
            within(counts[c], p, max(np.sqrt(p * (1 - p) / samples), 1e-3), f"class {c}")
