"""ONNX model -> `builtin.module` holding `func.func @main` of `onnx.*` operations.

The importer is the only place that reads protobuf. Before building IR it:

1. loads the file (external data is read relative to the model's folder and must
   stay inside it);
2. checks the model with `onnx.checker`, inlines model-local functions, and upgrades
   default-domain opsets older than the dialect's `TARGET_OPSET` with onnx's
   version converter (first making explicit what it does not convert: PRelu's
   per-channel slope before opset 7); nodes of the `ai.onnx.ml` domain import
   into the onnx_ml dialect (`ml_domain.py` says which versions), nodes of
   other domains are refused;
3. binds dimensions: `dims` gives a size to each dim_param (a global name, the same
   size everywhere), `shapes` fixes an input's whole shape (also unnamed or -1
   dims); a dim_param left unbound is a free dimension (given at run time, and
   bounded by `max_dims`), an unnamed or -1 input dimension one named
   `INPUT_dimK`;
   sequences and optionals are resolved into the tensors they hold, where their
   lengths and presence are known at compile time (`static_sequences.py`);
4. runs onnx shape inference with data propagation, so every value has a type
   whose sizes are static or symbols (see `dialects/dims.py`). Where inference
   cannot tell a rank because it cannot see through shape arithmetic on
   constants, the nodes computing only from constants are evaluated first (as
   onnx-fold-constants would later) and inference runs again; a reduction
   whose axes are computed at run time gets the rank its `keepdims` and
   number of axes give (onnx's inference gives it none), and so do the ml
   operators onnx has no inference for (`ml_domain.give_output_types`); then
   inference runs again.

Initializers become `onnx.Constant` operations (large ones as `dense_resource`);
an initializer that is also a graph input stays an input, and its value is kept as
that input's default. Omitted optional inputs become `onnx.NoValue`. Every
operation keeps its node's name in the `onnx_node_name` attribute.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import onnx
from onnx import external_data_helper, inliner, numpy_helper
from onnx.defs import OpSchema
from onnx.reference import ReferenceEvaluator
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    NoneType,
    StringAttr,
    TensorType,
    f32,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue

from onnxc import element_types, ml_domain
from onnxc.constant_branches import all_names, fresh_name, inline_constant_branches
from onnxc.containers import Containers, ShapeArgument
from onnxc.dialects import dims as tensor_dims
from onnxc.dialects import onnx as onnx_dialect
from onnxc.dialects import onnx_ml
from onnxc.dialects.constants import constant_attr
from onnxc.dialects.dims import Dim
from onnxc.errors import OnnxcError, UnsupportedError
from onnxc.ir_names import DIMS, INPUT_NAMES, MAX_DIMS, ONNX_NODE_NAME, OUTPUT_NAMES
from onnxc.lowering.onnx_export import SMALL_CONSTANT
from onnxc.lowering.onnx_fold_constants import MAX_ROUNDS, NON_DETERMINISTIC
from onnxc.scan_batches import restore_scans, unbatch_scans
from onnxc.static_sequences import fix_shape, resolve_containers, tensor_shapes, value_shapes
from onnxc.subgraph_types import SHAPE_LIKE, copy_outer_constants, type_body_inputs

ModelLike = str | os.PathLike[str] | onnx.ModelProto

DOMAINS: dict[str, Mapping[str, type[onnx_dialect.OnnxOp]]] = {
    "": onnx_dialect.OPS,
    "ai.onnx": onnx_dialect.OPS,
    onnx_ml.DOMAIN: onnx_ml.OPS,
}
"""The operator domains onnxc imports: ONNX domain -> op_type -> operation class."""


@dataclass
class ImportedModel:
    """The result of an import: the IR and what the runtime side needs to know."""

    module: ModuleOp
    input_names: list[str]
    output_names: list[str]
    input_defaults: dict[str, np.ndarray] = field(default_factory=dict[str, np.ndarray])
    """Inputs that are also initializers, with the initializer as default value."""
    free_dims: list[str] = field(default_factory=list[str])
    """Dimensions given at run time (dim_params not bound), in input order."""
    max_dims: dict[str, int] = field(default_factory=dict[str, int])
    """Upper bounds of free dimensions."""
    opset: int = onnx_dialect.TARGET_OPSET
    containers: Containers = field(default_factory=Containers)
    """The sequence and optional inputs and outputs, as the tensors they became."""


class Prepared(NamedTuple):
    """What `prepare_model` gives: the model, checked, upgraded, bound and
    inferred; its free dimensions, in order; and its containers."""

    model: onnx.ModelProto
    free: list[str]
    containers: Containers


# --- loading --------------------------------------------------------------------


def load_model(model: ModelLike) -> onnx.ModelProto:
    """Read a model file (with its external data) or take a ModelProto as it is."""
    if isinstance(model, onnx.ModelProto):
        for tensor in _all_tensors(model.graph):
            if external_data_helper.uses_external_data(tensor):
                raise OnnxcError(
                    f"tensor '{tensor.name}' keeps its data in an external file; "
                    "pass the model's path instead of a ModelProto"
                )
        return model
    path = Path(model)
    if not path.is_file():
        raise OnnxcError(f"{path}: no such model file") from None
    try:
        proto = onnx.load_model(str(path), load_external_data=False)
    except Exception as error:  # protobuf raises DecodeError and others
        raise OnnxcError(f"{path}: not a readable ONNX model ({_first_line(error)})") from None
    if not proto.graph.node and not proto.graph.output:
        raise OnnxcError(f"{path}: not a readable ONNX model (no graph)") from None
    _load_external_data(proto, path.resolve().parent)
    return proto


def _all_tensors(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    yield from graph.initializer
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t
            yield from attribute.tensors
            if attribute.HasField("g"):
                yield from _all_tensors(attribute.g)
            for subgraph in attribute.graphs:
                yield from _all_tensors(subgraph)


def _load_external_data(model: onnx.ModelProto, base: Path) -> None:
    for tensor in _all_tensors(model.graph):
        if not external_data_helper.uses_external_data(tensor):
            continue
        info = external_data_helper.ExternalDataInfo(tensor)
        location = Path(info.location)
        target = (base / location).resolve()
        if location.is_absolute() or not target.is_relative_to(base):
            raise OnnxcError(
                f"tensor '{tensor.name}': external data location '{info.location}' "
                "is outside the model's folder"
            )
        if not target.is_file():
            raise OnnxcError(
                f"tensor '{tensor.name}': external data file '{info.location}' "
                f"not found next to the model"
            )
        try:
            external_data_helper.load_external_data_for_tensor(tensor, str(base))
        except Exception as error:
            raise OnnxcError(
                f"tensor '{tensor.name}': cannot read external data "
                f"'{info.location}' ({_first_line(error)})"
            ) from None
        del tensor.external_data[:]
        tensor.data_location = onnx.TensorProto.DEFAULT


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:300]


# --- preparation ----------------------------------------------------------------


def prepare_model(
    model: onnx.ModelProto,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    *,
    foreign: bool = False,
) -> Prepared:
    """Check, inline, upgrade, bind dimensions, infer shapes, fold constants
    and the If nodes whose condition they decide: a new proto,
    and the free dimensions (dim_params left for run time), in order. Nodes
    of domains other than those of `DOMAINS` are rejected, unless `foreign`
    (for `onnxc check`, which lists them)."""
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    model = copy
    try:
        onnx.checker.check_model(model)
    except Exception as error:
        raise OnnxcError(f"invalid model: {_first_line(error)}") from None
    opset = _default_opset(model)
    if not foreign:
        _reject_foreign_domains(model)
        ml_domain.check_versions(model, _node_label)
    if model.functions:
        model = inliner.inline_local_functions(model)
    weights = _detach_weights(model.graph)
    if opset is None:  # only ai.onnx.ml: nothing to upgrade
        pass
    elif opset < onnx_dialect.TARGET_OPSET:
        if opset < 7:
            _unsqueeze_channel_slopes(model)
        pending = opset < 9 and unbatch_scans(model)
        try:
            model = onnx.version_converter.convert_version(model, onnx_dialect.TARGET_OPSET)
        except Exception as error:
            raise OnnxcError(
                f"cannot upgrade the model from opset {opset} to "
                f"{onnx_dialect.TARGET_OPSET}: {_first_line(error)}"
            ) from None
        if pending:
            restore_scans(model, onnx_dialect.TARGET_OPSET)
    elif opset > onnx_dialect.TARGET_OPSET:
        raise OnnxcError(
            f"the model uses opset {opset}; onnxc supports up to {onnx_dialect.TARGET_OPSET}"
        )
    free = _bind_dimensions(model, dict(dims or {}), tensor_shapes(model, shapes or {}))
    containers = resolve_containers(model, shapes or {})
    inferred = _infer(model)
    if ml_domain.give_output_types(model, inferred):  # also sizes, where ranks are known
        inferred = _infer(model)
    for _ in range(MAX_ROUNDS):
        subgraphs = any(
            a.type == onnx.AttributeProto.GRAPH for node in model.graph.node for a in node.attribute
        )
        if _all_ranks_known(inferred) and not subgraphs:
            break
        if not (
            _fold_constant_nodes(model.graph, inferred, weights)
            or inline_constant_branches(model.graph)
            or _reduction_ranks(model, inferred)
            or type_body_inputs(model.graph, inferred.graph, {})
            or copy_outer_constants(model.graph, {}, set(all_names(model.graph)))
            or ml_domain.give_output_types(model, inferred)
        ):
            break
        inferred = _infer(model)
    _attach_weights(inferred.graph, weights)
    return Prepared(inferred, free, containers)


DETACHED_BYTES = 1024
"""Initializers of more bytes leave the proto while it is upgraded, inferred
and folded (`_detach_weights`), but for 32-bit and 64-bit integers, which
shape inference's data propagation reads (shapes, axes, indices)."""


def _detach_weights(graph: onnx.GraphProto) -> dict[str, bytes]:
    """Take the data of the large initializers of `graph` out of it: their
    raw bytes, by name. onnx's version converter and shape inference copy the
    whole proto (serialised, into C++ and back) at every call, and read only
    the dims and types of such tensors; without their data, importing a model
    needs a fraction of the memory. `_attach_weights` puts them back."""
    weights: dict[str, bytes] = {}
    for tensor in graph.initializer:
        if tensor.data_type not in SHAPE_LIKE and len(tensor.raw_data) > DETACHED_BYTES:
            weights[tensor.name] = tensor.raw_data
            tensor.ClearField("raw_data")
    return weights


def _attach_weights(graph: onnx.GraphProto, weights: dict[str, bytes]) -> None:
    for tensor in graph.initializer:
        data = weights.get(tensor.name)
        if data is not None and not tensor.raw_data:
            tensor.raw_data = data


def _array(tensor: onnx.TensorProto, weights: dict[str, bytes]) -> np.ndarray:
    """The value of initializer `tensor`, also when its data is detached."""
    data = weights.get(tensor.name)
    if data is None or tensor.raw_data:
        return numpy_helper.to_array(tensor)
    whole = onnx.TensorProto()
    whole.CopyFrom(tensor)
    whole.raw_data = data
    return numpy_helper.to_array(whole)


def _unsqueeze_channel_slopes(model: onnx.ModelProto) -> None:
    """PRelu before opset 7 has one slope per channel (X's axis 1: "if slope
    is of size 1, the value is shared across different channels", as Caffe2
    and PyTorch define it); from opset 7 the slope broadcasts from the right,
    numpy-style, and onnx's version converter upgrades the node unchanged, so
    a [C] slope against [N, C, D...] would then meet D. Here such a slope
    (1-D, C elements, X of rank 3 or more) gets an Unsqueeze to [C, 1, ...]
    before the upgrade, which means the same in every opset. onnxruntime has
    no PRelu kernel before opset 7 to compare with."""
    graph = model.graph
    if not any(node.op_type == "PRelu" for node in graph.node):
        return
    inferred = onnx.shape_inference.infer_shapes(model).graph
    typed = [*inferred.input, *inferred.value_info, *inferred.output]
    shapes = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in typed}
    shapes.update({t.name: list(t.dims) for t in graph.initializer})
    nodes: list[onnx.NodeProto] = []
    for index, node in enumerate(graph.node):
        if node.op_type == "PRelu" and len(node.input) == 2:
            x, slope = shapes.get(node.input[0], []), shapes.get(node.input[1], [])
            if len(x) >= 3 and x[1] > 1 and slope == [x[1]]:
                name = f"{node.name or f'PRelu_{index}'}_channel_slope"
                axes = list(range(1, len(x) - 1))
                nodes.append(
                    onnx.helper.make_node(
                        "Unsqueeze", [node.input[1]], [name], name=name, axes=axes
                    )
                )
                node.input[1] = name
        nodes.append(node)
    del graph.node[:]
    graph.node.extend(nodes)


SAME_TYPE_AS_INPUT = frozenset({"GroupNormalization", "MeanVarianceNormalization"})
"""Operators whose output has their input's type, and whose shape inference
onnx 1.23 gets wrong through their function bodies (MeanVarianceNormalization's
has a Constant without a value, which fails; GroupNormalization's gives no
shape). Their outputs are typed from the spec instead."""


def _infer(model: onnx.ModelProto) -> onnx.ModelProto:
    around = any(node.op_type in SAME_TYPE_AS_INPUT for node in model.graph.node)
    try:
        inferred = onnx.shape_inference.infer_shapes(
            model, check_type=True, strict_mode=True, data_prop=True
        )
    except Exception as error:
        if not around:
            raise OnnxcError(f"shape inference failed: {_first_line(error)}") from None
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    return _infer_around(inferred) if around else inferred


def _infer_around(inferred: onnx.ModelProto) -> onnx.ModelProto:
    """Type the outputs of SAME_TYPE_AS_INPUT nodes that inference left
    untyped, and infer again from there, until nothing changes."""
    for _ in range(len(inferred.graph.node) + 1):
        graph = inferred.graph
        typed = {v.name: v for v in [*graph.input, *graph.value_info, *graph.output]}
        added = False
        for node in graph.node:
            if node.op_type not in SAME_TYPE_AS_INPUT or not node.input or not node.output:
                continue
            source, target = typed.get(node.input[0]), typed.get(node.output[0])
            if source is None or (
                target is not None
                and target.type.HasField("tensor_type")
                and target.type.tensor_type.HasField("shape")
            ):
                continue
            info = onnx.ValueInfoProto(name=node.output[0], type=source.type)
            graph.value_info.append(info)
            added = True
        if not added:
            return inferred
        inferred = onnx.shape_inference.infer_shapes(inferred, strict_mode=False, data_prop=True)
    return inferred


def _all_ranks_known(model: onnx.ModelProto) -> bool:
    graph = model.graph
    typed = {v.name: v.type for v in [*graph.value_info, *graph.output]}
    return all(
        name in typed and typed[name].tensor_type.HasField("shape")
        for node in graph.node
        for name in node.output
        if name and (name not in typed or typed[name].HasField("tensor_type"))
    )


def _fold_constant_nodes(
    graph: onnx.GraphProto, inferred: onnx.ModelProto, weights: dict[str, bytes]
) -> bool:
    """Replace each node whose inputs are all constants, and whose outputs are
    small, by initializers holding its outputs (evaluated with onnx's
    reference implementation), and Shape or Size of a tensor whose inferred
    shape is static by its value; whether any was. The values of detached
    `weights` are read only for a node whose inputs are all constants."""
    overridable = {i.name for i in graph.input}
    tensors = {t.name: t for t in graph.initializer if t.name not in overridable}
    known: dict[str, np.ndarray] = {}
    static = _static_shapes(inferred)
    kept: list[onnx.NodeProto] = []
    folded = False
    for node in graph.node:
        inputs = [name for name in node.input if name]
        feeds: dict[str, np.ndarray | None] = {name: known.get(name) for name in inputs}
        if all(name in known or name in tensors for name in inputs):  # read them only now
            feeds.update((n, _array(tensors[n], weights)) for n in inputs if n not in known)
        if node.op_type in ("Shape", "Size") and node.domain in ("", "ai.onnx") and inputs:
            shape = static.get(inputs[0])
            if shape is not None and feeds[inputs[0]] is None:  # only its shape is read
                feeds[inputs[0]] = np.zeros(shape, np.float32)
        foldable = (
            node.domain in ("", "ai.onnx")
            and node.op_type not in NON_DETERMINISTIC
            and all(value is not None for value in feeds.values())
            and not any(
                a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                for a in node.attribute
            )
        )
        values: list[np.ndarray] = []
        if foldable:
            try:
                values = [np.asarray(v) for v in ReferenceEvaluator(node).run(None, feeds)]
            except Exception:  # not evaluable here: leave it to the compiler
                values = []
        outputs = [name for name in node.output if name]
        if values and len(values) == len(outputs) and sum(v.size for v in values) <= SMALL_CONSTANT:
            for name, value in zip(outputs, values, strict=True):
                known[name] = value
                graph.initializer.append(numpy_helper.from_array(value, name))
            folded = True
        else:
            kept.append(node)
    if folded:
        del graph.node[:]
        graph.node.extend(kept)
    return folded


def _static_shapes(model: onnx.ModelProto) -> dict[str, tuple[int, ...]]:
    """The values whose inferred shapes are fully static."""
    return {k: v for k, v in value_shapes(model.graph).items() if min(v, default=0) >= 0}


REDUCTIONS = frozenset(
    {
        "ReduceL1",
        "ReduceL2",
        "ReduceLogSum",
        "ReduceLogSumExp",
        "ReduceMax",
        "ReduceMean",
        "ReduceMin",
        "ReduceProd",
        "ReduceSum",
        "ReduceSumSquare",
    }
)
"""The operators whose optional second input lists the axes they reduce."""


def _reduction_ranks(model: onnx.ModelProto, inferred: onnx.ModelProto) -> bool:
    """Give a rank to the results of reductions whose axes are computed at run
    time, which onnx's inference leaves without one although `keepdims` and
    the number of axes tell it: the input's rank with `keepdims` (however
    many axes), or that less the number of axes (every axis when there are
    none, no axis with `noop_with_empty_axes`). Their sizes stay unknown
    (the lowering computes them). Whether any was given one."""
    graph = inferred.graph
    types = {v.name: v.type.tensor_type for v in [*graph.input, *graph.value_info, *graph.output]}
    given = False
    for node in model.graph.node:
        if node.op_type not in REDUCTIONS or len(node.input) < 2 or not node.input[1]:
            continue
        result, data, axes = (types.get(name) for name in (node.output[0], *node.input[:2]))
        if result is not None and result.HasField("shape"):
            continue
        if data is None or not data.HasField("shape") or axes is None:
            continue
        attributes = {a.name: a.i for a in node.attribute}
        rank = len(data.shape.dim)
        count = _static_length(axes)
        if not attributes.get("keepdims", 1):
            if count is None:
                continue
            if count:
                rank -= count
            elif not attributes.get("noop_with_empty_axes", 0):
                rank = 0
        _give_rank(model.graph, node.output[0], data.elem_type, rank)
        given = True
    return given


def _static_length(tensor_type: onnx.TypeProto.Tensor) -> int | None:
    """The length of a 1-D tensor, when its type tells it."""
    if not tensor_type.HasField("shape") or len(tensor_type.shape.dim) != 1:
        return None
    dim = tensor_type.shape.dim[0]
    return dim.dim_value if dim.HasField("dim_value") else None


def _give_rank(graph: onnx.GraphProto, name: str, elem_type: int, rank: int) -> None:
    """Declare value `name` of `graph` a tensor of `elem_type` and `rank`
    unknown sizes."""
    found = [v for v in [*graph.output, *graph.value_info] if v.name == name]
    value = found[0] if found else graph.value_info.add(name=name)
    tensor_type = value.type.tensor_type
    tensor_type.elem_type = elem_type
    tensor_type.shape.Clear()
    for _ in range(rank):
        tensor_type.shape.dim.add()


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
                f"{_node_label(node, index)}: operator domain '{node.domain}' "
                "is not supported (only the default ai.onnx domain and ai.onnx.ml are)"
            )


def _bind_dimensions(
    model: onnx.ModelProto, dims: dict[str, int], shapes: Mapping[str, Sequence[int]]
) -> list[str]:
    """Give each input dimension its size or symbol, in place: `shapes` fixes
    whole input shapes, `dims` binds dim_params (everywhere they appear); an
    unnamed or -1 input dimension gets the dim_param `INPUT_dimK`, so shape
    inference carries it. Returns the free dimensions (dim_params left
    unbound), in order of first appearance in the graph inputs."""
    graph = model.graph
    initializers = {t.name for t in graph.initializer}
    inputs = {i.name: i for i in graph.input}
    for name in shapes:
        if name not in inputs:
            raise OnnxcError(
                f"shapes names '{name}', which is not a graph input "
                f"(inputs: {', '.join(inputs) or 'none'})"
            )
    for name, size in dims.items():
        if size < 0:
            raise OnnxcError(f"dims['{name}'] is {size}; a dimension is 0 or more")
    taken = _all_dim_params(graph)
    free: list[str] = []
    used: set[str] = set()
    for value in graph.input:
        if not value.type.HasField("tensor_type") or value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        if value.name in shapes:
            fix_shape(value, shapes[value.name])
            continue
        if not tensor_type.HasField("shape"):
            raise OnnxcError(
                f"input '{value.name}' has no shape (not even a rank): pass "
                f"shapes={{'{value.name}': (...)}} or --shape {value.name}=..."
            )
        for axis, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value >= 0:
                continue
            if not (dim.HasField("dim_param") and dim.dim_param):
                name = fresh_name(f"{value.name}_dim{axis}", taken)
                dim.Clear()
                dim.dim_param = name
            if dim.dim_param in dims:
                used.add(dim.dim_param)
            elif dim.dim_param not in free:
                free.append(dim.dim_param)
    unused = sorted(set(dims) - used - taken)
    if unused:
        raise OnnxcError(f"dims names {', '.join(map(repr, unused))}, which no tensor uses")
    for value in [*graph.input, *graph.output, *graph.value_info]:
        if not value.type.HasField("tensor_type"):
            continue
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_param") and dim.dim_param in dims:
                size = int(dims[dim.dim_param])
                dim.Clear()
                dim.dim_value = size
    return free


def _all_dim_params(graph: onnx.GraphProto) -> set[str]:
    return {
        dim.dim_param
        for value in [*graph.input, *graph.output, *graph.value_info]
        for dim in value.type.tensor_type.shape.dim
        if dim.HasField("dim_param")
    }


# --- building IR ----------------------------------------------------------------


def import_model(
    model: ModelLike,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    max_dims: Mapping[str, int] | None = None,
    on_node: Callable[[int, int], None] | None = None,
) -> ImportedModel:
    """Import an ONNX model (a path or a ModelProto) into the onnx dialect.
    Dimensions not bound by `dims` or `shapes` stay free (sizes given at run
    time); `max_dims` bounds free dimensions. `on_node(done, total)` is called
    after each node is imported (a progress bar's hook)."""
    proto, free, containers = prepare_model(load_model(model), dims, shapes)
    bounds = dict(max_dims or {})
    for name, bound in bounds.items():
        if name not in free:
            raise OnnxcError(
                f"max_dims names '{name}', which is not a free dimension "
                f"(free: {', '.join(free) or 'none'})"
            )
        if bound < 0:
            raise OnnxcError(f"max_dims['{name}'] is {bound}; a dimension is 0 or more")
    imported = _GraphImporter(proto, on_node).run()
    main = imported.module.body.block.first_op
    assert isinstance(main, func.FuncOp)
    if free:
        main.attributes[DIMS] = ArrayAttr([StringAttr(d) for d in free])
    if bounds:
        main.attributes[MAX_DIMS] = DictionaryAttr(
            {k: IntegerAttr(v, i64) for k, v in sorted(bounds.items())}
        )
    imported.free_dims = free
    imported.max_dims = bounds
    imported.containers = containers
    return imported


def _node_label(node: onnx.NodeProto, index: int) -> str:
    return f"node '{node.name or f'{node.op_type}_{index}'}' ({node.op_type})"


@dataclass
class _Scope:
    """The names one graph defines (values and their inferred types), and the
    scope of the graph around it: a subgraph sees the names of its outer
    scopes, unless it defines the same name itself (the IR spec)."""

    types: dict[str, onnx.TypeProto]
    values: dict[str, SSAValue] = field(default_factory=dict[str, SSAValue])
    outer: _Scope | None = None

    @staticmethod
    def of(graph: onnx.GraphProto, outer: _Scope | None = None) -> _Scope:
        values = [*graph.input, *graph.value_info, *graph.output]
        types = {v.name: v.type for v in values if v.type.WhichOneof("value")}
        return _Scope(types, outer=outer)

    def chain(self) -> Iterator[_Scope]:
        """This scope, then the scopes around it, innermost first."""
        scope: _Scope | None = self
        while scope is not None:
            yield scope
            scope = scope.outer

    def value(self, name: str) -> SSAValue | None:
        return next((s.values[name] for s in self.chain() if name in s.values), None)

    def type(self, name: str) -> onnx.TypeProto | None:
        return next((s.types[name] for s in self.chain() if name in s.types), None)


class _GraphImporter:
    def __init__(self, model: onnx.ModelProto, on_node: Callable[[int, int], None] | None = None):
        self.model = model
        self.on_node = on_node
        self.graph = model.graph
        self.scope = _Scope.of(self.graph)
        self.block = Block()
        self.no_value: SSAValue | None = None

    def run(self) -> ImportedModel:
        graph = self.graph
        initializers = {t.name: t for t in graph.initializer}
        inputs = [v for v in graph.input if v.name not in initializers]
        defaults = [v for v in graph.input if v.name in initializers]
        input_values = [*inputs, *defaults]
        arg_types = [self._value_type(v.name, "graph input") for v in input_values]
        self.block = Block(arg_types=arg_types)
        for value, arg in zip(input_values, self.block.args, strict=True):
            arg.name_hint = _ssa_name(value.name)
            self.scope.values[value.name] = arg
        for tensor in graph.initializer:
            if tensor.name not in self.scope.values:
                self.scope.values[tensor.name] = self._constant(tensor)
        for index, node in enumerate(graph.node):
            self._node(node, index)
            if self.on_node is not None:
                self.on_node(index + 1, len(graph.node))
        outputs = [self._lookup(v.name, "graph output") for v in graph.output]
        self.block.add_op(func.ReturnOp(*outputs))
        main = func.FuncOp(
            "main",
            (arg_types, [o.type for o in outputs]),
            Region(self.block),
        )
        input_names = [v.name for v in input_values]
        output_names = [v.name for v in graph.output]
        main.attributes[INPUT_NAMES] = ArrayAttr([StringAttr(n) for n in input_names])
        main.attributes[OUTPUT_NAMES] = ArrayAttr([StringAttr(n) for n in output_names])
        module = ModuleOp([main])
        return ImportedModel(
            module,
            input_names,
            output_names,
            {t.name: numpy_helper.to_array(initializers[t.name]) for t in defaults},
        )

    def _lookup(self, name: str, what: str) -> SSAValue:
        value = self.scope.value(name)
        if value is None:
            raise OnnxcError(f"{what} '{name}' is not produced by any node") from None
        return value

    def _value_type(self, name: str, what: str, node: str = "") -> TensorType:
        type_proto = self.scope.type(name)
        where = f"{node}: " if node else ""
        if type_proto is None or not type_proto.HasField("tensor_type"):
            raise OnnxcError(f"{where}{what} '{name}' has no inferred tensor type") from None
        tensor_type = type_proto.tensor_type
        element = _element_type(tensor_type.elem_type, f"{where}{what} '{name}'")
        if not tensor_type.HasField("shape"):
            raise OnnxcError(
                f"{where}{what} '{name}' has an unknown rank after shape inference"
            ) from None
        found: list[Dim] = []
        for axis, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value"):
                found.append(dim.dim_value)
            elif dim.dim_param:
                found.append(dim.dim_param)
            else:  # a size shape inference could not name: give it one
                found.append(f"{name}:{axis}")
        return tensor_dims.tensor_type(element, found)

    def _constant(self, tensor: onnx.TensorProto) -> SSAValue:
        array = numpy_helper.to_array(tensor)
        element = _element_type(tensor.data_type, f"initializer '{tensor.name}'")
        tensor_type = TensorType(element, array.shape)
        op = onnx_dialect.ConstantOp.create(
            result_types=[tensor_type],
            properties={"value": constant_attr(array, tensor_type, tensor.name)},
            attributes={ONNX_NODE_NAME: StringAttr(tensor.name)},
        )
        op.results[0].name_hint = _ssa_name(tensor.name)
        self.block.add_op(op)
        return op.results[0]

    def _none(self) -> SSAValue:
        if self.no_value is None:
            op = onnx_dialect.NoValueOp()
            self.block.add_op(op)
            self.no_value = op.result
        return self.no_value

    def _node(self, node: onnx.NodeProto, index: int) -> None:
        label = _node_label(node, index)
        op_class = DOMAINS.get(node.domain, {}).get(node.op_type)
        if op_class is None:
            raise OnnxcError(f"{label}: unknown operator '{node.op_type}'") from None
        schema = op_class.SCHEMA
        operands = [
            self._none() if name == "" else self._lookup(name, f"{label}: input")
            for name in node.input
        ]
        optional = OpSchema.FormalParameterOption.Optional
        formals = list(schema.inputs)
        while len(operands) < len(formals) and formals[len(operands)].option == optional:
            operands.append(self._none())
        try:
            result_types: list[Attribute] = [
                NoneType() if name == "" else self._value_type(name, "output", label)
                for name in node.output
            ]
        except OnnxcError as error:
            raise OnnxcError(f"{error}{_rank_hint(node)}") from None
        formal_outputs = list(schema.outputs)
        while (
            len(result_types) < len(formal_outputs)
            and formal_outputs[len(result_types)].option == optional
        ):
            result_types.append(NoneType())
        properties: dict[str, Attribute] = {}
        subgraphs: dict[str, Region] = {}
        for attribute in node.attribute:
            if attribute.name not in schema.attributes:
                raise OnnxcError(f"{label}: unknown attribute '{attribute.name}'") from None
            if attribute.type == onnx.AttributeProto.GRAPH:
                subgraphs[attribute.name] = self._subgraph(
                    attribute.g, f"{label}: {attribute.name}"
                )
                continue
            if attribute.type == onnx.AttributeProto.GRAPHS:
                raise OnnxcError(
                    f"{label}: attribute '{attribute.name}' (a list of graphs) is not supported"
                )
            properties[attribute.name] = self._attribute(attribute, node, label)
        region_names = [name for name, _ in op_class.get_irdl_definition().regions]
        if set(subgraphs) != set(region_names):
            missing = ", ".join(sorted(set(region_names) - set(subgraphs)))
            raise OnnxcError(f"{label}: missing subgraph attribute {missing}")
        names = node.name or f"{node.op_type}_{index}"
        op = op_class.create(
            operands=operands,
            result_types=result_types,
            properties=properties,
            regions=[subgraphs[name] for name in region_names],
            attributes={ONNX_NODE_NAME: StringAttr(names)},
        )
        self.block.add_op(op)
        for name, result in zip(node.output, op.results, strict=False):
            if name:
                result.name_hint = _ssa_name(name)
                self.scope.values[name] = result

    def _subgraph(self, graph: onnx.GraphProto, label: str) -> Region:
        """A subgraph as a region of one block: its inputs are the block's
        arguments, its nodes the block's operations (names of the outer
        scopes visible, as `_Scope` says), its outputs `onnx.Yield`'s
        operands."""
        outer = (self.scope, self.block, self.no_value)
        self.scope = _Scope.of(graph, self.scope)
        self.no_value = None
        arg_types = [self._value_type(v.name, "subgraph input", label) for v in graph.input]
        self.block = Block(arg_types=arg_types)
        try:
            for value, arg in zip(graph.input, self.block.args, strict=True):
                arg.name_hint = _ssa_name(value.name)
                self.scope.values[value.name] = arg
            for tensor in graph.initializer:
                self.scope.values[tensor.name] = self._constant(tensor)
            for index, node in enumerate(graph.node):
                self._node(node, index)
            outputs = [self._lookup(v.name, f"{label}: subgraph output") for v in graph.output]
            self.block.add_op(onnx_dialect.YieldOp(outputs))
            return Region(self.block)
        finally:
            self.scope, self.block, self.no_value = outer

    def _attribute(
        self, attribute: onnx.AttributeProto, node: onnx.NodeProto, label: str
    ) -> Attribute:
        kind = onnx.AttributeProto
        value = onnx.helper.get_attribute_value(attribute)
        if attribute.type == kind.INT:
            return IntegerAttr(int(value), i64)
        if attribute.type == kind.FLOAT:
            return FloatAttr(float(value), f32)
        if attribute.type == kind.STRING:
            return StringAttr(value.decode() if isinstance(value, bytes) else str(value))
        if attribute.type == kind.INTS:
            return DenseArrayBase.from_list(i64, [int(v) for v in value])
        if attribute.type == kind.FLOATS:
            return DenseArrayBase.from_list(f32, [float(v) for v in value])
        if attribute.type == kind.STRINGS:
            return ArrayAttr([StringAttr(v.decode()) for v in value])
        if attribute.type == kind.TENSOR:
            element = _element_type(value.data_type, f"{label}: attribute '{attribute.name}'")
            array = numpy_helper.to_array(value)
            hint = node.output[0] if node.output else attribute.name
            return constant_attr(array, TensorType(element, array.shape), hint)
        raise OnnxcError(
            f"{label}: attribute '{attribute.name}' of type "
            f"{kind.AttributeType.Name(attribute.type)} is not supported"
        )


def _element_type(code: int, what: str) -> Attribute:
    """The IR element type of a TensorProto data type, or an error naming `what`."""
    row = element_types.by_onnx_code(code)
    if row is None:
        why = ": string tensors are not supported yet" if code == onnx.TensorProto.STRING else ""
        raise UnsupportedError(
            f"{what} has unsupported element type {element_types.onnx_type_name(code)}{why}"
        )
    return row.ir_type


def _rank_hint(node: onnx.NodeProto) -> str:
    """Why an output of `node` may have no rank before run time."""
    if node.op_type == "Squeeze" and len(node.input) < 2 and not node.attribute:
        return (
            " (Squeeze without axes removes every dimension of size 1, and one "
            "known only at run time may be 1: the rank depends on data; give axes)"
        )
    return ""


def _ssa_name(name: str) -> str | None:
    """An SSA name hint from an ONNX name, when it makes a valid one."""
    cleaned = "".join(c if c.isalnum() or c in "_$." else "_" for c in name)
    if not cleaned or cleaned[0].isdigit() or cleaned[0] == ".":
        cleaned = "v" + cleaned
    return cleaned
