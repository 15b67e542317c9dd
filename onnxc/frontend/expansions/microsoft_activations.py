"""com.microsoft activations, as the default-domain operators that compute
them (onnxruntime's contrib operator documentation gives each definition)."""

from __future__ import annotations

from onnxc.frontend.expansions.expander import Expander, Expansions


def _gelu(x: Expander) -> None:
    """Gelu(X) = X * 0.5 * (1 + erf(X / sqrt(2))): the default-domain Gelu."""
    x.add("Gelu", [x.needed(0, "X")], [x.node.output[0]])


EXPANSIONS: Expansions = {"Gelu": _gelu}
