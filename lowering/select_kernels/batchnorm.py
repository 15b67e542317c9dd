"""BatchNormalization folded into the convolution before it, for `select-kernels`.

In inference a BatchNormalization is a per-channel affine map,
`y = (x - mean) * s + bias` with `s = scale / sqrt(var + epsilon)`; after a
convolution with constant weights it folds into them: `W'[m] = W[m] * s[m]`,
`B'[m] = (B[m] - mean[m]) * s[m] + bias[m]` (B = 0 without one; a
transposed convolution's weights are [C, M / group, ...], so there output
channel m is weight column m of its group), computed in
float64 and rounded once to float32. The convolution then computes the
normalised result in its own epilogue, without a pass over memory. Rounding
differs from the two steps' by an ulp or so (the product is rounded once);
the plain lowering (targets without kernels) keeps the two steps.

Taken when the convolution's result is used only by the BatchNormalization,
which is in inference mode (`training_mode` 0, one result), and its weights,
bias, scale, mean and variance are constants of float32.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Block
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import onnx
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.select_kernels.building_blocks import constant_of, constant_op, static_float
from onnxc.lowering.select_kernels.epilogues import only_user

__all__ = ["fold_batch_norms"]


def fold_batch_norms(block: Block) -> None:
    """Fold each BatchNormalization of `block` that follows a convolution
    with constant weights into it (see the module's docstring)."""
    for norm in [o for o in block.ops if isinstance(o, onnx.BatchNormalizationOp)]:
        _fold(norm)


def _fold(norm: onnx.BatchNormalizationOp) -> None:
    conv = norm.X.owner
    if not isinstance(conv, onnx.ConvOp | onnx.ConvTransposeOp) or only_user(conv.Y) is not norm:
        return
    if norm.attr("training_mode") or any(r.uses for r in norm.results[1:]):
        return
    if static_float(conv.Y) is None:
        return
    parameters = [constant_of(v) for v in (norm.scale, norm.B, norm.input_mean, norm.input_var)]
    weights = constant_of(conv.W)
    no_bias = isinstance(conv.B.owner, onnx.NoValueOp)
    bias = None if no_bias else constant_of(conv.B)
    if weights is None or (bias is None and not no_bias) or any(p is None for p in parameters):
        return
    scale, shift, mean, variance = (np.asarray(p, np.float64).reshape(-1) for p in parameters)  # type: ignore[arg-type]
    transposed = isinstance(conv, onnx.ConvTransposeOp)
    group = int(conv.attr("group") or 1) if transposed else 1
    outputs = weights.shape[1] * group if transposed else weights.shape[0]
    if group < 1 or weights.shape[0] % group or (bias is not None and bias.size != outputs):
        return
    if any(p.size != outputs for p in (scale, shift, mean, variance)):
        return
    epsilon = norm.attr("epsilon")
    factor = scale / np.sqrt(variance + (1e-5 if epsilon is None else float(epsilon)))
    folded_weights = weights.astype(np.float64)
    if transposed:  # [G, C / G, M / G, ...] times the factor of [G, 1, M / G, 1...]
        grouped = folded_weights.reshape(group, -1, *weights.shape[1:])
        spread = factor.reshape(group, 1, -1, *([1] * (weights.ndim - 2)))
        folded_weights = (grouped * spread).reshape(weights.shape)
    else:
        folded_weights = folded_weights * factor.reshape(-1, *([1] * (weights.ndim - 1)))
    start = np.zeros(outputs) if bias is None else bias.astype(np.float64).reshape(-1)
    folded_bias = (start - mean) * factor + shift
    label = f"{onnx.node_name(conv)}+{onnx.node_name(norm)}"
    point = InsertPoint.before(conv)
    hint = conv.W.name_hint or "weights"  # a valid SSA name, unlike a node's
    conv.operands[1] = constant_op(folded_weights.astype(np.float32), f"{hint}_normalised", point)
    conv.operands[2] = constant_op(folded_bias.astype(np.float32), f"{hint}_normalised_bias", point)
    conv.attributes[ONNX_NODE_NAME] = StringAttr(label)
    norm.results[0].replace_all_uses_with(conv.Y)
    Rewriter.erase_op(norm)
