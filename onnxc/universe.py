"""What onnxc adds to xdsl-opt, registered through the `xdsl.universe` entry point:
the onnx, onnx_ml, onnxc and kernel dialects, every pass of `onnxc.lowering.PASSES`, and
the `c` target."""

from __future__ import annotations

from xdsl.ir import Dialect
from xdsl.universe import Universe
from xdsl.utils.target import Target

from onnxc.lowering import PASSES


def _onnx_dialect() -> Dialect:
    from onnxc.dialects.onnx import ONNX

    return ONNX


def _onnx_ml_dialect() -> Dialect:
    from onnxc.dialects.onnx_ml import ONNX_ML

    return ONNX_ML


def _onnxc_dialect() -> Dialect:
    from onnxc.dialects.onnxc import ONNXC

    return ONNXC


def _kernel_dialect() -> Dialect:
    from onnxc.dialects.kernel import KERNEL

    return KERNEL


def _c_target() -> type[Target]:
    from onnxc.universe_target import CTarget

    return CTarget


UNIVERSE = Universe(
    all_dialects={
        "onnx": _onnx_dialect,
        "onnx_ml": _onnx_ml_dialect,
        "onnxc": _onnxc_dialect,
        "kernel": _kernel_dialect,
    },
    all_passes=dict(PASSES),
    all_targets={"c": _c_target},
)
