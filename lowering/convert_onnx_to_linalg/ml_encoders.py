"""Encoders and selections of the ai.onnx.ml domain on numbers:
`onnx_ml.ArrayFeatureExtractor`, `onnx_ml.OneHotEncoder` (int64
categories) and `onnx_ml.LabelEncoder` (int64, float or tensor keys and
values). Their string forms (`cats_strings`, `keys_strings`,
`values_strings`) need string tensors, which onnxc does not have yet: they
are a one-line `unsupported` error.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx, onnx_ml
from onnxc.dialects.constants import numpy_dtype
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    check,
    constant_value,
    element_type,
    indexed_generic,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.loops import builder_before, for_range, nest
from onnxc.lowering.convert_onnx_to_linalg.ml_scores import F32, I1, I64, STRINGS, select
from onnxc.lowering.index_arith import Size


def _all_in_range(
    op: onnx_ml.ArrayFeatureExtractorOp,
    rewriter: PatternRewriter,
    indices: SSAValue,
    sizes: Sequence[Size],
    limit: SSAValue,
) -> None:
    """A run-time check that every index (a buffer of `sizes`) is in [0, limit)."""
    here = builder_before(op)

    def test(b: Builder, at: list[SSAValue], ok: list[SSAValue]) -> list[SSAValue]:
        value = b.insert(memref.LoadOp.get(indices, at)).res
        position = b.insert(arith.IndexCastOp(value, IndexType())).result
        inside = b.insert(arith.CmpiOp(position, limit, "ult")).result  # also refuses < 0
        return [scalar.AND(b, ok[0], inside)]

    (ok,) = nest(here, sizes, [scalar.constant(here, 1, I1)], test)
    check(rewriter, op, ok, "every index is in [0, the size of X's last axis)")


class ArrayFeatureExtractorOpLowering(OnnxLowering[onnx_ml.ArrayFeatureExtractorOp]):
    """`onnx_ml.ArrayFeatureExtractor`: Z[..., j] = X[..., Y[j]], the
    columns of X's last axis that Y (int64, read flat, in row-major order)
    lists; X of rank 1 gives [1, Y's size], as onnxruntime does. An index
    outside X's last axis is an error at compile time for a constant Y,
    ONNXC_ERR_SHAPE at run time otherwise."""

    def rewrite(self, op: onnx_ml.ArrayFeatureExtractorOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        x_sizes, y_sizes = shapes.sizes(op.X), shapes.sizes(op.Y)
        if not x_sizes:
            raise unsupported(op, "a scalar X")
        count = shapes.product(y_sizes)
        columns = x_sizes[-1]
        known = constant_value(op.Y)
        if known is not None:
            flat = known.astype(np.int64).ravel()
            if isinstance(columns, int) and ((flat < 0) | (flat >= columns)).any():
                raise unsupported(op, f"an index of Y is outside [0, {columns})")
            indices, index_sizes = weight(rewriter, op, flat, I64, "indices"), [count]
        else:
            indices, index_sizes = buffer_of(rewriter, op.Y), list(y_sizes)
        if known is None or not isinstance(columns, int):
            _all_in_range(op, rewriter, indices, index_sizes, shapes.index(columns))
        leading = list(x_sizes[:-1]) if len(x_sizes) > 1 else [1]
        z = self.result_buffer(rewriter, op.Z, [*leading, count])
        x = buffer_of(rewriter, op.X)
        x_rank = len(x_sizes)
        strides = [shapes.index(size) for size in index_sizes]

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            at = _unravel(b, position[-1], strides)
            value = b.insert(memref.LoadOp.get(indices, at)).res
            column = b.insert(arith.IndexCastOp(value, IndexType())).result
            return b.insert(memref.LoadOp.get(x, [*position[: x_rank - 1], column])).res

        indexed_generic(rewriter, op, z, body)
        self.replace(rewriter, op, [z])


def _unravel(b: Builder, flat: SSAValue, sizes: Sequence[SSAValue]) -> list[SSAValue]:
    """The row-major position of element `flat` in a buffer of `sizes`."""
    position: list[SSAValue] = []
    for size in reversed(sizes[1:]):
        position.append(b.insert(arith.RemUIOp(flat, size)).result)
        flat = b.insert(arith.DivUIOp(flat, size)).result
    return [flat, *reversed(position)] if sizes else []


class OneHotEncoderOpLowering(OnnxLowering[onnx_ml.OneHotEncoderOp]):
    """`onnx_ml.OneHotEncoder` with `cats_int64s`: Y[..., k] = 1.0 where X
    (converted to int64 as onnxruntime does) is the k-th category. With
    zeros=0 a value in no category is ONNXC_ERR_SHAPE (onnxruntime fails)."""

    def rewrite(self, op: onnx_ml.OneHotEncoderOp, rewriter: PatternRewriter) -> None:
        if op.attr("cats_strings"):
            raise unsupported(op, f"string categories (cats_strings): {STRINGS}")
        categories = [int(v) for v in op.attr("cats_int64s") or []]
        if not categories:
            raise unsupported(op, "no categories")
        sizes = self.shapes.sizes(op.X)
        y = self.result_buffer(rewriter, op.Y, [*sizes, len(categories)])
        table = weight(rewriter, op, np.asarray(categories, np.int64), I64, "categories")
        x = buffer_of(rewriter, op.X)
        if not op.attr("zeros"):
            here = builder_before(op)

            def known(b: Builder, at: list[SSAValue], ok: list[SSAValue]) -> list[SSAValue]:
                value = scalar.convert(b, b.insert(memref.LoadOp.get(x, at)).res, I64)
                hits = [scalar.EQUAL(b, value, scalar.constant(b, c, I64)) for c in categories]
                return [scalar.AND(b, ok[0], scalar.OR(b, *hits) if len(hits) > 1 else hits[0])]

            (ok,) = nest(here, sizes, [scalar.constant(here, 1, I1)], known)
            check(rewriter, op, ok, "every value of X is a category (zeros=0)")

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            value = scalar.convert(b, b.insert(memref.LoadOp.get(x, position[:-1])).res, I64)
            category = b.insert(memref.LoadOp.get(table, [position[-1]])).res
            hit = scalar.EQUAL(b, value, category)
            return select(b, hit, scalar.constant(b, 1.0, F32), scalar.constant(b, 0.0, F32))

        indexed_generic(rewriter, op, y, body)
        self.replace(rewriter, op, [y])


def _side(op: onnx.OnnxOp, side: str) -> np.ndarray:
    """The keys or values of a LabelEncoder as an array (int64s, floats or
    the tensor); strings are an `unsupported` error."""
    if op.attr(f"{side}_strings"):
        raise unsupported(op, f"string {side} ({side}_strings): {STRINGS}")
    tensor = op.attr(f"{side}_tensor")
    if tensor is not None:
        array = np.asarray(tensor).ravel()
        if array.dtype.kind not in "biuf":
            raise unsupported(op, f"{side}_tensor of type {array.dtype}: {STRINGS}")
        return array
    ints = op.attr(f"{side}_int64s")
    if ints:
        return np.asarray(ints, np.int64)
    return np.asarray(op.attr(f"{side}_floats") or [], np.float32)


def _default(op: onnx.OnnxOp, t: Attribute) -> float:
    tensor = op.attr("default_tensor")
    if tensor is not None:
        value = np.asarray(tensor).ravel()
        if value.dtype.kind not in "biuf":
            raise unsupported(op, f"default_tensor of type {value.dtype}: {STRINGS}")
        return float(value[0])
    if scalar.kind(t) is scalar.Kind.FLOAT:
        return float(op.attr("default_float"))
    return int(op.attr("default_int64"))


class LabelEncoderOpLowering(OnnxLowering[onnx_ml.LabelEncoderOp]):
    """`onnx_ml.LabelEncoder` (version 2 and 4) on numbers: each element of X
    becomes the value of the first equal key (NaN keys match NaN), the
    default otherwise. The key and value tables are constant weights,
    searched in order."""

    def rewrite(self, op: onnx_ml.LabelEncoderOp, rewriter: PatternRewriter) -> None:
        keys, values = _side(op, "keys"), _side(op, "values")
        if keys.size != values.size or keys.size == 0:
            raise unsupported(op, f"{keys.size} keys for {values.size} values")
        x_type, y_type = element_type(op.X), element_type(op.Y)
        key_table = weight(rewriter, op, keys.astype(numpy_dtype(x_type)), x_type, "keys")
        value_table = weight(rewriter, op, values.astype(numpy_dtype(y_type)), y_type, "values")
        default = _default(op, y_type)
        sizes = self.shapes.sizes(op.X)
        y = self.result_buffer(rewriter, op.Y, sizes)
        x = buffer_of(rewriter, op.X)
        floats = scalar.kind(x_type) is scalar.Kind.FLOAT
        has_nan = floats and bool(np.isnan(keys.astype(np.float64)).any())

        def element(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            value = b.insert(memref.LoadOp.get(x, at)).res

            def search(b: Builder, k: SSAValue, state: list[SSAValue]) -> list[SSAValue]:
                key = b.insert(memref.LoadOp.get(key_table, [k])).res
                hit = scalar.EQUAL(b, value, key)
                if has_nan:
                    both = scalar.AND(b, scalar.IS_NAN(b, value), scalar.IS_NAN(b, key))
                    hit = scalar.OR(b, hit, both)
                hit = scalar.AND(b, hit, scalar.NOT(b, state[0]))
                found = b.insert(memref.LoadOp.get(value_table, [k])).res
                return [scalar.OR(b, state[0], hit), select(b, hit, found, state[1])]

            start = [scalar.constant(b, 0, I1), scalar.constant(b, default, y_type)]
            _found, result = for_range(b, 0, keys.size, start, search)
            b.insert(memref.StoreOp.get(result, y, at))
            return []

        nest(builder_before(op), sizes, [], element)
        self.replace(rewriter, op, [y])
