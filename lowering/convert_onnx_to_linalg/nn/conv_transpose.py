"""Transposed convolution: `onnx.ConvTranspose`.

Each input element scatters into the outputs its window covers:
Y[n, g*M/G + m, i*stride + k*dilation - pad] += X[n, g*C/G + c, i] *
W[g*C/G + c, m, k], for the taps that land inside Y. The output starts as
the broadcast bias (or zero); loops (n, g, c, i..., k..., m) accumulate into
it, 16-bit floats in float.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    OnnxLowering,
    accumulator,
    alloc,
    buffer_of,
    element_type,
    fill,
    generic,
    identity_map,
    is_none,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.nn.window import require_spatial
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, index, nest, when
from onnxc.lowering.index_arith import IndexArith, Size, is_static, static


def int_attribute(op: onnx.OnnxOp, name: str, rank: int, default: int) -> list[int]:
    """Integer list attribute `name` of `rank` elements (`default` each when
    absent or empty)."""
    value = op.attr(name)
    found = [default] * rank if not value else [int(v) for v in value]
    if len(found) != rank:
        raise unsupported(op, f"{name} {found} does not have {rank} elements")
    return found


def output_geometry(
    op: onnx.ConvTransposeOp, shapes: IndexArith, spatial: list[Size], kernel: list[int]
) -> tuple[list[Size], list[Size]]:
    """(the output's spatial sizes, the padding at the start of each spatial
    axis), from the attributes as the spec defines them."""
    rank = len(spatial)
    strides = int_attribute(op, "strides", rank, 1)
    dilations = int_attribute(op, "dilations", rank, 1)
    extra = int_attribute(op, "output_padding", rank, 0)
    auto_pad = op.attr("auto_pad") or "NOTSET"
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True)]
    full = [
        shapes.add(shapes.add(shapes.mul(s, shapes.sub(n, 1)), e), span)
        for s, n, e, span in zip(strides, spatial, extra, spans, strict=True)
    ]
    wanted = op.attr("output_shape")
    if wanted or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        if wanted:
            out: list[Size] = [int(v) for v in list(wanted)[-rank:]]
        else:
            out = [shapes.mul(n, s) for n, s in zip(spatial, strides, strict=True)]
        begins: list[Size] = []
        for total in (shapes.sub(f, o) for f, o in zip(full, out, strict=True)):
            half = shapes.floordiv(total, 2)
            begins.append(half if auto_pad == "SAME_UPPER" else shapes.sub(total, half))
        return out, begins
    if auto_pad not in ("NOTSET", "VALID"):
        raise unsupported(op, f"unknown auto_pad '{auto_pad}'")
    pads = int_attribute(op, "pads", 2 * rank, 0) if auto_pad == "NOTSET" else [0] * (2 * rank)
    out = [shapes.sub(f, pads[d] + pads[d + rank]) for d, f in enumerate(full)]
    return out, [*pads[:rank]]


class ConvTransposeOpLowering(OnnxLowering[onnx.ConvTransposeOp]):
    """`onnx.ConvTranspose` (any spatial rank): group, strides, dilations,
    pads, output_padding, output_shape and auto_pad as the spec computes
    them; kernel_shape, when given, must match W. W must be static."""

    def rewrite(self, op: onnx.ConvTransposeOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        x_shape = shapes.sizes(op.X)
        w_sizes = shapes.sizes(op.W)
        require_spatial(op, x_shape, "X")
        if not is_static(w_sizes):
            raise unsupported(op, "W must have sizes known at compile time")
        w_shape = static(w_sizes)
        rank = len(x_shape) - 2
        group = int(op.attr("group"))
        kernel = w_shape[2:]
        given = op.attr("kernel_shape")
        if given and [int(k) for k in given] != kernel:
            raise unsupported(op, f"kernel_shape {given} differs from W {w_shape}")
        channels, per_group_out = w_shape[0], w_shape[1]
        if group < 1 or channels % group or x_shape[1] != channels:
            raise unsupported(op, f"group {group} does not fit X {x_shape} and W {w_shape}")
        strides = int_attribute(op, "strides", rank, 1)
        dilations = int_attribute(op, "dilations", rank, 1)
        out_spatial, begins = output_geometry(op, shapes, x_shape[2:], kernel)
        m = per_group_out * group
        y_shape = shapes.result_sizes(op.Y, [x_shape[0], m, *out_spatial])
        output = alloc(rewriter, op.Y.type, y_shape)
        acc = accumulator(rewriter, output, y_shape)
        y = acc.buffer
        wide = element_type(y)
        if is_none(op.B):
            fill(rewriter, op, y, 0.0)
        else:
            bias = buffer_of(rewriter, op.B)
            y_rank = len(y_shape)
            generic(
                rewriter,
                op,
                [bias],
                [y],
                [AffineMap(y_rank, 0, (AffineDimExpr(1),)), identity_map(y_rank)],
                [PARALLEL] * y_rank,
                lambda b, args: widened(b, args[:1], wide)[0],
            )
        x = buffer_of(rewriter, op.X)
        w = buffer_of(rewriter, op.W)
        per_group_in = channels // group
        limits = [shapes.index(o) for o in out_spatial]
        starts = [shapes.index(b) for b in begins]
        loops = [x_shape[0], group, per_group_in, *x_shape[2:], *kernel, per_group_out]

        def scatter(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            n, g, c, *rest = at
            spatial, taps, mo = rest[:rank], rest[rank : 2 * rank], rest[2 * rank]
            channel_in = _offset(b, g, per_group_in, c)
            channel_out = _offset(b, g, per_group_out, mo)
            outs: list[SSAValue] = []
            inside: SSAValue | None = None
            for d in range(rank):
                position = _scaled(b, spatial[d], strides[d])
                position = b.insert(arith.AddiOp(position, _scaled(b, taps[d], dilations[d])))
                o = b.insert(arith.SubiOp(position.result, starts[d])).result
                fits = b.insert(arith.CmpiOp(o, index(b, 0), "sge")).result
                below = b.insert(arith.CmpiOp(o, limits[d], "slt")).result
                both = b.insert(arith.AndIOp(fits, below)).result
                inside = both if inside is None else b.insert(arith.AndIOp(inside, both)).result
                outs.append(o)

            def accumulate(ib: Builder) -> None:
                xv = ib.insert(memref.LoadOp.get(x, [n, channel_in, *spatial])).res
                wv = ib.insert(memref.LoadOp.get(w, [channel_in, mo, *taps])).res
                target = [n, channel_out, *outs]
                current = ib.insert(memref.LoadOp.get(y, target)).res
                xw, ww = widened(ib, [xv, wv], wide)
                total = scalar.ADD(ib, current, scalar.MUL(ib, xw, ww))
                ib.insert(memref.StoreOp.get(total, y, target))

            assert inside is not None
            when(b, inside, accumulate)
            return []

        nest(builder_before(op), loops, [], scatter)
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [output])


def _scaled(b: Builder, value: SSAValue, factor: int) -> SSAValue:
    if factor == 1:
        return value
    return b.insert(arith.MuliOp(value, index(b, factor))).result


def _offset(b: Builder, group: SSAValue, size: int, within: SSAValue) -> SSAValue:
    """group * size + within."""
    return b.insert(arith.AddiOp(_scaled(b, group, size), within)).result
