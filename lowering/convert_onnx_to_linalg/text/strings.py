"""StringConcat and StringSplit on string tensors, and what every operator
that makes strings shares.

A string is a descriptor of bytes (`!onnxc.string`, see the onnxc_strings
dialect module). Operators that only pick parts of strings (StringSplit)
make descriptors pointing into their input's bytes. Operators that make new
bytes (StringConcat, StringNormalizer's case changes) first add up the bytes
their results need, in a loop over the elements, then take a byte buffer of
that size from the workspace (`string_bytes`: a size known from data, so
the workspace check and the Python runner's retry cover it) and write the
results into it one after the other. Nothing else reuses those bytes: the
planner keeps the buffer alive to the end of the function, since any later
string may point into it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, UnitAttr, i8
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc_strings import STRING, StringCallOp, StringMakeOp, StringSizeOp
from onnxc.ir_names import STRING_BYTES
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    broadcast_indices,
    broadcast_reads,
    broadcast_sizes,
    buffer_of,
    shape_of,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index, nest
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

INDEX = IndexType()


def call(b: Builder, callee: str, arguments: Sequence[SSAValue], t: Attribute = INDEX) -> SSAValue:
    """A call of the runtime's string helper `callee` (onnxc_strings.h)."""
    return b.insert(StringCallOp(callee, arguments, t)).result


def size_of(b: Builder, value: SSAValue) -> SSAValue:
    """The bytes of string `value`, as an index."""
    return b.insert(StringSizeOp(value)).result


def string_bytes(op: onnx.OnnxOp, rewriter: PatternRewriter, total: SSAValue) -> SSAValue:
    """A byte buffer of `total` bytes for the new strings of `op` (see the
    module docstring). Inside a Loop or Scan body an operator would write
    each iteration's strings over the last ones: refused."""
    # Loop and Scan bodies are lowered inside their scf loops
    if any(isinstance(p, scf.ForOp | scf.WhileOp) for p in _ancestors(op)):
        raise unsupported(op, "making new strings inside a Loop or Scan body")
    alloc = memref.AllocOp.get(i8, shape=[DYNAMIC_INDEX], dynamic_sizes=[total])
    alloc.attributes[STRING_BYTES] = UnitAttr()
    rewriter.insert(alloc)
    return alloc.memref


def _ancestors(op: onnx.OnnxOp) -> list[object]:
    found: list[object] = []
    parent = op.parent_op()
    while parent is not None:
        found.append(parent)
        parent = parent.parent_op()
    return found


def string_constant(rewriter: PatternRewriter, op: onnx.OnnxOp, value: str, hint: str) -> SSAValue:
    """A one-element string weight holding `value` (read with `first`)."""
    return weight(rewriter, op, np.array([value], dtype=object), STRING, hint)


def first(b: Builder, table: SSAValue) -> SSAValue:
    """Element 0 of a 1-D buffer."""
    return b.insert(memref.LoadOp.get(table, [index(b, 0)])).res


def broadcast_loads(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    tensors: Sequence[SSAValue],
    out_sizes: Sequence[Size],
) -> Callable[[Builder, Sequence[SSAValue]], list[SSAValue]]:
    """A function loading each of `tensors`' elements at a position of the
    output they broadcast to (numpy rules; run-time checks where only the
    sizes given at run time tell)."""
    buffers = [buffer_of(rewriter, t) for t in tensors]
    reads = []
    for k, t in enumerate(tensors):
        sizes = shapes.sizes(t)
        found = broadcast_reads(rewriter, shapes, op, f"input {k}", sizes, out_sizes)
        reads.append((sizes, [r is None for r in found]))

    def load(b: Builder, position: Sequence[SSAValue]) -> list[SSAValue]:
        values: list[SSAValue] = []
        for buffer, (sizes, ambiguous) in zip(buffers, reads, strict=True):
            at = broadcast_indices(b, shapes, sizes, ambiguous, position)
            values.append(b.insert(memref.LoadOp.get(buffer, at)).res)
        return values

    return load


class StringConcatOpLowering(OnnxLowering[onnx.StringConcatOp]):
    """`onnx.StringConcat`: X[i] followed by Y[i], broadcast (numpy rules).
    A first loop adds up the bytes of the results, a second writes them into
    one byte buffer (`string_bytes`)."""

    def rewrite(self, op: onnx.StringConcatOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        in_sizes = [shapes.sizes(op.X), shapes.sizes(op.Y)]
        out_sizes = broadcast_sizes(shapes, in_sizes, len(shape_of(op.Z)))
        load = broadcast_loads(rewriter, shapes, op, [op.X, op.Y], out_sizes)
        here = builder_before(op)

        def measure(b: Builder, at: list[SSAValue], total: list[SSAValue]) -> list[SSAValue]:
            x, y = load(b, at)
            both = b.insert(arith.AddiOp(size_of(b, x), size_of(b, y))).result
            return [b.insert(arith.AddiOp(total[0], both)).result]

        (total,) = nest(here, out_sizes, [index(here, 0)], measure)
        data = string_bytes(op, rewriter, total)
        z = self.result_buffer(rewriter, op.Z, out_sizes)

        def write(b: Builder, at: list[SSAValue], offset: list[SSAValue]) -> list[SSAValue]:
            x, y = load(b, at)
            joined = call(b, "onnxc_string_concat", [data, offset[0], x, y], STRING)
            b.insert(memref.StoreOp.get(joined, z, at))
            return [b.insert(arith.AddiOp(offset[0], size_of(b, joined))).result]

        nest(builder_before(op), out_sizes, [index(here, 0)], write)
        self.replace(rewriter, op, [z])


class StringSplitOpLowering(OnnxLowering[onnx.StringSplitOp]):
    """`onnx.StringSplit`: each string of X split as Python's
    `str.split(delimiter, maxsplit)` (an empty or absent delimiter splits at
    runs of whitespace); Y holds the pieces along a new last axis as long as
    the most pieces of any string (padded with empty strings), Z how many
    each string gave. The pieces point into X's bytes. A first loop counts
    the pieces (Z, and the longest: Y's size from data), a second finds them.

    onnx.reference is Python's split, and onnxc follows it but where the
    spec says otherwise: the rest a limited whitespace split leaves loses its
    trailing whitespace ("leading or trailing whitespace is removed"), as in
    onnxruntime. onnxruntime differs from both elsewhere: it splits only at
    spaces (not tabs or other whitespace, which the spec names), and finds
    no piece in an empty string split at a delimiter (Python: one, "")."""

    def rewrite(self, op: onnx.StringSplitOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.X)
        delimiter = op.attr("delimiter") or ""
        maxsplit = op.attr("maxsplit")
        limit = -1 if maxsplit is None or int(maxsplit) < 0 else int(maxsplit)
        here = builder_before(op)
        separator = string_constant(rewriter, op, delimiter, "delimiter")
        x = buffer_of(rewriter, op.X)
        counts = self.result_buffer(rewriter, op.Z, sizes)

        def count(b: Builder, at: list[SSAValue], most: list[SSAValue]) -> list[SSAValue]:
            value = b.insert(memref.LoadOp.get(x, at)).res
            pieces = call(b, "onnxc_split_count", [value, first(b, separator), index(b, limit)])
            number = b.insert(arith.IndexCastOp(pieces, op.Z.type.get_element_type())).result
            b.insert(memref.StoreOp.get(number, counts, at))
            return [b.insert(arith.MaxSIOp(most[0], pieces)).result]

        (most,) = nest(here, sizes, [index(here, 0)], count)
        if isinstance(limit, int) and limit >= 0:
            most = shapes.min(most, limit + 1)  # a bound for the planner
        y = self.result_buffer(rewriter, op.Y, [*sizes, most])
        most_index = shapes.index(most)

        def split(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            value = b.insert(memref.LoadOp.get(x, at)).res
            sep = first(b, separator)
            sep_size = size_of(b, sep)

            def piece(b: Builder, k: SSAValue, state: list[SSAValue]) -> list[SSAValue]:
                # past the last piece, start and end are the string's end: ""
                rest = b.insert(arith.CmpiOp(k, index(b, limit), "eq")).result
                start = call(b, "onnxc_split_start", [value, sep_size, state[0]])
                end = call(b, "onnxc_split_end", [value, sep, start, rest])
                length = b.insert(arith.SubiOp(end, start)).result
                found = b.insert(StringMakeOp(value, start, length)).result
                b.insert(memref.StoreOp.get(found, y, [*at, k]))
                return [b.insert(arith.AddiOp(end, sep_size)).result]

            for_range(b, 0, most_index, [index(b, 0)], piece)
            return []

        nest(builder_before(op), sizes, [], split)
        self.replace(rewriter, op, [y, counts])
