"""String tensors in C: constant string tensors as `onnxc_string` arrays over
string literals, and the `onnxc.string_*` scalar operations as calls of the
runtime's string helpers (runtime_c/onnxc_strings.h).

A constant string tensor is

    static const onnxc_string labels[3] = {
      {"cat", 3},
      {"d\\303\\266g", 4},
      {"", 0},
    };

each element's bytes an escaped string literal (so embedded NUL bytes and
any UTF-8 survive) and its byte count beside it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from xdsl.dialects.builtin import MemRefType, i8
from xdsl.ir import Operation, SSAValue

from onnxc.dialects.onnxc_strings import (
    STRING,
    StringCallOp,
    StringEmptyOp,
    StringEqualOp,
    StringGlobalOp,
    StringLessOp,
    StringMakeOp,
    StringSizeOp,
)
from onnxc.emit.c_weights import string_lines
from onnxc.errors import CEmitError

HEADER = "onnxc_strings.h"
"""The runtime header generated code that uses strings includes."""


def literal(value: str) -> str:
    """`{"bytes", size}`: the C initialiser of one `onnxc_string`."""
    data = value.encode()
    text = " ".join(string_lines(np.frombuffer(data, dtype=np.uint8))) or '""'
    return f"{{{text}, {len(data)}}}"


def global_lines(op: StringGlobalOp, name: str, storage: str) -> tuple[list[str], str]:
    """The definition of string constant `op` as the C array `name` (with
    `storage`, "static " or ""), and its `extern` declaration."""
    values = op.initial_value.strings()
    declaration = f"const onnxc_string {name}[{max(1, len(values))}]"
    if not values:
        return [f"{storage}{declaration} = {{{{NULL, 0}}}}; /* empty */", ""], declaration
    lines = [f"{storage}{declaration} = {{"]
    lines += [f"  {literal(v)}," for v in values]
    return [*lines, "};", ""], declaration


def call_text(
    op: Operation, expr: Callable[[SSAValue], str], pointer: Callable[[SSAValue], str]
) -> str:
    """The C expression of one `onnxc.string_*` operation's result, given the
    C expression of a scalar (`expr`) and the pointer of a memref (`pointer`)."""
    if isinstance(op, StringEqualOp | StringLessOp):
        helper = "equal" if isinstance(op, StringEqualOp) else "less"
        return f"onnxc_string_{helper}({expr(op.lhs)}, {expr(op.rhs)})"
    if isinstance(op, StringEmptyOp):
        return 'onnxc_string_of("", 0)'
    if isinstance(op, StringSizeOp):
        return f"(ptrdiff_t){expr(op.input)}.size"
    if isinstance(op, StringMakeOp):
        if op.source.type == STRING:
            base = f"{expr(op.source)}.data"
        else:
            base = f"(const char *){pointer(op.source)}"
        return f"onnxc_string_of({base} + {expr(op.start)}, (size_t){expr(op.size)})"
    if isinstance(op, StringCallOp):
        arguments: list[str] = []
        for value in op.arguments:
            if value.type == STRING:  # a string passes as its bytes and their count
                arguments.append(f"{expr(value)}.data, {expr(value)}.size")
            elif isinstance(value.type, MemRefType) and value.type.element_type == i8:
                arguments.append(f"(char *){pointer(value)}")  # a byte buffer
            elif isinstance(value.type, MemRefType):
                arguments.append(pointer(value))
            else:
                arguments.append(expr(value))
        return f"{op.callee.data}({', '.join(arguments)})"
    raise CEmitError(f"the C printer does not know {op.name}")
