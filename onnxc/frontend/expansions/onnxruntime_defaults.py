"""The operators onnxruntime registers under the default domain where ONNX
has none (`rewrites/onnxruntime_names.py` moves them to their own domain), as
the default-domain operators of the dialect's opset that compute them:

- SimplifiedLayerNormalization (onnxruntime's RMS normalization): Y = X /
  sqrt(mean(X^2 over the axes from `axis`) + epsilon) * scale, which is
  RMSNormalization (opset 23) with the same attributes;
- LayerNormalization below opset 17: the opset-17 operator's definition.

Their optional statistics outputs (inv_std_var, mean) are computed by the
default-domain LayerNormalization; RMSNormalization has none, so
SimplifiedLayerNormalization's inv_std_var output is refused."""

from __future__ import annotations

from onnxc.frontend.expansions.expander import Expander, Expansions

_EPSILON = 1e-5
"""The default epsilon of both."""


def _attributes(x: Expander) -> dict[str, object]:
    return {
        "axis": x.int_attribute("axis", -1),
        "epsilon": x.float_attribute("epsilon", _EPSILON),
        "stash_type": x.int_attribute("stash_type", 1),
    }


def _simplified_layer_normalization(x: Expander) -> None:
    if x.output(1) is not None:
        raise x.refuse("its inv_std_var output is not compiled (RMSNormalization has none)")
    inputs = [x.needed(0, "X"), x.needed(1, "scale")]
    x.add("RMSNormalization", inputs, [x.node.output[0]], **_attributes(x))


def _layer_normalization(x: Expander) -> None:
    outputs = [x.output(k) or "" for k in range(3)]
    while outputs and not outputs[-1]:
        outputs.pop()
    inputs = [x.needed(0, "X"), x.needed(1, "Scale"), x.input(2)]
    x.add("LayerNormalization", inputs, outputs, **_attributes(x))


EXPANSIONS: Expansions = {
    "SimplifiedLayerNormalization": _simplified_layer_normalization,
    "LayerNormalization": _layer_normalization,
}
