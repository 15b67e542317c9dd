"""`onnx.ArgMax` and `onnx.ArgMin`: the position of the best element along
an axis, with the reduction building blocks of blocks.py."""

from __future__ import annotations

from typing import ClassVar

from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    check,
    element_type,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.reduction.blocks import (
    arg_best,
    reduced_buffer,
    reduced_sizes,
    sizes_and_axis,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import ScalarOp


class ArgLowering(OnnxLowering[onnx.OnnxOp]):
    """Base of ArgMax and ArgMin: the int64 position of the best element along
    `axis` (`keepdims`, default 1): the first of equal ones, or with
    `select_last_index` the last; NaN as onnxruntime (see `arg_best`). An
    empty axis has no answer: a compile-time error, or ONNXC_ERR_SHAPE when
    its size is known only at run time."""

    strict: ClassVar[ScalarOp]
    inclusive: ClassVar[ScalarOp]

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        data = op.operands[0]
        sizes, axis = sizes_and_axis(op, shapes)
        keepdims = bool(op.attr("keepdims"))
        out_sizes = reduced_sizes(sizes, {axis}, keepdims)
        count, length = shapes.product(out_sizes), sizes[axis]
        if not (isinstance(length, int) and length > 0) and count != 0:
            if isinstance(length, int) and isinstance(count, int):
                raise unsupported(op, "the axis is empty")
            fits = shapes.either(shapes.less(0, length), shapes.equal(count, 0))
            check(rewriter, op, fits, "the axis is not empty")
        indices = self.result_buffer(rewriter, op.results[0], out_sizes)
        out_sizes = shapes.sizes(indices)
        values = reduced_buffer(rewriter, element_type(data), out_sizes)
        better = self.inclusive if op.attr("select_last_index") else self.strict
        arg_best(rewriter, op, data, axis, better, values, indices, keepdims)
        self.replace(rewriter, op, [indices])


class ArgMaxOpLowering(ArgLowering):
    """`onnx.ArgMax`: see `ArgLowering`."""

    source = onnx.ArgMaxOp
    strict = scalar.GREATER
    inclusive = scalar.GREATER_OR_EQUAL


class ArgMinOpLowering(ArgLowering):
    """`onnx.ArgMin`: see `ArgLowering`."""

    source = onnx.ArgMinOp
    strict = scalar.LESS
    inclusive = scalar.LESS_OR_EQUAL
