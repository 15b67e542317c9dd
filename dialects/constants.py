"""Tensor constants in IR attributes, and their numpy values.

Small constants (shapes, axes, scalars) stay inline as dense elements so the IR
reads well; larger ones (weights) become `dense_resource` handles whose bytes
live in the builtin dialect's resource blob storage. Both keep raw bytes: no
per-element Python objects, so multi-megabyte models stay fast to print and
rewrite. Resources are printed in the module's `dialect_resources` section as
MLIR does, so the textual IR round-trips.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    AnyDenseElement,
    Builtin,
    BytesAttr,
    ContainerType,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    MemRefType,
    RankedStructure,
    TensorType,
)
from xdsl.ir import Attribute
from xdsl.utils.hints import isa

from onnxc import element_types
from onnxc.dialects.onnxc_strings import STRING, StringElementsAttr

INLINE_LIMIT = 16
"""Constants with more elements than this become resources."""

_BLOB_ALIGNMENT_PREFIX = (4).to_bytes(4, "little")
"""MLIR blobs start with their alignment as a little-endian uint32."""


def numpy_dtype(element_type: Attribute) -> np.dtype:
    """The numpy dtype holding elements of `element_type` (the element-type table)."""
    return _row(element_type).numpy_dtype


def _row(element_type: Attribute) -> element_types.ElementType:
    row = element_types.of_ir(element_type)
    if row is None:
        raise TypeError(f"no numpy dtype for element type {element_type}")
    return row


def _storage(array: np.ndarray, element_type: Attribute) -> bytes:
    """The raw little-endian bytes of `array` as elements of `element_type`
    (one storage element each: bool as a byte 0/1, the 4-bit and 2-bit types
    as a byte each, see `ElementType.storage_dtype`)."""
    return _row(element_type).to_storage(array).tobytes()


def _blob_storage() -> OpAsmDialectInterface:
    interface = Builtin.get_interface(OpAsmDialectInterface)
    assert interface is not None
    return interface


def text(value: object) -> str:
    """One string element as `str`: ONNX serialises strings as bytes, which
    hold UTF-8 text (`UnicodeDecodeError` when they do not)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def dense_attr(
    array: np.ndarray, shaped_type: TensorType | MemRefType
) -> DenseIntOrFPElementsAttr | StringElementsAttr:
    """Inline dense elements holding `array` (converted to the type's
    elements); `#onnxc.strings` for a string tensor."""
    if shaped_type.get_element_type() == STRING:
        values = [text(v) for v in np.asarray(array, dtype=object).reshape(-1)]
        return StringElementsAttr.of(shaped_type, values)
    data = _storage(array, shaped_type.get_element_type())
    # Every element type of the table is an integer or float (dense elements' own check).
    assert isa(shaped_type, RankedStructure[AnyDenseElement])
    return DenseIntOrFPElementsAttr(shaped_type, BytesAttr(data))


def resource_attr(array: np.ndarray, tensor_type: TensorType, hint: str) -> DenseResourceAttr:
    """A `dense_resource` holding `array`, under a handle derived from `hint`."""
    data = _storage(array, tensor_type.get_element_type())
    storage = _blob_storage()
    handle = storage.declare_resource(re.sub(r"[^A-Za-z0-9_.]", "_", hint) or "blob")
    storage.parse_resource(handle, "0x" + (_BLOB_ALIGNMENT_PREFIX + data).hex())
    return DenseResourceAttr.from_params(handle, tensor_type)


def constant_attr(array: np.ndarray, tensor_type: TensorType, hint: str) -> Attribute:
    """Inline elements for small constants, a resource for large ones
    (strings are always inline)."""
    if array.size > INLINE_LIMIT and tensor_type.get_element_type() != STRING:
        return resource_attr(array, tensor_type, hint)
    return dense_attr(array, tensor_type)


def elements_to_numpy(attr: Attribute) -> np.ndarray:
    """The value of a dense or dense_resource elements attribute (of
    `#onnxc.strings`: an object array of `str`)."""
    if isinstance(attr, StringElementsAttr):
        strings = np.empty(len(attr.values.data), dtype=object)
        strings[:] = attr.strings()
        return strings.reshape(tuple(attr.type.get_shape()))
    if isinstance(attr, DenseIntOrFPElementsAttr):
        shaped = attr.type
        raw = attr.data.data
    elif isinstance(attr, DenseResourceAttr):
        shaped = attr.type
        # Every ShapedType xDSL has (tensor, memref, vector) is also a container.
        assert isinstance(shaped, ContainerType)
        blob = _blob_storage().lookup(attr.resource_handle.data)
        if not blob:
            raise ValueError(f"resource '{attr.resource_handle.data}' has no data")
        raw = bytes.fromhex(blob[2:])[len(_BLOB_ALIGNMENT_PREFIX) :]
    else:
        raise TypeError(f"not an elements attribute: {attr}")
    row = _row(shaped.get_element_type())
    shape = tuple(shaped.get_shape())
    count = int(np.prod(shape)) if shape else 1
    values = np.frombuffer(raw, dtype=row.storage_dtype)
    if values.size == 1 and count != 1:
        values = np.full(count, values[0], dtype=row.storage_dtype)  # splat
    return row.from_storage(values.reshape(shape)).copy()


def release_resources(handles: set[str]) -> None:
    """Forget resource blobs that are no longer referenced (after a compile)."""
    storage = _blob_storage()
    for handle in handles:
        storage._blob_storage.pop(handle, None)  # pyright: ignore[reportPrivateUsage]


@contextmanager
def released_resources() -> Iterator[None]:
    """Forget the resource blobs declared inside the block when it ends, so a
    compilation leaves no weights behind in xDSL's global blob storage."""
    storage = _blob_storage()
    before = set(storage._blob_storage)  # pyright: ignore[reportPrivateUsage]
    try:
        yield
    finally:
        release_resources(set(storage._blob_storage) - before)  # pyright: ignore[reportPrivateUsage]
