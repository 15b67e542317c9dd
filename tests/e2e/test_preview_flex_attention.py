"""ai.onnx.preview's FlexAttention compiled through its expansion
(`onnxc/frontend/expansions/preview_flex_attention.py`), beyond the
backend suite's cases: score_mod adding a bias that differs by position
(a uniform one would leave the softmax unchanged), prob_mod weighting the
keys, grouped-query heads (4 query heads over 2 key/value heads), an
explicit scale, an explicit softmax_precision, in float32, float64 and
float16, each compared with onnx.reference (onnxruntime has no kernel).

Tolerances (rtol, atol): float32 1e-5, 1e-6; float64 1e-12, 1e-12;
float16 2e-3, 2e-3 (two units of its last place near 1: the products of
Q and K may be summed in another order than numpy's). A float32 softmax of
float64 inputs is compared at float32's tolerances.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnxc
from onnxc.dialects.onnx import TARGET_OPSET
from tests.e2e.contrib_ops import assert_refused_in_one_line

PREVIEW = "ai.onnx.preview"
RNG = np.random.default_rng(31)
F, F16, F64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.DOUBLE
TOLERANCES: dict[int, tuple[float, float]] = {
    F: (1e-5, 1e-6),
    F64: (1e-12, 1e-12),
    F16: (2e-3, 2e-3),
}
"""(rtol, atol) by element type: of the inputs, or of a softmax_precision
of fewer bits (a float32 softmax of float64 inputs is compared as float32)."""


def score_bias(element: int, length: int, keys: int) -> onnx.GraphProto:
    """score_mod: scores + a random bias of shape [length, keys]."""
    bias = RNG.uniform(-2.0, 2.0, (length, keys)).astype(helper.tensor_dtype_to_np_dtype(element))
    return _modifier("Add", element, numpy_helper.from_array(bias, "bias"))


def prob_weights(element: int, keys: int) -> onnx.GraphProto:
    """prob_mod: probabilities * random weights of shape [keys]."""
    weights = RNG.uniform(0.1, 2.0, keys).astype(helper.tensor_dtype_to_np_dtype(element))
    return _modifier("Mul", element, numpy_helper.from_array(weights, "weights"))


def _modifier(op: str, element: int, operand: onnx.TensorProto) -> onnx.GraphProto:
    shape = ["B", "H", "L", "S"]
    return helper.make_graph(
        [helper.make_node(op, ["value", operand.name], ["modified"])],
        f"{op.lower()}_modifier",
        [helper.make_tensor_value_info("value", element, shape)],
        [helper.make_tensor_value_info("modified", element, shape)],
        [operand],
    )


@dataclass
class Flex:
    """A FlexAttention over Q [1, heads, length, size], K [1, kv_heads,
    keys, size] and V [1, kv_heads, keys, v_size] of element type
    `element`, with `attributes`."""

    element: int
    heads: int = 2
    kv_heads: int = 2
    length: int = 3
    keys: int = 5
    size: int = 4
    v_size: int = 6
    attributes: dict[str, Any] = field(default_factory=dict[str, Any])

    def shapes(self) -> dict[str, list[int]]:
        return {
            "Q": [1, self.heads, self.length, self.size],
            "K": [1, self.kv_heads, self.keys, self.size],
            "V": [1, self.kv_heads, self.keys, self.v_size],
        }

    def model(self, q: str = "Q", before: Sequence[onnx.NodeProto] = ()) -> onnx.ModelProto:
        """The node reading `q` (computed by `before`) and K, V."""
        node = helper.make_node(
            "FlexAttention", [q, "K", "V"], ["Y"], name="flex", domain=PREVIEW, **self.attributes
        )
        output = [1, self.heads, self.length, self.v_size]
        graph = helper.make_graph(
            [*before, node],
            "flex_attention",
            [helper.make_tensor_value_info(n, self.element, s) for n, s in self.shapes().items()],
            [helper.make_tensor_value_info("Y", self.element, output)],
        )
        opsets = [helper.make_opsetid("", 26), helper.make_opsetid(PREVIEW, 1)]
        model = helper.make_model(graph, opset_imports=opsets)
        model.ir_version = 10
        return model

    def tolerance(self) -> tuple[float, float]:
        precision = self.attributes.get("softmax_precision", self.element)
        return max(TOLERANCES[self.element], TOLERANCES[precision])

    def feeds(self) -> dict[str, np.ndarray]:
        dtype = helper.tensor_dtype_to_np_dtype(self.element)
        return {n: RNG.uniform(-1.5, 1.5, s).astype(dtype) for n, s in self.shapes().items()}


def _cases() -> dict[str, Flex]:
    cases: dict[str, Flex] = {}
    for element, suffix in [(F, ""), (F64, "_float64"), (F16, "_float16")]:
        precision = F64 if element == F64 else F
        cases |= {
            f"defaults{suffix}": Flex(element),
            f"score_mod{suffix}": Flex(
                element, attributes={"score_mod": score_bias(precision, 3, 5)}
            ),
            f"prob_mod{suffix}": Flex(element, attributes={"prob_mod": prob_weights(precision, 5)}),
            f"grouped_heads{suffix}": Flex(
                element, heads=4, attributes={"score_mod": score_bias(precision, 3, 5)}
            ),
            f"scale{suffix}": Flex(element, length=4, keys=4, attributes={"scale": 0.3}),
        }
    return cases | {
        "grouped_heads_both_modifiers": Flex(
            F,
            heads=4,
            length=2,
            keys=3,
            attributes={"score_mod": score_bias(F, 2, 3), "prob_mod": prob_weights(F, 3)},
        ),
        "softmax_precision_double": Flex(F, attributes={"softmax_precision": F64}),
        "softmax_precision_double_score_mod": Flex(
            F, heads=4, attributes={"softmax_precision": F64, "score_mod": score_bias(F64, 3, 5)}
        ),
        "softmax_precision_float_of_float64": Flex(F64, attributes={"softmax_precision": F}),
    }


CASES = _cases()


def reference(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> np.ndarray:
    """Y as onnx.reference computes it."""
    (found,) = ReferenceEvaluator(model).run(None, feeds)
    return np.asarray(found)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_reference(name: str) -> None:
    case = CASES[name]
    model, feeds = case.model(), case.feeds()
    expected = reference(model, feeds)
    got = onnxc.compile(model, cache=False).run(feeds)["Y"]
    assert (got.shape, got.dtype) == (expected.shape, expected.dtype)
    rtol, atol = case.tolerance()
    np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol, atol)


def test_undeclared_query_type_without_softmax_precision_is_refused() -> None:
    """Q comes from a node whose output type the graph does not declare; at
    the dialect's opset, so that no upgrade infers it."""
    model = Flex(F).model("query", [helper.make_node("Identity", ["Q"], ["query"])])
    model.opset_import[0].version = TARGET_OPSET
    pattern = r"node 'flex' \(FlexAttention\): the element type of Q is not declared"
    assert_refused_in_one_line(model, pattern)


def test_undeclared_query_type_with_softmax_precision_compiles() -> None:
    case = Flex(F, attributes={"softmax_precision": F})
    model = case.model("query", [helper.make_node("Identity", ["Q"], ["query"])])
    model.opset_import[0].version = TARGET_OPSET
    feeds = case.feeds()
    expected = reference(model, feeds)
    got = onnxc.compile(model, cache=False).run(feeds)["Y"]
    np.testing.assert_allclose(got, expected, *TOLERANCES[F])
