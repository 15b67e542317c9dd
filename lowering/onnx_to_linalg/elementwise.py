"""Elementwise operators: arithmetic with multidirectional broadcasting, unary
math and activations. Each lowering is one `elementwise` call with a scalar body."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, math
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from onnxc.dialects import onnx
from onnxc.lowering.onnx_to_linalg.common import elementwise, float_constant


def _binary(op_class: type, args: Sequence[SSAValue], b: Builder) -> SSAValue:
    return b.insert(op_class(args[0], args[1])).result


class AddOpLowering(RewritePattern):
    """`onnx.Add` -> `arith.addf` over the broadcast inputs."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.AddOp, rewriter: PatternRewriter) -> None:  # type: ignore[name-defined]
        elementwise(rewriter, op, lambda b, a: _binary(arith.AddfOp, a, b))


class ReluOpLowering(RewritePattern):
    """`onnx.Relu` -> max(x, 0)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: onnx.ReluOp, rewriter: PatternRewriter) -> None:  # type: ignore[name-defined]
        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            zero = float_constant(b, 0.0, args[0].type)
            return b.insert(arith.MaximumfOp(args[0], zero)).result

        elementwise(rewriter, op, body)


_ = math
