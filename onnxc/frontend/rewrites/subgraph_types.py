"""Types for the inputs of subgraph bodies, which onnx's shape inference
leaves as declared (often without a shape), and the outer constants a body
reads, which it cannot see.

`REWRITES` (`prepare.py`) runs them, as `body-input-types` and
`outer-constants`, between rounds of inference: a Loop body's iteration
number and condition become scalars, its carried values get their initial
values' types (and the Loop's final values the same, where the body keeps
the shape), a Scan body's state inputs their initial states' types and its
scan inputs the slices' types (the input less its scan axis); a Squeeze or
Reshape in a body whose axes or shape are a constant of an outer scope gets
its own copy of that constant, so inference can read it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import onnx

from onnxc.folding import SMALL_CONSTANT
from onnxc.frontend.graphs import all_names, fresh_name
from onnxc.frontend.state import Rewrite

SHAPE_LIKE = frozenset({onnx.TensorProto.INT32, onnx.TensorProto.INT64})
"""Element types of the tensors shape inference reads the values of (shapes,
axes, indices)."""


def type_body_inputs(
    graph: onnx.GraphProto, inferred: onnx.GraphProto, outer: Mapping[str, onnx.TypeProto]
) -> bool:
    """Give the inputs of Loop and Scan bodies (of `graph` and the subgraphs
    in it) that declare no shape the types the spec gives them: a loop's
    iteration number and condition are scalars, a carried value has the
    type of its initial value, a scan input's slice that of the input less
    its scan axis. onnx's inference keeps the declared type of a body input,
    so without this what the body computes from it has no shape. `inferred`
    is `graph` after inference (the same nodes), `outer` the types its
    subgraphs also see. Whether any was given."""
    types = dict(outer)
    for value in [*inferred.input, *inferred.value_info, *inferred.output]:
        types[value.name] = value.type
    for tensor in inferred.initializer:
        types[tensor.name] = onnx.helper.make_tensor_type_proto(tensor.data_type, tensor.dims)
    given = False
    if len(graph.node) != len(inferred.node):
        return False
    for node, typed in zip(graph.node, inferred.node, strict=True):
        bodies = {
            a.name: (a.g, b.g)
            for a, b in zip(node.attribute, typed.attribute, strict=False)
            if a.type == onnx.AttributeProto.GRAPH and a.name == b.name
        }
        if node.op_type in ("Loop", "Scan") and "body" in bodies:
            given |= _give_body_types(node, *bodies["body"], types)
        if node.op_type == "Loop" and "body" in bodies:
            given |= _give_carried_types(graph, node, bodies["body"][1], types)
        for body, typed_body in bodies.values():
            if body.node:
                given |= type_body_inputs(body, typed_body, types)
    return given


def _give_body_types(
    node: onnx.NodeProto,
    body: onnx.GraphProto,
    typed_body: onnx.GraphProto,
    types: Mapping[str, onnx.TypeProto],
) -> bool:
    """`type_body_inputs` for one Loop or Scan node. A Loop's carried value
    whose body gives it back with another size on some axis than its initial
    value has (a tensor growing by a Concat each trip) keeps that axis
    unknown: its size changes from trip to trip."""
    wanted: list[onnx.TypeProto | None] = []
    if node.op_type == "Loop":
        wanted += [
            onnx.helper.make_tensor_type_proto(onnx.TensorProto.INT64, []),
            onnx.helper.make_tensor_type_proto(onnx.TensorProto.BOOL, []),
        ]
        wanted += [
            _varying(types.get(name), given_back.type)
            for name, given_back in zip(node.input[2:], typed_body.output[1:], strict=False)
        ]
    else:
        attributes = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        scans = int(attributes.get("num_scan_inputs", 0))
        states = len(node.input) - scans
        wanted += [types.get(name) for name in node.input[:states]]
        axes = list(attributes.get("scan_input_axes", [0] * scans))
        for name, axis in zip(node.input[states:], axes, strict=False):
            whole = types.get(name)
            wanted.append(_without_axis(whole, axis) if whole is not None else None)
    given = False
    for position, (value, want) in enumerate(zip(body.input, wanted, strict=False)):
        declared = value.type
        if want is None or not want.tensor_type.HasField("shape"):
            continue
        if not (declared.HasField("tensor_type") and declared.tensor_type.HasField("shape")):
            value.type.CopyFrom(want)
            given = True
            continue
        dims = declared.tensor_type.shape.dim
        wanted_dims = want.tensor_type.shape.dim
        if len(dims) != len(wanted_dims):
            continue
        for axis, (dim, wanted_dim) in enumerate(zip(dims, wanted_dims, strict=True)):
            if _is_unknown(wanted_dim) and dim.HasField("dim_value"):
                dim.Clear()
                _forget_sizes(body, body.output[position - 1], axis)
                given = True
            elif wanted_dim.HasField("dim_value") and not dim.HasField("dim_value"):
                dim.Clear()
                dim.dim_value = wanted_dim.dim_value
                given = True
    return given


def copy_outer_constants(
    graph: onnx.GraphProto, outer: Mapping[str, onnx.TensorProto], taken: set[str]
) -> bool:
    """Give each subgraph of `graph` its own copy (under a fresh name) of the
    small integer constants of outer scopes that its nodes read: onnx's
    inference reads the values of a subgraph's own constants only, and a
    Squeeze or Reshape in a Loop or Scan body whose axes or shape come from
    the outer graph otherwise gets no shape. Whether any was copied."""
    inputs = {i.name for i in graph.input}
    constants = dict(outer)
    for tensor in graph.initializer:
        if tensor.name not in inputs and tensor.data_type in SHAPE_LIKE:
            if math.prod(tensor.dims) <= SMALL_CONSTANT:
                constants[tensor.name] = tensor
    copied = False
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.type != onnx.AttributeProto.GRAPH:
                continue
            body = attribute.g
            own = {t.name for t in body.initializer} | {i.name for i in body.input}
            own |= {o for n in body.node for o in n.output}
            local: dict[str, str] = {}
            for inner in body.node:
                for k, name in enumerate(inner.input):
                    if name in own or name not in constants:
                        continue
                    if name not in local:
                        local[name] = fresh_name(f"{name}_local", taken)
                        copy = body.initializer.add()
                        copy.CopyFrom(constants[name])
                        copy.name = local[name]
                    inner.input[k] = local[name]
                    copied = True
            copied |= copy_outer_constants(body, constants, taken)
    return copied


def _give_carried_types(
    graph: onnx.GraphProto,
    node: onnx.NodeProto,
    typed_body: onnx.GraphProto,
    types: Mapping[str, onnx.TypeProto],
) -> bool:
    """Type the final carried values of a Loop, which onnx's inference leaves
    without a shape (a carried value may change shape from one iteration to
    the next): where the body gives back the shape it was given, that
    shape; else that rank, unknown on the axes where they differ. Whether
    any was typed."""
    given = False
    carried = zip(node.output, node.input[2:], typed_body.output[1:], strict=False)
    for result, initial, body_output in carried:
        known = types.get(result)
        if not result or (known is not None and known.tensor_type.HasField("shape")):
            continue
        start = types.get(initial)
        if start is None or not start.tensor_type.HasField("shape"):
            continue
        back = body_output.type.tensor_type
        if not back.HasField("shape") or len(back.shape.dim) != len(start.tensor_type.shape.dim):
            continue
        final = _varying(start, body_output.type)
        assert final is not None
        found = [v for v in [*graph.output, *graph.value_info] if v.name == result]
        value = found[0] if found else graph.value_info.add(name=result)
        value.type.CopyFrom(final)
        given = True
    return given


def _varying(initial: onnx.TypeProto | None, given_back: onnx.TypeProto) -> onnx.TypeProto | None:
    """The type of a Loop body's carried input whose initial value has type
    `initial` and which the body yields with type `given_back`: `initial`,
    but unknown on the axes where the two differ (a size that changes from
    trip to trip)."""
    if initial is None or not initial.tensor_type.HasField("shape"):
        return initial
    back = given_back.tensor_type
    dims = initial.tensor_type.shape.dim
    if not back.HasField("shape") or len(back.shape.dim) != len(dims):
        return initial
    varying = onnx.TypeProto()
    varying.CopyFrom(initial)
    for dim, other in zip(varying.tensor_type.shape.dim, back.shape.dim, strict=True):
        if dim != other:
            dim.Clear()
    return varying


def _forget_sizes(body: onnx.GraphProto, given_back: onnx.ValueInfoProto, axis: int) -> None:
    """Forget what an earlier inference (the version converter's) said the
    body computes from a carried input given one size on `axis`: the types
    of its values, and that axis of the output giving the input back."""
    del body.value_info[:]
    dims = given_back.type.tensor_type.shape.dim
    if axis < len(dims):
        dims[axis].Clear()


def _is_unknown(dim: onnx.TensorShapeProto.Dimension) -> bool:
    return not dim.HasField("dim_value") and not dim.dim_param


def _without_axis(whole: onnx.TypeProto, axis: int) -> onnx.TypeProto | None:
    tensor_type = whole.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    dims = list(tensor_type.shape.dim)
    if not -len(dims) <= axis < len(dims):
        return None
    del dims[axis]
    sliced = onnx.TypeProto()
    sliced.tensor_type.elem_type = tensor_type.elem_type
    sliced.tensor_type.shape.SetInParent()
    for dim in dims:
        sliced.tensor_type.shape.dim.add().CopyFrom(dim)
    return sliced


BODY_INPUT_TYPES = Rewrite(
    "body-input-types",
    lambda state: type_body_inputs(state.model.graph, state.types().graph, {}),
)
OUTER_CONSTANTS = Rewrite(
    "outer-constants",
    lambda state: copy_outer_constants(state.model.graph, {}, set(all_names(state.model.graph))),
)
