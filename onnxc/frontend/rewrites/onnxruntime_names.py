"""`claim-onnxruntime-names`: the operators onnxruntime registers under the
default domain although ONNX has no such operator at the model's opset, moved
to a domain of their own (`ONNXRUNTIME_DEFAULT`) before the model is checked.

onnxruntime's transformer optimizer and its LLM builders write
SimplifiedLayerNormalization (an RMS normalization) in the default domain at
any opset, and LayerNormalization below opset 17, where ONNX defines none:
onnx's checker refuses them ("No Op registered for ...") and its version
converter cannot upgrade them. Under their own domain they pass both, and the
`expand-operators` rewrite writes them as the default-domain operators of the
dialect's opset (`expansions/onnxruntime_defaults.py`). It also adds the
opset import of a domain whose operators onnxc expands when nodes use it
without one: onnxruntime's transformer optimizer writes com.microsoft nodes
into models that do not import com.microsoft, which onnx's checker refuses."""

from __future__ import annotations

import onnx

from onnxc.frontend.expansions import EXPANSIONS, ONNXRUNTIME_DEFAULT
from onnxc.frontend.graphs import all_nodes
from onnxc.frontend.state import ModelState, Rewrite

CLAIMED = frozenset({"SimplifiedLayerNormalization", "LayerNormalization"})
"""The default-domain names onnxruntime gives operators ONNX lacks (at some
opsets)."""


def _defined(op_type: str, opset: int) -> bool:
    try:
        onnx.defs.get_schema(op_type, opset, "")
    except onnx.defs.SchemaError:
        return False
    return True


def claim_onnxruntime_names(state: ModelState) -> bool:
    model = state.model
    opsets = {o.domain: o.version for o in model.opset_import}
    opset = opsets.get("", opsets.get("ai.onnx"))
    if opset is None:
        return False
    claimed = False
    used: set[str] = set()
    for node in all_nodes(model.graph):
        if node.domain in ("", "ai.onnx") and node.op_type in CLAIMED:
            if not _defined(node.op_type, opset):
                node.domain = ONNXRUNTIME_DEFAULT
                claimed = True
        used.add(node.domain)
    missing = sorted(d for d in used if d in EXPANSIONS and d not in opsets)
    for domain in missing:
        model.opset_import.append(onnx.helper.make_opsetid(domain, 1))
    return claimed or bool(missing)


CLAIM_ONNXRUNTIME_NAMES = Rewrite("claim-onnxruntime-names", claim_onnxruntime_names)
