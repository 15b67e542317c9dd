"""A Loop that carries a sequence or an optional, unrolled at compile time.

onnxc follows sequences as lists of tensors (`sequences/resolver.py`), so a
Loop that grows or reads a carried sequence can be compiled only when its
iterations are known: a constant trip count (at most `MAX_TRIPS`), a
condition that is absent or constant true, and a body that passes its
condition on unchanged (an Identity of it, or itself). Then each iteration
is the body inlined into the graph, with the iteration number a constant,
the condition true and the carried values those of the iteration before; the
Loop's results are the last iteration's carried values and, for each scan
output, the iterations' values stacked on a new first axis. Anything else is
left to the caller, which refuses it. This is what makes an expanded
SequenceMap (a Loop over SequenceLength iterations that inserts into a
sequence) compile.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import onnx

from onnxc.containers import Value
from onnxc.frontend.graphs import fresh_name, inline_graph

if TYPE_CHECKING:
    from onnxc.frontend.sequences.resolver import Resolver

__all__ = ["MAX_TRIPS", "unroll"]

MAX_TRIPS = 1024
"""The most iterations unrolled (each is a copy of the body's nodes)."""


def unroll(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> bool:
    """Unroll the Loop `node` (its inputs' values `read`) into `r`, if its
    iterations are known at compile time; whether it was."""
    trips = _trips(r, node)
    body = next(a.g for a in node.attribute if a.name == "body")
    carried_count = len(node.input) - 2
    scanned = node.output[carried_count:]
    if trips is None or (trips == 0 and any(scanned)) or not _keeps_going(body):
        return False
    carried: list[Value] = list(read[2:])
    stacks: list[list[str]] = [[] for _ in scanned]
    prefix = node.name or "Loop"
    for iteration in range(trips):
        bindings = {
            body.input[0].name: r.emit_constant(np.array(iteration, np.int64)),
            body.input[1].name: r.emit_constant(np.array(True)),
        }
        for formal, value in zip(body.input[2:], carried, strict=True):
            if isinstance(value, str):
                bindings[formal.name] = value
            else:  # a container: a fresh name the resolver follows
                bindings[formal.name] = fresh_name(f"{prefix}_{formal.name}", r.taken)
                r.values[bindings[formal.name]] = value
        nodes, outputs = inline_graph(body, bindings, f"{prefix}_{iteration}", r.taken, r.graph)
        for inlined in nodes:
            r.resolve(inlined)
        carried = [r.values.get(name, name) for name in outputs[1 : 1 + carried_count]]
        for stack, name in zip(stacks, outputs[1 + carried_count :], strict=True):
            stack.append(name)
    for name, value in zip(node.output[:carried_count], carried, strict=True):
        if not name:
            continue
        if isinstance(value, str):
            r.emit("Identity", [value], name)
        else:
            r.values[name] = value
    axis = r.emit_constant(np.array([0], np.int64)) if any(scanned) else ""
    for name, stack in zip(scanned, stacks, strict=True):
        if name:
            r.emit("Concat", [r.emit("Unsqueeze", [t, axis]) for t in stack], name, axis=0)
    return True


def _trips(r: Resolver, node: onnx.NodeProto) -> int | None:
    """The iterations of `node`: its constant trip count, 0 when its
    constant condition is false; None when not known at compile time."""
    trip_name = node.input[0] if node.input else ""
    condition = node.input[1] if len(node.input) > 1 else ""
    trips = r.scalar(node, trip_name, "the trip count M") if trip_name else None
    if trips is None or int(trips.reshape(-1)[0]) > MAX_TRIPS:
        return None
    if condition:
        value = r.scalar(node, condition, "the condition")
        if value is None:
            return None
        if not bool(value.reshape(-1)[0]):
            return 0
    return max(int(trips.reshape(-1)[0]), 0)


def _keeps_going(body: onnx.GraphProto) -> bool:
    """Whether the body passes its condition on unchanged (so every trip runs)."""
    condition_in, condition_out = body.input[1].name, body.output[0].name
    if condition_out == condition_in:
        return True
    producer = next((n for n in body.node if condition_out in n.output), None)
    return (
        producer is not None
        and producer.op_type == "Identity"
        and list(producer.input) == [condition_in]
    )
