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
    microsoft_matmul,
    microsoft_normalization,
)
from onnxc.frontend.expansions.expander import Expander, Expansion, Expansions

MICROSOFT = "com.microsoft"
"""onnxruntime's contrib operator domain."""

EXPANSIONS: dict[str, Mapping[str, Expansion]] = {}
"""Domain -> op_type -> expansion."""


def _register(domain: str, expansions: Expansions) -> None:
    table = dict(EXPANSIONS.get(domain, {}))
    clash = sorted(set(table) & set(expansions))
    assert not clash, f"expanded twice in {domain}: {clash}"
    table.update(expansions)
    EXPANSIONS[domain] = table


_register(MICROSOFT, microsoft_activations.EXPANSIONS)
_register(MICROSOFT, microsoft_matmul.EXPANSIONS)
_register(MICROSOFT, microsoft_normalization.EXPANSIONS)


def expansion_of(domain: str, op_type: str) -> Expansion | None:
    return EXPANSIONS.get(domain, {}).get(op_type)


__all__ = ["EXPANSIONS", "MICROSOFT", "Expander", "Expansion", "expansion_of"]
