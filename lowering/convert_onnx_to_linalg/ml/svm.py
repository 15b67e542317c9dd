"""Support vector machines of the ai.onnx.ml domain: `onnx_ml.SVMRegressor`
and `onnx_ml.SVMClassifier`, as onnxruntime computes them (`svmclassifier.cc`,
`svmregressor.cc`, `ml_common.h`), in float.

The kernel of every sample with every support vector is one
`linalg.generic` (a dot product, or a squared distance for RBF) and one
pointwise generic (POLY `(gamma dot + coef0)^degree`, RBF `exp(-gamma d)`,
SIGMOID `tanh(gamma dot + coef0)`). The classifier's one-vs-one decision
values are a second reduction, in double as onnxruntime sums them, over a
dense [pairs, vectors] coefficient table (zero outside the two classes of a
pair, so the order of the sum is onnxruntime's); a loop over the samples then
votes, and with `prob_a`/`prob_b` turns the pairwise probabilities into class
probabilities by libsvm's iterative method (at most 100 rounds, stopping as
onnxruntime does). Without support vectors (liblinear), scores are
`X @ coefficients^T + rho[0]`.
"""

from __future__ import annotations

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
    OnnxLowering,
    fill,
    generic,
    require_equal,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.ml import scores as ml_scores
from onnxc.lowering.convert_onnx_to_linalg.ml.linear import (
    affine_scores,
    against_rows,
    coefficient_matrix,
)
from onnxc.lowering.convert_onnx_to_linalg.ml.scores import (
    F32,
    F64,
    I1,
    I64,
    Samples,
    const,
    select,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, nest

KERNELS = ("LINEAR", "POLY", "RBF", "SIGMOID")


def _kernels(
    lowering: OnnxLowering[Any],
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    x: Samples,
    vectors: np.ndarray,
) -> SSAValue:
    """K[n, v], the kernel of sample n with support vector v, in float."""
    kernel = str(op.attr("kernel_type"))
    if kernel not in KERNELS:
        raise unsupported(op, f"kernel_type {kernel}")
    params = [float(v) for v in op.attr("kernel_params") or []] + [0.0, 0.0, 0.0]
    gamma, coef0, degree = params[:3]
    count, features = vectors.shape
    require_equal(
        rewriter,
        lowering.shapes,
        op,
        x.c,
        features,
        "X has one feature per column of support_vectors",
    )
    k = ml_scores.scratch(rewriter, [x.n, count])
    fill(rewriter, op, k, 0.0)
    sv = weight(rewriter, op, vectors, F32, "support_vectors")

    def reduce(b: Builder, args: Any) -> SSAValue:
        a = scalar.convert(b, args[0], F32)
        if kernel == "RBF":
            d = scalar.SUB(b, a, args[1])
            return scalar.ADD(b, args[2], scalar.MUL(b, d, d))
        return scalar.ADD(b, args[2], scalar.MUL(b, a, args[1]))

    against_rows(rewriter, op, x, sv, k, reduce)
    if kernel == "LINEAR":
        return k

    def outer(b: Builder, args: Any) -> SSAValue:
        value = args[0]
        if kernel == "RBF":
            return scalar.EXP(b, scalar.MUL(b, const(b, -gamma), value))
        value = scalar.MUL(b, const(b, gamma), value)
        if coef0 != 0.0:
            value = scalar.ADD(b, value, const(b, coef0))
        if kernel == "SIGMOID":
            return scalar.TANH(b, value)
        if degree in (2.0, 3.0):
            return scalar.MUL(b, *[value] * int(degree))
        return scalar.POW(b, value, const(b, degree))

    identity = AffineMap.identity(2)
    generic(rewriter, op, [k], [k], [identity, identity], [PARALLEL, PARALLEL], outer)
    return k


class SVMRegressorOpLowering(OnnxLowering[onnx_ml.SVMRegressorOp]):
    """`onnx_ml.SVMRegressor`: Y[N, 1] = sum over v of coefficients[v] *
    K(X, support_vectors[v]) + rho[0] (or X @ coefficients + rho[0] without
    support vectors); with `one_class`, +1 or -1 by its sign. onnxruntime
    applies no post transform here, and neither does this."""

    def rewrite(self, op: onnx_ml.SVMRegressorOp, rewriter: PatternRewriter) -> None:
        x = ml_scores.samples(self, op, rewriter)
        coefficients = np.asarray(op.attr("coefficients") or [], np.float32)
        rho = float((op.attr("rho") or [0.0])[0])
        supports = int(op.attr("n_supports") or 0)
        y = self.result_buffer(rewriter, op.Y, [x.n, 1])
        if supports == 0:
            if op.attr("kernel_type") != "LINEAR":
                raise unsupported(op, "a non-linear kernel without support vectors")
            rows = coefficient_matrix(op, list(coefficients), 1)
            affine_scores(self, op, rewriter, x, rows, np.asarray([rho], np.float32), y)
        else:
            vectors = coefficient_matrix(op, op.attr("support_vectors") or [], supports)
            if coefficients.size != supports:
                raise unsupported(
                    op, f"{coefficients.size} coefficients for {supports} support vectors"
                )
            k = _kernels(self, op, rewriter, x, vectors)
            affine_scores(
                self,
                op,
                rewriter,
                Samples(k, 2, x.n, supports),
                coefficients.reshape(1, -1),
                np.asarray([rho], np.float32),
                y,
            )
        if op.attr("one_class"):
            identity = AffineMap.identity(2)

            def sign(b: Builder, args: Any) -> SSAValue:
                above = scalar.GREATER(b, args[0], const(b, 0.0))
                return select(b, above, const(b, 1.0), const(b, -1.0))

            generic(rewriter, op, [y], [y], [identity, identity], [PARALLEL, PARALLEL], sign)
        self.replace(rewriter, op, [y])


def _pair_table(op: onnx.OnnxOp, per_class: list[int], classes: int) -> np.ndarray:
    """W[pair, v]: the coefficient of support vector v in the decision value
    of pair (i, j), i < j in order (onnxruntime's layout of `coefficients`:
    [classes - 1, vectors]), zero outside classes i and j."""
    count = sum(per_class)
    coefficients = np.asarray(op.attr("coefficients") or [], np.float32)
    if coefficients.size != (classes - 1) * count:
        raise unsupported(
            op, f"{coefficients.size} coefficients for {classes} classes and {count} vectors"
        )
    table = coefficients.reshape(classes - 1, count)
    starts = np.cumsum([0, *per_class])
    rows: list[np.ndarray] = []
    for i in range(classes - 1):
        for j in range(i + 1, classes):
            row = np.zeros(count, np.float32)
            row[starts[i] : starts[i + 1]] = table[j - 1, starts[i] : starts[i + 1]]
            row[starts[j] : starts[j + 1]] = table[i, starts[j] : starts[j + 1]]
            rows.append(row)
    return np.stack(rows)


def _probabilities(b: Builder, r: list[list[SSAValue]]) -> list[SSAValue]:
    """libsvm's multiclass_probability (as onnxruntime has it) of the pairwise
    probabilities r[i][j]: at most 100 rounds, until no |Qp_i - pQp| reaches
    0.005 / k."""
    k = len(r)
    zero = const(b, 0.0)
    q = [[zero] * k for _ in range(k)]
    for i in range(k):
        for j in range(k):
            if j < i:
                q[i][i] = scalar.ADD(b, q[i][i], scalar.MUL(b, r[j][i], r[j][i]))
                q[i][j] = q[j][i]
            elif j > i:
                q[i][i] = scalar.ADD(b, q[i][i], scalar.MUL(b, r[j][i], r[j][i]))
                q[i][j] = scalar.NEG(b, scalar.MUL(b, r[j][i], r[i][j]))
    eps = const(b, 0.005 / k)
    start = [const(b, 1.0 / k) for _ in range(k)]

    def round_(b: Builder, _: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
        p, done = carried[:k], carried[k]
        qp = [scalar.ADD(b, *[scalar.MUL(b, q[i][j], p[j]) for j in range(k)]) for i in range(k)]
        pqp = scalar.ADD(b, *[scalar.MUL(b, p[i], qp[i]) for i in range(k)])
        error = zero
        for i in range(k):
            e = scalar.ABS(b, scalar.SUB(b, qp[i], pqp))
            error = select(b, scalar.GREATER(b, e, error), e, error)
        stop = scalar.OR(b, done, scalar.LESS(b, error, eps))
        new = list(p)
        for i in range(k):
            diff = scalar.DIV(b, scalar.SUB(b, pqp, qp[i]), q[i][i])
            new[i] = scalar.ADD(b, new[i], diff)
            grown = scalar.ADD(b, const(b, 1.0), diff)
            twice = scalar.MUL(b, const(b, 2.0), qp[i])
            inner = scalar.ADD(b, scalar.MUL(b, diff, q[i][i]), twice)
            pqp = scalar.DIV(
                b, scalar.DIV(b, scalar.ADD(b, pqp, scalar.MUL(b, diff, inner)), grown), grown
            )
            for j in range(k):
                qp[j] = scalar.DIV(b, scalar.ADD(b, qp[j], scalar.MUL(b, diff, q[i][j])), grown)
                new[j] = scalar.DIV(b, new[j], grown)
        return [*(select(b, stop, a, c) for a, c in zip(p, new, strict=True)), stop]

    return for_range(b, 0, 100, [*start, scalar.constant(b, 0, I1)], round_)[:k]


class SVMClassifierOpLowering(OnnxLowering[onnx_ml.SVMClassifierOp]):
    """`onnx_ml.SVMClassifier`, int64 or string labels (see the module docstring).
    With support vectors: the label of the most voted class (the first on a
    tie); Z the class probabilities with `prob_a`/`prob_b`, else the
    one-vs-one decision values (two classes: [-d, d] with NONE, [1 - p, p]
    otherwise, p the logistic of d with LOGISTIC, else d; PROBIT writes
    probit(d) and 0, where onnxruntime leaves the second unwritten). Without:
    onnxruntime's linear scores and labels. Then the post transform."""

    def rewrite(self, op: onnx_ml.SVMClassifierOp, rewriter: PatternRewriter) -> None:
        x = ml_scores.samples(self, op, rewriter)
        labels = ml_scores.class_labels(rewriter, op, "classlabels_ints", "classlabels_strings")
        classes = len(labels)
        name = ml_scores.transform_name(op)
        per_class = [int(v) for v in op.attr("vectors_per_class") or []]
        rho = [float(v) for v in op.attr("rho") or []]
        prob_a = [float(v) for v in op.attr("prob_a") or []]
        prob_b = [float(v) for v in op.attr("prob_b") or []]
        y = self.result_buffer(rewriter, op.Y, [x.n])
        if sum(per_class) == 0:
            self._linear(op, rewriter, x, labels, rho, y)
            return
        pairs = classes * (classes - 1) // 2
        if len(per_class) != classes or len(rho) != pairs or len(prob_a) != len(prob_b):
            raise unsupported(op, "vectors_per_class, rho or prob_a/prob_b do not fit the classes")
        proba = bool(prob_a)
        if proba and len(prob_a) != pairs:
            raise unsupported(op, f"{len(prob_a)} prob_a values for {pairs} class pairs")
        vectors = coefficient_matrix(op, op.attr("support_vectors") or [], sum(per_class))
        k = _kernels(self, op, rewriter, x, vectors)
        table = weight(rewriter, op, _pair_table(op, per_class, classes), F32, "pairs")
        decisions = ml_scores.scratch(rewriter, [x.n, pairs], F64)
        fill(rewriter, op, decisions, 0.0)

        def dot(b: Builder, args: Any) -> SSAValue:
            product = scalar.MUL(b, args[0], args[1])
            return scalar.ADD(b, args[2], scalar.convert(b, product, F64))

        kernels = Samples(k, 2, x.n, sum(per_class))
        against_rows(rewriter, op, kernels, table, decisions, dot)
        columns = classes if proba else (pairs if classes > 2 else 2)
        z = self.result_buffer(rewriter, op.Z, [x.n, columns])

        def row(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            wide = ml_scores.load_row(b, decisions, at[0], pairs)
            scores = [
                scalar.convert(b, scalar.ADD(b, d, scalar.constant(b, r, F64)), F32)
                for d, r in zip(wide, rho, strict=True)
            ]
            one = scalar.constant(b, 1, I64)
            nothing = scalar.constant(b, 0, I64)
            votes = [nothing] * classes
            r = [[const(b, 0.0)] * classes for _ in range(classes)]
            pair = 0
            for i in range(classes - 1):
                for j in range(i + 1, classes):
                    ahead = scalar.GREATER(b, scores[pair], const(b, 0.0))
                    votes[i] = scalar.ADD(b, votes[i], select(b, ahead, one, nothing))
                    votes[j] = scalar.ADD(b, votes[j], select(b, ahead, nothing, one))
                    if proba:
                        value = scalar.ADD(
                            b,
                            scalar.MUL(b, scores[pair], const(b, prob_a[pair])),
                            const(b, prob_b[pair]),
                        )
                        value = scalar.SUB(b, const(b, 1.0), ml_scores.logistic(b, value))
                        value = select(
                            b, scalar.GREATER(b, value, const(b, 1e-7)), value, const(b, 1e-7)
                        )
                        high = const(b, 1 - 1e-7)
                        r[i][j] = select(b, scalar.LESS(b, value, high), value, high)
                        r[j][i] = scalar.SUB(b, const(b, 1.0), r[i][j])
                    pair += 1
            ml_scores.store(b, labels.pick(b, ml_scores.first_max(b, votes)), y, at[0])
            if proba:
                out = ml_scores.transformed(b, name, _probabilities(b, r))
            elif classes > 2:
                out = ml_scores.transformed(b, name, scores)
            elif name == "PROBIT":
                out = [ml_scores.probit(b, scores[0]), const(b, 0.0)]
            elif name == "NONE":
                out = [scalar.NEG(b, scores[0]), scores[0]]
            else:
                d = scores[0]
                p = ml_scores.logistic(b, d) if name == "LOGISTIC" else d
                out = [scalar.SUB(b, const(b, 1.0), p), p]
            ml_scores.store_row(b, out, z, at[0])
            return []

        nest(builder_before(op), [x.n], [], row)
        self.replace(rewriter, op, [y, z])

    def _linear(
        self,
        op: onnx_ml.SVMClassifierOp,
        rewriter: PatternRewriter,
        x: Samples,
        labels: ml_scores.Labels,
        rho: list[float],
        y: SSAValue,
    ) -> None:
        """liblinear mode: scores X @ coefficients^T + rho[0], the label of
        the first largest (two classes: labels[1] where it is >= 0.5 with
        all coefficients positive, > 0 otherwise)."""
        classes = len(labels)
        coefficients = coefficient_matrix(op, op.attr("coefficients") or [], classes)
        z = self.result_buffer(rewriter, op.Z, [x.n, classes])
        bias = np.full(classes, rho[0] if rho else 0.0, np.float32)
        affine_scores(self, op, rewriter, x, coefficients, bias, z)
        name = ml_scores.transform_name(op)
        positive = bool((coefficients >= 0).all())
        proba = bool(op.attr("prob_a"))

        def row(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            values = ml_scores.load_row(b, z, at[0], classes)
            best = ml_scores.first_max(b, values)
            label = labels.pick(b, best)
            if classes == 2 and not proba:
                later = scalar.GREATER(b, values[1], values[0])
                top = select(b, later, values[1], values[0])
                wins = (
                    scalar.GREATER_OR_EQUAL(b, top, const(b, 0.5))
                    if positive
                    else scalar.GREATER(b, top, const(b, 0.0))
                )
                label = select(b, wins, labels.at(b, 1), label)
            ml_scores.store(b, label, y, at[0])
            ml_scores.store_row(b, ml_scores.transformed(b, name, values), z, at[0])
            return []

        nest(builder_before(op), [x.n], [], row)
        self.replace(rewriter, op, [y, z])
