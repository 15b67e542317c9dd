"""RegexFullMatch: whether each string of X matches `pattern` (RE2 syntax)
as a whole.

The pattern is compiled at compile time into a minimal DFA over UTF-8 bytes
(`onnxc.text.regex_dfa`), whose tables become weights: the class of each byte
value (uint8), the transitions (uint16, state x class) and which states
accept (uint8). Each element is one call of the runtime's matcher
(runtime_c/onnxc_regex.h), a walk over the string's bytes that stops at the
dead state. An invalid pattern is an error naming the node, and so is one
whose automaton would exceed the bound `regex_dfa.MAX_STATES`.

onnx.reference matches with Python's `re`, onnxruntime with RE2; they differ
on non-ASCII text (`\\w` is ASCII in RE2), and onnxc follows RE2, which the
spec names.
"""

from __future__ import annotations

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType, Signedness, i32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.errors import OnnxcError, UnsupportedError
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import OnnxLowering, elementwise, weight
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index
from onnxc.lowering.convert_onnx_to_linalg.text.strings import call
from onnxc.text.regex_dfa import Dfa, compile_regex

U8 = IntegerType(8, Signedness.UNSIGNED)
U16 = IntegerType(16, Signedness.UNSIGNED)


def _automaton(op: onnx.RegexFullMatchOp) -> Dfa:
    pattern = str(op.attr("pattern") or "")
    try:
        return compile_regex(pattern)
    except UnsupportedError:
        raise
    except OnnxcError as error:  # an invalid pattern: the model is wrong
        raise OnnxcError(f"{op.node_label()}: {error}") from None


class RegexFullMatchOpLowering(OnnxLowering[onnx.RegexFullMatchOp]):
    """`onnx.RegexFullMatch` (see the module docstring)."""

    def rewrite(self, op: onnx.RegexFullMatchOp, rewriter: PatternRewriter) -> None:
        dfa = _automaton(op)
        classes = weight(rewriter, op, np.frombuffer(dfa.byte_class, np.uint8), U8, "classes")
        moves = np.asarray(dfa.transitions, np.uint16)
        transitions = weight(rewriter, op, moves, U16, "transitions")
        accepting = weight(rewriter, op, np.asarray(dfa.accepting, np.uint8), U8, "accepting")

        def body(b: Builder, args: list[SSAValue]) -> SSAValue:
            tables = [classes, transitions, index(b, dfa.class_count), accepting]
            found = call(b, "onnxc_regex_full_match", [*tables, index(b, dfa.start), args[0]], i32)
            return b.insert(arith.CmpiOp(found, scalar.constant(b, 0, i32), "ne")).result

        elementwise(rewriter, self.shapes, op, lambda b, args: body(b, list(args)), [op.X])
