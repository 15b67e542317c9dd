"""The front end's rewrites of the model proto, in order (`REWRITES`), and
the runner that applies them (`prepare_model`).

Before the graph importer builds IR, the proto is checked, inlined,
upgraded to the dialect's opset, the operators of other domains it can
express expanded into default-domain nodes, its dimensions bound, its sequences and
optionals resolved into tensors, and its shapes inferred; then rounds of
folding and typing make every rank known that can be (each round runs the
first rewrite that changes something, then infers again). Each step is a
module of `rewrites/` (or `sequences/`) and a `Rewrite` there; this list is
the only place that orders them. `prepare_model(..., on_rewrite=...)` sees
the proto after each step (`onnxc compile --emit NAME`), and `skip` leaves
steps out when debugging.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping
from typing import NamedTuple

import onnx

from onnxc.containers import Containers, ShapeArgument
from onnxc.errors import OnnxcError
from onnxc.folding import MAX_ROUNDS
from onnxc.frontend.rewrites.bind_dimensions import BIND_DIMENSIONS
from onnxc.frontend.rewrites.branch_ranks import SINK_INTO_BRANCHES
from onnxc.frontend.rewrites.check_model import CHECK_MODEL
from onnxc.frontend.rewrites.constant_branches import INLINE_CONSTANT_BRANCHES
from onnxc.frontend.rewrites.expand_operators import EXPAND_OPERATORS
from onnxc.frontend.rewrites.fold_constant_nodes import FOLD_CONSTANT_NODES
from onnxc.frontend.rewrites.infer_shapes import INFER_SHAPES, settled
from onnxc.frontend.rewrites.inline_functions import INLINE_FUNCTIONS
from onnxc.frontend.rewrites.ml_domain import ML_OUTPUT_TYPES
from onnxc.frontend.rewrites.onnxruntime_names import CLAIM_ONNXRUNTIME_NAMES
from onnxc.frontend.rewrites.prelu_channel_slopes import PRELU_CHANNEL_SLOPES
from onnxc.frontend.rewrites.reduction_ranks import REDUCTION_RANKS
from onnxc.frontend.rewrites.scan_batches import RESTORE_SCANS, UNBATCH_SCANS
from onnxc.frontend.rewrites.subgraph_types import BODY_INPUT_TYPES, OUTER_CONSTANTS
from onnxc.frontend.rewrites.upgrade_opset import UPGRADE_OPSET
from onnxc.frontend.rewrites.weights import ATTACH_WEIGHTS, DETACH_WEIGHTS
from onnxc.frontend.sequences.resolver import RESOLVE_CONTAINERS
from onnxc.frontend.state import ModelState, Rewrite, Rounds, Step

REWRITES: tuple[Step, ...] = (
    CLAIM_ONNXRUNTIME_NAMES,
    CHECK_MODEL,
    INLINE_FUNCTIONS,
    DETACH_WEIGHTS,
    PRELU_CHANNEL_SLOPES,
    UNBATCH_SCANS,
    UPGRADE_OPSET,
    RESTORE_SCANS,
    EXPAND_OPERATORS,
    BIND_DIMENSIONS,
    RESOLVE_CONTAINERS,
    INFER_SHAPES,
    Rounds("ml-output-types-once", (ML_OUTPUT_TYPES,), then=INFER_SHAPES),
    Rounds(
        "fold-and-infer",
        (
            FOLD_CONSTANT_NODES,
            INLINE_CONSTANT_BRANCHES,
            REDUCTION_RANKS,
            SINK_INTO_BRANCHES,
            BODY_INPUT_TYPES,
            OUTER_CONSTANTS,
            ML_OUTPUT_TYPES,
        ),
        then=INFER_SHAPES,
        rounds=MAX_ROUNDS,
        settled=settled,
    ),
    ATTACH_WEIGHTS,
)
"""The front end, in order."""


def rewrites(steps: tuple[Step, ...] = REWRITES) -> Iterator[Rewrite]:
    """Every rewrite `steps` run, in order of first appearance, once each."""
    seen: set[str] = set()
    for step in steps:
        for rewrite in (step,) if isinstance(step, Rewrite) else (*step.rewrites, step.then):
            if rewrite.name not in seen:
                seen.add(rewrite.name)
                yield rewrite


REWRITE_NAMES: tuple[str, ...] = tuple(r.name for r in rewrites())


class Prepared(NamedTuple):
    """What `prepare_model` gives: the model, checked, upgraded, bound and
    inferred; its free dimensions, in order; and its containers."""

    model: onnx.ModelProto
    free: list[str]
    containers: Containers


OnRewrite = Callable[[str, onnx.ModelProto], None]


def prepare_model(
    model: onnx.ModelProto,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    *,
    foreign: bool = False,
    on_rewrite: OnRewrite | None = None,
    skip: Collection[str] = (),
) -> Prepared:
    """`REWRITES` applied to a copy of `model`: the proto they make (inferred),
    and the free dimensions (dim_params left for run time), in order. Nodes
    of domains onnxc does not import are refused, unless `foreign` (for
    `onnxc check`, which lists them). `on_rewrite(name, proto)` sees the
    proto a rewrite changed, after each application; the rewrites named in
    `skip` do not run (for debugging: the result may not import)."""
    unknown = sorted(set(skip) - set(REWRITE_NAMES))
    if unknown:
        raise OnnxcError(
            f"no front-end rewrite named {', '.join(map(repr, unknown))} "
            f"(rewrites: {', '.join(REWRITE_NAMES)})"
        )
    copy = onnx.ModelProto()
    copy.CopyFrom(model)
    state = ModelState(copy, dict(dims or {}), dict(shapes or {}), foreign)

    def apply(rewrite: Rewrite) -> bool:
        if rewrite.name in skip:
            return False
        changed = rewrite.apply(state)
        if on_rewrite is not None:
            on_rewrite(rewrite.name, state.types() if rewrite.shows == "inferred" else state.model)
        return changed

    for step in REWRITES:
        if isinstance(step, Rewrite):
            apply(step)
            continue
        for _ in range(step.rounds):
            if step.settled is not None and step.settled(state):
                break
            if not any(apply(rewrite) for rewrite in step.rewrites):
                break
            apply(step.then)
    return Prepared(state.types(), state.free, state.containers)
