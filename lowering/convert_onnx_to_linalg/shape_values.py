"""The values of shape tensors, known as sizes while lowering.

Exporters compute the shapes a model reshapes and expands to from the sizes
of its tensors: `Shape -> Gather -> Mul -> Unsqueeze -> Concat -> Reshape`.
When those sizes are known only at run time, the chain survives folding. Its
ops are lowered like any other (the data is computed), but the pass also
follows the elements of such small integer tensors as `Size`s (`track`,
before each op is lowered): a Shape's elements are the sizes of its input,
a Gather of them picks some, a Mul multiplies them with the shape helper's
arithmetic, and so on. A Reshape to such a tensor then takes its sizes from
there instead of loading them at run time (`shape_elements`): constants stay
constants, so strides stay static, and two reshapes to the same computed size
get the same value, which is how a later MatMul knows their batch sizes agree.
This is onnx-mlir's shape-value propagation through IndexExpr.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, TensorType
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    buffer_of,
    constant_value,
    element_type,
    is_none,
    shape_of,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

MAX_ELEMENTS = 16
"""Shape tensors longer than this are not followed (shapes have few elements)."""

MAX_LOADED_ELEMENTS = 64
"""The longest shape tensor whose elements are loaded at run time (one load
each): a shape, its pads (two per axis), axes or steps never come near it, and
a tensor declared longer (2^31 elements) would otherwise take as many ops."""


def _is_shape_like(value: SSAValue) -> bool:
    """A 0-D or 1-D integer tensor of at most MAX_ELEMENTS elements."""
    if not isinstance(value.type, TensorType):
        return False
    shape = shape_of(value)
    return (
        len(shape) <= 1
        and all(0 <= size <= MAX_ELEMENTS for size in shape)
        and scalar.kind(element_type(value)) in (Kind.SIGNED, Kind.UNSIGNED)
    )


def known_elements(shapes: Shapes, value: SSAValue) -> list[Size] | None:
    """The elements of a shape-like tensor when they are known as sizes: what
    `track` followed, or a constant's values; else None."""
    if value in shapes.elements:
        return shapes.elements[value]
    if not _is_shape_like(value):
        return None
    constant = constant_value(value)
    return None if constant is None else [int(v) for v in constant.reshape(-1)]


def _index_of(k: int, length: int) -> int | None:
    k = k + length if k < 0 else k
    return k if 0 <= k < length else None


def _gather(op: onnx.GatherOp, shapes: Shapes, data: list[Size]) -> list[Size] | None:
    indices = constant_value(op.indices)
    if indices is None or op.attr("axis") not in (0, -1):
        return None
    picked: list[Size] = []
    for k in indices.reshape(-1):
        position = _index_of(int(k), len(data))
        if position is None:
            return None
        picked.append(data[position])
    return picked


def _slice(op: onnx.SliceOp, data: list[Size]) -> list[Size] | None:
    bounds = [constant_value(v) if not is_none(v) else None for v in op.operands[1:]]
    starts, ends, axes, steps = bounds
    if starts is None or ends is None or starts.size != 1:
        return None
    if axes is not None and int(axes.reshape(-1)[0]) not in (0, -1):
        return None
    step = 1 if steps is None else int(steps.reshape(-1)[0])
    picked = range(len(data))[slice(int(starts.reshape(-1)[0]), int(ends.reshape(-1)[0]), step)]
    return [data[k] for k in picked]


def _binary(
    shapes: Shapes, op: onnx.OnnxOp, compute: Callable[[Size, Size], Size | None]
) -> list[Size] | None:
    lhs, rhs = (known_elements(shapes, v) for v in op.operands[:2])
    if lhs is None or rhs is None or (len(lhs) != len(rhs) and 1 not in (len(lhs), len(rhs))):
        return None
    count = max(len(lhs), len(rhs))
    found: list[Size] = []
    for k in range(count):
        value = compute(lhs[k if len(lhs) > 1 else 0], rhs[k if len(rhs) > 1 else 0])
        if value is None:
            return None
        found.append(value)
    return found


def _divide(shapes: Shapes, a: Size, b: Size) -> Size | None:
    """ONNX integer Div (truncating) of sizes: only by a positive constant of
    a size known to be 0 or more."""
    if isinstance(a, int) and isinstance(b, int) and b != 0:
        return int(a / b)
    if isinstance(b, int) and b > 0:
        return shapes.floordiv(a, b)  # equal to truncation: sizes are not negative
    return None


def _follow(op: onnx.OnnxOp, shapes: Shapes) -> list[Size] | None:
    """The elements of `op`'s single result, or None when not followed."""
    inputs = [known_elements(shapes, v) for v in op.operands]
    first = inputs[0] if inputs else None
    if isinstance(op, onnx.ShapeOp):
        sizes = shapes.sizes(op.data)
        rank = len(sizes)
        start, end = op.attr("start") or 0, op.attr("end")
        return sizes[slice(start, rank if end is None else end)]
    if isinstance(op, onnx.SizeOp):
        return [shapes.product(shapes.sizes(op.data))]
    if first is None:
        return None
    if isinstance(op, onnx.IdentityOp | onnx.UnsqueezeOp | onnx.SqueezeOp | onnx.ReshapeOp):
        return first
    if isinstance(op, onnx.FlattenOp):
        return first
    if isinstance(op, onnx.CastOp):
        return first if _is_shape_like(op.results[0]) else None
    if isinstance(op, onnx.GatherOp):
        return _gather(op, shapes, first)
    if isinstance(op, onnx.SliceOp):
        return _slice(op, first)
    if isinstance(op, onnx.ConcatOp):
        if any(v is None for v in inputs):
            return None
        return [size for v in inputs if v is not None for size in v]
    if isinstance(op, onnx.MulOp):
        return _binary(shapes, op, shapes.mul)
    if isinstance(op, onnx.AddOp):
        return _binary(shapes, op, shapes.add)
    if isinstance(op, onnx.SubOp):
        return _binary(shapes, op, shapes.sub)
    if isinstance(op, onnx.DivOp):
        return _binary(shapes, op, lambda a, b: _divide(shapes, a, b))
    if isinstance(op, onnx.MaxOp) and len(inputs) == 2:
        return _binary(shapes, op, shapes.max)
    if isinstance(op, onnx.MinOp) and len(inputs) == 2:
        return _binary(shapes, op, shapes.min)
    return None


def track(op: onnx.OnnxOp, shapes: Shapes) -> None:
    """Follow the elements of `op`'s result when it is a shape-like tensor
    computed from sizes (see the module docstring)."""
    if len(op.results) != 1 or not _is_shape_like(op.results[0]):
        return
    found = _follow(op, shapes)
    if found is not None and len(found) == math.prod(shape_of(op.results[0])):
        shapes.elements[op.results[0]] = found


def shape_elements(
    op: onnx.OnnxOp, rewriter: PatternRewriter, shapes: Shapes, value: SSAValue
) -> list[Size]:
    """The elements of a 1-D (or 0-D) integer tensor as sizes: known ones
    (constants, followed shape values) as they are, else loaded at run time
    (at most `MAX_LOADED_ELEMENTS` of them)."""
    known = known_elements(shapes, value)
    if known is not None:
        return list(known)
    value_shape = shape_of(value)
    if len(value_shape) > 1 or any(size < 0 for size in value_shape):
        raise unsupported(op, "a shape tensor of a length known only at run time")
    if value_shape and value_shape[0] > MAX_LOADED_ELEMENTS:
        raise unsupported(
            op,
            f"a shape tensor of {value_shape[0]} elements known only at run time "
            f"(at most {MAX_LOADED_ELEMENTS})",
        )
    buffer = buffer_of(rewriter, value)
    if not value_shape:
        return [shapes.from_integer(rewriter.insert(memref.LoadOp.get(buffer, [])).res)]
    elements: list[Size] = []
    for k in range(value_shape[0]):
        position = rewriter.insert(arith.ConstantOp.from_int_and_width(k, IndexType())).result
        loaded = rewriter.insert(memref.LoadOp.get(buffer, [position])).res
        elements.append(shapes.from_integer(loaded))
    return elements


def shape_scalar(
    op: onnx.OnnxOp, rewriter: PatternRewriter, shapes: Shapes, value: SSAValue, what: str
) -> Size:
    """The one element of a scalar operand (0-D, or 1-D of one element) as a
    size; an error naming the node and `what` when it holds another number."""
    elements = shape_elements(op, rewriter, shapes, value)
    if len(elements) != 1:
        raise unsupported(op, f"{what} must hold one element, not {len(elements)}")
    return elements[0]
