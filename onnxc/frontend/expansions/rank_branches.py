"""Expansions that depend on an input's rank, which an expansion cannot see
(it runs before shape inference): `by_rank` writes one `If` per rank
whose condition is `Size(Shape(value)) == rank`.

Wherever the value's rank is known, which is everywhere onnx's inference
reaches, the front end's folding makes the condition a constant (Size of a
Shape whose length is inferred) and inlines the branch it selects
(`rewrites/constant_branches.py`), so the compiled model holds only the
nodes of that branch; the If stays a run-time one only where the rank is
unknown. The last rank listed is the fallback: any other rank takes its
branch, whose nodes then fail to apply (a Reshape or a Transpose of the
wrong rank), never silently.

onnx infers every branch before the folding, on the value as it is: a
branch must infer without a contradiction on the ranks it does not take
(a contradiction fails the model, or types the If's result wrongly). A
branch therefore first reshapes the value to its own rank with sizes
spelled out (or a -1 that divides whatever the rank), an identity on the
rank it takes, before any operator that checks sizes reads it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import onnx
from onnx import helper

from onnxc.frontend.expansions.expander import Expander

Branch = Callable[[Expander], Sequence[str]]
"""Writes a branch's nodes into the Expander it is given (outer values are
visible) and returns the values it yields, one per output of `by_rank`."""


def by_rank(
    x: Expander, value: str, branches: Mapping[int, Branch], outputs: Sequence[str]
) -> None:
    """`outputs` computed by the branch for the rank of `value`: an If
    chain over the ranks of `branches` in order, the last one the fallback."""
    ranks = list(branches)
    rank = x.op("Size", x.op("Shape", value))
    _choose(x, rank, ranks, branches, outputs)


def _choose(
    x: Expander,
    rank: str,
    ranks: Sequence[int],
    branches: Mapping[int, Branch],
    outputs: Sequence[str],
) -> None:
    """Write into `x` the If over `ranks[0]` whose else branch chooses among
    the others (the last rank's branch alone when it is the only one)."""
    if len(ranks) == 1:
        yielded = branches[ranks[0]](x)
        for name, source in zip(outputs, yielded, strict=True):
            x.add("Identity", [source], [name])
        return
    first = _branch(x, f"rank_{ranks[0]}", lambda inner: branches[ranks[0]](inner), len(outputs))

    def rest(inner: Expander) -> list[str]:
        names = [inner.fresh("chosen") for _ in outputs]
        _choose(inner, rank, ranks[1:], branches, names)
        return names

    others = _branch(x, f"rank_not_{ranks[0]}", rest, len(outputs))
    condition = x.op("Equal", rank, x.constant(ranks[0], "rank"))
    x.add("If", [condition], list(outputs), then_branch=first, else_branch=others)


def _branch(x: Expander, label: str, write: Branch, count: int) -> onnx.GraphProto:
    """The subgraph of an If: `write`'s nodes and an Identity per yielded
    value, whose names the graph outputs carry (untyped: inference types
    them from the nodes)."""
    inner = Expander(x.node, x.taken, x.initializers, x.weights)
    yielded = list(write(inner))
    assert len(yielded) == count, "a branch yields one value per output"
    names = [inner.op("Identity", source) for source in yielded]
    outputs = [onnx.ValueInfoProto(name=name) for name in names]
    return helper.make_graph(inner.nodes, x.fresh(label), [], outputs)
