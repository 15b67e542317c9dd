"""The C back end: loop-level IR to C99 text, and building that C with cffi."""

from onnxc.emit.c_printer import CEmitError, print_c

__all__ = ["CEmitError", "print_c"]
