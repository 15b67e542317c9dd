"""The compile options: one dataclass that the Python API, the command line and
the size report all pass through the compiler."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from onnxc.containers import InputShape, ShapeArgument, input_shape
from onnxc.errors import OnnxcError
from onnxc.targets import get_target

DEFAULT_TIMEOUT = 60.0
"""Seconds one emulator run may take before it is stopped."""

REQUANTIZE = {
    "exact": "in float, as onnxruntime's kernels: its outputs to the bit",
    "fixed": "in integers, an int32 multiplier and shift per channel as TFLite "
    "computes them (no float arithmetic; within 1 step of exact)",
}
"""How `kernel.qconv` requantizes its int32 sums (`requantize`)."""

AUTO_BINARY_WEIGHTS = 64 << 20
"""Weights of more bytes go to a binary file by default on host targets:
as C text they would be about 2.7 times as big, and the C compiler's time
and memory grow with it (`emit/c_weight_blob.py`)."""


def _frozen_dims(what: str, dims: Mapping[str, int] | None) -> dict[str, int]:
    found: dict[str, int] = {}
    for key, value in (dims or {}).items():
        try:
            found[str(key)] = int(value)
        except (TypeError, ValueError):
            raise OnnxcError(f"{what}['{key}'] must be an integer, got {value!r}") from None
    return found


@dataclass(frozen=True)
class CompileOptions:
    """How to compile one model.

    `dims` binds dim_params to sizes; `shapes` fixes whole input shapes
    (unnamed or -1 dims too); `max_dims` bounds dims left free (so a workspace
    and output bound exist: needed for MCU targets); `name` is the C prefix
    (default: the file's stem); `target` the board or "host"; `opt_level` the
    C compiler's -O level; `separate_weights` writes the weights to
    `NAME_weights.c`; `binary_weights` writes them to the binary file
    `NAME.weights` instead of C (None: when they exceed
    `AUTO_BINARY_WEIGHTS` bytes on a host target; MCU targets keep them in
    the C, in flash); `requantize` how the integer convolutions of the
    Cortex-M targets requantize their sums (`REQUANTIZE`); `timeout` limits
    each emulator run (seconds); `profile`
    makes a profiling build, whose C calls the `onnxc_profile_mark` hook where
    each node's code starts (see `onnxc.tools.bench_layers`); `threads` above 1
    builds a host target's C with OpenMP, the kernels' outer loops split over
    that many threads (`thread_cflags`; the C is the same, results identical
    to one thread's)."""

    dims: dict[str, int] = field(default_factory=dict[str, int])
    shapes: dict[str, InputShape] = field(default_factory=dict[str, InputShape])
    max_dims: dict[str, int] = field(default_factory=dict[str, int])
    name: str | None = None
    target: str = "host"
    opt_level: int = 2
    separate_weights: bool = False
    binary_weights: bool | None = None
    requantize: str = "exact"
    timeout: float = DEFAULT_TIMEOUT
    profile: bool = False
    threads: int = 1

    @classmethod
    def make(
        cls,
        *,
        dims: Mapping[str, int] | None = None,
        shapes: Mapping[str, ShapeArgument] | None = None,
        max_dims: Mapping[str, int] | None = None,
        name: str | None = None,
        target: str = "host",
        opt_level: int = 2,
        separate_weights: bool = False,
        binary_weights: bool | None = None,
        requantize: str = "exact",
        timeout: float = DEFAULT_TIMEOUT,
        profile: bool = False,
        threads: int = 1,
    ) -> CompileOptions:
        """Options from the keyword arguments of `onnxc.compile`, checked and
        normalised (shapes as tuples of ints), so equal options compare equal."""
        if binary_weights and not get_target(target).is_host:
            raise OnnxcError(
                f"weights as a binary file are for host targets: on {target} they stay "
                "in the C (flash)"
            )
        if requantize not in REQUANTIZE:
            raise OnnxcError(
                f"requantize must be one of {', '.join(REQUANTIZE)}, got {requantize!r}"
            )
        if requantize != "exact" and get_target(target).is_host:
            raise OnnxcError(
                f"requantize={requantize!r} is for the Cortex-M targets: on {target} the "
                "integer convolutions requantize exactly"
            )
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise OnnxcError(f"threads must be a whole number of at least 1, got {threads!r}")
        if threads > 1 and not get_target(target).is_host:
            raise OnnxcError(f"threads are for host targets: {target} runs its model on one core")
        if not 0 <= opt_level <= 3:
            raise OnnxcError(f"opt_level must be 0 to 3, got {opt_level}")
        normalised = {str(k): input_shape(str(k), v) for k, v in (shapes or {}).items()}
        return cls(
            dims=_frozen_dims("dims", dims),
            shapes=normalised,
            max_dims=_frozen_dims("max_dims", max_dims),
            name=name,
            target=target,
            opt_level=opt_level,
            separate_weights=separate_weights,
            binary_weights=binary_weights,
            requantize=requantize,
            timeout=float(timeout),
            profile=profile,
            threads=threads,
        )

    def thread_cflags(self) -> tuple[str, ...]:
        """The C compiler flags of a build with `threads` (none for one):
        OpenMP, and the thread count the runtime's ONNXC_PARALLEL_FOR takes."""
        return () if self.threads == 1 else ("-fopenmp", f"-DONNXC_THREADS={self.threads}")

    def weights_in_file(self, weight_bytes: int) -> bool:
        """Whether weights of `weight_bytes` in all go to the binary file."""
        if self.binary_weights is not None:
            return self.binary_weights
        return get_target(self.target).is_host and weight_bytes > AUTO_BINARY_WEIGHTS

    def comment(self) -> str:
        """The options that shape the C, for the banner of the generated files."""
        shown: dict[str, Any] = {
            "dims": self.dims,
            "shapes": self.shapes,
            "max_dims": self.max_dims,
            "target": self.target,
            "requantize": "" if self.requantize == "exact" else self.requantize,
            "profile": self.profile,
        }
        return ", ".join(f"{k}={v!r}" for k, v in shown.items() if v)
