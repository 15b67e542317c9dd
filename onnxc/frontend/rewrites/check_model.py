"""`check-model`: onnx.checker, then the default-domain opset, and (unless
`foreign`) the domains: nodes of domains onnxc does not import are refused,
naming the node, and ai.onnx.ml nodes must be of versions it knows."""

from __future__ import annotations

import onnx

from onnxc.dialects import onnx_ml
from onnxc.errors import OnnxcError, first_line
from onnxc.frontend.domains import DOMAINS, node_label_at
from onnxc.frontend.rewrites import ml_domain
from onnxc.frontend.state import ModelState, Rewrite


def _default_opset(model: onnx.ModelProto) -> int | None:
    """The default-domain opset the model imports; None when it imports only
    ai.onnx.ml (its nodes all ml nodes, as the checker made sure)."""
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            return opset.version
    if any(opset.domain == onnx_ml.DOMAIN for opset in model.opset_import):
        return None
    raise OnnxcError("the model imports no default-domain (ai.onnx) opset") from None


def _reject_foreign_domains(model: onnx.ModelProto) -> None:
    local = {(f.domain, f.name) for f in model.functions}
    for index, node in enumerate(model.graph.node):
        if node.domain not in DOMAINS and (node.domain, node.op_type) not in local:
            raise OnnxcError(
                f"{node_label_at(node, index)}: operator domain '{node.domain}' "
                "is not supported (only the default ai.onnx domain and ai.onnx.ml are)"
            )


def check_model(state: ModelState) -> bool:
    """Check the model, read its opset, refuse what onnxc does not import."""
    try:
        onnx.checker.check_model(state.model)
    except Exception as error:
        raise OnnxcError(f"invalid model: {first_line(error)}") from None
    state.opset = _default_opset(state.model)
    if not state.foreign:
        _reject_foreign_domains(state.model)
        ml_domain.check_versions(state.model, node_label_at)
    return False


CHECK_MODEL = Rewrite("check-model", check_model)
