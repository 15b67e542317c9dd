"""Operators of other domains replaced by default-domain nodes at import
(`expander.py` says how); one module per family of operators.

`EXPANSIONS` maps a domain to its expansions by op_type; the `expand-operators`
rewrite (`rewrites/expand_operators.py`) applies them, and the domain check
accepts exactly the operators listed here.
"""

from __future__ import annotations

from collections.abc import Mapping

from onnxc.frontend.expansions import (
    microsoft_activations,
    microsoft_attention,
    microsoft_group_query_attention,
    microsoft_matmul,
    microsoft_normalization,
    microsoft_qoperator,
    microsoft_quantized,
    microsoft_rotary,
    onnxruntime_defaults,
    preview_flex_attention,
    training_gradient,
    training_optimizers,
)
from onnxc.frontend.expansions.expander import Expander, Expansion, Expansions

MICROSOFT = "com.microsoft"
"""onnxruntime's contrib operator domain."""

ONNXRUNTIME_DEFAULT = "ai.onnxc.onnxruntime"
"""The domain onnxc gives the operators onnxruntime registers under the
default domain where ONNX has none (`rewrites/onnxruntime_names.py`)."""

PREVIEW = "ai.onnx.preview"
"""ONNX's preview operators (FlexAttention)."""

PREVIEW_TRAINING = "ai.onnx.preview.training"
"""ONNX's preview training operators (the optimizers, Gradient)."""

EXPANSIONS: dict[str, Mapping[str, Expansion]] = {}
"""Domain -> op_type -> expansion."""


def _register(domain: str, expansions: Expansions) -> None:
    table = dict(EXPANSIONS.get(domain, {}))
    clash = sorted(set(table) & set(expansions))
    assert not clash, f"expanded twice in {domain}: {clash}"
    table.update(expansions)
    EXPANSIONS[domain] = table


_register(MICROSOFT, microsoft_activations.EXPANSIONS)
_register(MICROSOFT, microsoft_attention.EXPANSIONS)
_register(MICROSOFT, microsoft_group_query_attention.EXPANSIONS)
_register(MICROSOFT, microsoft_matmul.EXPANSIONS)
_register(MICROSOFT, microsoft_normalization.EXPANSIONS)
_register(MICROSOFT, microsoft_qoperator.EXPANSIONS)
_register(MICROSOFT, microsoft_quantized.EXPANSIONS)
_register(MICROSOFT, microsoft_rotary.EXPANSIONS)
_register(ONNXRUNTIME_DEFAULT, onnxruntime_defaults.EXPANSIONS)
_register(PREVIEW, preview_flex_attention.EXPANSIONS)
_register(PREVIEW_TRAINING, training_gradient.EXPANSIONS)
_register(PREVIEW_TRAINING, training_optimizers.EXPANSIONS)


def expansion_of(domain: str, op_type: str) -> Expansion | None:
    return EXPANSIONS.get(domain, {}).get(op_type)


__all__ = [
    "EXPANSIONS",
    "MICROSOFT",
    "ONNXRUNTIME_DEFAULT",
    "PREVIEW",
    "PREVIEW_TRAINING",
    "Expander",
    "Expansion",
    "expansion_of",
]
