"""TfIdfVectorizer: the n-grams of X's rows (X int32, int64 or string, [C]
or [N, C]) found in a constant pool (`pool_int64s`, `pool_strings`),
counted into the columns `ngram_indexes` gives them, weighted as `mode`
says. Strings compare bytewise (`onnxc.string_less`, `onnxc.string_equal`),
and the string pool is sorted as UTF-8 bytes.

The pool is read at compile time into one table per n-gram length n (in
[min_gram_length, max_gram_length]): its n-grams as rows, sorted, with the
output column and the weight of each. A pool naming an n-gram twice, or
whose lengths do not divide into whole n-grams, is an error (as in
onnxruntime); n-grams holding a value X's type cannot hold are dropped
(they never match). The generated code loops over each row, each skip
distance d (1 to max_skip_count + 1), each start s and each length n whose
window X[s], X[s+d], ..., X[s+(n-1)d] fits in the row (n = 1 only for d = 1:
unigrams are counted once), the order in which onnxruntime and onnx.reference
visit windows. A bisection of the length's sorted table (ceil(log2 K) steps
for K n-grams) finds the only row the window can equal; an equal window
updates its column: TF adds 1, IDF writes the n-gram's weight, TFIDF adds
it (1 without `weights`, both). The weights are read per pool n-gram, as the
spec and onnxruntime read them (onnx.reference reads them per output
column).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.constants import numpy_dtype
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    element_type,
    fill,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.ml.scores import (
    F32,
    I32,
    Samples,
    samples,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import (
    builder_before,
    for_range,
    index,
    nest,
    when,
)
from onnxc.lowering.convert_onnx_to_linalg.sorted_tables import find_row

MODES = ("TF", "IDF", "TFIDF")


@dataclass
class _Grams:
    """The pool's n-grams of one length: `tokens` [K, length], distinct rows
    in lexicographic order, the output column of each (`columns`, [K]) and
    its weight (`weights`, [K])."""

    length: int
    tokens: np.ndarray
    columns: np.ndarray
    weights: np.ndarray


def _grams(op: onnx.TfIdfVectorizerOp, tokens: Attribute) -> list[_Grams]:
    """The pool's n-grams within [min_gram_length, max_gram_length], by
    length, for X of element type `tokens`; a malformed pool is an error."""
    strings = scalar.kind(tokens) is scalar.Kind.STRING
    if strings != bool(op.attr("pool_strings")):
        which = "pool_strings for X of numbers" if not strings else "pool_int64s for string X"
        raise unsupported(op, f"{which}")
    pool: list[object] = (
        [str(v).encode() for v in op.attr("pool_strings")]
        if strings
        else [int(v) for v in op.attr("pool_int64s") or []]
    )
    counts = [int(v) for v in op.attr("ngram_counts")]
    columns = [int(v) for v in op.attr("ngram_indexes")]
    shortest, longest = op.attr("min_gram_length"), op.attr("max_gram_length")
    if not 1 <= shortest <= longest:
        raise unsupported(op, f"gram lengths from {shortest} to {longest}")
    if counts != sorted(counts) or any(c < 0 or c > len(pool) for c in counts):
        raise unsupported(op, f"ngram_counts {counts} are not starts in the pool")
    if not columns or min(columns) < 0:
        raise unsupported(op, "ngram_indexes must be non-negative columns")
    weights = [float(w) for w in op.attr("weights") or []]

    def holds(gram: tuple[object, ...]) -> bool:  # X's type can hold the n-gram
        if strings:
            return True
        limits = np.iinfo(numpy_dtype(tokens))
        return all(limits.min <= int(v) <= limits.max for v in gram)  # type: ignore[call-overload]

    found: list[_Grams] = []
    first = 0  # the number of the length's first n-gram in the pool
    for length, start in enumerate(counts, 1):
        end = counts[length] if length < len(counts) else len(pool)
        number, rest = divmod(end - start, length)
        if rest:
            raise unsupported(op, f"the pool's {length}-grams have {end - start} items")
        if number and shortest <= length <= longest:
            if first + number > len(columns) or len(weights) not in (0, len(columns)):
                raise unsupported(op, "ngram_indexes and weights need one entry per pool n-gram")
            grams = [
                tuple(pool[start + k * length : start + (k + 1) * length]) for k in range(number)
            ]
            if len(set(grams)) < number:
                raise unsupported(op, f"the pool names a {length}-gram twice")
            order = sorted(((gram, first + k) for k, gram in enumerate(grams) if holds(gram)))
            if order:
                table = _table([gram for gram, _ in order], tokens, length)
                place = np.asarray([columns[k] for _, k in order], np.int32)
                weight_of = np.asarray(
                    [weights[k] if weights else 1.0 for _, k in order], np.float32
                )
                found.append(_Grams(length, table, place, weight_of))
        first += number
    return found


def _table(grams: list[tuple[object, ...]], tokens: Attribute, length: int) -> np.ndarray:
    """Sorted n-grams as a [K, length] array of X's element type (strings,
    sorted as UTF-8 bytes, as `str`)."""
    if scalar.kind(tokens) is scalar.Kind.STRING:
        table = np.empty((len(grams), length), dtype=object)
        table[:] = [[bytes(v).decode() for v in gram] for gram in grams]  # type: ignore[arg-type]
        return table
    return np.asarray(grams, numpy_dtype(tokens)).reshape(-1, length)


@dataclass
class _Table:
    """One length's `_Grams` as constant buffers (`weights` None: all 1)."""

    length: int
    count: int
    tokens: SSAValue
    columns: SSAValue
    weights: SSAValue | None


@dataclass
class _Output:
    """Y, the row being counted (no index for X of rank 1) and the mode."""

    y: SSAValue
    row: list[SSAValue]
    mode: str


def _look_up(b: Builder, x: Samples, table: _Table, out: _Output, s: SSAValue, d: SSAValue) -> None:
    """Updates Y for the window of `table`'s length at start s, skip
    distance d, when it is one of the table's n-grams."""
    window = [_token(b, x, out.row, s, d, j) for j in range(table.length)]
    equal, found = find_row(b, window, table.tokens, table.count)

    def update(b: Builder) -> None:
        place = b.insert(memref.LoadOp.get(table.columns, [found])).res
        at = [*out.row, b.insert(arith.IndexCastOp(place, IndexType())).result]
        if table.weights is None:
            value = scalar.constant(b, 1.0, F32)
        else:
            value = b.insert(memref.LoadOp.get(table.weights, [found])).res
        if out.mode != "IDF":
            value = scalar.ADD(b, b.insert(memref.LoadOp.get(out.y, at)).res, value)
        b.insert(memref.StoreOp.get(value, out.y, at))

    when(b, equal, update)


class TfIdfVectorizerOpLowering(OnnxLowering[onnx.TfIdfVectorizerOp]):
    """`onnx.TfIdfVectorizer` (see the module docstring).
    Y is filled with zeros, then each window equal to a pool n-gram updates
    its column in place."""

    def rewrite(self, op: onnx.TfIdfVectorizerOp, rewriter: PatternRewriter) -> None:
        mode = op.attr("mode")
        if mode not in MODES:
            raise unsupported(op, f"mode {mode!r} (expected one of {', '.join(MODES)})")
        skips = int(op.attr("max_skip_count"))
        if skips < 0:
            raise unsupported(op, f"max_skip_count {skips} is negative")
        tokens_type = element_type(op.X)
        grams = _grams(op, tokens_type)
        columns = max(int(v) for v in op.attr("ngram_indexes")) + 1
        weighted = mode != "TF" and bool(op.attr("weights"))
        x = samples(self, op, rewriter)
        rows: list[int | SSAValue] = [x.n] if x.rank == 2 else []
        y = self.result_buffer(rewriter, op.Y, [*rows, columns])
        fill(rewriter, op, y, 0.0)
        tables = [
            _Table(
                g.length,
                len(g.columns),
                weight(rewriter, op, g.tokens, tokens_type, f"grams{g.length}"),
                weight(rewriter, op, g.columns, I32, f"columns{g.length}"),
                weight(rewriter, op, g.weights, F32, f"weights{g.length}") if weighted else None,
            )
            for g in grams
        ]
        length = self.shapes.index(x.c)
        # with unigrams only, the skip distances past 1 have nothing to count
        distances = skips + 2 if any(t.length > 1 for t in tables) else 2
        once = distances > 2 and any(t.length == 1 for t in tables)

        def count(b: Builder, row: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            out = _Output(y, row, mode)

            def per_skip(b: Builder, d: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                first = b.insert(arith.CmpiOp(d, index(b, 1), "eq")) if once else None

                def per_start(b: Builder, s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                    for table in tables:
                        look_up = partial(_look_up, x=x, table=table, out=out, s=s, d=d)
                        if table.length > 1:  # the window's last token is in the row
                            last = b.insert(arith.AddiOp(s, _times(b, d, table.length - 1)))
                            when(
                                b,
                                b.insert(arith.CmpiOp(last.result, length, "slt")).result,
                                look_up,
                            )
                        elif first is not None:  # unigrams are counted at distance 1 only
                            when(b, first.result, look_up)
                        else:
                            look_up(b)
                    return []

                for_range(b, 0, length, [], per_start)
                return []

            for_range(b, 1, distances, [], per_skip)
            return []

        nest(builder_before(op), rows, [], count)
        self.replace(rewriter, op, [y])


def _times(b: Builder, d: SSAValue, j: int) -> SSAValue:
    return d if j == 1 else b.insert(arith.MuliOp(d, index(b, j))).result


def _token(
    b: Builder, x: Samples, row: list[SSAValue], s: SSAValue, d: SSAValue, j: int
) -> SSAValue:
    """X[row, s + j*d], the j-th token of the window starting at s."""
    at = s if j == 0 else b.insert(arith.AddiOp(s, _times(b, d, j))).result
    return b.insert(memref.LoadOp.get(x.x, [*row, at])).res
