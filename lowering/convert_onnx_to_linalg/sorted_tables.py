"""Searches of constant sorted tables: a bisection finds the only row a
run-time key can equal, in ceil(log2 K) steps for K rows, then one equality
test. TfIdfVectorizer looks n-grams up this way, the ml encoders their keys.
Rows compare lexicographically with the scalar LESS and EQUAL of their
element type (strings bytewise)."""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import SSAValue

from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import for_range, index


def select(b: Builder, condition: SSAValue, a: SSAValue, other: SSAValue) -> SSAValue:
    return b.insert(arith.SelectOp(condition, a, other)).result


def _below(b: Builder, window: list[SSAValue], tokens: SSAValue, row: SSAValue) -> SSAValue:
    """Whether `window` is lexicographically before row `row` of `tokens`."""
    below: SSAValue | None = None
    for j in reversed(range(len(window))):
        token = b.insert(memref.LoadOp.get(tokens, [row, index(b, j)])).res
        less = scalar.LESS(b, window[j], token)
        if below is not None:
            below = scalar.OR(b, less, scalar.AND(b, scalar.EQUAL(b, window[j], token), below))
        else:
            below = less
    assert below is not None
    return below


def find_row(
    b: Builder, window: list[SSAValue], tokens: SSAValue, count: int
) -> tuple[SSAValue, SSAValue]:
    """(whether `window` is a row of `tokens` ([count, n], sorted), that row):
    a bisection keeping tokens[lo] <= window < tokens[hi], hi = count standing
    for past the end, then one equality test."""

    def halve(b: Builder, _: SSAValue, bounds: list[SSAValue]) -> list[SSAValue]:
        lo, hi = bounds
        middle = b.insert(arith.DivSIOp(b.insert(arith.AddiOp(lo, hi)).result, index(b, 2))).result
        below = _below(b, window, tokens, middle)
        return [select(b, below, lo, middle), select(b, below, middle, hi)]

    steps = (count - 1).bit_length()
    lo = index(b, 0)
    if steps:
        lo, _ = for_range(b, 0, steps, [lo, index(b, count)], halve)
    equal: SSAValue | None = None
    for j, value in enumerate(window):
        token = b.insert(memref.LoadOp.get(tokens, [lo, index(b, j)])).res
        same = scalar.EQUAL(b, value, token)
        equal = same if equal is None else scalar.AND(b, equal, same)
    assert equal is not None
    return equal, lo
