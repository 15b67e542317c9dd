"""Preprocessing operators of the ai.onnx.ml domain, elementwise or per row:
`onnx_ml.Binarizer`, `onnx_ml.Scaler`, `onnx_ml.Imputer`,
`onnx_ml.Normalizer` and `onnx_ml.FeatureVectorizer`, as onnxruntime
computes them (float results computed in float; per-column parameters read
along the last axis, one value or one per column).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx, onnx_ml
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    buffer_of,
    element_type,
    elementwise,
    fill,
    generic,
    require_equal,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.ml import scores as ml_scores
from onnxc.lowering.convert_onnx_to_linalg.ml.scores import F32, const, select
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index, nest
from onnxc.lowering.index_arith import Size


def columnwise(
    lowering: OnnxLowering[Any],
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    parameters: Sequence[tuple[str, np.ndarray, Attribute]],
    body: Callable[[Builder, Sequence[SSAValue]], SSAValue],
) -> None:
    """Y = body(X, p1, p2, ...) elementwise, each parameter one value or one
    per column of X's last axis (a constant weight of its given type)."""
    x = op.operands[0]
    sizes = lowering.shapes.sizes(x)
    rank = len(sizes)
    if rank == 0:
        raise unsupported(op, "a scalar X")
    y = lowering.result_buffer(rewriter, op.results[0], sizes)
    buffers: list[SSAValue] = [buffer_of(rewriter, x)]
    maps = [AffineMap.identity(rank)]
    for name, values, t in parameters:
        if values.size not in (1,) and not isinstance(sizes[-1], int):
            require_equal(
                rewriter,
                lowering.shapes,
                op,
                sizes[-1],
                values.size,
                f"X has one column per {name}",
            )
        elif values.size != 1 and values.size != sizes[-1]:
            raise unsupported(op, f"{values.size} {name} values for {sizes[-1]} columns")
        buffers.append(weight(rewriter, op, values, t, name))
        read = AffineConstantExpr(0) if values.size == 1 else AffineDimExpr(rank - 1)
        maps.append(AffineMap(rank, 0, (read,)))
    maps.append(AffineMap.identity(rank))
    generic(rewriter, op, buffers, [y], maps, [PARALLEL] * rank, lambda b, args: body(b, args[:-1]))
    lowering.replace(rewriter, op, [y])


class BinarizerOpLowering(OnnxLowering[onnx_ml.BinarizerOp]):
    """`onnx_ml.Binarizer`: 1 where X > threshold, else 0, in X's type."""

    def rewrite(self, op: onnx_ml.BinarizerOp, rewriter: PatternRewriter) -> None:
        threshold = float(op.attr("threshold"))

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            t = args[0].type
            above = scalar.GREATER(b, args[0], scalar.constant(b, threshold, t))
            return select(b, above, scalar.constant(b, 1, t), scalar.constant(b, 0, t))

        elementwise(rewriter, self.shapes, op, body)


class ScalerOpLowering(OnnxLowering[onnx_ml.ScalerOp]):
    """`onnx_ml.Scaler`: Y = (X - offset) * scale in float."""

    def rewrite(self, op: onnx_ml.ScalerOp, rewriter: PatternRewriter) -> None:
        offset = np.asarray(op.attr("offset") or [0.0], np.float32)
        scale = np.asarray(op.attr("scale") or [1.0], np.float32)

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            value = scalar.convert(b, args[0], F32)
            return scalar.MUL(b, scalar.SUB(b, value, args[1]), args[2])

        columnwise(self, op, rewriter, [("offset", offset, F32), ("scale", scale, F32)], body)


class ImputerOpLowering(OnnxLowering[onnx_ml.ImputerOp]):
    """`onnx_ml.Imputer`: X's `replaced_value_float` (NaN: every NaN) or
    `replaced_value_int64` elements replaced by the imputed value of their
    column."""

    def rewrite(self, op: onnx_ml.ImputerOp, rewriter: PatternRewriter) -> None:
        t = element_type(op.X)
        floats = scalar.kind(t) is scalar.Kind.FLOAT
        if floats:
            imputed = np.asarray(op.attr("imputed_value_floats") or [], np.float64)
            replaced = float(op.attr("replaced_value_float"))
        else:
            imputed = np.asarray(op.attr("imputed_value_int64s") or [], np.int64)
            replaced = int(op.attr("replaced_value_int64"))
        if imputed.size == 0:
            raise unsupported(op, "no imputed values for X's element type")

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            value = args[0]
            if floats and np.isnan(replaced):
                hit = scalar.IS_NAN(b, value)
            else:
                hit = scalar.EQUAL(b, value, scalar.constant(b, replaced, t))
            return select(b, hit, args[1], value)

        columnwise(self, op, rewriter, [("imputed", imputed, t)], body)


class NormalizerOpLowering(OnnxLowering[onnx_ml.NormalizerOp]):
    """`onnx_ml.Normalizer`: each row divided by its MAX, L1 (sum of
    absolute values) or L2 norm (onnxruntime's: sign(x) sqrt(x^2 / sum of
    squares)), left as it is where that is 0; float output."""

    def rewrite(self, op: onnx_ml.NormalizerOp, rewriter: PatternRewriter) -> None:
        norm = str(op.attr("norm"))
        if norm not in ("MAX", "L1", "L2"):
            raise unsupported(op, f"norm {norm}")
        x = ml_scores.samples(self, op, rewriter)
        y = self.result_buffer(rewriter, op.Y, self.shapes.sizes(op.X))
        t = element_type(op.X)
        wide = t if scalar.kind(t) is scalar.Kind.FLOAT else F32

        def at(row: SSAValue, column: SSAValue) -> list[SSAValue]:
            return [column] if x.rank == 1 else [row, column]

        def row(b: Builder, n: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            def reduce(b: Builder, c: SSAValue, total: list[SSAValue]) -> list[SSAValue]:
                value = x.load(b, n[0], c, wide)
                if norm == "MAX":
                    v = scalar.convert(b, value, F32)
                    return [select(b, scalar.GREATER(b, v, total[0]), v, total[0])]
                term = scalar.ABS(b, value) if norm == "L1" else scalar.MUL(b, value, value)
                return [scalar.ADD(b, total[0], scalar.convert(b, term, F32))]

            start = const(b, -3.4028234663852886e38 if norm == "MAX" else 0.0)
            (total,) = for_range(b, 0, x.c, [start], reduce)
            zero = scalar.EQUAL(b, total, const(b, 0.0))

            def write(b: Builder, c: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                value = x.load(b, n[0], c, F32)
                if norm == "L2":
                    square = scalar.convert(b, scalar.MUL(b, *[x.load(b, n[0], c, wide)] * 2), F32)
                    root = scalar.SQRT(b, scalar.DIV(b, square, total))
                    negative = scalar.LESS(b, value, const(b, 0.0))
                    scaled = select(b, negative, scalar.NEG(b, root), root)
                else:
                    scaled = scalar.DIV(b, value, total)
                b.insert(memref.StoreOp.get(select(b, zero, value, scaled), y, at(n[0], c)))
                return []

            for_range(b, 0, x.c, [], write)
            return []

        nest(builder_before(op), [x.n], [], row)
        self.replace(rewriter, op, [y])


class FeatureVectorizerOpLowering(OnnxLowering[onnx_ml.FeatureVectorizerOp]):
    """`onnx_ml.FeatureVectorizer`: the inputs' columns side by side, in
    float, input i taking `inputdimensions[i]` columns (its first ones, or
    all of them and zeros after, as onnxruntime does)."""

    def rewrite(self, op: onnx_ml.FeatureVectorizerOp, rewriter: PatternRewriter) -> None:
        widths = [int(v) for v in op.attr("inputdimensions") or []]
        if len(widths) != len(op.X):
            raise unsupported(op, f"{len(widths)} inputdimensions for {len(op.X)} inputs")
        first = self.shapes.sizes(op.X[0])
        n = first[0] if len(first) == 2 else 1
        y = self.result_buffer(rewriter, op.Y, [n, sum(widths)])
        fill(rewriter, op, y, 0.0)
        offset = 0
        for value, width in zip(op.X, widths, strict=True):
            sizes = self.shapes.sizes(value)
            if len(sizes) not in (1, 2):
                raise unsupported(op, f"an input of rank {len(sizes)}")
            columns = sizes[-1]
            if not isinstance(columns, int):
                raise unsupported(op, "an input with a column count known only at run time")
            taken = min(columns, width)
            if taken:
                _place(
                    builder_before(op),
                    buffer_of(rewriter, value),
                    len(sizes),
                    [n, taken],
                    y,
                    offset,
                )
            offset += width
        self.replace(rewriter, op, [y])


def _place(b: Builder, x: SSAValue, rank: int, sizes: list[Size], y: SSAValue, offset: int) -> None:
    """y[r, offset + c] = float(x[r, c]) (x[c] for rank 1) for r, c < sizes."""

    def element(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
        value = b.insert(memref.LoadOp.get(x, at if rank == 2 else at[1:])).res
        column = b.insert(arith.AddiOp(at[1], index(b, offset))).result
        b.insert(memref.StoreOp.get(scalar.convert(b, value, F32), y, [at[0], column]))
        return []

    nest(b, sizes, [], element)
