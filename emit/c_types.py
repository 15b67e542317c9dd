"""C types and literals of IR scalar types, read from the element-type table.

`index` is `ptrdiff_t`: signed and pointer-wide like MLIR's index, the cheapest
integer on 32-bit MCUs, and wide enough for any offset into an addressable
array. float16 and bfloat16 values exist in C only as their 16-bit storage
words; generated code converts them to float to compute.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects.builtin import Float32Type, Float64Type, IndexType, IntegerType
from xdsl.ir import Attribute

from onnxc import element_types
from onnxc.element_types import ElementType, Kind
from onnxc.errors import CEmitError


def row(t: Attribute) -> ElementType:
    """The element-type row of a scalar IR type; CEmitError when it has none."""
    found = element_types.of_ir(t)
    if found is None:
        raise CEmitError(f"the C printer has no C type for {t}")
    return found


def c_type(t: Attribute) -> str:
    """The C type holding a scalar of IR type `t`."""
    if isinstance(t, IndexType):
        return "ptrdiff_t"
    return row(t).c_type


def storage_type(t: Attribute) -> str:
    """The C type a buffer of element type `t` points to (`uint8_t` bytes for
    the packed 4-bit and 2-bit types)."""
    return row(t).storage_c_type


def packed_bits(t: Attribute) -> int:
    """The bits of one element of a packed type (4 or 2), else 0."""
    found = element_types.of_ir(t)
    return found.bits if found is not None and found.packing > 1 else 0


def unsigned_type(t: Attribute) -> str:
    """The unsigned C type of `t`'s width (wrapping arithmetic, unsigned
    comparisons, logical shifts); `size_t` for index."""
    if isinstance(t, IndexType):
        return "size_t"
    return row(t).unsigned_c_type


def signed_type(t: Attribute) -> str:
    """The signed C type of `t`'s width (signed division, comparisons,
    arithmetic shifts); `ptrdiff_t` for index."""
    if isinstance(t, IndexType):
        return "ptrdiff_t"
    return row(t).signed_c_type


def wide_unsigned_type(t: Attribute) -> str:
    """The unsigned type integer arithmetic on `t` is computed in without C's
    promotion to (signed) int: uint32_t up to 32 bits, else uint64_t."""
    if isinstance(t, IndexType):
        return "size_t"
    return "uint64_t" if row(t).size > 4 else "uint32_t"


def bits(t: Attribute) -> int:
    """Width in bits of an integer type (index: 64, an upper bound)."""
    if isinstance(t, IndexType):
        return 64
    return row(t).bits


def is_float(t: Attribute) -> bool:
    return isinstance(t, Float32Type | Float64Type) or (
        element_types.of_ir(t) is not None and row(t).kind is Kind.FLOAT
    )


def is_storage_only(t: Attribute) -> bool:
    """float16 / bfloat16: values that C holds as storage words only."""
    found = element_types.of_ir(t)
    return found is not None and found.compute_type is not None


def libm_suffix(t: Attribute) -> str:
    """The <math.h> suffix of a float type: "f" for float, "" for double."""
    return "f" if isinstance(t, Float32Type) else ""


def float_literal(value: float, t: Attribute) -> str:
    """A C literal of float type `t` (float or double) equal to `value` rounded
    to `t`; NAN and INFINITY from <math.h>."""
    if math.isnan(value):
        return "NAN"
    if math.isinf(value):
        return "INFINITY" if value > 0 else "(-INFINITY)"
    single = isinstance(t, Float32Type)
    text = ("%.9g" if single else "%.17g") % value
    if not any(c in text for c in ".e"):
        text += ".0"
    text += "f" if single else ""
    return f"({text})" if text.startswith("-") else text


def int_literal(value: int, t: Attribute) -> str:
    """A C literal of integer type `t` (or index) equal to `value`."""
    if isinstance(t, IntegerType) and t.width.data == 1:
        return "1" if value else "0"
    width = t.width.data if isinstance(t, IntegerType) else 64
    if value == -(1 << (width - 1)) and width in (32, 64):
        return f"INT{width}_MIN"
    if width == 64 and value > (1 << 63) - 1:
        return f"UINT64_C({value})"
    if width == 64 and abs(value) > (1 << 31) - 1:
        return f"INT64_C({value})"
    return f"({value})" if value < 0 else str(value)


def storage_values(raw: bytes, t: Attribute, count: int) -> np.ndarray:
    """The storage elements of a tensor of `count` elements of element type `t`
    (one per C array element, see `ElementType.storage_dtype`) from the raw
    bytes of its IR constant: bools as 0/1 bytes, float16, bfloat16 and the
    8-bit floats as their words, the packed 4-bit and 2-bit types as packed
    bytes; a splat of one element is repeated. The dtype is little-endian
    (or of single bytes)."""
    element = row(t)
    if element.kind is Kind.BOOL:
        values = (np.frombuffer(raw, dtype=np.uint8) != 0).astype(np.uint8)
    elif element.compute_type is not None and element.packing == 1:
        values = np.frombuffer(raw, dtype=f"<u{element.size}")
    else:
        values = np.frombuffer(raw, dtype=element.storage_dtype.newbyteorder("<"))
    if values.size == 1 and count != 1:
        values = np.broadcast_to(values, (count,))
    if values.size != count:
        raise CEmitError(f"a weight holds {values.size} values, its type needs {count}")
    if element.packing > 1:
        return element.pack(element.from_storage(values))
    return values


def storage_literals(values: np.ndarray, t: Attribute) -> list[str]:
    """C initialisers of the storage elements `values` of a tensor of element
    type `t` (see `storage_values`):
    float16, bfloat16 and the 8-bit floats as their storage words in hex, the
    packed 4-bit and 2-bit types as their bytes in hex, floats exactly."""
    element = row(t)
    if element.packing > 1:
        return [f"0x{int(v):02x}" for v in values.tolist()]
    if element.compute_type is not None:
        return [f"0x{int(v):0{2 * element.size}x}" for v in values.tolist()]
    if element.kind is Kind.FLOAT:
        return [float_literal(float(v), t) for v in values.tolist()]
    return [int_literal(int(v), t) for v in values.tolist()]
