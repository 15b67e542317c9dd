"""What the front end's rewrites work on (`ModelState`) and how `REWRITES`
lists them (`Rewrite`, `Rounds`).

A rewrite is a function of the state that changes the proto in place (or
replaces it) and says whether it changed anything. The state keeps two
protos: `model`, the one the rewrites change, and `inferred`, `model` after
the last shape inference (what later rewrites read types from). Inference
always starts again from `model`, so that types an earlier inference wrote
never go stale in it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import onnx

from onnxc.containers import Containers, ShapeArgument


@dataclass
class ModelState:
    """The model between two rewrites, and what the rewrites found so far."""

    model: onnx.ModelProto
    """The proto being rewritten (the caller's is never changed)."""
    dims: Mapping[str, int] = field(default_factory=dict[str, int])
    """The caller's dim_param bindings."""
    shapes: Mapping[str, ShapeArgument] = field(default_factory=dict[str, ShapeArgument])
    """The caller's whole input shapes."""
    foreign: bool = False
    """Keep nodes of domains onnxc does not import (`onnxc check` lists them)."""
    opset: int | None = None
    """The default-domain opset the model imports (None: only ai.onnx.ml)."""
    weights: dict[str, bytes] = field(default_factory=dict[str, bytes])
    """The data of the large initializers, out of the proto while it is
    upgraded and inferred (`weights.py`)."""
    unbatched_scans: bool = False
    """Scans before opset 9 were rewritten per batch element (`scan_batches.py`)."""
    inferred: onnx.ModelProto | None = None
    """`model` after the last shape inference."""
    free: list[str] = field(default_factory=list[str])
    """The free dimensions (dim_params left for run time), in order."""
    containers: Containers = field(default_factory=Containers)
    """The sequence and optional inputs and outputs, as the tensors they became."""

    def types(self) -> onnx.ModelProto:
        """The last inference's model (the rewrites read types from it)."""
        assert self.inferred is not None, "no shape inference has run yet"
        return self.inferred


@dataclass(frozen=True)
class Rewrite:
    """One step of the front end: `apply` rewrites the state and says whether
    it changed the model. `shows` names the proto the step changes (`model`,
    or `inferred` for shape inference and what follows it), which
    `--emit NAME` prints."""

    name: str
    apply: Callable[[ModelState], bool]
    shows: str = "model"


@dataclass(frozen=True)
class Rounds:
    """Up to `rounds` rounds, each running the first of `rewrites` that
    changes the model (in order), then `then`; they end when none changes
    anything, or before a round when `settled` holds."""

    name: str
    rewrites: tuple[Rewrite, ...]
    then: Rewrite
    rounds: int = 1
    settled: Callable[[ModelState], bool] | None = None


Step = Rewrite | Rounds
