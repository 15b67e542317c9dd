"""What constant folding may evaluate: the limits the front end's folding of
protobuf nodes and the `onnx-fold-constants` pass share."""

from __future__ import annotations

SMALL_CONSTANT = 4096
"""Constants with at most this many elements go into exported graphs with
their data (shape inference reads small ones, such as shapes and axes);
larger ones only with their type. Folding makes no larger constant."""

NON_DETERMINISTIC = frozenset(
    {
        "Bernoulli",
        "Multinomial",
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
    }
)
"""Operators whose value is not a function of their inputs: never folded."""

MAX_ROUNDS = 16
"""Fold-and-infer rounds at most (each round must make some type more static)."""
