"""ai.onnx.preview.training's Gradient compiled through its reverse-mode
expansion (`onnxc/frontend/expansions/training_gradient.py`).

Each model computes y from its inputs with default-domain nodes and asks
Gradient for the derivatives of y (of its sum, when y is not a scalar) with
respect to some of them. The expected gradients are central finite
differences of that sum, computed in float64 numpy on the same input values
with step 1e-6 (their error is near 1e-9 at these magnitudes). Tolerances:
rtol 1e-6 and atol 1e-7 for float64 models; rtol 1e-4 and atol 1e-5 for
float32 ones, whose arithmetic rounds at about 1e-7 of each term.

Inputs are drawn with magnitudes in [0.5, 2], away from Relu's kink and
from zero divisors, and positive where Log and Sqrt need it. Every rule in
`RULES` has a case (a test fails when one is added without), broadcasting
operands are summed back to their shapes, MatMul reads 1-D and batched
operands as numpy does, gradients of a value used twice are accumulated, an
x that y does not depend on gets zeros, and forward nodes are copied when
Gradient reads other values than xs (or comes before them). The optimizers
are in `test_preview_optimizers.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxc
from onnxc.frontend.expansions.training_gradient import RULES
from tests.e2e.contrib_ops import assert_refused_in_one_line

TRAINING = "ai.onnx.preview.training"
RNG = np.random.default_rng(23)
STEP = 1e-6
TOLERANCES: dict[type, tuple[float, float]] = {np.float32: (1e-4, 1e-5), np.float64: (1e-6, 1e-7)}
"""(rtol, atol) by element type."""
DTYPES = [np.float32, np.float64]

Forward = Callable[..., np.ndarray]


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-a))


FORWARD: dict[str, Forward] = {
    "Add": np.add,
    "Div": np.divide,
    "Exp": np.exp,
    "Identity": lambda a: a,
    "Log": np.log,
    "MatMul": np.matmul,
    "Mul": np.multiply,
    "Neg": np.negative,
    "Relu": lambda a: np.maximum(a, 0.0),
    "Sigmoid": _sigmoid,
    "Sqrt": np.sqrt,
    "Sub": np.subtract,
    "Tanh": np.tanh,
}
"""Each rule's operator in numpy."""

POSITIVE = {"Log", "Sqrt"}
UNARY = sorted(op for op in FORWARD if op not in {"Add", "Sub", "Mul", "Div", "MatMul"})
BROADCASTS = [([3, 1, 4], [4]), ([2, 3], [1]), ([4], [3, 1, 4]), ([3, 1, 4], [2, 1])]
"""Operand shapes of the binary elementwise cases: one side or both broadcast."""
MATMULS = [
    ([4], [4, 3]),
    ([3, 4], [4]),
    ([4], [4]),
    ([2, 3], [3, 5]),
    ([2, 1, 3, 4], [5, 4, 2]),
    ([4], [2, 4, 3]),
    ([2, 3, 4], [4]),
]
"""MatMul operand shapes: 1-D left, 1-D right, both 1-D, plain,
batched-broadcast, 1-D against batched."""


def draw(shape: Sequence[int], dtype: type, positive: bool = False) -> np.ndarray:
    """Magnitudes in [0.5, 2], of random sign unless `positive`."""
    values = RNG.uniform(0.5, 2.0, size=tuple(shape))
    if not positive:
        values *= RNG.choice([-1.0, 1.0], size=tuple(shape))
    return values.astype(dtype)


def numeric_gradient(
    f: Callable[..., np.ndarray], arrays: Sequence[np.ndarray], index: int
) -> np.ndarray:
    """d sum(f(*arrays)) / d arrays[index], by central differences in float64."""
    values = [np.array(a, np.float64) for a in arrays]
    point = values[index]
    found = np.zeros_like(point)
    for i in np.ndindex(point.shape):
        saved = point[i]
        point[i] = saved + STEP
        above = float(np.sum(f(*values)))
        point[i] = saved - STEP
        below = float(np.sum(f(*values)))
        point[i] = saved
        found[i] = (above - below) / (2 * STEP)
    return found


def gradient_model(
    forward: Sequence[onnx.NodeProto],
    inputs: Mapping[str, np.ndarray],
    xs: Sequence[str],
    y: str,
    reads: Sequence[str] | None = None,
    zs: Sequence[str] = (),
    first: bool = False,
) -> onnx.ModelProto:
    """The `forward` nodes over graph inputs `inputs` (named after them,
    typed and shaped like them) and a Gradient node 'grad' of `y` by `xs`
    (and `zs`), reading `reads` (by default xs then zs), after the forward
    nodes or before them (`first`). Its outputs are `d_<x>`."""
    gradient = helper.make_node(
        "Gradient",
        list(reads if reads is not None else [*xs, *zs]),
        [f"d_{x}" for x in xs],
        name="grad",
        domain=TRAINING,
        xs=list(xs),
        y=y,
    )
    if zs:
        gradient.attribute.append(helper.make_attribute("zs", list(zs)))
    graph = helper.make_graph(
        [gradient, *forward] if first else [*forward, gradient],
        "gradient",
        [declared(name, value) for name, value in inputs.items()],
        [declared(f"d_{x}", inputs[reads[i] if reads else x]) for i, x in enumerate(xs)],
    )
    return training_model(graph)


def training_model(graph: onnx.GraphProto) -> onnx.ModelProto:
    """`graph` as a model importing ai.onnx 18 and the preview training domain."""
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid(TRAINING, 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 10
    return model


def declared(name: str, value: np.ndarray) -> onnx.ValueInfoProto:
    """A value info of `value`'s element type and shape."""
    element = helper.np_dtype_to_tensor_dtype(value.dtype)
    return helper.make_tensor_value_info(name, element, list(value.shape))


def assert_gradients(
    model: onnx.ModelProto,
    feeds: Mapping[str, np.ndarray],
    f: Callable[..., np.ndarray],
    at: Sequence[str],
    xs: Sequence[str],
) -> None:
    """The compiled `model` gives each `d_<x>` as the numeric gradient of
    `f`, which takes the feeds named `at` (the Gradient node's inputs),
    with respect to the one in the position of x; of x's type and shape."""
    got = onnxc.compile(model, cache=False).run(dict(feeds))
    arrays = [feeds[name] for name in at]
    for index, x in enumerate(xs):
        value = got[f"d_{x}"]
        point = arrays[index]
        assert (value.shape, value.dtype) == (point.shape, point.dtype), x
        rtol, atol = TOLERANCES[point.dtype.type]
        want = numeric_gradient(f, arrays, index)
        np.testing.assert_allclose(value, want, rtol=rtol, atol=atol, err_msg=f"d_{x}")


def test_every_rule_has_a_case() -> None:
    assert set(FORWARD) == set(RULES)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", UNARY)
def test_unary_rule(op: str, dtype: type) -> None:
    feeds = {"a": draw([2, 3], dtype, positive=op in POSITIVE)}
    model = gradient_model([helper.make_node(op, ["a"], ["y"])], feeds, ["a"], "y")
    assert_gradients(model, feeds, FORWARD[op], ["a"], ["a"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
def test_broadcasting_rule(op: str, shapes: tuple[list[int], list[int]], dtype: type) -> None:
    feeds = {"a": draw(shapes[0], dtype), "b": draw(shapes[1], dtype)}
    model = gradient_model([helper.make_node(op, ["a", "b"], ["y"])], feeds, ["a", "b"], "y")
    assert_gradients(model, feeds, FORWARD[op], ["a", "b"], ["a", "b"])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", MATMULS, ids=str)
def test_matmul_rule(shapes: tuple[list[int], list[int]], dtype: type) -> None:
    feeds = {"a": draw(shapes[0], dtype), "b": draw(shapes[1], dtype)}
    model = gradient_model([helper.make_node("MatMul", ["a", "b"], ["y"])], feeds, ["a", "b"], "y")
    assert_gradients(model, feeds, np.matmul, ["a", "b"], ["a", "b"])


def test_scalar_y_by_one_operand() -> None:
    """A 0-d y, and a Gradient asked for one of the node's two operands."""
    feeds = {"a": draw([], np.float32), "b": draw([], np.float32)}
    model = gradient_model([helper.make_node("Mul", ["a", "b"], ["y"])], feeds, ["b"], "y")
    assert_gradients(model, feeds, lambda b: b * feeds["a"], ["b"], ["b"])


def test_operand_read_twice_by_one_node() -> None:
    """y = a * a: both of Mul's gradients go to a."""
    feeds = {"a": draw([2, 3], np.float64)}
    model = gradient_model([helper.make_node("Mul", ["a", "a"], ["y"])], feeds, ["a"], "y")
    assert_gradients(model, feeds, np.square, ["a"], ["a"])


def test_x_computed_by_the_graph() -> None:
    """xs names c = a * b, a value of the graph: the differentiated function
    starts there, and the Mul computing c is not differentiated."""
    a, b = draw([2, 3], np.float32), draw([3], np.float32)
    c = a * b
    forward = [helper.make_node("Mul", ["a", "b"], ["c"]), helper.make_node("Tanh", ["c"], ["y"])]
    model = gradient_model(forward, {"a": a, "b": b, "c": c}, ["c"], "y")
    del model.graph.input[2]
    got = onnxc.compile(model, cache=False).run({"a": a, "b": b})["d_c"]
    want = numeric_gradient(np.tanh, [c], 0)
    np.testing.assert_allclose(got, want, *TOLERANCES[np.float32])


CHAIN = [
    helper.make_node("Mul", ["a", "b"], ["c"]),
    helper.make_node("Tanh", ["c"], ["d"]),
    helper.make_node("Add", ["d", "c"], ["e"]),
    helper.make_node("MatMul", ["e", "w"], ["f"]),
    helper.make_node("Sigmoid", ["f"], ["g"]),
    helper.make_node("Relu", ["f"], ["r"]),
    helper.make_node("Sub", ["g", "r"], ["h"]),
    helper.make_node("Div", ["h", "s"], ["k"]),
    helper.make_node("MatMul", ["a", "w"], ["m"]),
    helper.make_node("Add", ["k", "m"], ["y"]),
]
"""y from a [2, 3], b [3], w [3, 2] and s [2] (not differentiated): c, f,
a and w are each read twice, so their gradients are sums."""


def chain(a: np.ndarray, b: np.ndarray, w: np.ndarray, s: np.ndarray) -> np.ndarray:
    c = a * b
    f = (np.tanh(c) + c) @ w
    return (_sigmoid(f) - np.maximum(f, 0.0)) / s + a @ w


@pytest.mark.parametrize("dtype", DTYPES)
def test_chain_accumulates_gradients(dtype: type) -> None:
    feeds = {
        "a": draw([2, 3], dtype),
        "b": draw([3], dtype),
        "w": draw([3, 2], dtype),
        "s": draw([2], dtype),
    }
    model = gradient_model(CHAIN, feeds, ["a", "b", "w"], "y")
    assert_gradients(model, feeds, chain, ["a", "b", "w", "s"], ["a", "b", "w"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_x_that_y_does_not_depend_on_gets_zeros(dtype: type) -> None:
    """b is an input of the graph, and of no node on the way to y."""
    feeds = {"a": draw([2, 3], dtype), "b": draw([4, 1], dtype)}
    model = gradient_model([helper.make_node("Exp", ["a"], ["y"])], feeds, ["a", "b"], "y")
    assert_gradients(model, feeds, lambda a, b: np.exp(a) + 0 * np.sum(b), ["a", "b"], ["a", "b"])


def test_y_that_depends_on_no_x_gives_zeros() -> None:
    feeds = {"a": draw([3], np.float64), "z": draw([2], np.float64)}
    model = gradient_model([helper.make_node("Tanh", ["z"], ["y"])], feeds, ["a"], "y")
    got = onnxc.compile(model, cache=False).run(feeds)["d_a"]
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, np.zeros(3))


COPIED = [
    helper.make_node("Mul", ["a", "b"], ["c"]),
    helper.make_node("Tanh", ["c"], ["d"]),
    helper.make_node("Div", ["d", "s"], ["y"]),
]
"""y = tanh(a b) / s, a [2, 3], b [3], s [2, 1]."""


def copied(a: np.ndarray, b: np.ndarray, s: np.ndarray) -> np.ndarray:
    return np.tanh(a * b) / s


@pytest.mark.parametrize("dtype", DTYPES)
def test_gradient_at_other_values_copies_the_forward_nodes(dtype: type) -> None:
    """Gradient reads a2, b2 and s2 for xs a, b and zs s: the gradient is
    taken there, and y keeps its value at a, b and s."""
    shapes = {"a": [2, 3], "b": [3], "s": [2, 1]}
    feeds = {name: draw(shape, dtype) for name, shape in shapes.items()}
    feeds |= {f"{name}2": draw(shape, dtype) for name, shape in shapes.items()}
    model = gradient_model(COPIED, feeds, ["a", "b"], "y", reads=["a2", "b2", "s2"], zs=["s"])
    model.graph.output.append(declared("y", feeds["a"] * feeds["s"]))
    assert_gradients(model, feeds, copied, ["a2", "b2", "s2"], ["a", "b"])
    got = onnxc.compile(model, cache=False).run(feeds)["y"]
    rtol, atol = TOLERANCES[dtype]
    np.testing.assert_allclose(got, copied(feeds["a"], feeds["b"], feeds["s"]), rtol, atol)


def test_gradient_before_its_forward_nodes_copies_them() -> None:
    feeds = {"a": draw([2, 3], np.float32), "b": draw([3], np.float32)}
    feeds["s"] = draw([2, 1], np.float32)
    model = gradient_model(COPIED, feeds, ["a", "b"], "y", zs=["s"], first=True)
    assert_gradients(model, feeds, copied, ["a", "b", "s"], ["a", "b"])


def test_operator_without_a_rule_is_refused() -> None:
    feeds = {"a": draw([2, 3], np.float32)}
    forward = [
        helper.make_node("Sin", ["a"], ["c"], name="sine"),
        helper.make_node("Exp", ["c"], ["y"]),
    ]
    pattern = (
        r"node 'grad' \(Gradient\): .*node 'sine' \(Sin\) on the way to 'y' "
        r"cannot be differentiated"
    )
    assert_refused_in_one_line(gradient_model(forward, feeds, ["a"], "y"), pattern)


def test_forward_node_with_a_subgraph_is_refused() -> None:
    feeds = {"a": draw([2, 3], np.float32), "flag": np.array(True)}
    branch = helper.make_graph(
        [helper.make_node("Neg", ["a"], ["negated"])],
        "branch",
        [],
        [helper.make_tensor_value_info("negated", TensorProto.FLOAT, [2, 3])],
    )
    choose = helper.make_node(
        "If", ["flag"], ["c"], name="choose", then_branch=branch, else_branch=branch
    )
    forward = [choose, helper.make_node("Exp", ["c"], ["y"])]
    pattern = r"node 'grad' \(Gradient\): .*node 'choose' \(If\) on the way to 'y' has subgraphs"
    assert_refused_in_one_line(gradient_model(forward, feeds, ["a"], "y"), pattern)
