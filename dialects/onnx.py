"""The `onnx` dialect: one operation per default-domain ONNX operator.

The operation classes are generated when this module is imported, from the
operator schemas that the `onnx` package ships (`onnx.defs`), at the opset
`TARGET_OPSET`. Each class is named after its operator (`ConvOp` for `onnx.Conv`)
and can be imported from this module like a hand-written one.

How a schema becomes an operation:

- every formal input is an operand: a tensor, or `none` for an omitted optional
  input (produced by `onnx.NoValue`, so operand positions always match the spec);
  a variadic input is a variadic operand;
- every formal output is a result, `none` when an optional output is not
  produced; a variadic output is a variadic result;
- every attribute is a property spelled as in the spec: INT `i64`, FLOAT `f32`,
  STRING a string, INTS `array<i64: ...>`, FLOATS `array<f32: ...>`, STRINGS an
  array of strings, TENSOR a dense or `dense_resource` elements attribute, GRAPH a
  region;
- the verifier checks the element types against the schema's type constraints,
  that one type variable binds one element type, and required attributes.

Operations use the generic textual form, which round-trips through `xdsl-opt`.
"""

from __future__ import annotations

import keyword
import sys
from collections.abc import Sequence
from typing import Any, ClassVar

import onnx
from onnx.defs import OpSchema
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    NoneType,
    Signedness,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    opt_region_def,
    prop_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.operations import AttrSizedOperandSegments, AttrSizedResultSegments
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from onnxc.dialects.constants import elements_to_numpy

TARGET_OPSET: int = onnx.defs.onnx_opset_version()
"""The default-domain opset the dialect is generated for; older models are
upgraded to it on import."""

# ONNX element type name (as in "tensor(float)") <-> xDSL element type.
_ELEMENT_TYPES: dict[str, Attribute] = {
    "float": Float32Type(),
    "double": Float64Type(),
    "float16": Float16Type(),
    "bfloat16": BFloat16Type(),
    "int8": IntegerType(8),
    "int16": IntegerType(16),
    "int32": IntegerType(32),
    "int64": IntegerType(64),
    "uint8": IntegerType(8, Signedness.UNSIGNED),
    "uint16": IntegerType(16, Signedness.UNSIGNED),
    "uint32": IntegerType(32, Signedness.UNSIGNED),
    "uint64": IntegerType(64, Signedness.UNSIGNED),
    "bool": IntegerType(1),
}
_ELEMENT_NAMES: dict[Attribute, str] = {t: n for n, t in _ELEMENT_TYPES.items()}

# onnx.TensorProto data type code -> element type name.
_DTYPE_NAMES: dict[int, str] = {
    onnx.TensorProto.FLOAT: "float",
    onnx.TensorProto.DOUBLE: "double",
    onnx.TensorProto.FLOAT16: "float16",
    onnx.TensorProto.BFLOAT16: "bfloat16",
    onnx.TensorProto.INT8: "int8",
    onnx.TensorProto.INT16: "int16",
    onnx.TensorProto.INT32: "int32",
    onnx.TensorProto.INT64: "int64",
    onnx.TensorProto.UINT8: "uint8",
    onnx.TensorProto.UINT16: "uint16",
    onnx.TensorProto.UINT32: "uint32",
    onnx.TensorProto.UINT64: "uint64",
    onnx.TensorProto.BOOL: "bool",
}


def element_type_for_dtype(dtype: int) -> Attribute | None:
    """The xDSL element type of an `onnx.TensorProto` data type, or None if the
    dialect has no type for it (strings, complex, 4-bit and 8-bit floats)."""
    name = _DTYPE_NAMES.get(dtype)
    return None if name is None else _ELEMENT_TYPES[name]


def dtype_for_element_type(element_type: Attribute) -> int:
    """The `onnx.TensorProto` data type code of an xDSL element type."""
    name = _ELEMENT_NAMES[element_type]
    return next(code for code, n in _DTYPE_NAMES.items() if n == name)


def element_type_name(element_type: Attribute) -> str:
    """The ONNX spelling of an element type (`float`, `int64`, ...)."""
    return _ELEMENT_NAMES.get(element_type, str(element_type))


class OnnxOp(IRDLOperation):
    """Base of every generated `onnx.*` operation.

    `SCHEMA` is the operator schema the class was generated from. Besides the
    generic verification, it offers `attr(name)`, an attribute's value as a plain
    Python or numpy value with the schema's default applied.
    """

    SCHEMA: ClassVar[OpSchema]
    ATTRIBUTE_NAMES: ClassVar[dict[str, str]]
    """ONNX attribute name -> property name (the same but for GRAPH attributes,
    which are regions)."""

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
        """'name (OpType)' for messages: the ONNX node name when known."""
        node = self.attributes.get("onnx_node_name")
        label = node.data if isinstance(node, StringAttr) else "<unnamed>"
        return f"node '{label}' ({self.SCHEMA.name})"


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
    if isinstance(value, DenseIntOrFPElementsAttr | DenseResourceAttr):
        return elements_to_numpy(value)
    raise TypeError(f"no Python form for attribute {value}")


def _proto_attribute_value(proto: onnx.AttributeProto) -> Any:
    value = onnx.helper.get_attribute_value(proto)
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, onnx.TensorProto):
        return onnx.numpy_helper.to_array(value)
    if isinstance(value, list) and value and isinstance(value[0], bytes):
        return [v.decode() for v in value]
    return list(value) if isinstance(value, Sequence) else value


def _formal_type_strings(schema: OpSchema, formal: OpSchema.FormalParameter) -> set[str]:
    for constraint in schema.type_constraints:
        if constraint.type_param_str == formal.type_str:
            return set(constraint.allowed_type_strs)
    return {formal.type_str}


def _verify_types(op: OnnxOp) -> None:
    schema = op.SCHEMA
    bound: dict[str, Attribute] = {}

    def check(kind: str, formal: OpSchema.FormalParameter, values: Sequence[Any]) -> None:
        allowed = _formal_type_strings(schema, formal)
        for value in values:
            value_type = value.type
            if isinstance(value_type, NoneType):
                if formal.option != OpSchema.FormalParameterOption.Optional:
                    raise VerifyException(f"onnx.{schema.name}: {kind} '{formal.name}' is required")
                continue
            if not isinstance(value_type, TensorType):
                continue  # sequences, optionals and maps are not checked here
            element = value_type.get_element_type()
            spelled = f"tensor({element_type_name(element)})"
            if spelled not in allowed:
                raise VerifyException(
                    f"onnx.{schema.name}: {kind} '{formal.name}' has type "
                    f"{spelled}, expected one of {', '.join(sorted(allowed))}"
                )
            variable = formal.type_str
            if variable in bound and bound[variable] != element and (formal.is_homogeneous):
                raise VerifyException(
                    f"onnx.{schema.name}: {kind} '{formal.name}' has element type "
                    f"{element_type_name(element)}, but type variable {variable} "
                    f"is already {element_type_name(bound[variable])}"
                )
            bound.setdefault(variable, element)

    for kind, formals, values in (
        ("input", schema.inputs, op.operands),
        ("output", schema.outputs, op.results),
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


# --- generation ---------------------------------------------------------------

_RESERVED = set(dir(IRDLOperation)) | {
    "SCHEMA",
    "ATTRIBUTE_NAMES",
    "attr",
    "node_label",
}

_TENSOR_ELEMENTS = DenseIntOrFPElementsAttr | DenseResourceAttr


def _python_name(name: str, taken: set[str]) -> str:
    candidate = name if name.isidentifier() else "".join(c if c.isalnum() else "_" for c in name)
    while keyword.iskeyword(candidate) or candidate in _RESERVED or candidate in taken:
        candidate += "_"
    taken.add(candidate)
    return candidate


def _property_constraint(attr_type: OpSchema.AttrType) -> Any:
    t = OpSchema.AttrType
    return {
        t.INT: IntegerAttr,
        t.FLOAT: FloatAttr,
        t.STRING: StringAttr,
        t.INTS: DenseArrayBase,
        t.FLOATS: DenseArrayBase,
        t.STRINGS: ArrayAttr,
        t.TENSOR: _TENSOR_ELEMENTS,
    }.get(attr_type, AnyAttr())


def _is_tensor_only(schema: OpSchema, formal: OpSchema.FormalParameter) -> bool:
    return all(s.startswith("tensor(") for s in _formal_type_strings(schema, formal))


def _value_constraint(schema: OpSchema, formal: OpSchema.FormalParameter) -> Any:
    if not _is_tensor_only(schema, formal):
        return AnyAttr()
    if formal.option == OpSchema.FormalParameterOption.Optional:
        return TensorType | NoneType
    return TensorType


def _generate(schema: OpSchema) -> type[OnnxOp]:
    taken: set[str] = set()
    body: dict[str, Any] = {
        "name": f"onnx.{schema.name}",
        "SCHEMA": schema,
        "__annotations__": {
            "SCHEMA": ClassVar[OpSchema],
            "ATTRIBUTE_NAMES": ClassVar[dict[str, str]],
        },
        "__doc__": f"`onnx.{schema.name}` (opset {schema.since_version}), generated "
        "from the ONNX schema.\n\n" + (schema.doc or "").strip().split("\n\n")[0],
        "__module__": __name__,
    }
    variadic = OpSchema.FormalParameterOption.Variadic
    for formal in schema.inputs:
        constraint = _value_constraint(schema, formal)
        define = var_operand_def if formal.option == variadic else operand_def
        body[_python_name(formal.name, taken)] = define(constraint)
    for formal in schema.outputs:
        constraint = _value_constraint(schema, formal)
        define = var_result_def if formal.option == variadic else result_def
        body[_python_name(formal.name, taken)] = define(constraint)
    attribute_names: dict[str, str] = {}
    for name, attribute in sorted(schema.attributes.items()):
        python = _python_name(name, taken)
        attribute_names[name] = name
        if attribute.type == OpSchema.AttrType.GRAPH:
            body[python] = region_def() if attribute.required else opt_region_def()
            continue
        constraint = _property_constraint(attribute.type)
        define = prop_def if attribute.required else opt_prop_def
        body[python] = define(constraint, prop_name=name)
    body["ATTRIBUTE_NAMES"] = attribute_names
    options: list[Any] = []
    if sum(f.option == variadic for f in schema.inputs) > 1:
        options.append(AttrSizedOperandSegments(as_property=True))
    if sum(f.option == variadic for f in schema.outputs) > 1:
        options.append(AttrSizedResultSegments(as_property=True))
    if options:
        body["irdl_options"] = tuple(options)
    cls = type(f"{schema.name}Op", (OnnxOp,), body)
    return irdl_op_definition(cls)


def _schemas() -> list[OpSchema]:
    names = sorted({s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain == ""})
    schemas: list[OpSchema] = []
    for name in names:
        try:
            schema = onnx.defs.get_schema(name, TARGET_OPSET, "")
        except onnx.defs.SchemaError:
            continue  # removed before TARGET_OPSET
        if not schema.deprecated:
            schemas.append(schema)
    return schemas


OPS: dict[str, type[OnnxOp]] = {s.name: _generate(s) for s in _schemas()}
"""ONNX op_type -> operation class."""

_module = sys.modules[__name__]
for _op in OPS.values():
    setattr(_module, _op.__name__, _op)

ONNX = Dialect("onnx", [NoValueOp, *OPS.values()], [])

__all__ = [
    "ONNX",
    "OPS",
    "TARGET_OPSET",
    "NoValueOp",
    "OnnxOp",
    "attribute_to_python",
    "dtype_for_element_type",
    "element_type_for_dtype",
    "element_type_name",
    *(op.__name__ for op in OPS.values()),
]
