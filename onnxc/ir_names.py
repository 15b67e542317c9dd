"""Names and constants that several layers write into or read from the IR.

Defined once here, so that the importer, the passes, the C printer and the
report agree without importing one another.
"""

from __future__ import annotations

ONNX_NODE_NAME = "onnx_node_name"
"""Discardable attribute of every `onnx.*` operation: the ONNX node's name."""

COMMENT = "onnxc.comment"
"""Discardable attribute naming the ONNX node an operation comes from
("Conv conv1"); the C printer writes it as a comment above the op's code."""

INPUT_NAMES = "onnxc.input_names"
OUTPUT_NAMES = "onnxc.output_names"
"""Function attributes: the ONNX names of the graph inputs and outputs, in
argument order."""

ARENA = "onnxc.arena"
"""Marks the `memref.alloc` of bytes that is the whole planned arena (the
caller's workspace in C)."""

STRING_BYTES = "onnxc.string_bytes"
"""Marks the `memref.alloc` of bytes an operator writes new strings into
(StringConcat, case changes): strings anywhere later may point into it, so
the memory planner keeps it alive to the end of the function."""

MEMORY = "onnxc.memory"
"""Function attribute: the memory planner's figures (arena, intermediates,
max_live, greedy_by_size, in_place)."""

ARENA_ALIGN = 16
"""Alignment in bytes of the workspace and of every buffer in it; equals
`ONNXC_ARENA_ALIGN` in runtime_c/onnxc_runtime.h (a test checks it)."""

DIMS = "onnxc.dims"
"""Function attribute: the names of the free dimensions (dim_params given at
run time), in order of first appearance in the graph inputs. After
convert-onnx-to-linalg they are the function's leading `index` arguments."""

MAX_DIMS = "onnxc.max_dims"
"""Function attribute: upper bounds of free dimensions, by name."""

SIZE_LIMITS = "onnxc.size_limits"
"""Function attribute: the size limits of the target's pointer width, [the
most elements, the most bytes of a buffer] (`onnxc.dialects.onnxc.SizeLimits`),
set by convert-onnx-to-linalg; without it, the 64-bit limits below."""

MAX_ELEMENTS = 2**40
"""The most elements a tensor sized at run time may have on a 64-bit target:
a size that gives more is refused with ONNXC_ERR_SHAPE before anything is
written. It leaves room for any sum of byte sizes the planner makes (2^44
bytes a buffer, 2^19 of them) in a `ptrdiff_t`, so that no size arithmetic
can overflow; an upper bound of a size at or past it is no bound."""

MAX_BUFFER_BYTES = MAX_ELEMENTS * 16
"""The most bytes a buffer of `MAX_ELEMENTS` elements takes (16 bytes an
element at most): the planner's byte sizes saturate past it, and a workspace
asked for past it is refused with ONNXC_ERR_SHAPE."""

MAX_ELEMENTS_32 = 2**20
MAX_BUFFER_BYTES_32 = MAX_ELEMENTS_32 * 16
"""The same limits on a 32-bit target (the microcontrollers): 16 MiB a
buffer, so that the sum of up to 127 such buffers fits a 32-bit `ptrdiff_t`."""

MAX_STATIC_ARENA = 2**31 - 1
"""The largest workspace bound given as `NAME_WORKSPACE_SIZE` (which sizes
the static default arena): a larger static array does not link on 32-bit
targets, nor in x86-64's default code model, so such a model gets no bound."""

PARALLEL = "onnxc.parallel"
"""Discardable unit attribute of an `scf.for` whose trips are independent
(each writes its own outputs, in the same order whatever thread runs it):
the C printer puts the runtime's `ONNXC_PARALLEL_FOR` before it, an OpenMP
parallel loop in a build with threads, nothing in another."""

IN_RANGE = "onnxc.in_range"
"""Discardable attribute of an `arith.fptosi` whose operand is already an
integral value within the result type's range (a quantizer clamped and
rounded it): the C printer writes a plain conversion instead of the
saturating `onnxc_fptosi`, which goes through double (a library call per
element on a core without a double-precision FPU)."""
