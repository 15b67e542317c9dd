"""What every `onnx.*` operation shares: the `OnnxOp` base class (schema-driven
verification, attribute values with defaults, node labels for messages), the
hand-written `onnx.NoValue`, and the attribute <-> Python conversions.

The operation classes themselves are generated from the ONNX schemas into
`onnx_ops.py` (see `gen_onnx_ops.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import onnx
from onnx.defs import OpSchema
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    FloatAttr,
    IntegerAttr,
    NoneType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import IsTerminator, Pure
from xdsl.utils.exceptions import VerifyException

from onnxc import element_types
from onnxc.dialects.constants import elements_to_numpy
from onnxc.dialects.onnxc_strings import StringElementsAttr
from onnxc.ir_names import ONNX_NODE_NAME

TensorValueAttr = DenseIntOrFPElementsAttr | DenseResourceAttr | StringElementsAttr
"""A TENSOR attribute's value: numbers inline or as a resource, or strings."""


def schema(op_type: str, opset: int, domain: str = "") -> OpSchema:
    """The schema of `op_type` in `domain` (default: ai.onnx) in force at `opset`."""
    return onnx.defs.get_schema(op_type, opset, domain)


def element_type_name(element_type: Attribute) -> str:
    """The ONNX spelling of an element type (`float`, `int64`, ...)."""
    row = element_types.of_ir(element_type)
    return row.name if row is not None else str(element_type)


def node_name(op: IRDLOperation) -> str:
    """The ONNX node name an operation carries, or ''."""
    name = op.attributes.get(ONNX_NODE_NAME)
    return name.data if isinstance(name, StringAttr) else ""


class OnnxOp(IRDLOperation):
    """Base of every generated `onnx.*` operation.

    `SCHEMA` is the operator schema the class was generated from. Besides the
    generic verification, it offers `attr(name)`, an attribute's value as a plain
    Python or numpy value with the schema's default applied.
    """

    SCHEMA: ClassVar[OpSchema]

    def verify_(self) -> None:
        _verify_types(self)
        for name, attribute in self.SCHEMA.attributes.items():
            if attribute.required and name not in self.properties:
                if attribute.type != OpSchema.AttrType.GRAPH:
                    raise VerifyException(
                        f"onnx.{self.SCHEMA.name}: missing required attribute '{name}'"
                    )

    def attr(self, name: str) -> Any:
        """The value of attribute `name` as Python/numpy data: int, float, str,
        list[int], list[float], list[str] or np.ndarray (TENSOR); the schema's
        default when absent, None when absent without a default."""
        if name not in self.SCHEMA.attributes:
            raise KeyError(f"onnx.{self.SCHEMA.name} has no attribute '{name}'")
        value = self.properties.get(name)
        if value is None:
            default = self.SCHEMA.attributes[name].default_value
            if default is None or not default.name:
                return None
            return _proto_attribute_value(default)
        return attribute_to_python(value)

    def node_label(self) -> str:
        """'node NAME (OpType)' for messages: the ONNX node name when known."""
        return f"node '{node_name(self) or '<unnamed>'}' ({self.SCHEMA.name})"


def attribute_to_python(value: Attribute) -> Any:
    """An attribute of the onnx dialect as plain Python/numpy data."""
    if isinstance(value, IntegerAttr):
        return int(value.value.data)
    if isinstance(value, FloatAttr):
        return float(value.value.data)
    if isinstance(value, StringAttr):
        return value.data
    if isinstance(value, DenseArrayBase):
        return list(value.get_values())
    if isinstance(value, ArrayAttr):
        return [attribute_to_python(v) for v in value.data]
    if isinstance(value, TensorValueAttr):
        return elements_to_numpy(value)
    raise TypeError(f"no Python form for attribute {value}")


def _proto_attribute_value(proto: onnx.AttributeProto) -> Any:
    value = onnx.helper.get_attribute_value(proto)
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    if isinstance(value, list):
        items: list[Any] = list(value)
        return [v.decode() if isinstance(v, bytes) else v for v in items]
    return value


def formal_type_strings(op_schema: OpSchema, formal: OpSchema.FormalParameter) -> set[str]:
    """The type strings (`tensor(float)`, ...) a formal input or output allows."""
    for constraint in op_schema.type_constraints:
        if constraint.type_param_str == formal.type_str:
            return set(constraint.allowed_type_strs)
    return {formal.type_str}


def _verify_types(op: OnnxOp) -> None:
    op_schema = op.SCHEMA
    bound: dict[str, Attribute] = {}

    def check(kind: str, formal: OpSchema.FormalParameter, values: Sequence[SSAValue]) -> None:
        allowed = formal_type_strings(op_schema, formal)
        for value in values:
            value_type = value.type
            if isinstance(value_type, NoneType):
                if formal.option != OpSchema.FormalParameterOption.Optional:
                    raise VerifyException(
                        f"onnx.{op_schema.name}: {kind} '{formal.name}' is required"
                    )
                continue
            if not isinstance(value_type, TensorType):
                continue  # sequences, optionals and maps are not checked here
            element = value_type.get_element_type()
            spelled = f"tensor({element_type_name(element)})"
            if spelled not in allowed:
                raise VerifyException(
                    f"onnx.{op_schema.name}: {kind} '{formal.name}' has type "
                    f"{spelled}, expected one of {', '.join(sorted(allowed))}"
                )
            variable = formal.type_str
            if variable in bound and bound[variable] != element and formal.is_homogeneous:
                raise VerifyException(
                    f"onnx.{op_schema.name}: {kind} '{formal.name}' has element type "
                    f"{element_type_name(element)}, but type variable {variable} "
                    f"is already {element_type_name(bound[variable])}"
                )
            bound.setdefault(variable, element)

    for kind, formals, values in (
        ("input", op_schema.inputs, op.operands),
        ("output", op_schema.outputs, op.results),
    ):
        position = 0
        for formal in formals:
            if formal.option == OpSchema.FormalParameterOption.Variadic:
                check(kind, formal, values[position:])
                position = len(values)
            elif position < len(values):
                check(kind, formal, [values[position]])
                position += 1


@irdl_op_definition
class NoValueOp(IRDLOperation):
    """`onnx.NoValue` stands for an omitted optional input: its `none` result is
    passed where the node gave an empty input name."""

    name = "onnx.NoValue"
    result = result_def(NoneType)
    traits = traits_def(Pure())

    def __init__(self) -> None:
        super().__init__(result_types=[NoneType()])


@irdl_op_definition
class YieldOp(IRDLOperation):
    """`onnx.Yield` ends the region of a subgraph (If's branches, Loop's and
    Scan's bodies): its operands are the subgraph's outputs, in order. It is
    no ONNX operator; the importer writes it where a subgraph lists its
    outputs, and convert-onnx-to-linalg turns it into writes of the values
    into the buffers of the operation's results or carried state."""

    name = "onnx.Yield"
    values = var_operand_def()
    traits = traits_def(IsTerminator())

    def __init__(self, values: Sequence[SSAValue]) -> None:
        super().__init__(operands=[values])
