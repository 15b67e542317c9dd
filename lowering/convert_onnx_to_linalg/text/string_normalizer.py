"""StringNormalizer: the strings of X ([C] or [1, C]) that are not stop
words, lower- or upper-cased (`case_change_action`), in order; when every
string is a stop word, one empty string (Y is [1] or [1, 1]), as the spec
says.

Stop words compare bytewise with `is_case_sensitive`, else ignoring case
(each code point lower-cased, onnxc_case.h). Case changes are Unicode's
simple mappings, as the C library's towlower/towupper (onnxruntime's), with
no locale-specific rule: `locale` is accepted and not read. onnx.reference
also strips accents and drops empty strings, which the spec does not say;
onnxc follows the spec.

The kept strings' count sizes Y (from data); with a case change, a first
loop also adds up the bytes of the changed strings, which are written into
one byte buffer (`strings.string_bytes`).
"""

from __future__ import annotations

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import i1, i32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc_strings import STRING
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    unsupported,
    weight,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, index, when
from onnxc.lowering.convert_onnx_to_linalg.text.strings import (
    call,
    first,
    string_bytes,
    string_constant,
)

ACTIONS = {"NONE": None, "LOWER": 0, "UPPER": 1}
"""case_change_action -> the `upper` argument of the runtime's case helpers."""


class StringNormalizerOpLowering(OnnxLowering[onnx.StringNormalizerOp]):
    """`onnx.StringNormalizer` (see the module docstring)."""

    def rewrite(self, op: onnx.StringNormalizerOp, rewriter: PatternRewriter) -> None:
        action = op.attr("case_change_action")
        if action not in ACTIONS:
            raise unsupported(op, f"case_change_action {action!r} (NONE, LOWER or UPPER)")
        upper = ACTIONS[action]
        sizes = self.shapes.sizes(op.X)
        if len(sizes) not in (1, 2) or (len(sizes) == 2 and sizes[0] != 1):
            raise unsupported(op, "X must be [C] or [1, C]")
        row = [index(builder_before(op), 0)] if len(sizes) == 2 else []
        count = self.shapes.index(sizes[-1])
        words = [str(w) for w in op.attr("stopwords") or []]
        folds = 0 if op.attr("is_case_sensitive") else 1
        stop_table = weight(rewriter, op, np.array(words or [""], dtype=object), STRING, "stop")
        x = buffer_of(rewriter, op.X)
        here = builder_before(op)

        def is_kept(b: Builder, value: SSAValue) -> SSAValue:
            if not words:
                return scalar.constant(b, 1, i1)
            found = call(
                b,
                "onnxc_string_among",
                [value, stop_table, index(b, len(words)), scalar.constant(b, folds, i32)],
                i32,
            )
            return b.insert(arith.CmpiOp(found, scalar.constant(b, 0, i32), "eq")).result

        def case_size(b: Builder, value: SSAValue) -> SSAValue:
            if upper is None:
                return index(b, 0)
            flag = scalar.constant(b, upper, i32)
            return call(b, "onnxc_case_size", [value, flag])

        def measure(b: Builder, k: SSAValue, state: list[SSAValue]) -> list[SSAValue]:
            value = b.insert(memref.LoadOp.get(x, [*row, k])).res
            kept = is_kept(b, value)
            one = b.insert(arith.SelectOp(kept, index(b, 1), index(b, 0))).result
            more = b.insert(arith.SelectOp(kept, case_size(b, value), index(b, 0))).result
            return [
                b.insert(arith.AddiOp(state[0], one)).result,
                b.insert(arith.AddiOp(state[1], more)).result,
            ]

        kept, total = for_range(here, 0, count, [index(here, 0), index(here, 0)], measure)
        data = string_bytes(op, rewriter, total) if upper is not None else None
        length = self.shapes.max(kept, 1)
        # No more than X holds: a bound for the planner.
        length = self.shapes.min(length, self.shapes.max(sizes[-1], 1))
        y = self.result_buffer(rewriter, op.Y, [*([1] if row else []), length])
        empty = string_constant(rewriter, op, "", "empty")
        here = builder_before(op)
        here.insert(memref.StoreOp.get(first(here, empty), y, [*row, index(here, 0)]))

        def write(b: Builder, k: SSAValue, state: list[SSAValue]) -> list[SSAValue]:
            value = b.insert(memref.LoadOp.get(x, [*row, k])).res
            keep = is_kept(b, value)

            def store(b: Builder) -> None:  # only kept strings are written
                result = value
                if data is not None and upper is not None:
                    flag = scalar.constant(b, upper, i32)
                    result = call(b, "onnxc_string_case", [data, state[1], value, flag], STRING)
                b.insert(memref.StoreOp.get(result, y, [*row, state[0]]))

            when(b, keep, store)
            step = b.insert(arith.SelectOp(keep, index(b, 1), index(b, 0))).result
            moved = b.insert(arith.SelectOp(keep, case_size(b, value), index(b, 0))).result
            return [
                b.insert(arith.AddiOp(state[0], step)).result,
                b.insert(arith.AddiOp(state[1], moved)).result,
            ]

        for_range(here, 0, count, [index(here, 0), index(here, 0)], write)
        self.replace(rewriter, op, [y])
