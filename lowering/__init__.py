"""onnxc's passes, and the pipeline that orders them: the one list both the
driver (`onnxc.pipeline`, `--emit`) and xdsl-opt (`onnxc.universe`) read.

Each pass lives in the module named after it (`onnx-fold-constants` in
`onnx_fold_constants.py`, `convert-onnx-to-linalg` in the package
`convert_onnx_to_linalg/`). `PASSES` loads a pass class on demand, so that
registering them with xdsl-opt imports nothing; `STAGES` names the IR levels
the driver can stop at and the passes (ours or xDSL's) that produce each one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.passes import ModulePass


def _loader(module: str, class_name: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        loaded = getattr(importlib.import_module(f"onnxc.lowering.{module}"), class_name)
        assert issubclass(loaded, ModulePass)
        return loaded

    return load


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "onnx-fuse-quantized": _loader("onnx_fuse_quantized", "OnnxFuseQuantizedPass"),
    "onnx-fuse-activations": _loader("onnx_fuse_activations", "OnnxFuseActivationsPass"),
    "onnx-fold-constants": _loader("onnx_fold_constants", "OnnxFoldConstantsPass"),
    "onnx-infer-shapes": _loader("onnx_infer_shapes", "OnnxInferShapesPass"),
    "select-kernels": _loader("select_kernels", "SelectKernelsPass"),
    "convert-onnx-to-linalg": _loader("convert_onnx_to_linalg", "ConvertOnnxToLinalgPass"),
    "fold-add-into-accumulator": _loader("fold_add_into_accumulator", "FoldAddIntoAccumulatorPass"),
    "plan-memory": _loader("plan_memory", "PlanMemoryPass"),
    "flatten-elementwise": _loader("flatten_elementwise", "FlattenElementwisePass"),
    "convert-linalg-to-commented-loops": _loader(
        "convert_linalg_to_commented_loops", "ConvertLinalgToCommentedLoopsPass"
    ),
    "emulate-narrow-floats": _loader("emulate_narrow_floats", "EmulateNarrowFloatsPass"),
    "insert-profile-marks": _loader("insert_profile_marks", "InsertProfileMarksPass"),
}
"""onnxc's own passes by name: name -> a function loading the pass class."""


@dataclass(frozen=True)
class Stage:
    """An IR level the driver can stop at (`--emit NAME`), and the passes, by
    name, that produce it from the level before."""

    name: str
    passes: tuple[str, ...]
    description: str


STAGES: tuple[Stage, ...] = (
    Stage(
        "onnx",
        ("onnx-fuse-quantized", "onnx-fold-constants", "onnx-fuse-activations"),
        "onnx dialect, quantized chains and activations fused, constants folded, shapes refined",
    ),
    Stage(
        "kernels",
        ("select-kernels",),
        "convolutions in the target's blocked kernels: packed weights, fused epilogues",
    ),
    Stage("linalg", ("convert-onnx-to-linalg",), "linalg on buffers, one alloc per tensor"),
    Stage(
        "memory",
        ("fold-add-into-accumulator", "plan-memory"),
        "residual Adds folded, buffers planned in one arena",
    ),
    Stage(
        "loops",
        (
            "flatten-elementwise",
            "convert-linalg-to-commented-loops",
            "emulate-narrow-floats",
            "canonicalize",
        ),
        "scf loops over memrefs, ready to print as C",
    ),
)
"""The pipeline, in order: import produces the level before the first stage."""

STAGE_NAMES: tuple[str, ...] = tuple(stage.name for stage in STAGES)

PROFILE_PASSES: tuple[str, ...] = ("insert-profile-marks",)
"""What a profiling build (compile option `profile`) runs after the last stage."""
