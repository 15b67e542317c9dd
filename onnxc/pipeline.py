"""The pass pipeline: which passes run between each pair of IR levels.

Stages, in order: `onnx` (as imported, then simplified at the onnx level),
`linalg` (linalg on buffers), `loops` (scf loops over memrefs), `c` (C text).
The IR is verified after every pass, so a broken pass is caught where it broke.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects.affine import Affine
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.func import Func
from xdsl.dialects.linalg import Linalg
from xdsl.dialects.math import Math
from xdsl.dialects.memref import MemRef
from xdsl.dialects.scf import Scf
from xdsl.passes import ModulePass
from xdsl.transforms.canonicalize import CanonicalizePass
from xdsl.utils.exceptions import VerifyException

from onnxc.dialects.onnx import ONNX
from onnxc.errors import OnnxcError
from onnxc.lowering.fold_add_into_accumulator import FoldAddIntoAccumulatorPass
from onnxc.lowering.linalg_to_loops import ConvertLinalgToCommentedLoopsPass
from onnxc.lowering.onnx_fold_constants import OnnxFoldConstantsPass
from onnxc.lowering.onnx_to_linalg import ConvertOnnxToLinalgPass
from onnxc.lowering.plan_memory import PlanMemoryPass

STAGES = ("onnx", "linalg", "loops", "c")

PASSES: dict[str, tuple[ModulePass, ...]] = {
    "onnx": (OnnxFoldConstantsPass(),),
    "linalg": (ConvertOnnxToLinalgPass(),),
    "loops": (
        FoldAddIntoAccumulatorPass(),
        PlanMemoryPass(),
        ConvertLinalgToCommentedLoopsPass(),
        CanonicalizePass(),
    ),
}
"""The passes that produce each stage from the one before."""


def make_context() -> Context:
    """A context with every dialect the pipeline reads or writes."""
    ctx = Context()
    for dialect in (Builtin, Func, Arith, Math, MemRef, Scf, Linalg, Affine, ONNX):
        ctx.load_dialect(dialect)
    return ctx


def lower(
    module: ModuleOp,
    until: str,
    ctx: Context | None = None,
    *,
    on_stage: Callable[[str, ModuleOp], None] | None = None,
) -> ModuleOp:
    """Run the passes up to and including stage `until` (in place).

    `on_stage(stage, module)` is called after each stage's passes, so a caller
    can look at (not change) every level of one compilation."""
    if until not in STAGES:
        raise OnnxcError(f"unknown stage '{until}' (stages: {', '.join(STAGES)})")
    ctx = ctx or make_context()
    for stage in STAGES[: STAGES.index(until) + 1]:
        for compiler_pass in PASSES.get(stage, ()):
            compiler_pass.apply(ctx, module)
            try:
                module.verify()
            except VerifyException as error:
                raise OnnxcError(
                    f"internal error: invalid IR after {compiler_pass.name}: "
                    f"{str(error).splitlines()[0]}"
                ) from None
        if on_stage is not None:
            on_stage(stage, module)
    return module
