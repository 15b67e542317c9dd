"""The error family onnxc raises, from every layer.

Every problem a user can cause, and every failure of a tool onnxc drives, is an
`OnnxcError`: the message is one line that names what is wrong (the file, node,
operator, tensor or dimension) and how to fix it where that is known. The
command line prints it as `onnxc: error: ...` without a traceback. The
subclasses say which layer gave up, for callers that care. What onnxc
tolerates but the user should know of (a declaration it drops) is an
`OnnxcWarning` through Python's `warnings`, one line too: the command line
prints it as `onnxc: warning: ...`; the library stays otherwise silent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import onnx


def node_label(node: onnx.NodeProto) -> str:
    """How error messages name an ONNX node."""
    return f"node '{node.name or node.op_type}' ({node.op_type})"


def first_line(error: BaseException) -> str:
    """How a message quotes the error of a tool onnxc drives: its first line."""
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:300]


class OnnxcError(Exception):
    """A problem with the model, the options or the tools: one line, no
    traceback needed to understand it."""


class OnnxcWarning(UserWarning):
    """Something in the model onnxc works around (a declared shape that
    contradicts shape inference, dropped): one line naming the value."""


class UnsupportedError(OnnxcError):
    """The model uses something onnxc does not compile yet (an operator, an
    attribute value, an element type); the message names the node."""


class CEmitError(OnnxcError):
    """The IR holds something the C printer cannot print; the message names
    the operation and, when known, the ONNX node it comes from."""


class BuildError(OnnxcError):
    """A C compiler rejected generated code or could not be run; the message
    holds its first error line."""


class RunError(OnnxcError):
    """A compiled model returned an error status, or its inputs do not fit it
    (shape, element type, missing or unknown inputs)."""


class InternalError(OnnxcError):
    """A pass produced IR another pass cannot take: a defect in onnxc. The
    message names the pass or stage."""
