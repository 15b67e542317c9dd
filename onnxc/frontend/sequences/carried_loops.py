"""A Loop that carries a sequence through iterations known only at run time.

When the Loop cannot be unrolled (`unroll_loops.py`: a trip count or a
condition only the run knows), each carried sequence (or optional sequence)
becomes two carried tensors, its data and its shapes (`sequences/ragged.py`):
the Loop's input is the initial sequence in that form, the body's input is
two tensor inputs the body's sequence operators read, and the body yields
what it made in that form again. The shape table's width and the ranks the
tensors may have must be the same on every trip: the body is first resolved
on a copy, with the initial value's ranks, and again with the ranks it
yields added, until they no longer grow. The importer then types the two
carried tensors with sizes that change from trip to trip, which the Loop
lowering keeps in loop storage. A sequence scan output is refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import onnx
from onnx import helper

from onnxc.containers import Opt, Ragged, Seq, Value
from onnxc.errors import OnnxcError, node_label
from onnxc.frontend.graphs import fresh_name
from onnxc.frontend.sequences.ragged import ragged_of, width_for

if TYPE_CHECKING:
    from onnxc.frontend.sequences.resolver import Resolver

__all__ = ["carry"]

MAX_PASSES = 4
"""How many times the body is resolved to find the ranks it yields."""


@dataclass
class _Carried:
    """A carried sequence: its element type, whether the body sees it as an
    optional, and the width and ranks its shape table has on every trip."""

    element: int
    optional: bool
    width: int
    ranks: tuple[int, ...]


def carry(r: Resolver, node: onnx.NodeProto, read: list[Value]) -> None:
    """Resolve the Loop `node` (its inputs' values `read`) carrying its
    sequences as data and shapes tensors; see the module docstring."""
    body = next(a.g for a in node.attribute if a.name == "body")
    count = len(node.input) - 2
    initial = read[2:]
    carried: dict[int, _Carried] = {}
    for k, value in enumerate(initial):
        if isinstance(value, str):
            continue
        sequence = value.value if isinstance(value, Opt) else value
        if not isinstance(sequence, Seq | Ragged):
            raise OnnxcError(
                f"{node_label(node)}: carries an optional whose presence changes, or maps, "
                "through iterations known only at run time (not supported)"
            )
        formal = body.input[2 + k]
        element = _element(formal.type) or _element(r.types.get(node.input[2 + k]))
        ranks = _ranks(r, node, sequence)
        optional = formal.type.HasField("optional_type")
        carried[k] = _Carried(element, optional, width_for(ranks), ranks)
    for _ in range(MAX_PASSES):
        trial = onnx.GraphProto()
        trial.CopyFrom(body)
        inner = _resolve_body(r, node, trial, count, carried)
        grown = False
        for k, entry in carried.items():
            found = _sequence_of(node, inner.values.get(trial.output[1 + k].name))
            ranks = tuple(sorted({*entry.ranks, *_ranks(inner, node, found)}))
            if ranks != entry.ranks:
                carried[k] = _Carried(entry.element, entry.optional, width_for(ranks), ranks)
                grown = True
        if not grown:
            break
    else:
        raise OnnxcError(f"{node_label(node)}: the ranks of its sequences do not settle")
    inner = _resolve_body(r, node, body, count, carried)
    _yield_tensors(inner, node, body, count, carried)
    _rewrite_node(r, node, body, read, count, carried)


def _tensor_types(data: str, shapes: str, entry: _Carried) -> list[onnx.ValueInfoProto]:
    """The types of a carried sequence's data and shapes tensors."""
    return [
        helper.make_tensor_value_info(data, entry.element, [None]),
        helper.make_tensor_value_info(shapes, onnx.TensorProto.INT64, [None, 1 + entry.width]),
    ]


def _element(type_proto: onnx.TypeProto | None) -> int:
    """The tensor element type a (possibly nested) container type holds."""
    while type_proto is not None:
        kind = type_proto.WhichOneof("value")
        if kind == "tensor_type":
            return type_proto.tensor_type.elem_type
        if kind == "sequence_type":
            type_proto = type_proto.sequence_type.elem_type
        elif kind == "optional_type":
            type_proto = type_proto.optional_type.elem_type
        else:
            return 0
    return 0


def _ranks(r: Resolver, node: onnx.NodeProto, value: Seq | Ragged) -> tuple[int, ...]:
    return value.ranks if isinstance(value, Ragged) else r.ranks_of(node, value)


def _sequence_of(node: onnx.NodeProto, value: Value | None) -> Seq | Ragged:
    """The sequence a body yields for a carried sequence."""
    if isinstance(value, Opt):
        value = value.value
    if not isinstance(value, Seq | Ragged):
        raise OnnxcError(
            f"{node_label(node)}: its body gives back something else than a sequence for a "
            "carried sequence"
        )
    return value


def _resolve_body(
    r: Resolver,
    node: onnx.NodeProto,
    body: onnx.GraphProto,
    count: int,
    carried: dict[int, _Carried],
) -> Resolver:
    """Resolve `body` in place, each carried sequence input replaced by its
    data and shapes inputs; the resolver, whose values hold what it yields."""
    inputs: list[onnx.ValueInfoProto] = list(body.input[:2])
    bound: dict[str, Value] = {}
    for k, formal in enumerate(body.input[2 : 2 + count]):
        entry = carried.get(k)
        if entry is None:
            inputs.append(formal)
            continue
        data = fresh_name(f"{formal.name}_data", r.taken)
        shapes = fresh_name(f"{formal.name}_shapes", r.taken)
        inputs += _tensor_types(data, shapes, entry)
        sequence = Ragged(data, shapes, entry.width, entry.ranks)
        bound[formal.name] = Opt(sequence) if entry.optional else sequence
    del body.input[:]
    body.input.extend(inputs)
    inner = r.inner(body, bound)
    inner.run()
    return inner


def _yield_tensors(
    inner: Resolver,
    node: onnx.NodeProto,
    body: onnx.GraphProto,
    count: int,
    carried: dict[int, _Carried],
) -> None:
    """Make the body yield each carried sequence as its data and shapes."""
    start = len(inner.nodes)
    made = {o for n in body.node for o in n.output}
    outputs: list[onnx.ValueInfoProto] = [body.output[0]]
    for k, given_back in enumerate(body.output[1 : 1 + count]):
        entry = carried.get(k)
        if entry is None:
            outputs.append(given_back)
            continue
        found = _sequence_of(node, inner.values.get(given_back.name))
        value = ragged_of(inner, node, found, entry.width, entry.element)
        if not set(value.ranks) <= set(entry.ranks):
            raise OnnxcError(f"internal error: {node_label(node)}: ranks grew after settling")
        made |= {o for n in inner.nodes[start:] for o in n.output}
        yielded: list[str] = []
        for tensor in (value.data, value.shapes):
            if tensor not in made:  # an input or outer value: yield a copy
                tensor = inner.emit("Identity", [tensor])
            yielded.append(tensor)
        outputs += _tensor_types(yielded[0], yielded[1], entry)
    for scanned in body.output[1 + count :]:
        if not isinstance(inner.values.get(scanned.name, scanned.name), str):
            raise OnnxcError(
                f"{node_label(node)}: a scan output that is a sequence (not supported)"
            )
        outputs.append(scanned)
    body.node.extend(inner.nodes[start:])
    del body.output[:]
    body.output.extend(outputs)


def _rewrite_node(
    r: Resolver,
    node: onnx.NodeProto,
    body: onnx.GraphProto,
    read: list[Value],
    count: int,
    carried: dict[int, _Carried],
) -> None:
    """The Loop node with each carried sequence as two tensors, appended to
    `r`'s nodes; its sequence results followed as their two tensors."""
    inputs = list(node.input[:2])
    outputs: list[str] = []
    for k in range(count):
        entry = carried.get(k)
        result = node.output[k] if k < len(node.output) else ""
        if entry is None:
            inputs.append(node.input[2 + k])
            outputs.append(result)
            continue
        value = read[2 + k]
        sequence = value.value if isinstance(value, Opt) else value
        assert isinstance(sequence, Seq | Ragged)
        start = ragged_of(r, node, sequence, entry.width, entry.element)
        inputs += [start.data, start.shapes]
        data = fresh_name(f"{result or 'loop'}_data", r.taken)
        shapes = fresh_name(f"{result or 'loop'}_shapes", r.taken)
        outputs += [data, shapes]
        r.graph.value_info.extend(_tensor_types(data, shapes, entry))
        if result:
            final = Ragged(data, shapes, entry.width, entry.ranks)
            declared = r.types.get(result)
            optional = declared is not None and declared.HasField("optional_type")
            r.values[result] = Opt(final) if optional else final
    outputs += list(node.output[count:])
    kept = onnx.NodeProto()
    kept.CopyFrom(node)
    del kept.input[:]
    kept.input.extend(inputs)
    del kept.output[:]
    kept.output.extend(outputs)
    for attribute in kept.attribute:
        if attribute.name == "body":
            attribute.g.CopyFrom(body)
    r.nodes.append(kept)
