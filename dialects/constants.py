"""Tensor constants in IR attributes, and their numpy values.

Small constants (shapes, axes, scalars) stay inline as dense elements so the IR
reads well; larger ones (weights) become `dense_resource` handles whose bytes
live in the builtin dialect's resource blob storage (`resource_blobs.py`).
Both keep raw bytes: no
per-element Python objects, so multi-megabyte models stay fast to print and
rewrite. Resources are printed in the module's `dialect_resources` section as
MLIR does, so the textual IR round-trips.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np
from xdsl.dialects.builtin import (
    AnyDenseElement,
    BytesAttr,
    ContainerType,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
    MemRefType,
    RankedStructure,
    TensorType,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.hints import isa

from onnxc import element_types
from onnxc.dialects import resource_blobs
from onnxc.dialects.onnxc_strings import STRING, StringElementsAttr

INLINE_LIMIT = 16
"""Constants with more elements than this become resources."""


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
    blobs = resource_blobs.storage()
    handle = blobs.declare_resource(re.sub(r"[^A-Za-z0-9_.]", "_", hint) or "blob")
    blobs.store(handle, data)
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
        raw = resource_blobs.storage().data(attr.resource_handle.data)
        if raw is None:
            raise ValueError(f"resource '{attr.resource_handle.data}' has no data")
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
    blobs = resource_blobs.storage()
    for handle in handles:
        blobs.forget(handle)


def referenced_resources(module: Operation) -> set[str]:
    """The resource handles the operations of `module` hold."""
    found: set[str] = set()
    for op in module.walk():
        for attr in [*op.properties.values(), *op.attributes.values()]:
            if isinstance(attr, DenseResourceAttr):
                found.add(attr.resource_handle.data)
    return found


@contextmanager
def released_resources() -> Iterator[Callable[[Operation], None]]:
    """Forget the resource blobs declared inside the block when it ends, so a
    compilation leaves no weights behind in xDSL's global blob storage. The
    block gets a function that forgets, at once, those of them a module no
    longer holds (a lowering stage's garbage: weights packed anew, constants
    that became globals), so that a big model's weights are not kept twice."""
    before = resource_blobs.storage().keys()

    def collect(module: Operation) -> None:
        release_resources(resource_blobs.storage().keys() - before - referenced_resources(module))

    try:
        yield collect
    finally:
        release_resources(resource_blobs.storage().keys() - before)
