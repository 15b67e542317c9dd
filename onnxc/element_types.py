"""The element-type table: the one place that knows what an element type is.

Every layer reads it: the onnx dialect (schema type strings), the importer
(TensorProto codes), constants and weights (numpy dtypes), the lowerings (the
scalar kind that picks float / signed / unsigned / bool operations), the memory
planner and the report (sizes), the C printer (storage types, runtime enum), and
the cffi loader (numpy dtypes of C arguments). Adding a type is one row.

Storage follows the C contract in DESIGN.md: bool is a `uint8_t` holding 0 or 1;
integers are `<stdint.h>` types; float16, bfloat16 and the 8-bit floats are
`uint16_t` / `uint8_t` words that generated code converts to float to compute
(runtime_c helpers, round to nearest even). The 4-bit and 2-bit types (int4,
uint4, float4e2m1, int2, uint2) are stored packed as the ONNX spec serialises
them: two (four) elements per byte, the first in the least significant bits;
a scalar of them is a C `int8_t` / `uint8_t` holding the value (int4, int2:
sign-extended; float4e2m1: its 4-bit code). The type decides the storage; an
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
    Float4E2M1FNType,
    Float8E4M3FNType,
    Float8E4M3FNUZType,
    Float8E5M2FNUZType,
    Float8E5M2Type,
    Float8E8M0FNUType,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    Signedness,
)
from xdsl.ir import Attribute

from onnxc.dialects.onnxc_strings import StringType


class Kind(enum.Enum):
    """What arithmetic on an element type means."""

    FLOAT = "float"
    SIGNED = "signed"
    UNSIGNED = "unsigned"
    BOOL = "bool"
    STRING = "string"


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
    packing: int = 1
    """Elements per storage byte: 2 for the 4-bit types, 4 for the 2-bit
    types, else 1 (`size` is then the bytes of one scalar in C)."""

    @property
    def enum(self) -> str:
        """The runtime's enumerator, e.g. `ONNXC_DTYPE_FLOAT`."""
        return "ONNXC_DTYPE_" + TensorProto.DataType.Name(self.onnx_code)

    @property
    def bits(self) -> int:
        if self.kind is Kind.BOOL:
            return 1
        return self.size * 8 // self.packing

    @property
    def storage_c_type(self) -> str:
        """The C type of a tensor's storage (what a pointer to it points to):
        `uint8_t` bytes for packed types, else `c_type`."""
        return "uint8_t" if self.packing > 1 else self.c_type

    def storage_count(self, count: int) -> int:
        """Storage units (`pack_dtype` elements) of a tensor of `count` elements."""
        return -(-count // self.packing)

    def storage_bytes(self, count: int) -> int:
        """Bytes of a tensor of `count` elements."""
        return self.storage_count(count) * self.size

    @property
    def storage_dtype(self) -> np.dtype:
        """The numpy dtype of one element's bytes in IR constants (C's scalar
        storage): uint8 for bool, sign-extended int8 for int4/int2, uint8 for
        uint4/uint2 and the float4 code, else the element's own dtype."""
        if self.kind is Kind.BOOL or (self.packing > 1 and self.kind is not Kind.SIGNED):
            return np.dtype(np.uint8)
        if self.packing > 1:
            return np.dtype(np.int8)
        return self.numpy_dtype

    def to_storage(self, array: np.ndarray) -> np.ndarray:
        """`array` (converted to this type) as `storage_dtype` elements."""
        data = np.asarray(array, dtype=self.numpy_dtype, order="C")
        if self.kind is Kind.FLOAT and self.packing > 1:
            return data.view(np.uint8)
        return data.astype(self.storage_dtype, copy=False)

    def from_storage(self, values: np.ndarray) -> np.ndarray:
        """The inverse of `to_storage`: elements of `numpy_dtype`."""
        if self.kind is Kind.FLOAT and self.packing > 1:
            return np.asarray(values, dtype=np.uint8, order="C").view(self.numpy_dtype)
        return values.astype(self.numpy_dtype)

    @property
    def pack_dtype(self) -> np.dtype:
        """The dtype of `pack`'s result: uint8 for packed types."""
        return np.dtype(np.uint8) if self.packing > 1 else self.numpy_dtype

    def pack(self, array: np.ndarray) -> np.ndarray:
        """A C-contiguous array of this type as the C storage of the tensor:
        the array itself, or for packed types its bytes (first element in
        the low bits, the last byte's unused bits zero)."""
        if self.packing == 1:
            return array
        bits = self.bits
        codes = self.to_storage(array).reshape(-1).view(np.uint8) & ((1 << bits) - 1)
        padded = np.zeros(-(-codes.size // self.packing) * self.packing, np.uint8)
        padded[: codes.size] = codes
        lanes = padded.reshape(-1, self.packing)
        shifts = np.arange(self.packing, dtype=np.uint8) * bits
        return np.bitwise_or.reduce(lanes << shifts, axis=1).astype(np.uint8)

    def unpack(self, storage: np.ndarray, count: int) -> np.ndarray:
        """The first `count` elements of a tensor from its C storage (the
        inverse of `pack`; for other types the storage array's prefix)."""
        if self.packing == 1:
            return storage[:count]
        bits = self.bits
        shifts = np.arange(self.packing, dtype=np.uint8) * bits
        codes = ((storage.reshape(-1, 1) >> shifts) & ((1 << bits) - 1)).reshape(-1)[:count]
        if self.kind is Kind.SIGNED:
            signed = codes.astype(np.int8) - ((codes >> (bits - 1)) << bits).astype(np.int8)
            return self.from_storage(signed)
        return self.from_storage(codes.astype(np.uint8))

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
    packing: int = 1,
) -> ElementType:
    numpy_type = np.dtype(dtype)
    size = numpy_type.itemsize
    return ElementType(
        name, code, ir_type, c_type, numpy_type, size, kind, compute, runtime_name, packing
    )


def _packed_int(name: str, code: int, bits: int, dtype: type, kind: Kind) -> ElementType:
    """A 4-bit or 2-bit integer: packed in storage, an 8-bit C scalar."""
    signedness = Signedness.UNSIGNED if kind is Kind.UNSIGNED else Signedness.SIGNLESS
    c_type = "uint8_t" if kind is Kind.UNSIGNED else "int8_t"
    return _row(name, code, IntegerType(bits, signedness), c_type, dtype, kind, packing=8 // bits)


def _storage_float(
    name: str, code: int, ir_type: Attribute, dtype: type, runtime: str, packing: int = 1
) -> ElementType:
    """A float format C has no type for: stored as an unsigned word of its
    width (packed when narrower than a byte), computed in float through the
    runtime's conversions."""
    width = np.dtype(dtype).itemsize * 8
    c_type = f"uint{width}_t"
    return _row(name, code, ir_type, c_type, dtype, Kind.FLOAT, Float32Type(), runtime, packing)


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
    _storage_float(
        "float8e8m0",
        TensorProto.FLOAT8E8M0,
        Float8E8M0FNUType(),
        ml_dtypes.float8_e8m0fnu,
        "f8e8m0",
    ),
    _storage_float(
        "float4e2m1",
        TensorProto.FLOAT4E2M1,
        Float4E2M1FNType(),
        ml_dtypes.float4_e2m1fn,
        "f4e2m1",
        packing=2,
    ),
    _packed_int("int4", TensorProto.INT4, 4, ml_dtypes.int4, Kind.SIGNED),
    _packed_int("uint4", TensorProto.UINT4, 4, ml_dtypes.uint4, Kind.UNSIGNED),
    _packed_int("int2", TensorProto.INT2, 2, ml_dtypes.int2, Kind.SIGNED),
    _packed_int("uint2", TensorProto.UINT2, 2, ml_dtypes.uint2, Kind.UNSIGNED),
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

"""The numeric element types (and bool): everything arithmetic computes on."""

STRING = ElementType(
    "string", TensorProto.STRING, StringType(), "onnxc_string", np.dtype(object), 16, Kind.STRING
)
"""Strings: an element is an `onnxc_string` descriptor (a pointer to UTF-8
bytes and their count; runtime_c/onnxc_strings.h), in numpy an object array
of `str`. `size` is the largest descriptor of any target (16 bytes on a
64-bit host, 8 on a 32-bit microcontroller), which the memory planner
reserves per element. Strings have no arithmetic: operators that read them
use the `onnxc.string_*` operations."""

ALL_ELEMENT_TYPES: tuple[ElementType, ...] = (*ELEMENT_TYPES, STRING)
"""Every element type a tensor can have."""

STORAGE_FLOATS: tuple[ElementType, ...] = tuple(r for r in ELEMENT_TYPES if r.runtime_name)
"""The float formats stored as words and computed in float."""

_BY_NAME = {row.name: row for row in ALL_ELEMENT_TYPES}
_BY_CODE = {row.onnx_code: row for row in ALL_ELEMENT_TYPES}
_BY_IR = {row.ir_type: row for row in ALL_ELEMENT_TYPES}
_BY_NUMPY = {row.numpy_dtype: row for row in ALL_ELEMENT_TYPES}


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
