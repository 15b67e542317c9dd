"""The Fourier transform of each row of a node (DFT, STFT: `dft.py`), by
one of two paths, chosen by the transform's length L:

- a power of two known at compile time: the fast transform, iterative
  radix-2 Cooley-Tukey, O(L log L) per row, in place in a scratch buffer
  [L, 2] (real, imaginary) that the node allocates once and every row
  reuses. The row's samples go in at bit-reversed places (zeros elsewhere),
  then log2(L) stages of butterflies leave the bins in order;
- any other length, or one known only at run time: the direct sum of each
  bin, O(L^2) per row: an `scf.for` over the samples carrying the real and
  imaginary sums and the twiddle index k n mod L (advanced by k each sample,
  so no product or division is needed).

Both read tables of the twiddles e^(-+2 pi i j / L) (cos and -+sin(2 pi j
/ L); + for the inverse, which is not scaled here), computed once per node
in double and rounded to the accumulator type (float for float and the
16-bit floats, double for double), in which all the arithmetic is done.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects import math as math_dialect
from xdsl.dialects.builtin import MemRefType, f64
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import PARALLEL, alloc, generic, identity_map
from onnxc.lowering.convert_onnx_to_linalg.interpolation import div, mul, of_index
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, convert
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import (
    builder_before,
    for_range,
    index,
    nest,
    when,
)
from onnxc.lowering.index_arith import Size

Value = tuple[SSAValue, SSAValue | None]
"""A complex number: its real and imaginary parts (None for zero)."""
Sample = Callable[[Builder, SSAValue], Value]
"""Loads sample n of the row being transformed, in the accumulator type."""
Place = Callable[[Builder, SSAValue, Value], None]
"""Puts a value at position n of the fast transform's input."""
Store = Callable[[Builder, list[SSAValue], SSAValue, SSAValue, SSAValue], None]
"""Stores bin k of a row: gets the row's position, k, the real and the
imaginary part."""


@dataclass(frozen=True)
class Transform:
    """The L-point transform (`inverse` or forward) of one node, set up by
    `prepare`."""

    length: Size
    inverse: bool
    acc: Attribute
    tables: tuple[SSAValue, SSAValue]
    """The twiddles e^(-+2 pi i j / L) for j < L (+ for the inverse): cos
    and -+sin(2 pi j / L)."""
    scratch: SSAValue | None
    """The fast transform's buffer [L, 2]; None for the direct sum."""


@dataclass(frozen=True)
class Signal:
    """The samples of each row that a transform reads."""

    sample_of: Callable[[Builder, list[SSAValue]], Sample]
    """The loader of the samples of the row at a position."""
    count: Size
    """How many samples there are (the rest, up to L, are zeros)."""
    hermitian: bool = False
    """The samples are the one-sided half of a Hermitian spectrum: bin k
    for 0 < k < L / 2 stands also for its conjugate at L - k (IRFFT)."""


def prepare(
    rewriter: PatternRewriter, source: Operation, length: Size, inverse: bool, acc: Attribute
) -> Transform:
    """The twiddle tables of an L = `length`-point transform and, when L is
    a power of two known at compile time, the fast transform's scratch
    buffer; built before `source`."""
    tables = [alloc(rewriter, MemRefType(acc, [-1]), [length]) for _ in range(2)]
    here = builder_before(source)
    step = div(here, 2 * math.pi, scalar.number(here, length, f64))

    def body(b: Builder, _: Sequence[SSAValue]) -> Sequence[SSAValue]:
        angle = mul(b, step, of_index(b, b.insert(IndexOp(0)).result))
        cos = b.insert(math_dialect.CosOp(angle)).result
        sin = b.insert(math_dialect.SinOp(angle)).result
        if not inverse:
            sin = scalar.NEG(b, sin)
        return [convert(b, cos, acc), convert(b, sin, acc)]

    generic(rewriter, source, [], tables, [identity_map(1)] * 2, [PARALLEL], body)
    scratch = None
    if isinstance(length, int) and length & (length - 1) == 0:
        scratch = alloc(rewriter, MemRefType(acc, [length, 2]))
    return Transform(length, inverse, acc, (tables[0], tables[1]), scratch)


def spectra(
    here: Builder,
    rows: Sequence[Size],
    transform: Transform,
    signal: Signal,
    bins: Size,
    store: Store,
) -> None:
    """For each position of `rows`, the first `bins` (<= L) bins of the
    transform of the `signal` there, each given to `store`; built at
    `here`."""
    scratch = transform.scratch

    def row(b: Builder, position: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
        sample = signal.sample_of(b, position)
        if scratch is not None:
            _fft(b, transform, _filler(sample, signal, transform.length))

        def out(b: Builder, k: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            if scratch is not None:
                re, im = (
                    b.insert(memref.LoadOp.get(scratch, [k, index(b, p)])).res for p in (0, 1)
                )
            else:
                weighted = _hermitian(sample, transform) if signal.hermitian else sample
                re, im = _direct(b, transform, weighted, signal.count, k)
            store(b, position, k, re, im)
            return []

        for_range(b, 0, bins, [], out)
        return []

    nest(here, rows, [], row)


def _product(b: Builder, x: Value, c: SSAValue, s: SSAValue) -> tuple[SSAValue, SSAValue]:
    """x (c + i s)."""
    xr, xi = x
    re, im = scalar.MUL(b, xr, c), scalar.MUL(b, xr, s)
    if xi is not None:
        re = scalar.SUB(b, re, scalar.MUL(b, xi, s))
        im = scalar.ADD(b, im, scalar.MUL(b, xi, c))
    return re, im


def _twiddle(b: Builder, transform: Transform, j: SSAValue) -> tuple[SSAValue, SSAValue]:
    """The twiddle e^(-+2 pi i j / L): its real and imaginary parts."""
    c, s = (b.insert(memref.LoadOp.get(table, [j])).res for table in transform.tables)
    return c, s


def _direct(
    b: Builder, transform: Transform, sample: Sample, count: Size, k: SSAValue
) -> tuple[SSAValue, SSAValue]:
    """Bin k: the sum over n < `count` of sample(n) e^(-+2 pi i k n / L)."""
    zero = constant(b, 0.0, transform.acc)
    length = index(b, transform.length)

    def term(b: Builder, n: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
        re, im, j = carried
        dr, di = _product(b, sample(b, n), *_twiddle(b, transform, j))
        advanced = b.insert(arith.AddiOp(j, k)).result
        wrapped = b.insert(arith.SubiOp(advanced, length)).result
        past = b.insert(arith.CmpiOp(advanced, length, "sge")).result
        j = b.insert(arith.SelectOp(past, wrapped, advanced)).result
        return [scalar.ADD(b, re, dr), scalar.ADD(b, im, di), j]

    re, im, _ = for_range(b, 0, count, [zero, zero, index(b, 0)], term)
    return re, im


def _hermitian(sample: Sample, transform: Transform) -> Sample:
    """Sample k of a one-sided spectrum weighted for the direct sum: bins 0
    and L/2 once, the others twice (for themselves and their conjugates,
    whose terms add up to twice the real part, the only part kept)."""
    acc = transform.acc

    def weighted(b: Builder, k: SSAValue) -> Value:
        xr, xi = sample(b, k)
        first = b.insert(arith.CmpiOp(k, index(b, 0), "eq")).result
        twice_k = b.insert(arith.AddiOp(k, k)).result
        middle = b.insert(arith.CmpiOp(twice_k, index(b, transform.length), "eq")).result
        once = b.insert(arith.OrIOp(first, middle)).result
        weight = b.insert(arith.SelectOp(once, constant(b, 1.0, acc), constant(b, 2.0, acc)))
        xr = scalar.MUL(b, xr, weight.result)
        return xr, None if xi is None else scalar.MUL(b, xi, weight.result)

    return weighted


def _filler(sample: Sample, signal: Signal, length: Size) -> Callable[[Builder, Place], None]:
    """Places samples 0..count-1 and, for a Hermitian half, the conjugate
    of each sample k in 0 < k < L / 2 at L - k (the full spectrum)."""

    def fill(b: Builder, place: Place) -> None:
        def each(b: Builder, k: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            value = sample(b, k)
            place(b, k, value)
            if signal.hermitian:
                re, im = value
                inside = b.insert(arith.CmpiOp(k, index(b, 0), "sgt")).result
                twice_k = b.insert(arith.AddiOp(k, k)).result
                below = b.insert(arith.CmpiOp(twice_k, index(b, length), "slt")).result
                mirror = b.insert(arith.SubiOp(index(b, length), k)).result
                conjugate = (re, None if im is None else scalar.NEG(b, im))
                mirrored = b.insert(arith.AndIOp(inside, below)).result
                when(b, mirrored, lambda b: place(b, mirror, conjugate))
            return []

        for_range(b, 0, signal.count, [], each)

    return fill


def _reversed_bits(b: Builder, n: SSAValue, width: int) -> SSAValue:
    """n with its lowest `width` bits reversed."""
    one = index(b, 1)

    def bit(b: Builder, _: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
        value, reversed_ = carried
        low = b.insert(arith.AndIOp(value, one)).result
        shifted = b.insert(arith.ShLIOp(reversed_, one)).result
        return [
            b.insert(arith.ShRUIOp(value, one)).result,
            b.insert(arith.OrIOp(shifted, low)).result,
        ]

    return for_range(b, 0, width, [n, index(b, 0)], bit)[1]


def _fft(b: Builder, transform: Transform, fill: Callable[[Builder, Place], None]) -> None:
    """The fast transform of the values `fill` places, left in the scratch
    buffer: cleared, filled at bit-reversed places, then the butterflies of
    each stage (of size 2, 4, ..., L) combine pairs of half-size spectra
    with the twiddles of index m L / size."""
    scratch, length = transform.scratch, transform.length
    assert scratch is not None and isinstance(length, int)
    width = length.bit_length() - 1
    zero = constant(b, 0.0, transform.acc)
    parts = index(b, 0), index(b, 1)

    def clear(b: Builder, n: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
        for part in parts:
            b.insert(memref.StoreOp.get(zero, scratch, [n, part]))
        return []

    for_range(b, 0, length, [], clear)

    def place(b: Builder, n: SSAValue, value: Value) -> None:
        at = _reversed_bits(b, n, width)
        for part, v in zip(parts, value, strict=True):
            if v is not None:
                b.insert(memref.StoreOp.get(v, scratch, [at, part]))

    fill(b, place)

    def load(b: Builder, at: SSAValue) -> tuple[SSAValue, SSAValue]:
        re, im = (b.insert(memref.LoadOp.get(scratch, [at, part])).res for part in parts)
        return re, im

    def stage(b: Builder, _: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
        half = carried[0]
        size = b.insert(arith.AddiOp(half, half)).result
        groups = b.insert(arith.DivUIOp(index(b, length), size)).result

        def group(b: Builder, g: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            start = b.insert(arith.MuliOp(g, size)).result

            def butterfly(b: Builder, m: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                j = b.insert(arith.MuliOp(m, groups)).result
                top = b.insert(arith.AddiOp(start, m)).result
                bottom = b.insert(arith.AddiOp(top, half)).result
                ar, ai = load(b, top)
                tr, ti = _product(b, load(b, bottom), *_twiddle(b, transform, j))
                for at, values in (
                    (top, (scalar.ADD(b, ar, tr), scalar.ADD(b, ai, ti))),
                    (bottom, (scalar.SUB(b, ar, tr), scalar.SUB(b, ai, ti))),
                ):
                    for part, v in zip(parts, values, strict=True):
                        b.insert(memref.StoreOp.get(v, scratch, [at, part]))
                return []

            for_range(b, 0, half, [], butterfly)
            return []

        for_range(b, 0, groups, [], group)
        return [size]

    for_range(b, 0, width, [index(b, 1)], stage)
