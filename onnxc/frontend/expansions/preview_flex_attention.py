"""ai.onnx.preview FlexAttention as default-domain nodes: scaled dot-product
attention over (batch, heads, length, head size) tensors with the optional
`score_mod` and `prob_mod` subgraphs inlined (masks are written by
score_mod, as -inf scores).

As the operator's schema and onnx.reference compute it: Q and K are each
scaled by sqrt(scale) (scale, by default 1 / sqrt(head size), in float32,
then in Q's type) and multiplied in the input type; the scores are cast to
the softmax precision (`softmax_precision`; by default float32, double for
double inputs), modified by score_mod, turned into probabilities by
Softmax over the keys, modified by prob_mod, and multiplied by V in that
precision; the result has V's type. With fewer key/value heads than query
heads (grouped-query attention), query head h reads key/value head
h / (q heads / kv heads): the queries of a group are stacked along the
length, so K and V are read as they are.

Expansions see no types: the default precision comes from the modifier
subgraphs' declared input type, else from the type the graph declares for
Q; a model that declares neither needs `softmax_precision`.
"""

from __future__ import annotations

import numpy as np
import onnx

from onnxc.frontend.expansions.expander import Expander, Expansions
from onnxc.frontend.graphs import inline_graph

PRECISIONS: dict[int, int] = {
    onnx.TensorProto.FLOAT: onnx.TensorProto.FLOAT,
    onnx.TensorProto.FLOAT16: onnx.TensorProto.FLOAT,
    onnx.TensorProto.BFLOAT16: onnx.TensorProto.FLOAT,
    onnx.TensorProto.DOUBLE: onnx.TensorProto.DOUBLE,
}
"""The default softmax precision, by the inputs' element type."""

MODIFIERS = ("score_mod", "prob_mod")


def _modifier(x: Expander, name: str) -> onnx.GraphProto | None:
    """The subgraph attribute `name`, checked to take and give one value."""
    body = x.attribute(name)
    if body is None:
        return None
    if not isinstance(body, onnx.GraphProto):
        raise x.refuse(f"its attribute '{name}' is not a graph")
    if len(body.input) != 1 or len(body.output) != 1:
        raise x.refuse(
            f"its {name} takes {len(body.input)} inputs and gives {len(body.output)} "
            "outputs (one of each)"
        )
    return body


def _precision(x: Expander, query: str) -> int:
    """The element type the softmax is computed in (module docstring)."""
    given = x.attribute("softmax_precision")
    if isinstance(given, int):
        if given not in PRECISIONS:
            raise x.refuse(f"softmax_precision {given} is not a floating-point type")
        return given
    for name in MODIFIERS:
        body = _modifier(x, name)
        if body is not None and body.input[0].type.tensor_type.elem_type in PRECISIONS:
            return body.input[0].type.tensor_type.elem_type
    declared = x.declared_type(query)
    if declared is None:
        raise x.refuse("the element type of Q is not declared: give softmax_precision")
    if declared not in PRECISIONS:
        raise x.refuse(f"Q of element type {onnx.TensorProto.DataType.Name(declared)}")
    return PRECISIONS[declared]


def _root_scale(x: Expander, query: str) -> str:
    """sqrt(scale) in float32: of the attribute, or of 1 / sqrt(head size)."""
    scale = x.attribute("scale")
    if isinstance(scale, float):
        return x.constant(np.array(np.sqrt(np.float32(scale)), np.float32), "root_scale")
    size = x.op("Cast", x.op("Shape", query, start=3, end=4), to=onnx.TensorProto.FLOAT)
    return x.op("Sqrt", x.op("Reciprocal", x.op("Sqrt", size)))


def _modified(x: Expander, name: str, value: str) -> str:
    """`value` through subgraph `name`, inlined (itself when absent)."""
    body = _modifier(x, name)
    if body is None:
        return value
    if x.graph is None:
        raise x.refuse(f"its {name} cannot be inlined: its graph is not known")
    stem = f"{x.node.name or x.node.op_type}_{name}"
    nodes, outputs = inline_graph(body, {body.input[0].name: value}, stem, x.taken, x.graph)
    x.nodes.extend(nodes)
    return outputs[0]


def _flex_attention(x: Expander) -> None:
    """See the module docstring."""
    query, key, value = x.needed(0, "Q"), x.needed(1, "K"), x.needed(2, "V")
    precision = _precision(x, query)
    root = x.op("CastLike", _root_scale(x, query), query)
    kv_heads = x.op("Shape", key, start=1, end=2)
    grouped = x.op(
        "Concat", x.constant([0], "same"), kv_heads, x.constant([-1, 0], "group"), axis=0
    )
    queries = x.op("Reshape", x.op("Mul", query, root), grouped)
    keys = x.op("Transpose", x.op("Mul", key, root), perm=[0, 1, 3, 2])
    score_shape = x.op(
        "Concat", x.op("Shape", query, end=3), x.op("Shape", key, start=2, end=3), axis=0
    )
    scores = x.op("Reshape", x.op("MatMul", queries, keys), score_shape)
    scores = _modified(x, "score_mod", x.op("Cast", scores, to=precision))
    probabilities = _modified(x, "prob_mod", x.op("Softmax", scores, axis=-1))
    attended = x.op(
        "MatMul",
        x.op("Reshape", probabilities, grouped),
        x.op("Cast", value, to=precision),
    )
    out_shape = x.op(
        "Concat", x.op("Shape", query, end=3), x.op("Shape", value, start=3, end=4), axis=0
    )
    result = x.op("Reshape", attended, out_shape)
    x.add("CastLike", [result, value], [x.node.output[0]])


EXPANSIONS: Expansions = {"FlexAttention": _flex_attention}
