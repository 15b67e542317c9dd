"""`check-model`: onnx.checker, then what the checker leaves to shape
inference and onnx's C++ trusts (declared dimensions, the inputs and outputs
of control-flow bodies, Split's outputs: wrong ones crash it or the rewrites
that follow), the default-domain opset, and (unless `foreign`) the domains:
nodes of domains onnxc does not import, and that no expansion replaces
(`expansions/`), are refused, naming the node, and ai.onnx.ml nodes must be of
versions it knows."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import onnx

from onnxc.dialects import onnx_ml
from onnxc.dialects.onnx import TARGET_OPSET
from onnxc.errors import OnnxcError, UnsupportedError, first_line
from onnxc.frontend.domains import DOMAINS, node_label_at
from onnxc.frontend.expansions import EXPANSIONS, expansion_of
from onnxc.frontend.graphs import all_nodes
from onnxc.frontend.rewrites import ml_domain
from onnxc.frontend.state import ModelState, Rewrite


def _default_opset(model: onnx.ModelProto) -> int | None:
    """The default-domain opset the model imports; None when it imports only
    ai.onnx.ml (its nodes all ml nodes, as the checker made sure). A model
    whose nodes are all of domains onnxc expands (the preview training
    operators import no default domain) is given the dialect's opset, which
    their expansions are written in."""
    for opset in model.opset_import:
        if opset.domain in ("", "ai.onnx"):
            return opset.version
    if any(opset.domain == onnx_ml.DOMAIN for opset in model.opset_import):
        return None
    if model.graph.node and all(node.domain in EXPANSIONS for node in all_nodes(model.graph)):
        model.opset_import.append(onnx.helper.make_opsetid("", TARGET_OPSET))
        return TARGET_OPSET
    raise OnnxcError("the model imports no default-domain (ai.onnx) opset") from None


def foreign_reason(node: onnx.NodeProto) -> str | None:
    """Why onnxc cannot import `node` of a domain other than the ones it
    lowers, None when an expansion replaces it."""
    if expansion_of(node.domain, node.op_type) is not None:
        return None
    known = sorted(EXPANSIONS.get(node.domain, {}))
    if known:
        return (
            f"operator {node.domain}.{node.op_type} is not supported (of domain "
            f"'{node.domain}', onnxc compiles {', '.join(known)})"
        )
    return (
        f"operator domain '{node.domain}' is not supported (onnxc compiles the default "
        f"ai.onnx domain, ai.onnx.ml, and operators of {', '.join(sorted(EXPANSIONS))})"
    )


def _reject_foreign_domains(model: onnx.ModelProto) -> None:
    local = {(f.domain, f.name) for f in model.functions}
    for index, node in enumerate(all_nodes(model.graph)):
        if node.domain in DOMAINS or (node.domain, node.op_type) in local:
            continue
        reason = foreign_reason(node)
        if reason is not None:
            raise UnsupportedError(f"{node_label_at(node, index)}: {reason}")


def _value_infos(graph: onnx.GraphProto) -> Iterator[onnx.ValueInfoProto]:
    """The declared values of `graph` and of its subgraphs."""
    yield from graph.input
    yield from graph.output
    yield from graph.value_info
    for node in graph.node:
        for attribute in node.attribute:
            for subgraph in [attribute.g] if attribute.HasField("g") else attribute.graphs:
                yield from _value_infos(subgraph)


def _tensor_shapes(type_proto: onnx.TypeProto) -> Iterator[onnx.TensorShapeProto]:
    """The tensor shapes a type declares (of a tensor, or held in a sequence,
    optional or map)."""
    kind = type_proto.WhichOneof("value")
    if kind in ("tensor_type", "sparse_tensor_type"):
        held = getattr(type_proto, kind)
        if held.HasField("shape"):
            yield held.shape
    elif kind in ("sequence_type", "optional_type"):
        yield from _tensor_shapes(getattr(type_proto, kind).elem_type)
    elif kind == "map_type":
        yield from _tensor_shapes(type_proto.map_type.value_type)


UNNAMED = frozenset({"", "?"})
"""dim_params that name no dimension: exporters (Paddle's) write `?` for
"unknown", and onnxruntime reads each as a dimension of its own, never as
one name shared by every dimension so written."""


def _settle_dims(model: onnx.ModelProto) -> bool:
    """The declared dimensions, before onnx's shape inference and version
    converter read them (a negative one crashes them, GatherND's indices'
    last): -1, which onnxruntime reads as unknown, becomes an unknown
    dimension, and so does an `UNNAMED` dim_param (a graph input's is then
    named `INPUT_dimK` by `bind-dimensions`, as any unknown one); another
    negative size is refused. Says whether one changed."""
    values = [*_value_infos(model.graph), *(v for f in model.functions for v in f.value_info)]
    changed = False
    for value in values:
        for shape in _tensor_shapes(value.type):
            for dim in shape.dim:
                if dim.HasField("dim_param") and dim.dim_param in UNNAMED:
                    dim.Clear()
                    changed = True
                if not dim.HasField("dim_value") or dim.dim_value >= 0:
                    continue
                if dim.dim_value != -1:
                    raise OnnxcError(
                        f"value '{value.name}' is declared with dimension {dim.dim_value} "
                        "(a size is 0 or more, or -1 for unknown)"
                    )
                dim.Clear()
                changed = True
    return changed


def _body_arity(node: onnx.NodeProto, opset: int | None) -> str | None:
    """What is wrong with the number of inputs or outputs of a control-flow
    node's bodies (the checker leaves it to shape inference, which the front
    end's rewrites come before), or None."""
    bodies = {a.name: a.g for a in node.attribute if a.HasField("g")}
    if node.domain not in ("", "ai.onnx") or not bodies:
        return None
    if node.op_type == "If":
        for name, branch in sorted(bodies.items()):
            if len(branch.output) != len(node.output):
                return f"{name} has {len(branch.output)} outputs for {len(node.output)}"
        return None
    body = bodies.get("body")
    if body is None:
        return None
    if node.op_type == "Loop":
        carried = max(len(node.input) - 2, 0)
        outputs = max(len(node.output), carried)  # carried values, then scan outputs
        if len(body.input) != 2 + carried or len(body.output) != 1 + outputs:
            return (
                f"the body takes {len(body.input)} inputs and gives {len(body.output)} "
                f"outputs, where its {carried} carried values and "
                f"{outputs - carried} scan outputs need {2 + carried} and {1 + outputs}"
            )
        if len(node.output) < carried:
            return f"{len(node.output)} outputs for {carried} carried values"
        return None
    if node.op_type == "SequenceMap" or (node.op_type == "Scan" and (opset or 0) >= 9):
        if len(body.input) != len(node.input) or len(body.output) != len(node.output):
            return (
                f"the body takes {len(body.input)} inputs and gives {len(body.output)} "
                f"outputs for the node's {len(node.input)} and {len(node.output)}"
            )
    return None


def _output_count(node: onnx.NodeProto) -> str | None:
    """What is wrong with the number of outputs of a node whose attribute
    says how many it has (onnx's shape inference and version converter fail
    a C++ assertion on Split with more outputs than num_outputs), or None."""
    if node.op_type != "Split" or node.domain not in ("", "ai.onnx"):
        return None
    count = next((a.i for a in node.attribute if a.name == "num_outputs"), None)
    if count is not None and count != len(node.output):
        return f"num_outputs is {count}, but the node has {len(node.output)} outputs"
    return None


def _check_nodes(nodes: Iterable[onnx.NodeProto], opset: int | None) -> None:
    """Every control-flow body (nested ones too) has the inputs and outputs
    its node needs, and every node the outputs its attributes say."""
    for index, node in enumerate(nodes):
        problem = _body_arity(node, opset) or _output_count(node)
        if problem is not None:
            raise OnnxcError(f"{node_label_at(node, index)}: {problem}")
        for attribute in node.attribute:
            for body in [attribute.g] if attribute.HasField("g") else attribute.graphs:
                _check_nodes(body.node, opset)


def check_model(state: ModelState) -> bool:
    """Check the model, its declared dimensions (-1 and `?` made unknown),
    read its opset, refuse what onnxc does not import."""
    try:
        onnx.checker.check_model(state.model)
    except Exception as error:
        raise OnnxcError(f"invalid model: {first_line(error)}") from None
    changed = _settle_dims(state.model)
    imports = len(state.model.opset_import)
    state.opset = _default_opset(state.model)
    changed |= len(state.model.opset_import) != imports
    for nodes in [state.model.graph.node, *(f.node for f in state.model.functions)]:
        _check_nodes(nodes, state.opset)
    if not state.foreign:
        _reject_foreign_domains(state.model)
        ml_domain.check_versions(state.model, node_label_at)
    return changed


CHECK_MODEL = Rewrite("check-model", check_model)
