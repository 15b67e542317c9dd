"""`onnx-fold-constants`: shapes and constant subexpressions become
`onnx.Constant`s, Constant forms are normalised, dead operations go."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.parser import Parser

from onnxc.dialects import onnx as onnx_dialect
from onnxc.dialects.constants import elements_to_numpy
from onnxc.errors import OnnxcError
from onnxc.frontend import import_model
from onnxc.lowering.onnx_fold_constants import OnnxFoldConstantsPass
from onnxc.pipeline import make_context


def fold(module: ModuleOp) -> ModuleOp:
    OnnxFoldConstantsPass().apply(make_context(), module)
    module.verify()
    return module


def parse(text: str) -> ModuleOp:
    return Parser(make_context(), text).parse_module()


def model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, tuple[int, ...]],
    outputs: Mapping[str, tuple[tuple[int, ...], int]],
    initializers: dict[str, np.ndarray] | None = None,
) -> onnx.ModelProto:
    """A model over float `inputs`; `outputs` maps each name to (shape, dtype)."""
    graph = helper.make_graph(
        nodes,
        "test",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs.items()],
        [helper.make_tensor_value_info(n, t, s) for n, (s, t) in outputs.items()],
        initializer=[numpy_helper.from_array(v, n) for n, v in (initializers or {}).items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def onnx_ops(module: ModuleOp) -> list[str]:
    return [
        op.name
        for op in module.walk()
        if isinstance(op, onnx_dialect.OnnxOp | onnx_dialect.NoValueOp)
    ]


def returned(module: ModuleOp) -> list[Any]:
    """The constant value of each returned value (None if not a constant)."""
    ret = next(op for op in module.walk() if isinstance(op, func.ReturnOp))
    values: list[Any] = []
    for value in ret.arguments:
        owner = value.owner
        if isinstance(owner, onnx_dialect.ConstantOp):
            values.append(elements_to_numpy(owner.properties["value"]))
        else:
            values.append(None)
    return values


def test_pytorch_flatten_chain_folds_to_a_constant_shape() -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], name="shape"),
        helper.make_node("Gather", ["shape", "zero"], ["n"], axis=0, name="gather"),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n1"], name="unsqueeze"),
        helper.make_node("Concat", ["n1", "minus_one"], ["target"], axis=0, name="cat"),
        helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape"),
    ]
    m = model(
        nodes,
        {"x": (2, 3, 4)},
        {"y": ((2, 12), TensorProto.FLOAT)},
        {
            "zero": np.array(0, np.int64),
            "axes": np.array([0], np.int64),
            "minus_one": np.array([-1], np.int64),
        },
    )
    module = fold(import_model(m).module)
    assert onnx_ops(module) == ["onnx.Constant", "onnx.Reshape"]
    reshape = next(o for o in module.walk() if isinstance(o, onnx_dialect.ReshapeOp))
    shape_op = reshape.shape.owner
    assert isinstance(shape_op, onnx_dialect.ConstantOp) and shape_op.value is not None
    assert shape_op.attributes["onnx_node_name"] == StringAttr("cat")
    np.testing.assert_array_equal(elements_to_numpy(shape_op.value), [2, -1])


@pytest.mark.parametrize(
    "start,end",
    [(None, None), (1, None), (-2, None), (0, -1), (1, 3), (-10, 10), (3, 1)],
)
def test_shape_slices(start: int | None, end: int | None) -> None:
    attributes: dict[str, Any] = {
        k: v for k, v in (("start", start), ("end", end)) if v is not None
    }
    x_shape = (2, 3, 4, 5)
    expected = np.array(x_shape[slice(start, end)], np.int64)
    node = helper.make_node("Shape", ["x"], ["y"], **attributes)
    m = model([node], {"x": x_shape}, {"y": (expected.shape, TensorProto.INT64)})
    (value,) = returned(fold(import_model(m).module))
    assert value.dtype == np.int64
    np.testing.assert_array_equal(value, expected)


def test_size() -> None:
    node = helper.make_node("Size", ["x"], ["y"])
    m = model([node], {"x": (2, 3, 4)}, {"y": ((), TensorProto.INT64)})
    (value,) = returned(fold(import_model(m).module))
    assert value.shape == () and value == 24


C = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5

FOLDS: dict[str, tuple[onnx.NodeProto, dict[str, np.ndarray], list[np.ndarray]]] = {
    "cast_int_to_float": (
        helper.make_node("Cast", ["i"], ["y"], to=TensorProto.FLOAT),
        {"i": np.array([1, -2, 3], np.int32)},
        [np.array([1, -2, 3], np.float32)],
    ),
    "cast_float_to_int64": (
        helper.make_node("Cast", ["c"], ["y"], to=TensorProto.INT64),
        {"c": C},
        [C.astype(np.int64)],
    ),
    "add_broadcast": (
        helper.make_node("Add", ["c", "b"], ["y"]),
        {"c": C, "b": np.array([1, 2, 3], np.float32)},
        [C + np.array([1, 2, 3], np.float32)],
    ),
    "transpose": (
        helper.make_node("Transpose", ["c"], ["y"]),
        {"c": C},
        [C.T],
    ),
    "slice_negative_step": (
        helper.make_node("Slice", ["c", "s", "e", "", "t"], ["y"]),
        {
            "c": C,
            "s": np.array([-1], np.int64),
            "e": np.array([-10], np.int64),
            "t": np.array([-1], np.int64),
        },
        [C[::-1]],
    ),
    "constant_of_shape": (
        helper.make_node(
            "ConstantOfShape",
            ["s"],
            ["y"],
            value=numpy_helper.from_array(np.array([7], np.int32)),
        ),
        {"s": np.array([2, 2], np.int64)},
        [np.full((2, 2), 7, np.int32)],
    ),
    "split_two_results": (
        helper.make_node("Split", ["c"], ["y", "z"], axis=1, num_outputs=2),
        {"c": np.arange(8, dtype=np.float32).reshape(2, 4)},
        [
            np.arange(8, dtype=np.float32).reshape(2, 4)[:, :2],
            np.arange(8, dtype=np.float32).reshape(2, 4)[:, 2:],
        ],
    ),
    "large_result_as_resource": (
        helper.make_node("Tile", ["c", "r"], ["y"]),
        {"c": C, "r": np.array([4, 4], np.int64)},
        [np.tile(C, (4, 4))],
    ),
}


@pytest.mark.parametrize("name", sorted(FOLDS))
def test_constant_operands_fold(name: str) -> None:
    node, constants, expected = FOLDS[name]
    outputs = {
        out: (e.shape, helper.np_dtype_to_tensor_dtype(e.dtype))
        for out, e in zip(node.output, expected, strict=True)
    }
    m = model([node], {}, outputs, constants)
    module = fold(import_model(m).module)
    assert set(onnx_ops(module)) == {"onnx.Constant"}
    values = returned(module)
    for value, want in zip(values, expected, strict=True):
        assert value.dtype == want.dtype
        np.testing.assert_array_equal(value, want)


def test_runtime_operands_are_not_folded() -> None:
    node = helper.make_node("Add", ["x", "b"], ["y"])
    m = model(
        [node],
        {"x": (3,)},
        {"y": ((3,), TensorProto.FLOAT)},
        {"b": np.ones(3, np.float32)},
    )
    module = fold(import_model(m).module)
    assert onnx_ops(module) == ["onnx.Constant", "onnx.Add"]


def test_random_operations_are_not_folded() -> None:
    node = helper.make_node("RandomNormalLike", ["c"], ["y"], seed=1.0)
    m = model([node], {}, {"y": ((2, 3), TensorProto.FLOAT)}, {"c": C})
    module = fold(import_model(m).module)
    assert "onnx.RandomNormalLike" in onnx_ops(module)


CONSTANT_FORMS = """
builtin.module {
  func.func @main() -> (tensor<f32>, tensor<2xf32>, tensor<i64>, tensor<3xi64>) {
    %a = "onnx.Constant"() <{value_float = 1.5 : f32}> : () -> tensor<f32>
    %b = "onnx.Constant"() <{value_floats = array<f32: 1.0, 2.5>}> : () -> tensor<2xf32>
    %c = "onnx.Constant"() <{value_int = 7 : i64}> : () -> tensor<i64>
    %d = "onnx.Constant"() <{value_ints = array<i64: 1, -2, 3>}> : () -> tensor<3xi64>
    func.return %a, %b, %c, %d : tensor<f32>, tensor<2xf32>, tensor<i64>, tensor<3xi64>
  }
}
"""


def test_constant_forms_become_value() -> None:
    module = fold(parse(CONSTANT_FORMS))
    constants = [o for o in module.walk() if isinstance(o, onnx_dialect.ConstantOp)]
    assert [set(o.properties) for o in constants] == [{"value"}] * 4
    a, b, c, d = returned(module)
    assert a.dtype == np.float32 and a.shape == () and a == 1.5
    np.testing.assert_array_equal(b, np.array([1.0, 2.5], np.float32))
    assert c.dtype == np.int64 and c.shape == () and c == 7
    np.testing.assert_array_equal(d, np.array([1, -2, 3], np.int64))


DEAD = """
builtin.module {
  func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %w = "onnx.Constant"() <{value = dense<1.0> : tensor<3xf32>}> : () -> tensor<3xf32>
    %a = "onnx.Add"(%x, %w) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %r = "onnx.Relu"(%a) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %n = "onnx.NoValue"() : () -> none
    %y = "onnx.Sigmoid"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
    func.return %y : tensor<2x3xf32>
  }
}
"""


def test_dead_operations_are_erased_to_a_fixed_point() -> None:
    assert onnx_ops(fold(parse(DEAD))) == ["onnx.Sigmoid"]


WRONG_TYPE = """
builtin.module {
  func.func @main() -> tensor<3xf32> {
    %a = "onnx.Constant"() <{value = dense<1.0> : tensor<2xf32>}> : () -> tensor<2xf32>
    %y = "onnx.Neg"(%a) {onnx_node_name = "neg"} : (tensor<2xf32>) -> tensor<3xf32>
    func.return %y : tensor<3xf32>
  }
}
"""


def test_a_fold_that_disagrees_with_the_type_is_an_error() -> None:
    with pytest.raises(OnnxcError, match=r"node 'neg' \(Neg\).*shape \[2\]"):
        fold(parse(WRONG_TYPE))
