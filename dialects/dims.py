"""Dimensions of onnx-level tensor types: static sizes and named symbols.

A dimension is static (a size) or dynamic (`?` in the type). Every dynamic
dimension has a symbol: a name that stands for the same size wherever it
appears, as ONNX's dim_params do. The symbols of a tensor type are its
encoding, one string per dynamic dimension in order:

    tensor<?x?x768xf32, ["batch", "seq"]>

Symbols come from the model's dim_params (free dimensions, given at run time),
from names onnxc gives unnamed input dimensions (`x_dim0`), and from onnx
shape inference, which names the sizes it cannot compute (`unk__3`); a
lowering binds each symbol to the run-time value that computes it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, NoneAttr, StringAttr, TensorType
from xdsl.ir import Attribute

Dim = int | str
"""A dimension: a size, or the symbol of a size known at run time."""


def dims_of(tensor_type: TensorType[Attribute]) -> list[Dim]:
    """The dimensions of a tensor type: sizes, and symbols where dynamic."""
    symbols = iter(symbols_of(tensor_type))
    found: list[Dim] = []
    for size in tensor_type.get_shape():
        if size >= 0:
            found.append(size)
        else:
            found.append(next(symbols, None) or "?")
    return found


def symbols_of(tensor_type: TensorType[Attribute]) -> list[str]:
    """The symbols of a tensor type's dynamic dimensions, in order."""
    encoding = tensor_type.encoding
    if isinstance(encoding, ArrayAttr):
        return [s.data for s in encoding.data if isinstance(s, StringAttr)]
    return []


def tensor_type(element: Attribute, dims: Sequence[Dim]) -> TensorType[Attribute]:
    """The tensor type of `element`s with `dims` (symbols become `?`)."""
    shape = [d if isinstance(d, int) else DYNAMIC_INDEX for d in dims]
    symbols = [StringAttr(d) for d in dims if isinstance(d, str)]
    encoding: Attribute = ArrayAttr(symbols) if symbols else NoneAttr()
    return TensorType(element, shape, encoding)


def is_static(tensor_type: TensorType[Attribute]) -> bool:
    return all(size >= 0 for size in tensor_type.get_shape())
