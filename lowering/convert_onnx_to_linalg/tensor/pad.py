"""Pad: the input surrounded by `pads` elements along each axis, filled by
`mode`: constant (`constant_value`, default 0), reflect, edge or wrap.

`pads` and `axes` may be constants or computed at run time. A negative pad
crops (as onnxruntime does: the crop comes first and the mode pads what is
left, so edge repeats the first kept element). Along each axis the output
position `o` reads the kept input position `i = o - before` (before = the
positive part of the begin pad), mapped into [0, kept) by the mode: constant
reads only where it is there, edge clamps, wrap takes `i mod kept`, reflect
folds `i` back and forth with period 2 (kept - 1) (numpy's reflection, also
for pads larger than the axis). Padding an empty axis in a mode other than
constant is an error (onnxruntime's), at run time ONNXC_ERR_SHAPE.

With constant mode and static pads, the output is filled with the value and
the kept input copied in through indexing maps; otherwise one generic over
the output computes each read position in its body.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref, scf
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    check,
    constant_value,
    copy,
    element_type,
    fill_with,
    indexed_generic,
    is_none,
    normalize_axis,
    shape_of,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import index
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.convert_onnx_to_linalg.tensor.data_movement import partial
from onnxc.lowering.convert_onnx_to_linalg.tensor.views import distinct_axes
from onnxc.lowering.index_arith import Size, is_static

MODES = ("constant", "reflect", "edge", "wrap")

Filler = Callable[[Builder], SSAValue]
"""Builds the constant mode's value at a builder's position."""


@dataclass
class PaddedAxis:
    """One axis of a Pad: `low` input elements cropped at the start, `kept`
    kept, `before` and `after` added around them, `out` in all."""

    low: Size
    kept: Size
    before: Size
    after: Size
    out: Size

    def pads(self) -> bool:
        return not (self.before == 0 and self.after == 0)


def axis_pads(
    op: onnx.PadOp, rewriter: PatternRewriter, shapes: Shapes, rank: int
) -> tuple[list[Size], list[Size]]:
    """The begin and end pad of each axis, from `pads` and `axes` (either may
    be known only at run time; an axis known only then is matched against
    every axis with selects, after a check that it is in range)."""
    pads = shape_elements(op, rewriter, shapes, op.pads)
    axes: list[Size] = list(range(rank))
    if not is_none(op.axes):
        axes = shape_elements(op, rewriter, shapes, op.axes)
    if len(pads) != 2 * len(axes):
        raise unsupported(op, f"{len(pads)} pads for {len(axes)} axes")
    begins: list[Size] = [0] * rank
    ends: list[Size] = [0] * rank
    for k, axis in enumerate(axes):
        begin, end = pads[k], pads[len(axes) + k]
        if isinstance(axis, int):
            axis = normalize_axis(op, axis, rank)
            begins[axis], ends[axis] = begin, end
            continue
        wrapped = shapes.select(shapes.less(axis, 0), shapes.add(axis, rank), axis)
        inside = shapes.equal(shapes.clamp(wrapped, 0, rank - 1), wrapped)
        check(rewriter, op, inside, f"axes[{k}] is in range")
        for d in range(rank):
            here = shapes.equal(wrapped, d)
            begins[d] = shapes.select(here, begin, begins[d])
            ends[d] = shapes.select(here, end, ends[d])
    return begins, ends


def padded_axes(
    op: onnx.PadOp, rewriter: PatternRewriter, shapes: Shapes, sizes: Sequence[Size], mode: str
) -> list[PaddedAxis]:
    """Each axis's crop and pads, checked: nothing is cropped below zero
    elements, and no mode but constant pads an empty axis."""
    begins, ends = axis_pads(op, rewriter, shapes, len(sizes))
    axes: list[PaddedAxis] = []
    for d, (dim, begin, end) in enumerate(zip(sizes, begins, ends, strict=True)):
        low = shapes.max(shapes.sub(0, begin), 0)
        kept = shapes.sub(shapes.sub(dim, low), shapes.max(shapes.sub(0, end), 0))
        before, after = shapes.max(begin, 0), shapes.max(end, 0)
        axis = PaddedAxis(low, kept, before, after, shapes.add(shapes.add(before, kept), after))
        if isinstance(kept, int) and kept < 0:
            raise unsupported(op, f"pads crop axis {d} below zero elements")
        if not isinstance(kept, int):
            check(rewriter, op, shapes.equal(shapes.max(kept, 0), kept), f"axis {d} keeps >= 0")
        if mode != "constant" and axis.pads():
            if is_static([kept, axis.out]) and kept == 0 and axis.out != 0:
                raise unsupported(op, f"{mode} padding of the empty axis {d}")
            if not is_static([kept, axis.out]):
                fits = shapes.either(shapes.less(0, kept), shapes.equal(axis.out, 0))
                check(rewriter, op, fits, f"axis {d} is not empty ({mode} padding)")
        axes.append(axis)
    return axes


def _sub(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith.SubiOp(x, y)).result


def _add(b: Builder, x: SSAValue, y: SSAValue) -> SSAValue:
    return b.insert(arith.AddiOp(x, y)).result


def _modulo(b: Builder, x: SSAValue, n: SSAValue) -> SSAValue:
    """x mod n in [0, n), for n > 0 and x of any sign."""
    rest = b.insert(arith.RemSIOp(x, n)).result
    negative = b.insert(arith.CmpiOp(rest, index(b, 0), "slt")).result
    return b.insert(arith.SelectOp(negative, _add(b, rest, n), rest)).result


def _fold(
    b: Builder, i: SSAValue, kept: SSAValue, last: SSAValue | None, period: SSAValue | None
) -> SSAValue:
    """A position outside [0, kept) folded in: clamped to [0, last] (edge),
    or reflected with `period` (reflect)."""
    if last is not None:
        i = b.insert(arith.MaxSIOp(i, index(b, 0))).result
        return b.insert(arith.MinSIOp(i, last)).result
    assert period is not None
    i = _modulo(b, i, period)
    beyond = b.insert(arith.CmpiOp(i, kept, "sge")).result
    return b.insert(arith.SelectOp(beyond, _sub(b, period, i), i)).result


class PadOpLowering(OnnxLowering[onnx.PadOp]):
    """`onnx.Pad` in any mode, over every element type (see the module
    docstring)."""

    def rewrite(self, op: onnx.PadOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        mode = op.attr("mode") or "constant"
        if mode not in MODES:
            raise unsupported(op, f"mode '{mode}'")
        sizes = shapes.sizes(op.data)
        axes = padded_axes(op, rewriter, shapes, sizes, mode)
        output = self.result_buffer(rewriter, op.output, [a.out for a in axes])
        data = buffer_of(rewriter, op.data)
        pad_into(rewriter, shapes, op, data, output, axes, mode, self._value(op, rewriter))
        self.replace(rewriter, op, [output])

    def _value(self, op: onnx.PadOp, rewriter: PatternRewriter) -> Filler:
        """Builds the constant mode's value where it is needed: a constant,
        or the `constant_value` element loaded once before the Pad."""
        t = element_type(op.data)
        if is_none(op.constant_value):
            return lambda b: scalar.constant(b, 0, t)
        known = constant_value(op.constant_value)
        if known is not None and known.dtype != object:
            number = known.reshape(-1)[0].item()
            return lambda b: scalar.constant(b, number, t)
        buffer = buffer_of(rewriter, op.constant_value)
        rank = len(shape_of(buffer))
        zero = [self.shapes.index(0)] * rank
        loaded = rewriter.insert(memref.LoadOp.get(buffer, zero)).res
        return lambda b: loaded


def pad_into(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    data: SSAValue,
    output: SSAValue,
    axes: Sequence[PaddedAxis],
    mode: str,
    value: Filler,
) -> None:
    """Write `data` padded along `axes` by `mode` (constant: `value`) into
    `output`."""
    out_sizes = shapes.sizes(output)
    element = element_type(output)
    if mode == "constant" and _copy_in(rewriter, shapes, op, data, output, axes, value):
        return
    # Sizes the body uses are built before the generic.
    lows = [shapes.index(a.low) for a in axes]
    befores = [shapes.index(a.before) for a in axes]
    kepts = [shapes.index(a.kept) for a in axes]
    periods = [
        shapes.index(shapes.max(shapes.mul(shapes.sub(a.kept, 1), 2), 1))
        if mode == "reflect"
        else None
        for a in axes
    ]
    lasts = [shapes.index(shapes.sub(a.kept, 1)) if mode == "edge" else None for a in axes]

    def body(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
        reads: list[SSAValue] = []
        inside: SSAValue | None = None
        for d, o in enumerate(position):
            if not axes[d].pads():
                reads.append(o if axes[d].low == 0 else _add(b, o, lows[d]))
                continue
            i = _sub(b, o, befores[d])
            if mode == "constant":
                here = b.insert(arith.CmpiOp(i, kepts[d], "ult")).result
                inside = here if inside is None else b.insert(arith.AndIOp(inside, here)).result
            elif mode == "wrap":
                i = _modulo(b, i, kepts[d])
            else:
                i = _fold(b, i, kepts[d], lasts[d], periods[d])
            reads.append(_add(b, i, lows[d]))
        if inside is None:
            return b.insert(memref.LoadOp.get(data, reads)).res
        then_block, else_block = Block(), Block()
        loaded = Builder(InsertPoint.at_end(then_block)).insert(memref.LoadOp.get(data, reads))
        then_block.add_op(scf.YieldOp(loaded.res))
        filler = value(Builder(InsertPoint.at_end(else_block)))
        else_block.add_op(scf.YieldOp(filler))
        return b.insert(scf.IfOp(inside, [element], [then_block], [else_block])).results[0]

    if not any(isinstance(s, int) and s == 0 for s in out_sizes):
        indexed_generic(rewriter, op, output, body)


def _copy_in(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    data: SSAValue,
    output: SSAValue,
    axes: Sequence[PaddedAxis],
    value: Filler,
) -> bool:
    """Constant padding by static amounts: fill the output, copy the kept
    input in through indexing maps. False (nothing built) where an axis
    is both cropped and padded differently, so no map spans it."""
    reads: list[AffineExpr] = []
    writes: list[AffineExpr] = []
    sizes = shapes.sizes(data)
    for d, a in enumerate(axes):
        if not (isinstance(a.low, int) and isinstance(a.before, int)):
            return False
        read: AffineExpr = AffineDimExpr(d) + a.low
        write: AffineExpr = AffineDimExpr(d) + a.before
        whole_read = a.low == 0 and shapes.same(a.kept, sizes[d])
        whole_write = a.before == 0 and shapes.same(a.kept, a.out)
        if not (whole_read or whole_write):
            return False
        reads.append(read if whole_read else partial(read))
        writes.append(write if whole_write else partial(write))
    fill_value = value(Builder(InsertPoint.before(op)))
    fill_with(rewriter, op, output, fill_value)
    if not any(isinstance(a.kept, int) and a.kept == 0 for a in axes):
        rank = len(axes)
        copy(
            rewriter,
            op,
            data,
            output,
            AffineMap(rank, 0, tuple(reads)),
            AffineMap(rank, 0, tuple(writes)),
        )
    return True


class CenterCropPadOpLowering(OnnxLowering[onnx.CenterCropPadOp]):
    """`onnx.CenterCropPad`: each of `axes` (default all) cropped or padded
    with zeros to the size `shape` gives it, centred: a crop drops
    (size - wanted) // 2 elements at the start, a pad adds (wanted - size)
    // 2 there (the rest at the end, as onnx.reference); a Pad in constant
    mode (`pad_into`) with those amounts. `shape` may be computed at run
    time; a negative size there is ONNXC_ERR_SHAPE."""

    def rewrite(self, op: onnx.CenterCropPadOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.input_data)
        rank = len(sizes)
        given = op.attr("axes")
        axes = list(range(rank)) if given is None else distinct_axes(op, np.array(given), rank)
        wanted = shape_elements(op, rewriter, shapes, op.shape)
        if len(wanted) != len(axes):
            raise unsupported(op, f"shape has {len(wanted)} sizes for {len(axes)} axes")
        out_sizes = list(sizes)
        for axis, size in zip(axes, wanted, strict=True):
            if isinstance(size, int) and size < 0:
                raise unsupported(op, f"negative size {size}")
            if not isinstance(size, int):
                check(rewriter, op, shapes.equal(shapes.max(size, 0), size), "shape >= 0")
            out_sizes[axis] = size
        output = self.result_buffer(rewriter, op.output_data, out_sizes)
        padded: list[PaddedAxis] = []
        for size, out in zip(sizes, shapes.sizes(output), strict=True):
            kept = shapes.min(size, out)
            crop = shapes.floordiv(shapes.sub(size, kept), 2)
            before = shapes.floordiv(shapes.sub(out, kept), 2)
            after = shapes.sub(shapes.sub(out, kept), before)
            padded.append(PaddedAxis(crop, kept, before, after, out))
        data = buffer_of(rewriter, op.input_data)
        t = element_type(output)

        def zero(b: Builder) -> SSAValue:
            return scalar.constant(b, 0, t)

        pad_into(rewriter, shapes, op, data, output, padded, "constant", zero)
        self.replace(rewriter, op, [output])
