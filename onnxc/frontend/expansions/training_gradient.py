"""ai.onnx.preview.training Gradient by reverse-mode differentiation: the
gradients of the value named `y` with respect to the values named `xs`,
written as default-domain nodes.

The differentiated function is the part of the node's graph that computes
`y` from the values named in `xs` and `zs` (the forward nodes): the
Gradient node's inputs are the values of `xs` then `zs` at which the
gradients are taken. When they are those very values and every forward
node comes before the Gradient node, the forward values are reused; else
the forward nodes are copied, reading the Gradient node's inputs. A `y`
that is not a scalar is differentiated as its sum (the seed is ones of its
shape); an x that `y` does not depend on has a gradient of zeros.

Each forward node that depends on an x needs a rule (`RULES`): the
elementwise arithmetic (broadcasting: a gradient is summed back to its
operand's shape, `sum_to`), MatMul (1-D operands as numpy's matmul reads
them), Neg, Identity and the usual activations. Any other such node, a
forward node of another domain and one with subgraphs are refused in one
line. Expansions see no shapes, so the shape arithmetic is written with
Shape (folding makes it constant wherever the sizes are known).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import onnx
from onnx import numpy_helper

from onnxc.errors import node_label
from onnxc.frontend.expansions.expander import Expander, Expansions
from onnxc.frontend.expansions.sizes import scalar

Lazy = Callable[[], str]
"""Writes the nodes of a gradient; its name."""

Rule = Callable[[Expander, Sequence[str], str, str], list[Lazy]]
"""(expander, the forward node's inputs, its output, the gradient of its
output) -> how to write the gradient of each input (called only for the
inputs that depend on an x)."""

_ONES = numpy_helper.from_array(np.ones(1, np.int64), "ones")
"""ConstantOfShape's value for a run of ones (int64)."""


def sum_to(x: Expander, value: str, shape: str) -> str:
    """`value`, a numpy broadcast of a tensor of shape `shape` (an int64
    1-D tensor), summed back to that shape. With `shape` padded with leading
    ones to `value`'s rank (p_i), `value` (v_i) is reshaped to interleaved
    sizes (p_0, v_0 / p_0, p_1, v_1 / p_1, ...) and summed over the odd axes:
    those are v_i where p_i is a broadcast 1, and 1 where p_i = v_i. The
    number of axes is the rank, which folding knows."""
    full = x.op("Shape", value)
    rank = x.op("Shape", full)
    ones = x.op("ConstantOfShape", x.op("Sub", rank, x.op("Shape", shape)), value=_ONES)
    padded = x.op("Concat", ones, shape, axis=0)
    spread = x.op("Div", full, x.op("Max", padded, x.constant([1], "one")))
    column = x.constant([1], "column")
    pairs = x.op(
        "Concat",
        x.op("Unsqueeze", padded, column),
        x.op("Unsqueeze", spread, column),
        axis=1,
    )
    sizes = x.op("Reshape", pairs, x.constant([-1], "flat"))
    interleaved = x.op("Reshape", value, sizes, allowzero=1)
    odd = x.op(
        "Range",
        x.constant(1, "one"),
        scalar(x, x.op("Mul", rank, x.constant([2], "two"))),
        x.constant(2, "two"),
    )
    summed = x.op("ReduceSum", interleaved, odd, keepdims=0, noop_with_empty_axes=1)
    return x.op("Reshape", summed, shape, allowzero=1)


def _summed(x: Expander, value: str, operand: str) -> str:
    return sum_to(x, value, x.op("Shape", operand))


def _add(x: Expander, inputs: Sequence[str], _: str, gradient: str) -> list[Lazy]:
    return [lambda: _summed(x, gradient, inputs[0]), lambda: _summed(x, gradient, inputs[1])]


def _sub(x: Expander, inputs: Sequence[str], _: str, gradient: str) -> list[Lazy]:
    return [
        lambda: _summed(x, gradient, inputs[0]),
        lambda: _summed(x, x.op("Neg", gradient), inputs[1]),
    ]


def _mul(x: Expander, inputs: Sequence[str], _: str, gradient: str) -> list[Lazy]:
    a, b = inputs
    return [
        lambda: _summed(x, x.op("Mul", gradient, b), a),
        lambda: _summed(x, x.op("Mul", gradient, a), b),
    ]


def _div(x: Expander, inputs: Sequence[str], output: str, gradient: str) -> list[Lazy]:
    """d(a / b) = da / b - db * (a / b) / b."""
    a, b = inputs

    def divisor() -> str:
        quotient = x.op("Div", x.op("Mul", gradient, output), b)
        return _summed(x, x.op("Neg", quotient), b)

    return [lambda: _summed(x, x.op("Div", gradient, b), a), divisor]


def _unary(derivative: Callable[[Expander, str, str, str], str]) -> Rule:
    """The rule of a one-input operator from `derivative(x, input, output,
    gradient)`, the gradient of its input."""

    def rule(x: Expander, inputs: Sequence[str], output: str, gradient: str) -> list[Lazy]:
        return [lambda: derivative(x, inputs[0], output, gradient)]

    return rule


def _relu(x: Expander, a: str, _: str, gradient: str) -> str:
    """The gradient where the input is positive, 0 elsewhere (at 0 too)."""
    zero = x.like(0.0, gradient, "zero")
    return x.op("Where", x.op("Greater", a, zero), gradient, zero)


def _sigmoid(x: Expander, _: str, y: str, gradient: str) -> str:
    """d sigmoid = y (1 - y)."""
    complement = x.op("Sub", x.like(1.0, y, "one"), y)
    return x.op("Mul", gradient, x.op("Mul", y, complement))


def _tanh(x: Expander, _: str, y: str, gradient: str) -> str:
    """d tanh = 1 - y^2."""
    return x.op("Mul", gradient, x.op("Sub", x.like(1.0, y, "one"), x.op("Mul", y, y)))


def _sqrt(x: Expander, _: str, y: str, gradient: str) -> str:
    """d sqrt(a) = 0.5 / sqrt(a)."""
    return x.op("Div", x.op("Mul", gradient, x.like(0.5, gradient, "half")), y)


def _at_least_2d(x: Expander, value: str, left: bool) -> tuple[str, str, str]:
    """`value` as MatMul reads it: a 1-D operand gets a 1 before its axis
    (`left`, the first operand) or after it; the reshaped value, its shape,
    and how many axes were added ([0] or [1])."""
    shape = x.op("Shape", value)
    missing = x.op(
        "Max",
        x.op("Sub", x.constant([2], "two"), x.op("Shape", shape)),
        x.constant([0], "zero"),
    )
    ones = x.op("ConstantOfShape", missing, value=_ONES)
    padded = x.op("Concat", *((ones, shape) if left else (shape, ones)), axis=0)
    return x.op("Reshape", value, padded), padded, missing


def _transposed(x: Expander, value: str) -> str:
    """The last two axes swapped, at any rank."""
    return x.op("Einsum", value, equation="...ab->...ba")


def _matmul(x: Expander, inputs: Sequence[str], _: str, gradient: str) -> list[Lazy]:
    """C = A @ B: dA = dC @ B^T and dB = A^T @ dC on the operands made 2-D
    at least (dC reshaped to match), summed over broadcast batch axes and
    reshaped back to the operands' shapes."""
    a, b = inputs
    a2, a_shape, a_missing = _at_least_2d(x, a, left=True)
    b2, b_shape, b_missing = _at_least_2d(x, b, left=False)
    full = x.op("Shape", gradient)
    kept = x.op(
        "Add",
        x.op("Shape", full),
        x.op("Add", x.op("Add", a_missing, b_missing), x.constant([-2], "minus_two")),
    )
    batch = x.op("Slice", full, x.constant([0], "zero"), kept)
    rows = x.op("Slice", a_shape, x.constant([-2], "rows"), x.constant([-1], "last"))
    columns = x.op("Slice", b_shape, x.constant([-1], "last"), x.constant([2**62], "end"))
    gradient2 = x.op("Reshape", gradient, x.op("Concat", batch, rows, columns, axis=0))

    def da() -> str:
        product = x.op("MatMul", gradient2, _transposed(x, b2))
        return x.op("Reshape", sum_to(x, product, a_shape), x.op("Shape", a))

    def db() -> str:
        product = x.op("MatMul", _transposed(x, a2), gradient2)
        return x.op("Reshape", sum_to(x, product, b_shape), x.op("Shape", b))

    return [da, db]


RULES: dict[str, Rule] = {
    "Add": _add,
    "Div": _div,
    "Exp": _unary(lambda x, _, y, gradient: x.op("Mul", gradient, y)),
    "Identity": _unary(lambda _, __, ___, gradient: gradient),
    "Log": _unary(lambda x, a, _, gradient: x.op("Div", gradient, a)),
    "MatMul": _matmul,
    "Mul": _mul,
    "Neg": _unary(lambda x, _, __, gradient: x.op("Neg", gradient)),
    "Relu": _unary(_relu),
    "Sigmoid": _unary(_sigmoid),
    "Sqrt": _unary(_sqrt),
    "Sub": _sub,
    "Tanh": _unary(_tanh),
}
"""The operators Gradient differentiates (default domain), by op_type."""


def _names(x: Expander, attribute: str) -> list[str]:
    value = x.attribute(attribute, [])
    items = value if isinstance(value, list) else [value]
    return [item.decode() if isinstance(item, bytes) else str(item) for item in items]


def _forward_nodes(
    x: Expander, graph: onnx.GraphProto, y: str, sources: set[str]
) -> list[tuple[int, onnx.NodeProto]]:
    """The nodes of `graph` that compute `y` from `sources` (and from
    values outside the differentiated function), with their positions, in
    graph order."""
    producers = {name: i for i, node in enumerate(graph.node) for name in node.output if name}
    chosen: set[int] = set()
    pending = [y]
    while pending:
        name = pending.pop()
        index = producers.get(name)
        if name in sources or index is None or index in chosen:
            continue
        chosen.add(index)
        node = graph.node[index]
        if node.domain not in ("", "ai.onnx"):
            raise x.refuse(f"{_forward(node)} on the way to '{y}' is not of the default domain")
        if any(
            a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS)
            for a in node.attribute
        ):
            raise x.refuse(f"{_forward(node)} on the way to '{y}' has subgraphs")
        pending.extend(name for name in node.input if name)
    return [(i, graph.node[i]) for i in sorted(chosen)]


def _forward(node: onnx.NodeProto) -> str:
    return f"its graph's {node_label(node)}"


def _forward_values(
    x: Expander, forward: list[tuple[int, onnx.NodeProto]], bound: dict[str, str]
) -> dict[str, str]:
    """The name of each forward value in the expansion (forward name ->
    name; a name not in it stands for itself). The forward nodes' own
    values when the Gradient node reads the very values of `bound` (forward
    name -> its input) and comes after those nodes; else the forward nodes
    are copied, reading its inputs, their outputs renamed."""
    graph = x.graph
    position = next((i for i, node in enumerate(graph.node) if node == x.node), 0) if graph else 0
    if all(name == value for name, value in bound.items()) and all(
        i < position for i, _ in forward
    ):
        return {}
    renamed = dict(bound)
    for _, node in forward:
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        copy.input[:] = [renamed.get(name, name) for name in node.input]
        for k, name in enumerate(node.output):
            if name:
                renamed[name] = copy.output[k] = x.fresh(f"forward_{name}")
        copy.name = x.fresh(f"forward_{node.name or node.op_type}")
        x.nodes.append(copy)
    return renamed


def _differentiated(
    x: Expander, forward: list[tuple[int, onnx.NodeProto]], xs: Sequence[str], y: str
) -> tuple[list[onnx.NodeProto], set[str]]:
    """The forward nodes that depend on an x, in order (each has a rule),
    and the values that do (the xs among them)."""
    active = set(xs)
    nodes: list[onnx.NodeProto] = []
    for _, node in forward:
        if not any(name in active for name in node.input):
            continue
        if node.op_type not in RULES:
            raise x.refuse(
                f"{_forward(node)} on the way to '{y}' cannot be differentiated "
                f"(onnxc differentiates {', '.join(sorted(RULES))})"
            )
        active.update(name for name in node.output if name)
        nodes.append(node)
    return nodes, active


def _gradient(x: Expander) -> None:
    """See the module docstring."""
    xs, zs, names = _names(x, "xs"), _names(x, "zs"), _names(x, "y")
    if not xs or len(names) != 1:
        raise x.refuse("it needs the attributes 'xs' and 'y'")
    if len(x.node.input) != len(xs) + len(zs):
        raise x.refuse(f"it has {len(x.node.input)} inputs for {len(xs) + len(zs)} xs and zs")
    if len(x.node.output) > len(xs):
        raise x.refuse(f"it has {len(x.node.output)} outputs for {len(xs)} xs")
    if x.graph is None:
        raise x.refuse("its graph is not known")
    y = names[0]
    bound = dict(zip([*xs, *zs], x.node.input, strict=True))
    forward = _forward_nodes(x, x.graph, y, set(bound))
    renamed = _forward_values(x, forward, bound)
    nodes, active = _differentiated(x, forward, xs, y)
    gradients: dict[str, str] = {}
    if y in active:
        value = renamed.get(y, y)
        gradients[y] = x.op("Expand", x.like(1.0, value, "one"), x.op("Shape", value))
    for node in reversed(nodes):
        gradient = gradients.get(node.output[0])
        if gradient is None:
            continue
        inputs = [renamed.get(name, name) for name in node.input]
        output = renamed.get(node.output[0], node.output[0])
        lazies = RULES[node.op_type](x, inputs, output, gradient)
        for name, lazy in zip(node.input, lazies, strict=True):
            if name in active:
                found = lazy()
                earlier = gradients.get(name)
                gradients[name] = found if earlier is None else x.op("Add", earlier, found)
    for index, name in enumerate(xs):
        result = x.output(index)
        if result is None:
            continue
        found = gradients.get(name)
        if found is not None:
            x.add("Identity", [found], [result])
            continue
        zeros = x.op("ConstantOfShape", x.op("Shape", bound[name]))
        x.add("CastLike", [zeros, bound[name]], [result])


EXPANSIONS: Expansions = {"Gradient": _gradient}
