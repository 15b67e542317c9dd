"""Linear algebra: Einsum and Det.

Einsum is one `linalg.generic`: a loop per distinct label of the equation
(the output's labels first, parallel; the others reduction), each operand
read through the map of its labels (a label repeated within a term is a
diagonal: the same loop twice), and the output accumulating the product of
the operands. Labels are letters (case matters); `...` stands for the
leading dimensions an operand has beyond its letters, broadcast numpy-style
across operands (a size-1 dimension is read at 0). Without `->` the output
is `...` then the letters that appear once, in alphabetical order; an
explicit output must keep `...` when it stands for dimensions (numpy's rule).

Det is sequential: for each matrix of the batch, an LU factorization with
partial pivoting of a copy (in float for 16-bit floats), the determinant
being the product of the pivots, negated once per row swap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    accumulator,
    accumulator_type,
    alloc,
    buffer_of,
    check,
    element_type,
    fill,
    generic,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import (
    builder_before,
    for_range,
    index,
    nest,
    when,
)
from onnxc.lowering.index_arith import Size

ELLIPSIS = "..."


@dataclass
class Equation:
    """An einsum equation with `...` expanded: the labels of each operand's
    dimensions and of the output's (a broadcast dimension is labelled by
    its position among them, `...0`, `...1`, ..., aligned at the right)."""

    inputs: list[list[str]]
    output: list[str]


def _terms(op: onnx.OnnxOp, text: str) -> list[str]:
    """The labels of one term, `...` as one item."""
    labels: list[str] = []
    rest = text
    while rest:
        if rest.startswith(ELLIPSIS):
            if ELLIPSIS in labels:
                raise unsupported(op, f"more than one '...' in the term '{text}'")
            labels.append(ELLIPSIS)
            rest = rest[len(ELLIPSIS) :]
        elif rest[0].isalpha() and rest[0].isascii():
            labels.append(rest[0])
            rest = rest[1:]
        else:
            raise unsupported(op, f"'{rest[0]}' in the einsum term '{text}'")
    return labels


def parse_equation(op: onnx.OnnxOp, equation: str, ranks: Sequence[int]) -> Equation:
    """The `Equation` of `equation` for operands of `ranks`."""
    text = equation.replace(" ", "")
    left, arrow, right = text.partition("->")
    terms = [_terms(op, t) for t in left.split(",")]
    if len(terms) != len(ranks):
        raise unsupported(op, f"'{equation}' has {len(terms)} terms for {len(ranks)} inputs")
    broadcast: list[int] = []
    for labels, rank in zip(terms, ranks, strict=True):
        letters = len([label for label in labels if label != ELLIPSIS])
        extra = rank - letters
        if extra < 0 or (extra > 0 and ELLIPSIS not in labels):
            raise unsupported(op, f"the term '{''.join(labels)}' does not fit rank {rank}")
        broadcast.append(extra if ELLIPSIS in labels else 0)
    width = max(broadcast, default=0)
    dots = [f"{ELLIPSIS}{k}" for k in range(width)]

    def expand(labels: list[str], count: int) -> list[str]:
        if ELLIPSIS not in labels:
            return labels
        at = labels.index(ELLIPSIS)
        return [*labels[:at], *dots[width - count :], *labels[at + 1 :]]

    inputs = [expand(labels, count) for labels, count in zip(terms, broadcast, strict=True)]
    if arrow:
        output = expand(_terms(op, right), width)
        if width and ELLIPSIS not in right:
            raise unsupported(op, f"'{equation}' drops the dimensions of '...' (numpy refuses)")
    else:
        letters = [label for labels in terms for label in labels if label != ELLIPSIS]
        output = [*dots, *sorted(label for label in set(letters) if letters.count(label) == 1)]
    everywhere = {label for labels in inputs for label in labels}
    if len(set(output)) != len(output) or not set(output) <= everywhere:
        raise unsupported(op, f"the output of '{equation}' repeats or invents a label")
    return Equation(inputs, output)


class EinsumOpLowering(OnnxLowering[onnx.EinsumOp]):
    """`onnx.Einsum` (see the module docstring): a zero fill and one
    generic whose body adds the product of the operands (no fill when
    nothing is summed). 16-bit floats accumulate in float."""

    def rewrite(self, op: onnx.EinsumOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        operands = list(op.Inputs)
        all_sizes = [shapes.sizes(v) for v in operands]
        equation = parse_equation(op, op.attr("equation"), [len(s) for s in all_sizes])
        sizes = self._label_sizes(op, rewriter, equation, all_sizes)
        summed = sorted(
            {label for labels in equation.inputs for label in labels} - set(equation.output),
            key=lambda label: [label in labels for labels in equation.inputs].index(True),
        )
        loops = [*equation.output, *summed]
        dim = {label: AffineDimExpr(k) for k, label in enumerate(loops)}
        maps: list[AffineMap] = []
        for labels, operand_sizes in zip(equation.inputs, all_sizes, strict=True):
            reads: list[AffineExpr] = []
            for label, size in zip(labels, operand_sizes, strict=True):
                repeated = size == 1 and sizes[label] != 1
                reads.append(AffineConstantExpr(0) if repeated else dim[label])
            maps.append(AffineMap(len(loops), 0, tuple(reads)))
        maps.append(AffineMap(len(loops), 0, tuple(dim[label] for label in equation.output)))
        output = self.result_buffer(
            rewriter, op.Output, [sizes[label] for label in equation.output]
        )
        acc = accumulator(rewriter, output, shapes.sizes(output))
        if summed:
            fill(rewriter, op, acc.buffer, 0.0)

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            factors = widened(b, args[:-1], args[-1].type)
            product = scalar.MUL(b, *factors) if len(factors) > 1 else factors[0]
            return scalar.ADD(b, args[-1], product) if summed else product

        iterators = [PARALLEL] * len(equation.output) + [REDUCTION] * len(summed)
        buffers = [buffer_of(rewriter, v) for v in operands]
        generic(rewriter, op, buffers, [acc.buffer], maps, iterators, body)
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [output])

    def _label_sizes(
        self,
        op: onnx.EinsumOp,
        rewriter: PatternRewriter,
        equation: Equation,
        all_sizes: Sequence[Sequence[Size]],
    ) -> dict[str, Size]:
        """The size of each label: a letter's sizes must agree; a broadcast
        dimension's are 1 or one size (known to be the same)."""
        shapes = self.shapes
        sizes: dict[str, Size] = {}
        for labels, operand_sizes in zip(equation.inputs, all_sizes, strict=True):
            for label, size in zip(labels, operand_sizes, strict=True):
                known = sizes.get(label)
                if known is None or shapes.same(known, size):
                    sizes[label] = size
                elif label.startswith(ELLIPSIS) and (size == 1 or known == 1):
                    sizes[label] = known if size == 1 else size
                elif isinstance(known, int) and isinstance(size, int):
                    raise unsupported(op, f"label '{label}' has sizes {known} and {size}")
                elif label.startswith(ELLIPSIS):
                    raise unsupported(op, "'...' dimensions that broadcast only at run time")
                else:
                    check(rewriter, op, shapes.equal(known, size), f"the sizes of '{label}' agree")
        return sizes


class DetOpLowering(OnnxLowering[onnx.DetOp]):
    """`onnx.Det` over [*, M, M] (see the module docstring): per matrix, a
    copy into an [M, M] scratch buffer, then for each column k the row of
    the largest |a[i, k]| (i >= k) swapped into row k, the determinant
    multiplied by the pivot and, when the pivot is not 0, the rows below
    reduced. A zero pivot makes the determinant 0."""

    def rewrite(self, op: onnx.DetOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.X)
        if len(sizes) < 2:
            raise unsupported(op, "X must be [*, M, M]")
        m = sizes[-1]
        if isinstance(m, int) and isinstance(sizes[-2], int) and m != sizes[-2]:
            raise unsupported(op, f"matrices of {sizes[-2]}x{m} are not square")
        if not shapes.same(m, sizes[-2]):
            check(rewriter, op, shapes.equal(sizes[-2], m), "the matrices are square")
        batch = sizes[:-2]
        output = self.result_buffer(rewriter, op.Y, batch)
        x = buffer_of(rewriter, op.X)
        element = element_type(output)
        wide = accumulator_type(element)
        static = [m if isinstance(m, int) else DYNAMIC_INDEX] * 2
        work = alloc(rewriter, MemRefType(wide, static), [m, m])
        here = builder_before(op)
        size = shapes.index(m)

        def matrix(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            def copy_in(b: Builder, ij: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
                value = b.insert(memref.LoadOp.get(x, [*at, *ij])).res
                b.insert(memref.StoreOp.get(scalar.convert(b, value, wide), work, ij))
                return []

            nest(b, [size, size], [], copy_in)
            (det,) = for_range(
                b, 0, size, [scalar.constant(b, 1.0, wide)], _Elimination(work, size)
            )
            b.insert(memref.StoreOp.get(scalar.convert(b, det, element), output, at))
            return []

        nest(here, batch, [], matrix)
        self.replace(rewriter, op, [output])


@dataclass
class _Elimination:
    """One column k of Det's LU factorization: carries the determinant."""

    work: SSAValue
    size: SSAValue

    def at(self, b: Builder, i: SSAValue, j: SSAValue) -> SSAValue:
        return b.insert(memref.LoadOp.get(self.work, [i, j])).res

    def __call__(self, b: Builder, k: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
        (det,) = carried
        after = b.insert(arith.AddiOp(k, index(b, 1))).result
        magnitude = scalar.ABS(b, self.at(b, k, k))

        def search(b: Builder, i: SSAValue, best: list[SSAValue]) -> list[SSAValue]:
            candidate = scalar.ABS(b, self.at(b, i, k))
            larger = scalar.GREATER(b, candidate, best[0])
            return [
                b.insert(arith.SelectOp(larger, new, old)).result
                for new, old in zip([candidate, i], best, strict=True)
            ]

        _, row = for_range(b, after, self.size, [magnitude, k], search)
        swapped = b.insert(arith.CmpiOp(row, k, "ne")).result

        def swap(b: Builder) -> None:
            def exchange(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                upper, lower = self.at(b, k, j), self.at(b, row, j)
                b.insert(memref.StoreOp.get(lower, self.work, [k, j]))
                b.insert(memref.StoreOp.get(upper, self.work, [row, j]))
                return []

            for_range(b, k, self.size, [], exchange)

        when(b, swapped, swap)
        pivot = self.at(b, k, k)
        det = scalar.MUL(b, det, pivot)
        det = b.insert(arith.SelectOp(swapped, scalar.NEG(b, det), det)).result
        zero = scalar.constant(b, 0.0, pivot.type)

        def reduce_rows(b: Builder) -> None:
            def row_below(b: Builder, i: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                factor = scalar.DIV(b, self.at(b, i, k), pivot)

                def column(b: Builder, j: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                    reduced = scalar.SUB(
                        b, self.at(b, i, j), scalar.MUL(b, factor, self.at(b, k, j))
                    )
                    b.insert(memref.StoreOp.get(reduced, self.work, [i, j]))
                    return []

                for_range(b, after, self.size, [], column)
                return []

            for_range(b, after, self.size, [], row_below)

        when(b, scalar.NOT_EQUAL(b, pivot, zero), reduce_rows)
        return [det]
