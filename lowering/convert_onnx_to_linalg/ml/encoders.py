"""Encoders and selections of the ai.onnx.ml domain:
`onnx_ml.ArrayFeatureExtractor`, `onnx_ml.OneHotEncoder`,
`onnx_ml.LabelEncoder` and `onnx_ml.CategoryMapper`, on numbers and strings
(strings compare bytewise, with `onnxc.string_equal`).
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
from onnxc.lowering.convert_onnx_to_linalg.ml.scores import F32, I1, I64, select
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index, nest
from onnxc.lowering.convert_onnx_to_linalg.sorted_tables import find_row
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
    """`onnx_ml.OneHotEncoder`: Y[..., k] = 1.0 where X is the k-th category
    (`cats_strings` for a string X; else `cats_int64s`, X converted to int64
    as onnxruntime does). With zeros=0 a value in no category is
    ONNXC_ERR_SHAPE (onnxruntime fails)."""

    def rewrite(self, op: onnx_ml.OneHotEncoderOp, rewriter: PatternRewriter) -> None:
        x_type = element_type(op.X)
        if scalar.kind(x_type) is scalar.Kind.STRING:
            categories = np.asarray(op.attr("cats_strings") or [], dtype=object)
            key_type = x_type
        else:
            categories = np.asarray(op.attr("cats_int64s") or [], dtype=np.int64)
            key_type = I64
        if not categories.size:
            raise unsupported(op, "no categories for X's element type")
        sizes = self.shapes.sizes(op.X)
        y = self.result_buffer(rewriter, op.Y, [*sizes, categories.size])
        table = weight(rewriter, op, categories, key_type, "categories")
        x = buffer_of(rewriter, op.X)

        def load(b: Builder, at: Sequence[SSAValue]) -> SSAValue:
            value = b.insert(memref.LoadOp.get(x, at)).res
            return value if key_type == x_type else scalar.convert(b, value, I64)

        if not op.attr("zeros"):
            here = builder_before(op)

            def known(b: Builder, at: list[SSAValue], ok: list[SSAValue]) -> list[SSAValue]:
                value = load(b, at)

                def search(b: Builder, k: SSAValue, hit: list[SSAValue]) -> list[SSAValue]:
                    category = b.insert(memref.LoadOp.get(table, [k])).res
                    return [scalar.OR(b, hit[0], scalar.EQUAL(b, value, category))]

                (hit,) = for_range(b, 0, categories.size, [scalar.constant(b, 0, I1)], search)
                return [scalar.AND(b, ok[0], hit)]

            (ok,) = nest(here, sizes, [scalar.constant(here, 1, I1)], known)
            check(rewriter, op, ok, "every value of X is a category (zeros=0)")

        def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            category = b.insert(memref.LoadOp.get(table, [position[-1]])).res
            hit = scalar.EQUAL(b, load(b, position[:-1]), category)
            return select(b, hit, scalar.constant(b, 1.0, F32), scalar.constant(b, 0.0, F32))

        indexed_generic(rewriter, op, y, body)
        self.replace(rewriter, op, [y])


def _side(op: onnx.OnnxOp, side: str) -> np.ndarray:
    """The keys or values of a LabelEncoder as an array: int64s, floats,
    strings (an object array) or the tensor."""
    strings = op.attr(f"{side}_strings")
    if strings:
        return np.asarray(strings, dtype=object)
    tensor = op.attr(f"{side}_tensor")
    if tensor is not None:
        return np.asarray(tensor).ravel()
    ints = op.attr(f"{side}_int64s")
    if ints:
        return np.asarray(ints, np.int64)
    return np.asarray(op.attr(f"{side}_floats") or [], np.float32)


def _default(op: onnx.OnnxOp, t: Attribute) -> object:
    """The value of X's elements that match no key: `default_tensor`, else
    the `default_*` attribute of Y's type (the spec's defaults: "_Unused",
    -1, -0.0)."""
    tensor = op.attr("default_tensor")
    if tensor is not None:
        return np.asarray(tensor).ravel()[0]
    kind = scalar.kind(t)
    if kind is scalar.Kind.STRING:
        return op.attr("default_string")
    if kind is scalar.Kind.FLOAT:
        return float(op.attr("default_float"))
    return int(op.attr("default_int64"))


SEARCHED = 8
"""Key tables longer than this are sorted and bisected, shorter ones scanned."""


def _first_of_equals(keys: np.ndarray) -> list[int]:
    """The positions of `keys` sorted (strings as UTF-8 bytes, the order of
    `onnxc.string_less`), the first of equal keys only (the one that wins)."""

    def order(k: int) -> tuple[object, int]:
        key = keys[k]
        return (str(key).encode() if keys.dtype == object else key.item(), k)

    kept: list[int] = []
    for k in sorted(range(keys.size), key=order):
        if not kept or keys[kept[-1]] != keys[k]:  # -0.0 equals 0.0, as in C
            kept.append(k)
    return kept


class _Encoder(OnnxLowering[onnx.OnnxOp]):
    """A lookup table: each element of the input becomes the value of the
    first equal key, the default otherwise (NaN keys match NaN). Keys and
    values (the default after them) are constant weights. Up to `SEARCHED`
    keys a scan in order finds the position of the value; longer tables are
    sorted (the first of equal keys kept) and bisected (`sorted_tables`), as
    are tables of strings and numbers alike, unless a key is NaN."""

    def encode(
        self,
        op: onnx.OnnxOp,
        rewriter: PatternRewriter,
        keys: np.ndarray,
        values: np.ndarray,
        default: object,
    ) -> None:
        x_value, y_value = op.operands[0], op.results[0]
        if keys.size != values.size or keys.size == 0:
            raise unsupported(op, f"{keys.size} keys for {values.size} values")
        x_type, y_type = element_type(x_value), element_type(y_value)
        if (keys.dtype == object) != (scalar.kind(x_type) is scalar.Kind.STRING):
            raise unsupported(op, f"keys of type {keys.dtype} for an input of {x_type}")
        if (values.dtype == object) != (scalar.kind(y_type) is scalar.Kind.STRING):
            raise unsupported(op, f"values of type {values.dtype} for an output of {y_type}")
        keys = keys.astype(numpy_dtype(x_type))
        floats = scalar.kind(x_type) is scalar.Kind.FLOAT
        has_nan = floats and bool(np.isnan(keys.astype(np.float64)).any())
        bisect = keys.size > SEARCHED and not has_nan
        if bisect:
            kept = _first_of_equals(keys)
            keys, values = keys[kept], values[kept]
        table = np.append(values.astype(numpy_dtype(y_type)), np.asarray([default], values.dtype))
        shape = (keys.size, 1) if bisect else (keys.size,)
        key_table = weight(rewriter, op, keys.reshape(shape), x_type, "keys")
        value_table = weight(rewriter, op, table.astype(numpy_dtype(y_type)), y_type, "values")
        sizes = self.shapes.sizes(x_value)
        y = self.result_buffer(rewriter, y_value, sizes)
        x = buffer_of(rewriter, x_value)
        count = keys.size

        def scan(b: Builder, value: SSAValue) -> SSAValue:
            missing = index(b, count)

            def search(b: Builder, k: SSAValue, state: list[SSAValue]) -> list[SSAValue]:
                key = b.insert(memref.LoadOp.get(key_table, [k])).res
                hit = scalar.EQUAL(b, value, key)
                if has_nan:
                    both = scalar.AND(b, scalar.IS_NAN(b, value), scalar.IS_NAN(b, key))
                    hit = scalar.OR(b, hit, both)
                first = b.insert(arith.CmpiOp(state[0], missing, "eq")).result
                return [select(b, scalar.AND(b, hit, first), k, state[0])]

            (found,) = for_range(b, 0, count, [missing], search)
            return found

        def element(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            value = b.insert(memref.LoadOp.get(x, at)).res
            if bisect:
                equal, row = find_row(b, [value], key_table, count)
                found = select(b, equal, row, index(b, count))
            else:
                found = scan(b, value)
            result = b.insert(memref.LoadOp.get(value_table, [found])).res
            b.insert(memref.StoreOp.get(result, y, at))
            return []

        nest(builder_before(op), sizes, [], element)
        self.replace(rewriter, op, [y])


class LabelEncoderOpLowering(_Encoder):
    """`onnx_ml.LabelEncoder` (version 2 and 4), on numbers and strings (see
    `_Encoder`)."""

    source = onnx_ml.LabelEncoderOp

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        y_type = element_type(op.results[0])
        self.encode(op, rewriter, _side(op, "keys"), _side(op, "values"), _default(op, y_type))


class CategoryMapperOpLowering(_Encoder):
    """`onnx_ml.CategoryMapper`: strings to their position's int64 in
    `cats_int64s` (default_int64 otherwise), or int64 to strings (default_string)."""

    source = onnx_ml.CategoryMapperOp

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        strings = np.asarray(op.attr("cats_strings") or [], dtype=object)
        ints = np.asarray(op.attr("cats_int64s") or [], dtype=np.int64)
        if scalar.kind(element_type(op.results[0])) is scalar.Kind.STRING:
            self.encode(op, rewriter, ints, strings, op.attr("default_string"))
        else:
            self.encode(op, rewriter, strings, ints, int(op.attr("default_int64")))
