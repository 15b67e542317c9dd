"""`onnx-fuse-activations`: activation functions that exporters write out as
several elementwise nodes, as the one operator they stand for, so that each
is one pass over its tensor and can become a kernel's epilogue
(`select-kernels`).

Postcondition: every `Mul(x, Sigmoid(x))` (either operand order) of one
float type and shape is `Swish(x)` with alpha 1 (SiLU, as torch exports
`nn.SiLU` and EfficientNet's and YOLO's activations); the Sigmoid stays only
for its other users. Swish computes the same two roundings in the same
order (sigmoid, then the product), so results are unchanged to the bit.
Runs at every nesting level (the bodies of If, Loop and Scan too).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, ModuleOp, StringAttr, f32
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from onnxc.dialects import onnx
from onnxc.ir_names import ONNX_NODE_NAME


@dataclass(frozen=True)
class OnnxFuseActivationsPass(ModulePass):
    name = "onnx-fuse-activations"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for mul in [o for o in op.walk() if isinstance(o, onnx.MulOp)]:
            _fuse_swish(mul)


def _sigmoid_input(value: SSAValue) -> SSAValue | None:
    owner = value.owner
    return owner.X if isinstance(owner, onnx.SigmoidOp) else None


def _fuse_swish(mul: onnx.MulOp) -> None:
    a, b = mul.operands
    if _sigmoid_input(b) is a:
        x, gate = a, b
    elif _sigmoid_input(a) is b:
        x, gate = b, a
    else:
        return
    if x.type != mul.C.type:
        return  # (broadcast: not one elementwise map of x)
    sigmoid = gate.owner
    assert isinstance(sigmoid, onnx.SigmoidOp)
    names = [n for n in (onnx.node_name(sigmoid), onnx.node_name(mul)) if n]
    swish = onnx.SwishOp.create(
        operands=[x],
        result_types=[mul.C.type],
        properties={"alpha": FloatAttr(1.0, f32)},
        attributes={ONNX_NODE_NAME: StringAttr("+".join(names))} if names else {},
    )
    swish.Y.name_hint = mul.C.name_hint
    Rewriter.replace_op(mul, swish)
    if not sigmoid.Y.uses:
        Rewriter.erase_op(sigmoid)
