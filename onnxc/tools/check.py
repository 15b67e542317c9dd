"""`onnxc check`: every node of a model that onnxc cannot compile yet, at once.

A compile stops at the first problem; a user asking "will my model
compile?" wants the whole gap. `find_gaps` reads the model as the importer
prepares it (checked, functions inlined, opset upgraded, shapes inferred)
and lists, per node, what stands in the way: a domain other than the
default one and ai.onnx.ml, an operator with no lowering, an element type outside the
element-type table. When no node is in the way, it compiles the model and
reports the first error of the compile, if any (an attribute value or a case
of an operator a lowering does not handle).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import onnx

from onnxc import element_types
from onnxc.containers import ShapeArgument
from onnxc.errors import OnnxcError
from onnxc.frontend import DOMAINS, ModelLike, load_model, prepare_model
from onnxc.frontend.rewrites.check_model import foreign_reason
from onnxc.frontend.sequences.operators import RESOLVED_OPS
from onnxc.progress import Progress

__all__ = ["Gap", "find_gaps", "format_gaps"]


@dataclass(frozen=True)
class Gap:
    """One node onnxc cannot compile, and why (node "" for the whole model)."""

    domain: str
    operator: str
    opset: int | None
    node: str
    reason: str


def _opset_of(node: onnx.NodeProto, opsets: Mapping[str, int]) -> int | None:
    """The version of the operator's schema the model's opset selects."""
    domain = "" if node.domain == "ai.onnx" else node.domain
    try:
        return onnx.defs.get_schema(node.op_type, opsets.get(domain, 1), domain).since_version
    except onnx.defs.SchemaError:
        return None


def _type_problem(node: onnx.NodeProto, types: Mapping[str, onnx.TypeProto]) -> str | None:
    for name in [*node.input, *node.output]:
        found = types.get(name)
        if found is None or not found.HasField("tensor_type"):
            continue
        code = found.tensor_type.elem_type
        if code and element_types.by_onnx_code(code) is None:
            return f"'{name}' has element type {element_types.onnx_type_name(code)}"
    return None


def _node_gaps(model: onnx.ModelProto) -> list[Gap]:
    from onnxc.lowering.convert_onnx_to_linalg import lowerings

    lowered = set(lowerings())
    graph = model.graph
    opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    types = {v.name: v.type for v in [*graph.input, *graph.output, *graph.value_info]}
    gaps: list[Gap] = []
    for index, node in enumerate(graph.node):
        name = node.name or f"{node.op_type}_{index}"
        domain = node.domain or "ai.onnx"
        if node.domain not in DOMAINS:
            foreign = foreign_reason(node)
            if foreign is None:  # an expansion replaces it
                continue
            reason = foreign
        elif node.op_type not in lowered and node.op_type not in RESOLVED_OPS.get(
            "" if domain == "ai.onnx" else domain, ()
        ):
            reason = "operator not supported yet (no lowering)"
        else:
            problem = _type_problem(node, types)
            if problem is None:
                continue
            reason = problem
        gaps.append(Gap(domain, node.op_type, _opset_of(node, opsets), name, reason))
    return gaps


_NODE_ERROR = re.compile(r"^node '(?P<node>[^']*)' \((?P<op>[A-Za-z0-9_]+)\): (?P<reason>.*)$")


def find_gaps(
    model: ModelLike,
    *,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    max_dims: Mapping[str, int] | None = None,
    progress: Progress | None = None,
) -> list[Gap]:
    """The nodes of `model` onnxc cannot compile (empty when it compiles);
    `progress`, if given, is told the end of each stage."""
    proto = load_model(model)
    if progress is not None:
        progress.step("load")
    try:
        prepared = prepare_model(proto, dims, shapes, foreign=True).model
    except OnnxcError as error:  # still list what is readable, else the error's node
        return _node_gaps(proto) or [_gap_of(error, proto)]
    gaps = _node_gaps(prepared)
    if progress is not None:
        progress.step("check operators")
    if gaps:
        return gaps
    from onnxc.api import generate_with
    from onnxc.options import CompileOptions

    try:
        generate_with(
            proto,
            CompileOptions.make(dims=dims, shapes=shapes, max_dims=max_dims),
            progress=progress,
        )
    except OnnxcError as error:
        return [_gap_of(error, prepared)]
    return []


def _gap_of(error: OnnxcError, model: onnx.ModelProto) -> Gap:
    """The gap an error names: its node's (a message `node 'NAME' (OP): why`),
    else the model's as a whole."""
    found = _NODE_ERROR.match(str(error))
    if found is None:
        return Gap("", "(model)", None, "", str(error))
    node = next((n for n in model.graph.node if n.name == found["node"]), None)
    opsets = {o.domain: o.version for o in model.opset_import}
    opset = _opset_of(node, opsets) if node is not None else None
    domain = (node.domain if node is not None else "") or "ai.onnx"
    return Gap(domain, found["op"], opset, found["node"], found["reason"])


def format_gaps(gaps: Sequence[Gap]) -> list[str]:
    """The gaps as an aligned table, a line each."""
    rows = [("domain", "operator", "opset", "node", "reason")]
    rows += [
        (g.domain, g.operator, "-" if g.opset is None else str(g.opset), g.node, g.reason)
        for g in gaps
    ]
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    return ["  ".join([*(r[k].ljust(widths[k]) for k in range(4)), r[4]]).rstrip() for r in rows]
