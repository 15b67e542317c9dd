"""The activation functions of RNN, GRU and LSTM: the names the spec lists
(case-insensitive, as onnxruntime reads them), with their alpha and beta.

`activation_alpha` / `activation_beta` are consumed, in order over the
activation list, only by the functions that take them (onnxruntime's
reading); missing ones take the defaults of the ONNX operators of the same
name (the spec's: Affine 1, 0; ThresholdedRelu 1; ScaledTanh 1, 1), where
onnxruntime uses 0 for the functions without an ONNX operator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.ir import SSAValue

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import unsupported
from onnxc.lowering.convert_onnx_to_linalg.elementwise.activations import elu, thresholded_relu
from onnxc.lowering.convert_onnx_to_linalg.elementwise.arithmetic import (
    hard_sigmoid,
    leaky_relu,
    sigmoid,
)
from onnxc.lowering.convert_onnx_to_linalg.elementwise.math_functions import softplus, softsign
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant

Function = Callable[[Builder, SSAValue, float, float], SSAValue]


def _times(b: Builder, factor: float, x: SSAValue) -> SSAValue:
    return scalar.MUL(b, constant(b, factor, x.type), x)


FUNCTIONS: dict[str, tuple[bool, bool, float, float, Function]] = {
    "relu": (False, False, 0, 0, lambda b, x, a, c: scalar.MAX(b, x, constant(b, 0.0, x.type))),
    "tanh": (False, False, 0, 0, lambda b, x, a, c: scalar.TANH(b, x)),
    "sigmoid": (False, False, 0, 0, lambda b, x, a, c: sigmoid(b, x)),
    "affine": (
        True,
        True,
        1.0,
        0.0,
        lambda b, x, a, c: scalar.ADD(b, _times(b, a, x), constant(b, c, x.type)),
    ),
    "leakyrelu": (True, False, 0.01, 0, lambda b, x, a, c: leaky_relu(b, x, a)),
    "thresholdedrelu": (True, False, 1.0, 0, lambda b, x, a, c: thresholded_relu(b, x, a)),
    "scaledtanh": (
        True,
        True,
        1.0,
        1.0,
        lambda b, x, a, c: _times(b, a, scalar.TANH(b, _times(b, c, x))),
    ),
    "hardsigmoid": (True, True, 0.2, 0.5, hard_sigmoid),
    "elu": (True, False, 1.0, 0, lambda b, x, a, c: elu(b, x, a)),
    "softsign": (False, False, 0, 0, lambda b, x, a, c: softsign(b, x)),
    "softplus": (False, False, 0, 0, lambda b, x, a, c: softplus(b, x)),
}
"""Activation name (lower case) -> whether it takes alpha, beta, their
defaults, and the function."""


@dataclass(frozen=True)
class Activation:
    """One activation function of the list, with its alpha and beta."""

    name: str
    alpha: float
    beta: float

    def __call__(self, b: Builder, x: SSAValue) -> SSAValue:
        return FUNCTIONS[self.name][4](b, x, self.alpha, self.beta)


def activations(
    op: onnx.OnnxOp, defaults: Sequence[str], directions: int
) -> list[list[Activation]]:
    """Each direction's activation functions (`activations`, or the
    operator's defaults), with the alphas and betas they consume."""
    given = op.properties.get("activations") is not None  # RNN's schema default has two
    names: list[str] = op.attr("activations") if given else [*defaults] * directions
    if len(names) == len(defaults) and directions == 2:
        names = names * 2
    if len(names) != len(defaults) * directions:
        raise unsupported(op, f"{len(names)} activations (expected {len(defaults) * directions})")
    alphas = iter(op.attr("activation_alpha") or [])
    betas = iter(op.attr("activation_beta") or [])
    found: list[Activation] = []
    for name in names:
        key = name.lower()
        if key not in FUNCTIONS:
            raise unsupported(op, f"activation '{name}'")
        takes_alpha, takes_beta, alpha, beta, _ = FUNCTIONS[key]
        alpha = next(alphas, alpha) if takes_alpha else alpha
        beta = next(betas, beta) if takes_beta else beta
        found.append(Activation(key, float(alpha), float(beta)))
    per = len(defaults)
    return [found[d * per : (d + 1) * per] for d in range(directions)]
