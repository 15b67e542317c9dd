"""What onnxc adds to xdsl-opt, registered through the `xdsl.universe` entry point:
the onnx dialect, our passes, and the `c` target."""

from xdsl.universe import Universe


def _onnx_dialect():
    from onnxc.dialects.onnx import ONNX

    return ONNX


def _fold_constants():
    from onnxc.lowering.onnx_fold_constants import OnnxFoldConstantsPass

    return OnnxFoldConstantsPass


def _onnx_to_linalg():
    from onnxc.lowering.onnx_to_linalg import ConvertOnnxToLinalgPass

    return ConvertOnnxToLinalgPass


def _linalg_to_loops():
    from onnxc.lowering.linalg_to_loops import ConvertLinalgToCommentedLoopsPass

    return ConvertLinalgToCommentedLoopsPass


def _fold_add():
    from onnxc.lowering.fold_add_into_accumulator import FoldAddIntoAccumulatorPass

    return FoldAddIntoAccumulatorPass


def _plan_memory():
    from onnxc.lowering.plan_memory import PlanMemoryPass

    return PlanMemoryPass


def _c_target():
    from onnxc.universe_target import CTarget

    return CTarget


UNIVERSE = Universe(
    all_dialects={"onnx": _onnx_dialect},
    all_passes={
        "onnx-fold-constants": _fold_constants,
        "convert-onnx-to-linalg": _onnx_to_linalg,
        "convert-linalg-to-commented-loops": _linalg_to_loops,
        "fold-add-into-accumulator": _fold_add,
        "plan-memory": _plan_memory,
    },
    all_targets={"c": _c_target},
)
