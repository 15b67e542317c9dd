"""`fold-constant-nodes`: nodes computing only from constants evaluated on
the proto, so that shape inference sees through shape arithmetic."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper
from onnx.reference import ReferenceEvaluator

from onnxc.folding import NON_DETERMINISTIC, SMALL_CONSTANT, reference_hazard
from onnxc.frontend.graphs import value_shapes
from onnxc.frontend.rewrites.weights import array_of
from onnxc.frontend.state import Rewrite


def fold_constant_nodes(
    graph: onnx.GraphProto, inferred: onnx.ModelProto, weights: dict[str, bytes]
) -> bool:
    """Replace each node whose inputs are all constants, and whose outputs are
    small, by initializers holding its outputs (evaluated with onnx's
    reference implementation), and Shape or Size of a tensor whose inferred
    shape is static by its value; whether any was. The values of detached
    `weights` are read only for a node whose inputs are all constants.
    The DequantizeLinear of a convolution's weights stays: shape inference
    needs no value of it, and `onnx-fuse-quantized` runs a quantized
    convolution on its integer weights."""
    conv_weights = {n.input[1] for n in graph.node if n.op_type == "Conv" and len(n.input) > 1}
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
            feeds.update((n, array_of(tensors[n], weights)) for n in inputs if n not in known)
        if node.op_type in ("Shape", "Size") and node.domain in ("", "ai.onnx") and inputs:
            shape = static.get(inputs[0])
            if shape is not None and feeds[inputs[0]] is None:  # only its shape is read
                feeds[inputs[0]] = np.zeros(shape, np.float32)
        foldable = (
            node.domain in ("", "ai.onnx")
            and not (node.op_type == "DequantizeLinear" and node.output[0] in conv_weights)
            and node.op_type not in NON_DETERMINISTIC
            and all(value is not None for value in feeds.values())
            and not any(
                a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
                for a in node.attribute
            )
        )
        axis = next((a.i for a in node.attribute if a.name == "axis"), None)
        if foldable and reference_hazard(node.op_type, list(feeds.values()), axis) is not None:
            foldable = False  # the compiler's folding says what is wrong
        values: list[np.ndarray] = []
        if foldable:
            try:
                with np.errstate(all="ignore"):  # IEEE results (log(0) = -inf) are the answer
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


FOLD_CONSTANT_NODES = Rewrite(
    "fold-constant-nodes",
    lambda state: fold_constant_nodes(state.model.graph, state.types(), state.weights),
)
