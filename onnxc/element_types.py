"""The element-type table: the one place that knows what an element type is.

Every layer reads it: the onnx dialect (schema type strings), the importer
(TensorProto codes), constants and weights (numpy dtypes), the lowerings (the
scalar kind that picks float / signed / unsigned / bool operations), the memory
planner and the report (sizes), the C printer (storage types, runtime enum), and
the cffi loader (numpy dtypes of C arguments). Adding a type is one row.

Storage follows the C contract in DESIGN.md: bool is a `uint8_t` holding 0 or 1;
integers are `<stdint.h>` types; float16, bfloat16 and the 8-bit floats are
`uint16_t` / `uint8_t` words that generated code converts to float to compute
(runtime_c helpers, round to nearest even). The type decides the storage; an
operation decides the meaning (MLIR's rule): `arith.divui` on a signed type is
an unsigned division.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from onnx import TensorProto
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute


class Kind(enum.Enum):
    """What arithmetic on an element type means."""

    FLOAT = "float"
    SIGNED = "signed"
    UNSIGNED = "unsigned"
    BOOL = "bool"


@dataclass(frozen=True)
class ElementType:
    """One element type, as each layer spells it.

    `name` is the ONNX spelling used in schemas (`tensor(float)`), `onnx_code`
    the `TensorProto.DataType` value (also the runtime's `onnxc_dtype` value),
    `ir_type` the xDSL element type of tensors and memrefs, `c_type` the C
    storage type, `numpy_dtype` the dtype of its arrays in Python, `size` its
    bytes, `kind` the family of scalar operations that compute on it, and
    `compute_type` the type generated code computes in when the storage is not
    a C arithmetic type (float16, bfloat16: `f32`), else None."""

    name: str
    onnx_code: int
    ir_type: Attribute
    c_type: str
    numpy_dtype: np.dtype
    size: int
    kind: Kind
    compute_type: Attribute | None = None
    runtime_name: str | None = None
    """For storage-only floats: the runtime's name of the format, in its
    conversion helpers (`onnxc_f8e4m3fn_to_f32`)."""

    @property
    def enum(self) -> str:
        """The runtime's enumerator, e.g. `ONNXC_DTYPE_FLOAT`."""
        return "ONNXC_DTYPE_" + TensorProto.DataType.Name(self.onnx_code)

    @property
    def bits(self) -> int:
        return 1 if self.kind is Kind.BOOL else self.size * 8

    @property
    def unsigned_c_type(self) -> str:
        """The unsigned C integer type of the same width (wrapping arithmetic,
        unsigned comparisons and shifts); for floats the storage type."""
        return self.c_type if self.kind is Kind.FLOAT else f"uint{self.size * 8}_t"

    @property
    def signed_c_type(self) -> str:
        """The signed C integer type of the same width (signed division,
        comparisons and shifts); for floats the storage type."""
        return self.c_type if self.kind is Kind.FLOAT else f"int{self.size * 8}_t"


def _row(
    name: str,
    code: int,
    ir_type: Attribute,
    c_type: str,
    dtype: type | np.dtype,
    kind: Kind,
    compute: Attribute | None = None,
    runtime_name: str | None = None,
) -> ElementType:
    numpy_type = np.dtype(dtype)
    size = numpy_type.itemsize
    return ElementType(name, code, ir_type, c_type, numpy_type, size, kind, compute, runtime_name)


def _storage_float(
    name: str, code: int, ir_type: Attribute, dtype: type, runtime: str
) -> ElementType:
    """A float format C has no type for: stored as an unsigned word of its
    width, computed in float through the runtime's conversions."""
    width = np.dtype(dtype).itemsize * 8
    return _row(name, code, ir_type, f"uint{width}_t", dtype, Kind.FLOAT, Float32Type(), runtime)


ELEMENT_TYPES: tuple[ElementType, ...] = (
    _row("float", TensorProto.FLOAT, Float32Type(), "float", np.float32, Kind.FLOAT),
    _row("double", TensorProto.DOUBLE, Float64Type(), "double", np.float64, Kind.FLOAT),
    _storage_float("float16", TensorProto.FLOAT16, Float16Type(), np.float16, "f16"),
    _storage_float("bfloat16", TensorProto.BFLOAT16, BFloat16Type(), ml_dtypes.bfloat16, "bf16"),
    _storage_float(
        "float8e4m3fn",
        TensorProto.FLOAT8E4M3FN,
        Float8E4M3FNType(),
        ml_dtypes.float8_e4m3fn,
        "f8e4m3fn",
    ),
    _storage_float(
        "float8e4m3fnuz",
        TensorProto.FLOAT8E4M3FNUZ,
        Float8E4M3FNUZType(),
        ml_dtypes.float8_e4m3fnuz,
        "f8e4m3fnuz",
    ),
    _storage_float(
        "float8e5m2", TensorProto.FLOAT8E5M2, Float8E5M2Type(), ml_dtypes.float8_e5m2, "f8e5m2"
    ),
    _storage_float(
        "float8e5m2fnuz",
        TensorProto.FLOAT8E5M2FNUZ,
        Float8E5M2FNUZType(),
        ml_dtypes.float8_e5m2fnuz,
        "f8e5m2fnuz",
    ),
    _row("int8", TensorProto.INT8, IntegerType(8), "int8_t", np.int8, Kind.SIGNED),
    _row("int16", TensorProto.INT16, IntegerType(16), "int16_t", np.int16, Kind.SIGNED),
    _row("int32", TensorProto.INT32, IntegerType(32), "int32_t", np.int32, Kind.SIGNED),
    _row("int64", TensorProto.INT64, IntegerType(64), "int64_t", np.int64, Kind.SIGNED),
    _row(
        "uint8",
        TensorProto.UINT8,
        IntegerType(8, Signedness.UNSIGNED),
        "uint8_t",
        np.uint8,
        Kind.UNSIGNED,
    ),
    _row(
        "uint16",
        TensorProto.UINT16,
        IntegerType(16, Signedness.UNSIGNED),
        "uint16_t",
        np.uint16,
        Kind.UNSIGNED,
    ),
    _row(
        "uint32",
        TensorProto.UINT32,
        IntegerType(32, Signedness.UNSIGNED),
        "uint32_t",
        np.uint32,
        Kind.UNSIGNED,
    ),
    _row(
        "uint64",
        TensorProto.UINT64,
        IntegerType(64, Signedness.UNSIGNED),
        "uint64_t",
        np.uint64,
        Kind.UNSIGNED,
    ),
    _row("bool", TensorProto.BOOL, IntegerType(1), "uint8_t", np.bool_, Kind.BOOL),
)

STORAGE_FLOATS: tuple[ElementType, ...] = tuple(r for r in ELEMENT_TYPES if r.runtime_name)
"""The float formats stored as words and computed in float."""

_BY_NAME = {row.name: row for row in ELEMENT_TYPES}
_BY_CODE = {row.onnx_code: row for row in ELEMENT_TYPES}
_BY_IR = {row.ir_type: row for row in ELEMENT_TYPES}
_BY_NUMPY = {row.numpy_dtype: row for row in ELEMENT_TYPES}


def by_name(name: str) -> ElementType | None:
    """The row of an ONNX type name (`float`, `int64`, ...), if supported."""
    return _BY_NAME.get(name)


def by_onnx_code(code: int) -> ElementType | None:
    """The row of a `TensorProto.DataType` code, if supported."""
    return _BY_CODE.get(code)


def of_ir(element_type: Attribute) -> ElementType | None:
    """The row of an xDSL element type, if it is a tensor element type."""
    return _BY_IR.get(element_type)


def of_numpy(dtype: np.dtype) -> ElementType | None:
    """The row whose arrays have numpy dtype `dtype`, if any."""
    return _BY_NUMPY.get(np.dtype(dtype))


def onnx_type_name(code: int) -> str:
    """The ONNX name of any `TensorProto.DataType` code, supported or not."""
    try:
        return TensorProto.DataType.Name(code)
    except ValueError:
        return f"data type {code}"


def row_of(element_type: Attribute) -> ElementType:
    """The row of `element_type`; `KeyError` naming it when it has none (for
    callers that have checked types already)."""
    row = _BY_IR.get(element_type)
    if row is None:
        raise KeyError(f"no element type row for {element_type}")
    return row


def kind_of(element_type: Attribute) -> Kind:
    """The scalar kind of an element type; `index` counts as signed."""
    row = _BY_IR.get(element_type)
    if row is not None:
        return row.kind
    if isinstance(element_type, IntegerType):
        if element_type.width.data == 1:
            return Kind.BOOL
        if element_type.signedness.data == Signedness.UNSIGNED:
            return Kind.UNSIGNED
        return Kind.SIGNED
    if any(element_type == row.ir_type for row in STORAGE_FLOATS) or isinstance(
        element_type, Float32Type | Float64Type
    ):
        return Kind.FLOAT
    return Kind.SIGNED  # index
