"""The fast path of a call into a built model: once a call with some input
shapes has succeeded, the next with the same shapes reuses everything but the
data pointers.

A `CallPlan` holds the cffi tensor records with their shapes filled in, the
output shapes and element types, and a workspace of the size that call needed,
so a call costs the data pointers, the output arrays and the C call itself
(and converting strings, which every call does). It applies when the outputs'
shapes follow from the input shapes (no size comes from data) and no tensor
is of a packed type (which needs packing per call).
Plans are per thread: a thread's records and workspace are its own while the C
runs without the GIL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from onnxc.emit import string_io
from onnxc.emit.runner import TensorSpec
from onnxc.ir_names import ARENA_ALIGN


def aligned_bytes(size: int) -> np.ndarray:
    """`size` bytes (at least one) starting at an ONNXC_ARENA_ALIGN boundary."""
    raw = np.empty(max(1, size) + ARENA_ALIGN, dtype=np.uint8)
    start = -raw.ctypes.data % ARENA_ALIGN
    return raw[start : start + max(1, size)]


def plannable(inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec]) -> bool:
    """Whether calls of a model with these tensors can use plans: no packed
    type (which needs packing per call), and every output size static or a
    free dimension of the inputs."""
    free = {d for s in inputs for d in s.shape if isinstance(d, str)}
    plain = all(s.element.packing == 1 for s in [*inputs, *outputs])
    return plain and all(isinstance(d, int) or d in free for s in outputs for d in s.shape)


class CallPlan:
    """A call with known sizes: see the module docstring."""

    def __init__(
        self,
        ffi: Any,
        input_shapes: Sequence[tuple[int, ...]],
        outputs: Sequence[tuple[tuple[int, ...], np.dtype[Any]]],
        workspace_bytes: int,
        model: str = "model",
        input_names: Sequence[str] = (),
        gather: Any = None,
    ) -> None:
        self.ffi = ffi
        self.model = model
        """The model's and its inputs' names, for the errors of string inputs."""
        self.input_names = list(input_names) or [f"input {k}" for k in range(len(input_shapes))]
        self.gather = gather
        """The extension's copier of string outputs' bytes, if it has one."""
        self.dtypes: list[np.dtype[Any]] = []
        self.keep: list[Any] = []
        self.tensors_in = ffi.new("onnxc_tensor[]", max(1, len(input_shapes)))
        for k, shape in enumerate(input_shapes):
            dims = ffi.new("int64_t[]", list(shape) or [0])
            self.keep.append(dims)
            self.tensors_in[k].shape = dims
            self.tensors_in[k].capacity = int(np.prod(shape, dtype=np.int64))
        self.outputs = list(outputs)
        self.string_outputs = [k for k, (_, dtype) in enumerate(outputs) if dtype.kind == "O"]
        """The outputs that are strings (converted after each call)."""
        self.tensors_out = ffi.new("onnxc_tensor[]", max(1, len(outputs)))
        for k, (shape, _) in enumerate(outputs):
            dims = ffi.new("int64_t[]", max(1, len(shape)))
            self.keep.append(dims)
            self.tensors_out[k].shape = dims
            self.tensors_out[k].capacity = int(np.prod(shape, dtype=np.int64))
        self.workspace_bytes = workspace_bytes
        self.workspace = aligned_bytes(workspace_bytes)
        self.workspace_pointer = ffi.from_buffer(self.workspace)
        self.size = ffi.new("size_t *", workspace_bytes)

    def call(self, invoke: Any, arrays: Sequence[np.ndarray]) -> tuple[int, list[np.ndarray]]:
        """Run on `arrays` (already checked: C-contiguous, of the inputs' element
        types and of this plan's shapes); returns the status and the outputs."""
        ffi = self.ffi
        pinned: list[Any] = []  # alive until the C returns
        for k, array in enumerate(arrays):
            if array.dtype.kind == "O":  # strings: records over their joined bytes
                data = string_io.to_c(ffi, self.model, self.input_names[k], array, pinned)
            else:
                data = ffi.from_buffer(array, require_writable=False)
            pinned.append(data)
            self.tensors_in[k].data = data
        results: list[Any] = []
        for k, (shape, dtype) in enumerate(self.outputs):
            if k in self.string_outputs:
                records = ffi.new("onnxc_string[]", max(1, int(np.prod(shape, dtype=np.int64))))
                results.append(records)
                self.tensors_out[k].data = records
            else:
                result = np.empty(shape, dtype)
                results.append(result)
                self.tensors_out[k].data = ffi.from_buffer(result)
        self.size[0] = self.workspace_bytes
        status = int(invoke(self.workspace_pointer, self.size, self.tensors_in, self.tensors_out))
        for k in self.string_outputs:  # copied out before the workspace is reused
            shape = self.outputs[k][0]
            count = int(np.prod(shape, dtype=np.int64))
            results[k] = string_io.from_c(ffi, results[k], count, self.gather).reshape(shape)
        return status, results
