"""The C back end: loop-level IR to C99 text, and building that C with cffi."""

from onnxc.emit.c_interface import print_c, print_c_files

__all__ = ["print_c", "print_c_files"]
