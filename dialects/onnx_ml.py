"""The `onnx_ml` dialect: one operation per `ai.onnx.ml` operator (linear and
tree-ensemble models, SVMs, preprocessing), as `onnx_ml.LinearClassifier`, ...

The operation classes are generated from the ONNX operator schemas into
`onnx_ml_ops.py` (by `gen_onnx_ops.py`, which also makes the onnx dialect; a
test keeps it current). They share the onnx dialect's `OnnxOp` base, so a
lowering treats them like any `onnx.*` operation:

    from onnxc.dialects import onnx_ml
    isinstance(op, onnx_ml.LinearClassifierOp); op.X; op.attr("coefficients")
"""

from __future__ import annotations

from xdsl.ir import Dialect

from onnxc.dialects import onnx_ml_ops as _onnx_ml_ops
from onnxc.dialects.onnx_ml_ops import *  # noqa: F403
from onnxc.dialects.onnx_ml_ops import DOMAIN, OPS, TARGET_OPSET

ONNX_ML = Dialect("onnx_ml", list(OPS.values()), [])

__all__ = ["ONNX_ML"]
__all__ += _onnx_ml_ops.__all__
assert DOMAIN == "ai.onnx.ml" and TARGET_OPSET > 0
