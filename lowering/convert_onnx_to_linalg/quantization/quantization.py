"""Linear quantization: `onnx.QuantizeLinear`, `onnx.DequantizeLinear` and
`onnx.DynamicQuantizeLinear`, and the scalar steps the quantized products
(qlinear.py) share.

Each is one parallel generic over x. A scale and a zero point are read through
the indexing map their granularity gives (`granularity_map`): per tensor (one
element, read at 0), per axis (a 1-D tensor along `axis`) or blocked (x's
rank; `block_size` consecutive elements along `axis` share one, the map
divides that index by it). Quantizing (`quantize`) rounds half to even and
saturates to the output type's range, or, to a float type, converts as Cast
does (saturating unless `saturate` is 0); dequantizing (`dequantize`)
computes in float. Every quantized type of the element-type table works the
same way: its kind and range come from the table.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, MemRefType, UnitAttr
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc import element_types
from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.ir_names import IN_RANGE
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    alloc,
    buffer_of,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    normalize_axis,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.elementwise.cast import saturated
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes
from onnxc.lowering.index_arith import Size

I32 = IntegerType(32)
WIDE = Float32Type()
"""The type quantization arithmetic is done in (after the division)."""


# --- scalar steps ---------------------------------------------------------------


def _overflows_to_special(target: Attribute) -> bool:
    """Whether the float format `target` has an encoding for values beyond
    its range (infinity or NaN), so that converting without saturation
    differs from saturating (float8: yes; float4e2m1: no)."""
    dtype = element_types.row_of(target).numpy_dtype
    with np.errstate(over="ignore", invalid="ignore"):
        beyond = np.array(np.inf, np.float32).astype(dtype).astype(np.float32)
    return not bool(np.isfinite(beyond))


def quantize(
    b: Builder,
    value: SSAValue,
    zero_point: SSAValue | None,
    target: Attribute,
    saturate: bool = True,
) -> SSAValue:
    """`value` (a float: the real value divided by the scale) quantized to
    `target`, QuantizeLinear's `saturate(value + zero_point)`: for integer
    types rounded half to even first and clamped to the type's range (NaN
    gives 0, the C printer's conversion); for float types converted as Cast
    does, saturating to the largest finite value unless `saturate` is false
    and the format can represent the overflow."""
    integral = scalar.kind(target) is not Kind.FLOAT
    if value.type in MAGIC and isinstance(target, IntegerType) and 8 <= target.width.data <= 16:
        return _quantized_integer(b, value, zero_point, target)
    if integral:
        value = scalar.ROUND_EVEN(b, value)
    value = scalar.convert(b, value, WIDE)
    if zero_point is not None:
        value = scalar.ADD(b, value, scalar.convert(b, zero_point, WIDE))
    if not integral:
        if saturate or not _overflows_to_special(target):
            return saturated(b, value, target)
        return scalar.convert(b, value, target)
    low = constant(b, scalar.lowest(target), WIDE)
    high = constant(b, scalar.highest(target), WIDE)
    return scalar.convert(b, scalar.MIN(b, scalar.MAX(b, value, low), high), target)


MAGIC = {Float32Type(): 1.5 * 2.0**23, Float64Type(): 1.5 * 2.0**52}
"""1.5 * 2^(mantissa bits): added to a value of magnitude below 2^22 and
subtracted again, it rounds the value to an integer, half to even, in the
default rounding mode (the sum's unit in the last place is 1)."""


def _quantized_integer(
    b: Builder, value: SSAValue, zero_point: SSAValue | None, target: Attribute
) -> SSAValue:
    """`quantize` to an integer type of 8 or 16 bits in the float type of
    `value` (float or double), without a library call. `value` is first
    clamped to the target's range less the zero point, which are exact
    integers, so clamping commutes with rounding and the rounding (`MAGIC`)
    sees magnitudes below 2^17 only; NaN gives the lowest value, as
    onnxruntime's kernels give. The integral value then converts by a plain C
    conversion (`IN_RANGE`), and the zero point is added in int32."""
    t = value.type
    point = constant(b, 0, t) if zero_point is None else scalar.convert(b, zero_point, t)
    low = scalar.SUB(b, constant(b, scalar.lowest(target), t), point)
    high = scalar.SUB(b, constant(b, scalar.highest(target), t), point)
    above = b.insert(arith.CmpfOp(value, low, "ogt")).result
    value = b.insert(arith.SelectOp(above, value, low)).result
    below = b.insert(arith.CmpfOp(value, high, "olt")).result
    value = b.insert(arith.SelectOp(below, value, high)).result
    magic = constant(b, MAGIC[t], t)
    value = scalar.SUB(b, scalar.ADD(b, value, magic), magic)
    whole = b.insert(arith.FPToSIOp(value, I32))
    whole.attributes[IN_RANGE] = UnitAttr()
    if zero_point is None:
        return scalar.convert(b, whole.result, target)
    shifted = scalar.ADD(b, whole.result, scalar.convert(b, zero_point, I32))
    return scalar.convert(b, shifted, target)


def dequantize(
    b: Builder, x: SSAValue, zero_point: SSAValue | None, scale: SSAValue | None
) -> SSAValue:
    """`(x - zero_point) * scale` in float (x and the zero point converted
    exactly from every quantized type up to 16 bits; int32 is rounded to
    float as onnx.reference does)."""
    value = scalar.convert(b, x, WIDE)
    if zero_point is not None:
        value = scalar.SUB(b, value, scalar.convert(b, zero_point, WIDE))
    if scale is not None:
        value = scalar.MUL(b, value, scalar.convert(b, scale, WIDE))
    return value


# --- granularity ----------------------------------------------------------------


def one_element(sizes: Sequence[Size]) -> bool:
    """Whether a tensor of `sizes` has exactly one element (known now)."""
    return all(s == 1 for s in sizes)


def granularity_map(
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    shapes: Shapes,
    parameter: SSAValue,
    x_sizes: Sequence[Size],
    what: str,
) -> AffineMap:
    """How the loops over x read a scale or zero point of `op` (attributes
    `axis` and `block_size`): one element (any rank) is per tensor, read at
    0; else with `block_size` 0 a 1-D tensor as long as x along `axis`;
    else blocked, of x's rank with ceil(D / block_size) along `axis` and
    x's sizes elsewhere. A size known only at run time must match (checked
    then), so a 1-D parameter whose single element is known only at run
    time is an error unless x is that short too."""
    rank = len(x_sizes)
    sizes = shapes.sizes(parameter)
    if one_element(sizes):
        return AffineMap(rank, 0, tuple(AffineConstantExpr(0) for _ in sizes))
    axis = normalize_axis(op, int(op.attr("axis")), rank)
    block_size = int(op.attr("block_size") or 0)
    if block_size < 0:
        raise unsupported(op, f"block_size {block_size} is negative")
    if block_size == 0:
        if len(sizes) != 1:
            raise unsupported(
                op, f"{what} of rank {len(sizes)} without block_size (per axis needs 1-D)"
            )
        require_sizes(op, rewriter, shapes, sizes, [x_sizes[axis]], what)
        return AffineMap(rank, 0, (AffineDimExpr(axis),))
    if len(sizes) != rank:
        raise unsupported(op, f"blocked {what} must have the input's rank {rank}")
    blocks = shapes.ceildiv(x_sizes[axis], block_size)
    expected = [blocks if d == axis else s for d, s in enumerate(x_sizes)]
    require_sizes(op, rewriter, shapes, sizes, expected, what)
    exprs: list[AffineExpr] = [AffineDimExpr(d) for d in range(rank)]
    exprs[axis] = AffineDimExpr(axis) // block_size
    return AffineMap(rank, 0, tuple(exprs))


def _parameters(
    op: onnx.OnnxOp,
    rewriter: PatternRewriter,
    shapes: Shapes,
    x: SSAValue,
    scale: SSAValue,
    zero_point: SSAValue,
) -> tuple[list[SSAValue], list[AffineMap]]:
    """The buffers of x, its scale and (unless omitted) zero point, and their
    maps over x's loops."""
    x_sizes = shapes.sizes(x)
    buffers = [buffer_of(rewriter, x), buffer_of(rewriter, scale)]
    maps = [
        identity_map(len(x_sizes)),
        granularity_map(op, rewriter, shapes, scale, x_sizes, "scale"),
    ]
    if not is_none(zero_point):
        buffers.append(buffer_of(rewriter, zero_point))
        maps.append(granularity_map(op, rewriter, shapes, zero_point, x_sizes, "zero point"))
    return buffers, maps


# --- the operators ----------------------------------------------------------------


class QuantizeLinearOpLowering(OnnxLowering[onnx.QuantizeLinearOp]):
    """`onnx.QuantizeLinear`: y = saturate(x / y_scale + y_zero_point) per
    `quantize`, per tensor, per axis or blocked (`granularity_map`); the
    output type is y's (`output_dtype` or the zero point's, uint8 without
    either). The division is computed in float from x and y_scale converted
    to `precision` (default: y_scale's type; an integer y_scale divides in
    float), as onnxruntime divides in float without rounding the quotient to
    a 16-bit precision. The zero point is added for every output type, as
    the spec's formula says (onnx.reference ignores it for float8 outputs,
    where it is meant to be 0)."""

    def rewrite(self, op: onnx.QuantizeLinearOp, rewriter: PatternRewriter) -> None:
        buffers, maps = _parameters(op, rewriter, self.shapes, op.x, op.y_scale, op.y_zero_point)
        target = element_type(op.y)
        precision = self._precision(op)
        saturate = bool(op.attr("saturate"))
        output = self.result_buffer(rewriter, op.y, self.shapes.sizes(op.x))

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            x, scale = scalar.convert(b, args[0], precision), scalar.convert(b, args[1], precision)
            zero_point = args[2] if len(args) == 4 else None
            return quantize(b, scalar.DIV(b, x, scale), zero_point, target, saturate)

        rank = len(self.shapes.sizes(op.x))
        generic(
            rewriter, op, buffers, [output], [*maps, identity_map(rank)], [PARALLEL] * rank, body
        )
        self.replace(rewriter, op, [output])

    @staticmethod
    def _precision(op: onnx.QuantizeLinearOp) -> Attribute:
        code = int(op.attr("precision") or 0)
        if code == 0:
            precision = element_type(op.y_scale)
        else:
            row = element_types.by_onnx_code(code)
            if row is None:
                raise unsupported(op, f"precision {element_types.onnx_type_name(code)}")
            precision = row.ir_type
        return precision if scalar.kind(precision) is Kind.FLOAT else WIDE


class DequantizeLinearOpLowering(OnnxLowering[onnx.DequantizeLinearOp]):
    """`onnx.DequantizeLinear`: y = (x - x_zero_point) * x_scale, per tensor,
    per axis or blocked (`granularity_map`), computed in float and rounded
    once to y's type (`output_dtype`, or x_scale's), as onnx.reference does;
    the zero point is subtracted for every input type (it is 0 for the float
    ones, which onnx.reference requires)."""

    def rewrite(self, op: onnx.DequantizeLinearOp, rewriter: PatternRewriter) -> None:
        buffers, maps = _parameters(op, rewriter, self.shapes, op.x, op.x_scale, op.x_zero_point)
        target = element_type(op.y)
        output = self.result_buffer(rewriter, op.y, self.shapes.sizes(op.x))

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            zero_point = args[2] if len(args) == 4 else None
            return scalar.convert(b, dequantize(b, args[0], zero_point, args[1]), target)

        rank = len(self.shapes.sizes(op.x))
        generic(
            rewriter, op, buffers, [output], [*maps, identity_map(rank)], [PARALLEL] * rank, body
        )
        self.replace(rewriter, op, [output])


class DynamicQuantizeLinearOpLowering(OnnxLowering[onnx.DynamicQuantizeLinearOp]):
    """`onnx.DynamicQuantizeLinear`, as its function body defines it: the
    range [min(0, min x), max(0, max x)] (one reduction generic), y_scale =
    range / (qmax - qmin), y_zero_point = saturate(round(qmin - min /
    y_scale)), y = QuantizeLinear(x, y_scale, y_zero_point) (qmin, qmax: the
    range of y's type, uint8). An all-zero x has an empty range: y_scale is
    1 there, as onnxruntime makes it (the function body divides 0 by 0;
    onnx.reference gives 1/255)."""

    def rewrite(self, op: onnx.DynamicQuantizeLinearOp, rewriter: PatternRewriter) -> None:
        sizes = self.shapes.sizes(op.x)
        rank = len(sizes)
        target = element_type(op.y)
        float_type = element_type(op.x)
        x = buffer_of(rewriter, op.x)
        lowest = alloc(rewriter, MemRefType(float_type, []))
        highest = alloc(rewriter, MemRefType(float_type, []))
        fill(rewriter, op, lowest, 0.0)
        fill(rewriter, op, highest, 0.0)
        to_scalar = AffineMap(rank, 0, ())
        generic(
            rewriter,
            op,
            [x],
            [lowest, highest],
            [identity_map(rank), to_scalar, to_scalar],
            [REDUCTION] * rank,
            lambda b, args: [scalar.MIN(b, args[1], args[0]), scalar.MAX(b, args[2], args[0])],
        )
        y_scale = self.result_buffer(rewriter, op.y_scale, [])
        y_zero_point = self.result_buffer(rewriter, op.y_zero_point, [])
        qmin, qmax = scalar.lowest(target), scalar.highest(target)

        def parameters(b: Builder, args: Sequence[SSAValue]) -> Sequence[SSAValue]:
            low, high = args[0], args[1]
            span = scalar.SUB(b, high, low)
            empty = scalar.EQUAL(b, span, constant(b, 0.0, span.type))
            steps = scalar.DIV(b, span, constant(b, qmax - qmin, span.type))
            scale = b.insert(arith.SelectOp(empty, constant(b, 1.0, span.type), steps)).result
            shifted = scalar.SUB(b, constant(b, qmin, span.type), scalar.DIV(b, low, scale))
            return [scale, quantize(b, shifted, None, target)]

        generic(
            rewriter,
            op,
            [lowest, highest],
            [y_scale, y_zero_point],
            [AffineMap(0, 0, ())] * 4,
            [],
            parameters,
        )
        output = self.result_buffer(rewriter, op.y, sizes)

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            return quantize(b, scalar.DIV(b, args[0], args[1]), args[2], target)

        generic(
            rewriter,
            op,
            [x, y_scale, y_zero_point],
            [output],
            [identity_map(rank), to_scalar, to_scalar, identity_map(rank)],
            [PARALLEL] * rank,
            body,
        )
        self.replace(rewriter, op, [output, y_scale, y_zero_point])
