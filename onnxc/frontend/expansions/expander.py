"""What an operator expansion writes with (`Expander`) and what it is
(`Expansion`).

An expansion replaces one node of a domain onnxc does not lower (onnxruntime's
com.microsoft operators, the preview domains) by default-domain nodes of the
dialect's opset (`TARGET_OPSET`) that compute the same outputs: the node's
outputs keep their names, so its consumers are untouched, and everything
after the front end (inference, folding, lowering, the kernels) sees only
standard operators. Expansions run before shape inference, so they use no
types: sizes come from `Shape`, and reshapes use `0` and `-1`; folding turns
the shape arithmetic into constants wherever the sizes are known.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper, numpy_helper

from onnxc.errors import UnsupportedError, node_label
from onnxc.frontend.graphs import fresh_name
from onnxc.frontend.rewrites.weights import array_of


@dataclass
class Expander:
    """The node being expanded and the nodes that replace it."""

    node: onnx.NodeProto
    taken: set[str]
    """Every name the model uses; fresh names join it."""
    initializers: Mapping[str, onnx.TensorProto]
    """The initializers visible to the node (of its graph and the graphs around it)."""
    weights: Mapping[str, bytes]
    """The data of detached initializers (`rewrites/weights.py`)."""
    nodes: list[onnx.NodeProto] = field(default_factory=list[onnx.NodeProto])
    """What replaces the node, in order."""
    graph: onnx.GraphProto | None = None
    """The graph the node is in, its nodes as the rewrite found them (an
    expansion that reads the node's surroundings, as Gradient reads the
    nodes computing its `y`, or that adds initializers); None when unknown."""

    # --- reading the node ---------------------------------------------------

    def input(self, index: int) -> str | None:
        """The name of input `index`, None when it is absent or empty."""
        inputs = self.node.input
        return inputs[index] if index < len(inputs) and inputs[index] else None

    def needed(self, index: int, what: str) -> str:
        """Input `index`, which the operator requires (`what` names it)."""
        name = self.input(index)
        if name is None:
            raise self.refuse(f"its input {index} ({what}) is required")
        return name

    def attribute(self, name: str, default: object = None) -> object:
        """The value of attribute `name`, `default` when it is not given."""
        for attribute in self.node.attribute:
            if attribute.name == name:
                return helper.get_attribute_value(attribute)
        return default

    def int_attribute(self, name: str, default: int | None = None) -> int:
        value = self.attribute(name, default)
        if not isinstance(value, int):
            raise self.refuse(f"it needs an integer attribute '{name}'")
        return value

    def float_attribute(self, name: str, default: float | None = None) -> float:
        value = self.attribute(name, default)
        if not isinstance(value, (int, float)):
            raise self.refuse(f"it needs a float attribute '{name}'")
        return float(value)

    def constant_value(self, name: str | None) -> np.ndarray | None:
        """The value of `name` when it is an initializer, else None."""
        if name is None or name not in self.initializers:
            return None
        return array_of(self.initializers[name], dict(self.weights))

    def declared_type(self, name: str) -> int | None:
        """The element type `graph` declares for value `name` (an input,
        output, value_info or initializer of it), None when it declares none."""
        if self.graph is None:
            return None
        graph = self.graph
        for value in [*graph.input, *graph.output, *graph.value_info]:
            if value.name == name and value.type.HasField("tensor_type"):
                return value.type.tensor_type.elem_type or None
        for tensor in graph.initializer:
            if tensor.name == name:
                return tensor.data_type
        return None

    def output(self, index: int) -> str | None:
        """The name of output `index`, None when the node does not produce it."""
        outputs = self.node.output
        return outputs[index] if index < len(outputs) and outputs[index] else None

    def refuse(self, why: str) -> UnsupportedError:
        """The error for a node this expansion cannot replace (raise it)."""
        return UnsupportedError(f"{node_label(self.node)}: {why}")

    # --- writing its replacement ---------------------------------------------

    def fresh(self, base: str) -> str:
        """A new value name, derived from the node's."""
        stem = self.node.name or self.node.op_type
        return fresh_name(f"{stem}_{base}", self.taken)

    def add(
        self,
        op_type: str,
        inputs: Sequence[str | None],
        outputs: int | Sequence[str] = 1,
        **attributes: object,
    ) -> list[str]:
        """Append a default-domain node; its output names (fresh ones when
        `outputs` is a count). A None input is an absent optional one."""
        names = (
            [self.fresh(op_type.lower()) for _ in range(outputs)]
            if isinstance(outputs, int)
            else list(outputs)
        )
        node = helper.make_node(
            op_type, [name or "" for name in inputs], names, name=self.fresh(op_type)
        )
        node.attribute.extend(
            helper.make_attribute(key, value)
            for key, value in sorted(attributes.items())
            if value is not None
        )
        self.nodes.append(node)
        return names

    def op(self, op_type: str, *inputs: str | None, **attributes: object) -> str:
        """Append a one-output default-domain node; its output's name."""
        return self.add(op_type, inputs, 1, **attributes)[0]

    def constant(self, value: np.ndarray | float | int | Sequence[int], base: str = "c") -> str:
        """A Constant node holding `value` (a Python int list is int64, a
        float is float32); its output's name."""
        if isinstance(value, np.ndarray):
            array = value
        elif isinstance(value, float):
            array = np.array(value, np.float32)
        else:
            array = np.array(value, np.int64)
        name = self.fresh(base)
        tensor = numpy_helper.from_array(array, name)
        self.nodes.append(
            helper.make_node("Constant", [], [name], name=self.fresh("Constant"), value=tensor)
        )
        return name

    def like(self, value: float, reference: str, base: str = "c") -> str:
        """A scalar `value` of `reference`'s element type (CastLike)."""
        return self.op("CastLike", self.constant(float(value), base), reference)


Expansion = Callable[[Expander], None]
"""Adds the nodes that compute the node's outputs (named as the node names
them), or raises `expander.refuse(...)`."""

Expansions = Mapping[str, Expansion]
"""A domain's expansions, by op_type."""
