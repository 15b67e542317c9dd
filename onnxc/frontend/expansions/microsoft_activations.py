"""com.microsoft activations, as the default-domain operators that compute
them (onnxruntime's contrib operator documentation gives each definition,
its CPU kernels the details the documentation leaves open).

A bias is added before the activation, in onnxruntime's order; onnxruntime
wants it 1-D over the last axis, and any shape that broadcasts is accepted
here."""

from __future__ import annotations

from onnxc.frontend.expansions.expander import Expander, Expansions


def _gelu(x: Expander) -> None:
    """Gelu(X) = X * 0.5 * (1 + erf(X / sqrt(2))): the default-domain Gelu."""
    x.add("Gelu", [x.needed(0, "X")], [x.node.output[0]])


def _bias_gelu(x: Expander) -> None:
    """BiasGelu(A, B) = Gelu(A + B), the exact (erf) Gelu."""
    total = x.op("Add", x.needed(0, "A"), x.needed(1, "B"))
    x.add("Gelu", [total], [x.node.output[0]])


def _fast_gelu(x: Expander) -> None:
    """FastGelu(X, bias) = Gelu(X + bias) with the tanh approximation,
    0.5 * X * (1 + tanh(sqrt(2 / pi) * (X + 0.044715 * X^3))): the
    default-domain Gelu with approximate='tanh' (onnxruntime's two kernels
    agree bit for bit). The bias is optional."""
    value = x.needed(0, "X")
    bias = x.input(1)
    if bias is not None:
        value = x.op("Add", value, bias)
    x.add("Gelu", [value], [x.node.output[0]], approximate="tanh")


def _quick_gelu(x: Expander) -> None:
    """QuickGelu(X) = X * Sigmoid(alpha * X), alpha 1.702 by default: the
    default-domain Swish."""
    alpha = x.float_attribute("alpha", 1.702)
    x.add("Swish", [x.needed(0, "X")], [x.node.output[0]], alpha=alpha)


def _bias_add(x: Expander) -> None:
    """BiasAdd(X, bias, skip) = (X + bias) + skip, X and skip [N, S, C],
    bias [C] (onnxruntime has the kernel on GPUs only)."""
    total = x.op("Add", x.needed(0, "X"), x.needed(1, "bias"))
    x.add("Add", [total, x.needed(2, "skip")], [x.node.output[0]])


EXPANSIONS: Expansions = {
    "BiasAdd": _bias_add,
    "BiasGelu": _bias_gelu,
    "FastGelu": _fast_gelu,
    "Gelu": _gelu,
    "QuickGelu": _quick_gelu,
}
