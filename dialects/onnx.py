"""The `onnx` dialect: one operation per default-domain ONNX operator.

The operation classes are generated from the ONNX operator schemas into
`onnx_ops.py` (by `gen_onnx_ops.py`; a test keeps it current) and re-exported
here, with `onnx.NoValue` and the `OnnxOp` base class (`onnx_base.py`):

    from onnxc.dialects import onnx
    isinstance(op, onnx.ConvOp); op.X, op.W, op.B; op.attr("group")

Operations use the generic textual form, which round-trips through `xdsl-opt`.
"""

from __future__ import annotations

from xdsl.ir import Dialect

from onnxc.dialects import onnx_ops as _onnx_ops
from onnxc.dialects.onnx_base import (
    NoValueOp,
    OnnxOp,
    YieldOp,
    attribute_to_python,
    element_type_name,
    node_name,
)
from onnxc.dialects.onnx_ops import *  # noqa: F403
from onnxc.dialects.onnx_ops import OPS, TARGET_OPSET

ONNX = Dialect("onnx", [NoValueOp, YieldOp, *OPS.values()], [])

__all__ = [
    "ONNX",
    "NoValueOp",
    "OnnxOp",
    "YieldOp",
    "attribute_to_python",
    "element_type_name",
    "node_name",
]
__all__ += _onnx_ops.__all__
assert "OPS" in __all__ and TARGET_OPSET > 0
