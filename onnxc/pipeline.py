"""Running the pipeline: the passes of each stage (`onnxc.lowering.STAGES`), in
order, with the IR verified after every stage, and after every pass when
`ONNXC_VERIFY_EACH_PASS=1` (the tests of the passes and the random graphs
set it: `tests/conftest.py`), so that a broken pass is
caught where it broke. Verifying a big model's IR takes half a second; after
each of the eight passes it was a tenth of ResNet-50's compile.
"""

from __future__ import annotations

import functools
import os
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

from onnxc.dialects.kernel import KERNEL
from onnxc.dialects.onnx import ONNX
from onnxc.dialects.onnx_ml import ONNX_ML
from onnxc.dialects.onnxc import ONNXC
from onnxc.errors import InternalError, OnnxcError
from onnxc.lowering import PASSES, PROFILE_PASSES, STAGE_NAMES, STAGES

__all__ = ["STAGE_NAMES", "lower", "make_context", "pass_class"]

VERIFY_EACH_PASS = "ONNXC_VERIFY_EACH_PASS"
"""The environment variable that makes `lower` verify after every pass."""


def make_context() -> Context:
    """A context with every dialect the pipeline reads or writes."""
    ctx = Context()
    upstream = (Builtin, Func, Arith, Math, MemRef, Scf, Linalg, Affine)
    for dialect in (*upstream, ONNX, ONNX_ML, ONNXC, KERNEL):
        ctx.load_dialect(dialect)
    return ctx


@functools.cache
def pass_class(name: str) -> type[ModulePass]:
    """The class of pass `name`: one of onnxc's, else one of xDSL's."""
    if name in PASSES:
        return PASSES[name]()
    from xdsl.transforms import get_all_passes

    upstream = get_all_passes()
    if name not in upstream:
        raise InternalError(f"internal error: the pipeline names an unknown pass '{name}'")
    return upstream[name]()


def lower(
    module: ModuleOp,
    until: str,
    ctx: Context | None = None,
    *,
    on_stage: Callable[[str, ModuleOp], None] | None = None,
    target: str = "host",
    requantize: str = "exact",
    profile: bool = False,
) -> ModuleOp:
    """Run the passes up to and including stage `until` (in place).

    `on_stage(stage, module)` is called after each stage's passes, so a caller
    can look at (not change) every level of one compilation. Passes with a
    `target` or `requantize` option (select-kernels) get `target` and
    `requantize` (`onnxc.options.REQUANTIZE`). With `profile`, the last
    stage ends with `PROFILE_PASSES` (when `until` is the last stage)."""
    if until not in STAGE_NAMES:
        raise OnnxcError(f"unknown stage '{until}' (stages: {', '.join(STAGE_NAMES)})")
    ctx = ctx or make_context()
    each_pass = os.environ.get(VERIFY_EACH_PASS) == "1"
    for stage in STAGES[: STAGE_NAMES.index(until) + 1]:
        last = stage is STAGES[-1]
        names = (*stage.passes, *(PROFILE_PASSES if profile and last else ()))
        for name in names:
            cls = pass_class(name)
            given = {"target": target, "requantize": requantize}
            fields = cls.__dataclass_fields__
            cls(**{k: v for k, v in given.items() if k in fields}).apply(ctx, module)
            if each_pass or name == names[-1]:
                _verify(module, name if each_pass else ", ".join(names))
        if on_stage is not None:
            on_stage(stage.name, module)
    return module


def _verify(module: ModuleOp, after: str) -> None:
    try:
        module.verify()
    except Exception as error:  # VerifyException, and xDSL's plain ones (memref.load)
        raise InternalError(
            f"internal error: invalid IR after {after}: {str(error).splitlines()[0]}"
        ) from None
