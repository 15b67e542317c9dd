"""Scan before opset 9, rewritten into the newer Scan before the upgrade.

Scan 8's inputs and outputs carry a leading batch axis (the body runs once
per batch element, over axis 1 of its scan inputs), and its first input is
the optional `sequence_lens`. onnx's version converter does not rewrite it.
The importer does, before upgrading the model: each batch element b becomes
a Scan of the newer form over that element (every input Gathered at b), and
each output is the per-element outputs stacked back (Unsqueeze, Concat).
The new Scans wait in the domain `PENDING` while onnx upgrades the rest of
the graph (it passes unknown domains through); `restore_scans` then makes
them default-domain Scans again, their bodies upgraded on their own.

The batch size must be known at compile time and `sequence_lens` absent
(one length for all): otherwise a one-line error. Scans of subgraphs are
left as they are.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onnxc.dialects.onnx import TARGET_OPSET
from onnxc.errors import OnnxcError, UnsupportedError
from onnxc.frontend.state import ModelState, Rewrite

PENDING = "onnxc.pending"
"""The domain of the rewritten Scans while the model is upgraded."""


def unbatch_scans(model: onnx.ModelProto, label: str = "Scan") -> bool:
    """Rewrite the opset-8 Scans of the main graph (see the module
    docstring); whether there were any."""
    graph = model.graph
    if not any(n.op_type == "Scan" and n.domain in ("", "ai.onnx") for n in graph.node):
        return False
    shapes = _shapes(model)
    nodes: list[onnx.NodeProto] = []
    for position, node in enumerate(graph.node):
        if node.op_type != "Scan" or node.domain not in ("", "ai.onnx"):
            nodes.append(node)
            continue
        name = node.name or f"{label}_{position}"
        nodes += _per_batch(node, name, shapes)
    del graph.node[:]
    graph.node.extend(nodes)
    model.opset_import.append(helper.make_opsetid(PENDING, 1))
    return True


def restore_scans(model: onnx.ModelProto, opset: int) -> None:
    """The pending Scans become default-domain Scans of `opset` (the
    upgraded model's), their bodies upgraded from opset 8."""
    for node in model.graph.node:
        if node.domain != PENDING:
            continue
        node.domain = ""
        for attribute in node.attribute:
            if attribute.name == "body":
                attribute.g.CopyFrom(_upgraded(attribute.g, opset, node.name))
    kept = [o for o in model.opset_import if o.domain != PENDING]
    del model.opset_import[:]
    model.opset_import.extend(kept)


def _shapes(model: onnx.ModelProto) -> dict[str, list[int]]:
    """The static dims (0 where unknown) of every typed value of the main graph."""
    inferred = onnx.shape_inference.infer_shapes(model)
    found: dict[str, list[int]] = {}
    graph = inferred.graph
    for info in [*graph.input, *graph.value_info, *graph.output]:
        if info.type.HasField("tensor_type") and info.type.tensor_type.HasField("shape"):
            found[info.name] = [d.dim_value for d in info.type.tensor_type.shape.dim]
    for tensor in graph.initializer:
        found[tensor.name] = list(tensor.dims)
    return found


def _per_batch(
    node: onnx.NodeProto, name: str, shapes: dict[str, list[int]]
) -> list[onnx.NodeProto]:
    """The nodes replacing one Scan 8 node: per batch element b, Gathers at b,
    a pending Scan, Unsqueezes; then a Concat per output."""
    where = f"node '{name}' (Scan)"
    if node.input and node.input[0]:
        raise UnsupportedError(f"{where}: opset-8 Scan with sequence_lens is not supported")
    inputs = list(node.input[1:])
    batch = {shapes.get(i, [0])[0] if shapes.get(i) else 0 for i in inputs}
    if len(batch) != 1 or 0 in batch:
        raise UnsupportedError(
            f"{where}: opset-8 Scan whose batch size is not known when compiling"
        )
    (size,) = batch
    attributes = {a.name: a for a in node.attribute}
    scan_attributes: dict[str, Any] = {"num_scan_inputs": attributes["num_scan_inputs"].i}
    if "directions" in attributes:
        scan_attributes["scan_input_directions"] = list(attributes["directions"].ints)
    nodes: list[onnx.NodeProto] = []
    pieces: list[list[str]] = [[] for _ in node.output]
    for b in range(size):
        at = f"{name}_batch{b}"
        scan_attributes["body"] = _renamed(attributes["body"].g, f"_{at}")
        nodes.append(
            helper.make_node(
                "Constant", [], [at], value=numpy_helper.from_array(np.array(b, np.int64))
            )
        )
        sliced = [f"{i}_{at}" for i in inputs]
        nodes += [
            helper.make_node("Gather", [i, at], [s], axis=0)
            for i, s in zip(inputs, sliced, strict=True)
        ]
        outputs = [f"{o}_{at}" for o in node.output]
        nodes.append(
            helper.make_node(
                "Scan", sliced, outputs, name=f"{name}_{b}", domain=PENDING, **scan_attributes
            )
        )
        for k, output in enumerate(outputs):
            nodes.append(helper.make_node("Unsqueeze", [output], [f"{output}_1"], axes=[0]))
            pieces[k].append(f"{output}_1")
    nodes += [
        helper.make_node("Concat", parts, [output], axis=0)
        for parts, output in zip(pieces, node.output, strict=True)
    ]
    return nodes


def _renamed(body: onnx.GraphProto, suffix: str) -> onnx.GraphProto:
    """A copy of `body` whose own names (inputs, node outputs and names)
    end in `suffix`, so that the per-batch copies define distinct values;
    outer-scope names it reads are kept."""
    copy = onnx.GraphProto()
    copy.CopyFrom(body)
    own = {i.name for i in copy.input} | {o for n in copy.node for o in n.output if o}
    rename = {name: name + suffix for name in own}
    for value in [*copy.input, *copy.output, *copy.value_info]:
        value.name = rename.get(value.name, value.name)
    for node in copy.node:
        node.input[:] = [rename.get(i, i) for i in node.input]
        node.output[:] = [rename.get(o, o) for o in node.output]
        if node.name:
            node.name += suffix
    return copy


def _upgraded(body: onnx.GraphProto, opset: int, name: str) -> onnx.GraphProto:
    """A Scan body written for opset 8, upgraded to `opset`."""
    model = helper.make_model(body, opset_imports=[helper.make_opsetid("", 8)])
    try:
        return onnx.version_converter.convert_version(model, opset).graph
    except Exception as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise OnnxcError(
            f"node '{name}' (Scan): cannot upgrade its opset-8 body: {first}"
        ) from None


def _unbatch(state: ModelState) -> bool:
    if state.opset is None or state.opset >= 9:
        return False
    state.unbatched_scans = unbatch_scans(state.model)
    return state.unbatched_scans


def _restore(state: ModelState) -> bool:
    if not state.unbatched_scans:
        return False
    restore_scans(state.model, TARGET_OPSET)
    return True


UNBATCH_SCANS = Rewrite("unbatch-scans", _unbatch)
"""Before opset 9 only: each Scan rewritten per batch element (before the upgrade)."""
RESTORE_SCANS = Rewrite("restore-scans", _restore)
"""The per-batch Scan bodies upgraded on their own (after the upgrade)."""
