"""Linear models of the ai.onnx.ml domain: `onnx_ml.LinearRegressor` and
`onnx_ml.LinearClassifier`.

The scores `X @ coefficients^T + intercepts` are one `linalg.generic`
(samples and outputs parallel, features a reduction) over the coefficients as
a constant weight, in float (integer and double X converted first, as
onnxruntime does); a loop over the samples then finishes each row (labels,
post transform; `scores.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.builder import Builder
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx, onnx_ml
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    generic,
    require_equal,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.ml import scores as ml_scores
from onnxc.lowering.convert_onnx_to_linalg.ml.scores import F32, Samples
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, nest


def coefficient_matrix(op: onnx.OnnxOp, values: list[float], rows: int) -> np.ndarray:
    """`values` as a [rows, C] float matrix, or an error when they do not split."""
    if rows <= 0 or not values or len(values) % rows:
        raise unsupported(op, f"{len(values)} coefficients do not split into {rows} rows")
    return np.asarray(values, np.float32).reshape(rows, -1)


def affine_scores(
    lowering: OnnxLowering[Any],
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    x: Samples,
    coefficients: np.ndarray,
    intercepts: np.ndarray,
    out: SSAValue,
) -> None:
    """out[n, e] = intercepts[e] + sum over c of X[n, c] * coefficients[e, c],
    in float; X's C must be coefficients' column count."""
    rows, columns = coefficients.shape
    require_equal(rewriter, lowering.shapes, op, x.c, columns, "X has one feature per coefficient")
    w = weight(rewriter, op, coefficients, F32, "coefficients")
    bias = weight(rewriter, op, intercepts.astype(np.float32), F32, "intercepts")
    n_e = AffineMap.from_callable(lambda n, e: (n, e))
    generic(
        rewriter,
        op,
        [bias],
        [out],
        [AffineMap.from_callable(lambda n, e: (e,)), n_e],
        [PARALLEL, PARALLEL],
        lambda b, args: args[0],
    )

    def body(b: Builder, args: Any) -> SSAValue:
        product = scalar.MUL(b, scalar.convert(b, args[0], F32), args[1])
        return scalar.ADD(b, args[2], product)

    against_rows(rewriter, op, x, w, out, body)


def against_rows(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    x: Samples,
    table: SSAValue,
    out: SSAValue,
    body: Callable[[Builder, Any], SSAValue],
) -> None:
    """out[n, r] accumulates body(X[n, c], table[r, c], out[n, r]) over the
    features c: one generic, samples and rows parallel, features a reduction
    (X of rank 1 is one sample)."""
    if x.rank == 1:
        read_x = AffineMap.from_callable(lambda n, r, c: (c,))
    else:
        read_x = AffineMap.from_callable(lambda n, r, c: (n, c))
    maps = [
        read_x,
        AffineMap.from_callable(lambda n, r, c: (r, c)),
        AffineMap.from_callable(lambda n, r, c: (n, r)),
    ]
    generic(rewriter, op, [x.x, table], [out], maps, [PARALLEL, PARALLEL, REDUCTION], body)


class LinearRegressorOpLowering(OnnxLowering[onnx_ml.LinearRegressorOp]):
    """`onnx_ml.LinearRegressor`: Y[N, targets] = X @ coefficients^T +
    intercepts, then the post transform (on one target only PROBIT applies,
    as in onnxruntime)."""

    def rewrite(self, op: onnx_ml.LinearRegressorOp, rewriter: PatternRewriter) -> None:
        x = ml_scores.samples(self, op, rewriter)
        targets = int(op.attr("targets"))
        coefficients = coefficient_matrix(op, op.attr("coefficients") or [], targets)
        intercepts = np.asarray(op.attr("intercepts") or [0.0] * targets, np.float32)
        if intercepts.size != targets:
            raise unsupported(op, f"{intercepts.size} intercepts for {targets} targets")
        y = self.result_buffer(rewriter, op.Y, [x.n, targets])
        affine_scores(self, op, rewriter, x, coefficients, intercepts, y)
        name = ml_scores.transform_name(op)
        if name != "NONE" and (targets > 1 or name == "PROBIT"):

            def row(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
                values = ml_scores.load_row(b, y, at[0], targets)
                ml_scores.store_row(b, ml_scores.transformed(b, name, values), y, at[0])
                return []

            nest(builder_before(op), [x.n], [], row)
        self.replace(rewriter, op, [y])


class LinearClassifierOpLowering(OnnxLowering[onnx_ml.LinearClassifierOp]):
    """`onnx_ml.LinearClassifier` (int64 or string labels): the scores of E classes
    (E = the number of intercepts), the label of the first largest raw score
    and the post-transformed scores. With one score and two labels (the
    binary case) it follows onnxruntime: the label is labels[1] where the
    score is > 0, and Z is [1 - p, p] with p the score, or its logistic
    with LOGISTIC (other transforms leave it; PROBIT is not supported
    there)."""

    def rewrite(self, op: onnx_ml.LinearClassifierOp, rewriter: PatternRewriter) -> None:
        x = ml_scores.samples(self, op, rewriter)
        labels = ml_scores.class_labels(rewriter, op, "classlabels_ints", "classlabels_strings")
        intercepts = np.asarray(op.attr("intercepts") or [], np.float32)
        classes = intercepts.size
        coefficients = coefficient_matrix(op, op.attr("coefficients") or [], classes)
        name = ml_scores.transform_name(op)
        second = classes == 1 and len(labels) == 2
        if second and name == "PROBIT":
            raise unsupported(op, "post_transform PROBIT with one score and two labels")
        if classes > 1 and len(labels) < classes:
            raise unsupported(op, f"{len(labels)} class labels for {classes} classes")
        y = self.result_buffer(rewriter, op.Y, [x.n])
        z = self.result_buffer(rewriter, op.Z, [x.n, 2 if second else classes])
        scores = ml_scores.scratch(rewriter, [x.n, classes])
        affine_scores(self, op, rewriter, x, coefficients, intercepts, scores)

        def row(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            values = ml_scores.load_row(b, scores, at[0], classes)
            if classes == 1:
                positive = labels.at(b, 1) if second else labels.number(b, 1)
                negative = labels.at(b, 0) if second else labels.number(b, 0)
                above = scalar.GREATER(b, values[0], ml_scores.const(b, 0.0))
                label = ml_scores.select(b, above, positive, negative)
                if second:
                    one = ml_scores.const(b, 1.0)
                    p = ml_scores.logistic(b, values[0]) if name == "LOGISTIC" else values[0]
                    values = [scalar.SUB(b, one, p), p]
                else:
                    values = ml_scores.transformed(b, name, values)
            else:
                label = labels.pick(b, ml_scores.first_max(b, values))
                values = ml_scores.transformed(b, name, values)
            ml_scores.store(b, label, y, at[0])
            ml_scores.store_row(b, values, z, at[0])
            return []

        nest(builder_before(op), [x.n], [], row)
        self.replace(rewriter, op, [y, z])
