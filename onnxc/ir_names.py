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
