"""What the importer needs to know of the `ai.onnx.ml` domain: which opsets and
operator versions it takes, and the output types of the ml operators onnx's
shape inference leaves without a shape.

The onnx_ml dialect holds each ml operator at its newest version (the tree
ensembles of ml opset 1..5 at version 3, whose attributes are a superset of
version 1's). onnx's version converter does not convert ml nodes; every older
version of an ml operator imports unchanged as the dialect's, except
LabelEncoder 1 (string <-> int64 through `classes_strings`), which is refused,
as are the operators on maps (`MAPS_AND_STRINGS`).

onnx 1.23 has no shape inference for FeatureVectorizer, Imputer,
LinearRegressor, Normalizer, Scaler, SVMRegressor and TreeEnsembleRegressor 1,
and gives the outputs of SVMClassifier and TreeEnsembleClassifier no shape;
`give_output_types` types their outputs from the spec (X is [N, C], or [C]
for one sample, as onnxruntime reads it), and ArrayFeatureExtractor's where
onnx's inference gives no shape (its Y not 1-D).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx

from onnxc.dialects import onnx_ml
from onnxc.errors import OnnxcError, UnsupportedError
from onnxc.frontend.state import Rewrite

DOMAIN = onnx_ml.DOMAIN

_Dims = list[onnx.TensorShapeProto.Dimension]


MAPS_AND_STRINGS = {
    "CastMap": "CastMap reads a map",
    "DictVectorizer": "DictVectorizer reads a map",
}
"""The ml operators that need maps, refused on import."""


def check_versions(model: onnx.ModelProto, label: Callable[[onnx.NodeProto, int], str]) -> None:
    """Refuse an ml opset the dialect does not cover and operator versions it
    cannot import; `label` names a node in messages."""
    versions = [o.version for o in model.opset_import if o.domain == DOMAIN]
    if not versions:
        return
    opset = versions[0]
    if not 1 <= opset <= onnx_ml.TARGET_OPSET:
        raise OnnxcError(
            f"the model uses {DOMAIN} opset {opset}; onnxc supports 1 to {onnx_ml.TARGET_OPSET}"
        )
    for index, node in enumerate(model.graph.node):
        if node.domain != DOMAIN:
            continue
        if node.op_type in MAPS_AND_STRINGS:
            raise UnsupportedError(
                f"{label(node, index)}: {MAPS_AND_STRINGS[node.op_type]}, "
                "and onnxc has no map tensors"
            )
        if node.op_type != "LabelEncoder":
            continue
        if onnx.defs.get_schema(node.op_type, opset, DOMAIN).since_version == 1:
            raise UnsupportedError(
                f"{label(node, index)}: LabelEncoder version 1 (classes_strings) is not "
                "supported; export it with ai.onnx.ml opset 2 or newer (keys and values)"
            )


def _samples(x: _Dims) -> onnx.TensorShapeProto.Dimension:
    if len(x) >= 2:
        return x[0]
    return onnx.TensorShapeProto.Dimension(dim_value=1)


def _as_input(x: _Dims, node: onnx.NodeProto) -> list[_Dims]:
    return [list(x)]


def _columns(count: int) -> Callable[[_Dims, onnx.NodeProto], list[_Dims]]:
    def shape(x: _Dims, node: onnx.NodeProto) -> list[_Dims]:
        return [[_samples(x), onnx.TensorShapeProto.Dimension(dim_value=count)]]

    return shape


def _attribute_ints(node: onnx.NodeProto, name: str) -> list[int]:
    return [int(v) for a in node.attribute if a.name == name for v in a.ints]


def _attribute_int(node: onnx.NodeProto, name: str, default: int) -> int:
    return next((int(a.i) for a in node.attribute if a.name == name), default)


def _targets(x: _Dims, node: onnx.NodeProto) -> list[_Dims]:
    count = _attribute_int(node, "n_targets", _attribute_int(node, "targets", 1))
    return _columns(count)(x, node)


def _classes(x: _Dims, node: onnx.NodeProto) -> list[_Dims]:
    labels = [a for a in node.attribute if a.name.startswith("classlabels_")]
    count = max((len(a.ints) + len(a.strings) for a in labels), default=0)
    return [[_samples(x)], *_columns(count)(x, node)]


def _svm_classes(x: _Dims, node: onnx.NodeProto) -> list[_Dims]:
    """onnxruntime's Z: one column per class, except for one-vs-one
    decision values (support vectors, no probabilities): one per pair of
    classes, or 2 for two classes."""
    labels, scores = _classes(x, node)
    count = scores[1].dim_value
    decisions = sum(_attribute_ints(node, "vectors_per_class")) > 0 and not any(
        a.name == "prob_a" and a.floats for a in node.attribute
    )
    if decisions:
        count = count * (count - 1) // 2 if count > 2 else 2
    return [labels, *_columns(count)(x, node)]


def _features(x: _Dims, node: onnx.NodeProto) -> list[_Dims]:
    return _columns(sum(_attribute_ints(node, "inputdimensions")))(x, node)


_OUTPUTS: dict[str, tuple[Callable[[_Dims, onnx.NodeProto], list[_Dims]], list[int | None]]] = {
    # operator: (output shapes from X's dims and the node, output element types; None: X's)
    "FeatureVectorizer": (_features, [onnx.TensorProto.FLOAT]),
    "Imputer": (_as_input, [None]),
    "LinearRegressor": (_targets, [onnx.TensorProto.FLOAT]),
    "Normalizer": (_as_input, [onnx.TensorProto.FLOAT]),
    "Scaler": (_as_input, [onnx.TensorProto.FLOAT]),
    "SVMClassifier": (_svm_classes, [onnx.TensorProto.INT64, onnx.TensorProto.FLOAT]),
    "SVMRegressor": (_columns(1), [onnx.TensorProto.FLOAT]),
    "TreeEnsembleClassifier": (_classes, [onnx.TensorProto.INT64, onnx.TensorProto.FLOAT]),
    "TreeEnsembleRegressor": (_targets, [onnx.TensorProto.FLOAT]),
}


def _extracted(x: _Dims, indices: _Dims) -> _Dims:
    """ArrayFeatureExtractor's Z: X's dims with the last one Y's size (X of
    rank 1: [1, Y's size]), as onnxruntime shapes it."""
    sizes = [d.dim_value if d.HasField("dim_value") else None for d in indices]
    count = onnx.TensorShapeProto.Dimension()
    if all(size is not None for size in sizes):
        count.dim_value = int(np.prod([s for s in sizes if s is not None]))
    leading = list(x[:-1]) if len(x) > 1 else [onnx.TensorShapeProto.Dimension(dim_value=1)]
    return [*leading, count]


def give_output_types(model: onnx.ModelProto, inferred: onnx.ModelProto) -> bool:
    """Declare (in `model`) the output types of the ml nodes of `_OUTPUTS`
    that `inferred` leaves without a shape; whether any was declared."""
    graph = inferred.graph
    types = {t.name: _type_of(t) for t in graph.initializer}
    types.update({v.name: v.type for v in [*graph.input, *graph.value_info, *graph.output]})
    given = False
    for node in model.graph.node:
        if node.domain != DOMAIN or not node.input:
            continue
        if node.op_type not in _OUTPUTS and node.op_type != "ArrayFeatureExtractor":
            continue
        x = types.get(node.input[0])
        if x is None or not x.tensor_type.HasField("shape"):
            continue
        if node.op_type == "ArrayFeatureExtractor":
            y = types.get(node.input[1]) if len(node.input) > 1 else None
            known = types.get(node.output[0])
            if y is None or not y.tensor_type.HasField("shape"):
                continue
            if known is None or not known.tensor_type.HasField("shape"):
                dims = _extracted(list(x.tensor_type.shape.dim), list(y.tensor_type.shape.dim))
                _declare(model.graph, node.output[0], x.tensor_type.elem_type, dims)
                given = True
            continue
        shapes, elements = _OUTPUTS[node.op_type]
        outputs = shapes(list(x.tensor_type.shape.dim), node)
        if any(a.name == "classlabels_strings" for a in node.attribute):
            elements = [onnx.TensorProto.STRING, *elements[1:]]
        for name, dims, element in zip(node.output, outputs, elements, strict=False):
            if name and _needs(types.get(name), dims):
                _declare(model.graph, name, element or x.tensor_type.elem_type, dims)
                given = True
    return given


def _needs(known: onnx.TypeProto | None, dims: _Dims) -> bool:
    """Whether `dims` tell more than the type inference gave: a rank where it
    gave none, or a size where it gave an unnamed, unsized dimension."""
    if known is None or not known.tensor_type.HasField("shape"):
        return True
    found = known.tensor_type.shape.dim
    if len(found) != len(dims):
        return False
    return any(
        not (old.HasField("dim_value") or old.dim_param)
        and (new.HasField("dim_value") or bool(new.dim_param))
        for old, new in zip(found, dims, strict=True)
    )


def _type_of(tensor: onnx.TensorProto) -> onnx.TypeProto:
    return onnx.helper.make_tensor_type_proto(tensor.data_type, list(tensor.dims))


def _declare(graph: onnx.GraphProto, name: str, element: int, dims: _Dims) -> None:
    found = [v for v in [*graph.output, *graph.value_info] if v.name == name]
    value = found[0] if found else graph.value_info.add(name=name)
    tensor_type = value.type.tensor_type
    tensor_type.elem_type = element
    tensor_type.shape.Clear()
    for dim in dims:
        tensor_type.shape.dim.add().CopyFrom(dim)


ML_OUTPUT_TYPES = Rewrite(
    "ml-output-types", lambda state: give_output_types(state.model, state.types())
)
"""Also sizes, where ranks are known."""
