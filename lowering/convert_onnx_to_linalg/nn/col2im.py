"""Column blocks back to an image: `onnx.Col2Im` (PyTorch's `fold`).

Column l of block row c * K + k holds the image element that kernel tap k
of sliding block l covers: Y[n, c, x] += X[n, c * K + k, l] where, per
spatial axis d, x_d = l_d * strides_d - pads_begin_d + k_d * dilations_d, for
the taps that land inside the image (K is the number of taps, the product of
`block_shape`; k and l are row-major over the block and the grid of blocks).
The output starts at zero; loops (n, c, k..., l...) accumulate into it, the
loops over l clipped to the blocks whose tap k lands inside (no test per
element),
16-bit floats in float. Overlapping bool taps are or-ed, as numpy's `+=` on
bools (onnx.reference) does.
"""

from __future__ import annotations

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.element_types import Kind
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    accumulator,
    buffer_of,
    check,
    element_type,
    fill,
    row_major,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.kernels.loops import Arith, tap_range
from onnxc.lowering.convert_onnx_to_linalg.nn.conv_transpose import int_attribute
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range, nest
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_elements
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size


def _require_equal(
    rewriter: PatternRewriter, shapes: Shapes, op: onnx.OnnxOp, a: Size, b: Size, what: str
) -> None:
    """`a == b`: an error when both are known, else a run-time check."""
    if isinstance(a, int) and isinstance(b, int):
        if a != b:
            raise unsupported(op, f"{what} ({a} != {b})")
    elif not shapes.same(a, b):
        check(rewriter, op, shapes.equal(a, b), what)


def _require_at_least(
    rewriter: PatternRewriter, shapes: Shapes, op: onnx.OnnxOp, a: Size, low: int, what: str
) -> None:
    """`a >= low`: an error when `a` is known, else a run-time check."""
    if isinstance(a, int):
        if a < low:
            raise unsupported(op, f"{what} ({a} < {low})")
    else:
        check(rewriter, op, shapes.less(low - 1, a), what)


class Col2ImOpLowering(OnnxLowering[onnx.Col2ImOp]):
    """`onnx.Col2Im` (any number of spatial axes; see the module docstring):
    input [N, C * K, L] -> [N, C, *image_shape], with strides, pads and
    dilations. `image_shape` and `block_shape` may be known only at run time
    (their lengths may not); input sizes that do not fit them (L not the
    number of blocks, C * K not a multiple of K) are an error, or
    ONNXC_ERR_SHAPE at run time."""

    def rewrite(self, op: onnx.Col2ImOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        in_sizes = shapes.sizes(op.input)
        if len(in_sizes) != 3:
            raise unsupported(op, f"input must be [N, C * K, L], got rank {len(in_sizes)}")
        image = shape_elements(op, rewriter, shapes, op.image_shape)
        block = shape_elements(op, rewriter, shapes, op.block_shape)
        rank = len(block)
        if len(image) != rank or rank == 0:
            raise unsupported(op, f"image_shape {image} and block_shape {block} differ in length")
        strides = int_attribute(op, "strides", rank, 1)
        dilations = int_attribute(op, "dilations", rank, 1)
        pads = int_attribute(op, "pads", 2 * rank, 0)
        if min(strides + dilations) < 1 or min(pads) < 0:
            raise unsupported(op, "strides and dilations must be >= 1, pads >= 0")
        blocks: list[Size] = []
        for d in range(rank):
            _require_at_least(rewriter, shapes, op, image[d], 0, f"image_shape[{d}] >= 0")
            _require_at_least(rewriter, shapes, op, block[d], 1, f"block_shape[{d}] >= 1")
            span = shapes.add(shapes.mul(dilations[d], shapes.sub(block[d], 1)), 1)
            room = shapes.sub(shapes.add(image[d], pads[d] + pads[d + rank]), span)
            blocks.append(shapes.add(shapes.floordiv(room, strides[d]), 1))
            _require_at_least(rewriter, shapes, op, blocks[d], 1, f"blocks along axis {d} >= 1")
        taps = shapes.product(block)
        channels = shapes.floordiv(in_sizes[1], taps)
        _require_equal(rewriter, shapes, op, shapes.mul(channels, taps), in_sizes[1], "C * K rows")
        _require_equal(
            rewriter, shapes, op, shapes.product(blocks), in_sizes[2], "L is the number of blocks"
        )
        out_sizes = self.shapes.result_sizes(op.output, [in_sizes[0], channels, *image])
        output = self.result_buffer(rewriter, op.output, out_sizes)
        acc = accumulator(rewriter, output, out_sizes)
        y = acc.buffer
        fill(rewriter, op, y, 0)
        x = buffer_of(rewriter, op.input)
        wide = element_type(y)
        combine = scalar.OR if scalar.kind(wide) is Kind.BOOL else scalar.ADD
        block_index = [shapes.index(k) for k in block]
        block_counts = [shapes.index(n) for n in blocks]
        taps_index = shapes.index(taps)

        def scatter(b: Builder, at: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            n, c, *tap = at
            a = Arith(b)
            starts = [a.sub(a.mul(tap[d], dilations[d]), pads[d]) for d in range(rank)]
            # the blocks whose tap lands inside the image, per axis
            ranges = [tap_range(a, starts[d], blocks[d], strides[d], image[d]) for d in range(rank)]
            channel_base = b.insert(arith.MuliOp(c, taps_index)).result
            row = b.insert(arith.AddiOp(channel_base, row_major(b, tap, block_index))).result

            def grid(gb: Builder, depth: int, at_grid: list[SSAValue]) -> None:
                if depth == rank:
                    ga = Arith(gb)
                    outs = [
                        ga.index(ga.add(ga.mul(g, strides[d]), starts[d]))
                        for d, g in enumerate(at_grid)
                    ]
                    column = row_major(gb, at_grid, block_counts)
                    value = gb.insert(memref.LoadOp.get(x, [n, row, column])).res
                    target = [n, c, *outs]
                    current = gb.insert(memref.LoadOp.get(y, target)).res
                    total = combine(gb, current, widened(gb, [value], wide)[0])
                    gb.insert(memref.StoreOp.get(total, y, target))
                    return
                lo, hi = ranges[depth]

                def trip(inner: Builder, g: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                    grid(inner, depth + 1, [*at_grid, g])
                    return []

                for_range(gb, a.index(lo), a.index(hi), [], trip)

            grid(b, 0, [])
            return []

        loops = [in_sizes[0], channels, *block]
        nest(builder_before(op), loops, [], scatter)
        acc.finish(rewriter, op)
        self.replace(rewriter, op, [output])
