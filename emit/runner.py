"""What every way of running a compiled model shares: the description of its
inputs and outputs, and the checks applied to the arrays a caller passes.

Two runners implement `Runner`: `emit/build.py`'s `CompiledC` (the model built
into a cffi extension and called in-process) and `emit/cross.py`'s `EmulatedC`
(the model cross-built into an ELF and run in an emulator). `onnxc.api`'s
`CompiledModel` works with either.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from onnxc.element_types import ElementType
from onnxc.errors import RunError
from onnxc.runtime_c import runtime_dir

Dim = int | str | None
"""One dimension of a tensor's shape: a size, the name of a free dimension
(given at run time), or None for a size the model computes."""


@dataclass(frozen=True)
class TensorSpec:
    """A graph input or output as a runner sees it."""

    name: str
    element: ElementType
    shape: tuple[Dim, ...]
    bounds: tuple[int, ...] | None = None
    """Upper bounds of the sizes (-1 where unbounded); None: the shape's."""

    @property
    def is_static(self) -> bool:
        return all(isinstance(d, int) for d in self.shape)

    def shape_for(self, dims: Mapping[str, int]) -> tuple[int, ...] | None:
        """The shape given the free dimensions' sizes; None when a size is
        computed by the model."""
        found: list[int] = []
        for d in self.shape:
            if isinstance(d, int):
                found.append(d)
            elif d is not None and d in dims:
                found.append(dims[d])
            else:
                return None
        return tuple(found)

    def capacity_for(self, dims: Mapping[str, int]) -> int:
        """Elements to provide for this output: exact when its shape follows
        from `dims`, else its bound, else 0 (the model reports the shape)."""
        shape = self.shape_for(dims)
        if shape is None:
            bounds = self.bounds or ()
            shape = tuple(bounds) if bounds and all(b >= 0 for b in bounds) else None
        return 0 if shape is None else math.prod(shape)

    def numel(self) -> int:
        """Elements of a static tensor."""
        count = 1
        for d in self.shape:
            assert isinstance(d, int)
            count *= d
        return count


class Runner(Protocol):
    """A loaded model that runs on numpy arrays."""

    name: str
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    workspace_size: int | None
    """`NAME_WORKSPACE_SIZE`: bytes of workspace one run needs (at the
    largest sizes); None when some size has no bound."""

    def call(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Run once on the inputs in order; returns the outputs in order."""
        ...


def check_inputs(
    model: str, specs: Sequence[TensorSpec], arrays: Sequence[np.ndarray]
) -> dict[str, int]:
    """Check arrays against the input specs (count, element type, rank, static
    sizes, one size per free dimension); returns the free dimensions' sizes.
    Raises RunError naming the input."""
    if len(arrays) != len(specs):
        raise RunError(f"{model}: expected {len(specs)} inputs, got {len(arrays)}")
    dims: dict[str, int] = {}
    for spec, array in zip(specs, arrays, strict=True):
        want = spec.element.numpy_dtype
        if not isinstance(array, np.ndarray) or array.dtype != want:
            got = getattr(array, "dtype", type(array).__name__)
            raise RunError(f"{model}: input '{spec.name}' must be {want}, got {got}")
        if not array.flags.c_contiguous:
            raise RunError(f"{model}: input '{spec.name}' must be C-contiguous")
        if array.ndim != len(spec.shape):
            raise RunError(
                f"{model}: input '{spec.name}' must have rank {len(spec.shape)} "
                f"(shape {format_shape(spec.shape)}), got shape {array.shape}"
            )
        for axis, (dim, size) in enumerate(zip(spec.shape, array.shape, strict=True)):
            if isinstance(dim, int) and dim != size:
                raise RunError(
                    f"{model}: input '{spec.name}' must have shape "
                    f"{format_shape(spec.shape)}, got {array.shape}"
                )
            bound = spec.bounds[axis] if spec.bounds else -1
            if bound >= 0 and size > bound:
                raise RunError(
                    f"{model}: input '{spec.name}' dimension {axis} is {dim} = {size}, "
                    f"above its bound {bound} (max_dims)"
                )
            if isinstance(dim, str):
                if dims.setdefault(dim, size) != size:
                    raise RunError(
                        f"{model}: input '{spec.name}' dimension {axis} is {dim} = {size}, "
                        f"but another input gives {dim} = {dims[dim]}"
                    )
    return dims


def format_shape(shape: Sequence[Dim]) -> str:
    """`(N, 3, 224, 224)`-style text of a symbolic shape."""
    parts = ["?" if d is None else str(d) for d in shape]
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


ERR_WORKSPACE = -3
ERR_CAPACITY = -4


@functools.cache
def statuses() -> dict[int, str]:
    """The runtime's ONNXC_ERR_* statuses: code -> what it means, read from
    onnxc_runtime.h (the first clause of each comment)."""
    header = (runtime_dir() / "onnxc_runtime.h").read_text()
    found: dict[int, str] = {}
    for m in re.finditer(r"(ONNXC_ERR_\w+) = (-\d+),?\s*/\* ([^;*]*)", header):
        found[int(m[2])] = " ".join(m[3].split())
    assert found.get(ERR_WORKSPACE, "").startswith("the workspace"), found
    assert found.get(ERR_CAPACITY, "").startswith("an output"), found
    return found


def status_error(model: str, status: int) -> RunError:
    """The RunError for a negative status a model returned."""
    what = statuses().get(status, "an unknown status")
    return RunError(f"{model}: the model returned status {status}: {what}")
