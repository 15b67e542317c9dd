"""`kernel.matmul` (chosen by `select-kernels`) as register-blocked loops.

The product `Y[g] = A[g] B` of row-major matrices is computed in register
blocks of `rows` rows of A by `b` columns of Y (`lanes`): one accumulator
array of `b` floats per row (a `memref.alloca` the C compiler keeps in vector
registers), updated for each k in a constant-trip loop over the columns, with
A[m, k] read once per row as a scalar and B[k, n..n+b] as `b` contiguous
floats (a packed B's block, or a row-major B's row). The vector loop runs
across independent outputs, never across the reduction, so each output keeps
the plain lowering's summation order (the bias or zero, then k in order,
then the bias added after, then the residual) and the results equal the plain
loops' when the C compiler does not contract multiply-adds. On targets with
a fused multiply-add (`fma`), each step is one `math.fma` (C99 `fmaf`): the
same order, one rounding instead of two.

A and B (when not packed) may each be the transposition of their buffer
(`a_perm`, `b_perm`), and Y's buffer the transposition of Y (`y_perm`), each
keeping the last axis last: the indices are permuted (through the inverse
permutation for Y), so a Transpose next to the product costs no copy.

Loops: products, column blocks, row blocks; rows past a whole number of
blocks form one smaller block, and columns past a whole number of blocks a
last column block whose lane loop has the remaining trip count (a packed B's
zero padding is never read). The epilogue (bias, residual, Relu or Clip) is
applied as the accumulators are stored.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import kernel
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    is_none,
    shape_of,
)
from onnxc.lowering.convert_onnx_to_linalg.kernels.loops import (
    Activation,
    Arith,
    accumulate,
    activation,
    load,
    loops_over,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range
from onnxc.lowering.index_arith import Size


class MatmulOpLowering(OnnxLowering[kernel.MatmulOp]):
    """`kernel.matmul` -> register-blocked loops (see the module docstring)."""

    def rewrite(self, op: kernel.MatmulOp, rewriter: PatternRewriter) -> None:
        a = _View(buffer_of(rewriter, op.A), op.attr("a_perm") or [])
        y_shape = list(shape_of(op.Y))
        out = _View.holding(self.result_buffer(rewriter, op.Y, y_shape), op.attr("y_perm") or [])
        b_shape = shape_of(op.B)
        packed = bool(op.attr("packed"))
        product = _Product(
            a=a,
            b=_View(buffer_of(rewriter, op.B), op.attr("b_perm") or []),
            bias=None if is_none(op.D) else buffer_of(rewriter, op.D),
            residual=None if is_none(op.R) else buffer_of(rewriter, op.R),
            out=out,
            activation=activation(op),
            batch=a.shape()[:-2],
            shape=(a.shape()[-2], a.shape()[-1], out.shape()[-1]),
            packed=packed,
            shared_b=packed or len(b_shape) == 2,
            lanes=op.attr("lanes"),
            block_rows=op.attr("rows"),
            bias_first=bool(op.attr("bias_first")),
            fused=bool(op.attr("fma")),
            parallel=bool(op.attr("parallel")),
        )
        product.build(builder_before(op))
        self.replace(rewriter, op, [out.buffer])


@dataclass(frozen=True)
class _View:
    """A buffer seen through a transposition: the logical tensor is
    transpose(buffer, perm) (ONNX's Transpose; no perm: the buffer itself)."""

    buffer: SSAValue
    perm: list[int]

    @staticmethod
    def holding(buffer: SSAValue, perm: list[int]) -> _View:
        """The view of a tensor written into `buffer` as transpose(tensor,
        perm) (`y_perm`): the tensor is transpose(buffer, inverse of perm)."""
        inverse = [0] * len(perm)
        for axis, source in enumerate(perm):
            inverse[source] = axis
        return _View(buffer, inverse)

    def shape(self) -> list[int]:
        physical = list(shape_of(self.buffer))
        return [physical[p] for p in self.perm] if self.perm else physical

    def at(self, logical: list[Size]) -> list[Size]:
        """The buffer's index of a logical index."""
        if not self.perm:
            return logical
        physical: list[Size] = [0] * len(logical)
        for axis, source in enumerate(self.perm):
            physical[source] = logical[axis]
        return physical


@dataclass(frozen=True)
class _Product:
    """The loops of one blocked matrix product."""

    a: _View
    b: _View
    bias: SSAValue | None
    residual: SSAValue | None
    out: _View
    activation: Activation
    batch: list[int]  # the leading dimensions of A, B (unless shared) and Y
    shape: tuple[int, int, int]  # M, K, N
    packed: bool
    shared_b: bool  # one B for every product
    lanes: int
    block_rows: int
    bias_first: bool
    fused: bool  # fused multiply-adds
    parallel: bool  # the outer loop (products, column blocks, else rows) split over threads

    def build(self, b: Builder) -> None:
        """The loops; with `parallel`, the outermost one over products and
        column blocks is split over threads, or, when there is one of each,
        the loop over the row blocks."""
        whole, tail = divmod(self.shape[2], self.lanes)
        batch = len(self.batch)
        if whole:
            outer = self.parallel and max([*self.batch, whole]) > 1
            rows = self.parallel and not outer

            def block(inner: Builder, at: list[SSAValue]) -> None:
                self._rows(inner, at[:batch], at[batch], self.lanes, rows)

            loops_over(b, [*self.batch, whole], block, outer)
        if tail:
            outer = self.parallel and max(self.batch, default=1) > 1
            rows = self.parallel and not outer

            def last(inner: Builder, at: list[SSAValue]) -> None:
                self._rows(inner, at, Arith(inner).index(whole), tail, rows)

            loops_over(b, self.batch, last, outer)

    def _rows(
        self, b: Builder, g: list[SSAValue], nb: SSAValue, width: int, parallel: bool
    ) -> None:
        """Every row of product g, columns of block nb (`width` of them); the
        loop over whole row blocks split over threads with `parallel`."""
        rows = self.shape[0]
        whole, rest = divmod(rows, self.block_rows)

        def full(inner: Builder, m0: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            self._block(inner, g, nb, m0, self.block_rows, width)
            return []

        if whole:
            for_range(
                b, 0, whole * self.block_rows, [], full, step=self.block_rows, parallel=parallel
            )
        if rest:
            self._block(b, g, nb, Arith(b).index(whole * self.block_rows), rest, width)

    def _block(
        self, b: Builder, g: list[SSAValue], nb: SSAValue, m0: SSAValue, rows: int, width: int
    ) -> None:
        """Y[g, m0 + j, nb * lanes + v] for j < rows, v < width."""
        a = Arith(b)
        n0 = a.mul(nb, self.lanes)
        row_at = [a.add(m0, j) for j in range(rows)]
        accumulators: list[SSAValue] = []
        for j in range(rows):
            acc = b.insert(memref.AllocaOp.get(f32, shape=[width]))
            acc.memref.name_hint = f"acc{j}"
            accumulators.append(acc.memref)

        def initial(inner: Builder, v: SSAValue) -> None:
            if self.bias is not None and self.bias_first:
                start = load(inner, self.bias, [Arith(inner).add(n0, v)])
            else:
                start = scalar.constant(inner, 0.0, f32)
            for acc in accumulators:
                inner.insert(memref.StoreOp.get(start, acc, [v]))

        _lanes(b, width, initial)

        def step(inner: Builder, k: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            values = [load(inner, self.a.buffer, self.a.at([*g, m, k])) for m in row_at]

            def lane(lane_b: Builder, v: SSAValue) -> None:
                weight = load(lane_b, self.b.buffer, self._b_at(lane_b, g, nb, n0, k, v))
                for acc, value in zip(accumulators, values, strict=True):
                    accumulate(lane_b, acc, v, value, weight, self.fused)

            _lanes(inner, width, lane)
            return []

        for_range(b, 0, self.shape[1], [], step)

        def store(inner: Builder, v: SSAValue) -> None:
            n = Arith(inner).add(n0, v)
            bias = None
            if self.bias is not None and not self.bias_first:
                bias = load(inner, self.bias, [n])
            for acc, m in zip(accumulators, row_at, strict=True):
                at = [Arith(inner).index(i) for i in self.out.at([*g, m, n])]
                result = load(inner, acc, [v])
                if bias is not None:
                    result = scalar.ADD(inner, result, bias)
                if self.residual is not None:
                    result = scalar.ADD(inner, result, load(inner, self.residual, at))
                inner.insert(
                    memref.StoreOp.get(self.activation(inner, result), self.out.buffer, at)
                )

        _lanes(b, width, store)

    def _b_at(
        self, b: Builder, g: list[SSAValue], nb: SSAValue, n0: Size, k: SSAValue, v: SSAValue
    ) -> list[Size]:
        """Where B[k, nb * lanes + v] is: in the packed block, or in the row."""
        if self.packed:
            return [nb, k, v]
        n = Arith(b).add(n0, v)
        return self.b.at([k, n] if self.shared_b else [*g, k, n])


def _lanes(b: Builder, width: int, body: Callable[[Builder, SSAValue], None]) -> None:
    def lane(inner: Builder, v: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        body(inner, v)
        return []

    for_range(b, 0, width, [], lane)


__all__ = ["MatmulOpLowering"]
