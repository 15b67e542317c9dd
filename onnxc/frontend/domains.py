"""The operator domains the front end imports, and how its messages name a
node."""

from __future__ import annotations

from collections.abc import Mapping

import onnx

from onnxc.dialects import onnx as onnx_dialect
from onnxc.dialects import onnx_ml

DOMAINS: dict[str, Mapping[str, type[onnx_dialect.OnnxOp]]] = {
    "": onnx_dialect.OPS,
    "ai.onnx": onnx_dialect.OPS,
    onnx_ml.DOMAIN: onnx_ml.OPS,
}
"""The operator domains onnxc imports: ONNX domain -> op_type -> operation class."""


def node_label_at(node: onnx.NodeProto, index: int) -> str:
    return f"node '{node.name or f'{node.op_type}_{index}'}' ({node.op_type})"
