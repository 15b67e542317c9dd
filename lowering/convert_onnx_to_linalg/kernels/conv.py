"""`kernel.conv` (chosen by `select-kernels`) as register-blocked loops.

`kernel.conv` computes one output row at a time, in register blocks of
`pixels` output columns: one accumulator array per pixel (a `memref.alloca`
the C compiler keeps in vector registers), updated in a constant-trip loop
over the lanes inside the loops over input channels and taps, so the vector
loop runs across independent outputs, never across the reduction (with
`unrolled`, for cores without SIMD, that loop is written out, one statement
per lane: each accumulator element, indexed by a constant, becomes a scalar
register). The
accumulators have the lanes of the packed weights (`width`), which may be
more than the output block's (a whole vector: lanes past the block have zero
weights and are not stored). Each row is cut at compile time
(`_column_blocks`) into blocks whose windows lie inside the input (all KW
taps in bounds) and border blocks: a dense kernel's border blocks read each
tap's input at a clamped column and take 0 where it is outside (the
padding), a depthwise kernel's border pixels are blocks of one with the tap
range clipped; rows clip their KH range the same way. Every output keeps the
naive summation order (bias, then input channels, then taps in row-major
order, then the residual), so results equal the plain loops' without
contraction, up to the sign of a zero sum that a masked tap's +0 or -0
product can flip (and, with `fma`, up to each multiply-add's one rounding).
The epilogue (bias first, residual, Relu or Clip) is applied as the
accumulators are stored; Tanh, Sigmoid and SiLU to each finished row. A 1x1 kernel of one
pixel (a Gemm of one row) has register blocks of output blocks instead.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import memref
from xdsl.dialects.builtin import f32
from xdsl.ir import SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import kernel
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    buffer_of,
    is_none,
    shape_of,
)
from onnxc.lowering.convert_onnx_to_linalg.kernels.loops import (
    Activation,
    Arith,
    accumulate,
    activations,
    for_taps,
    inside_outputs,
    load,
    loops_over,
    padded,
    remainder,
    tap_range,
)
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, for_range
from onnxc.lowering.index_arith import Size

# --------------------------------------------------------------------------
# Layout changes


# --------------------------------------------------------------------------
# Convolution


@dataclass(frozen=True)
class _Geometry:
    """The static sizes of one blocked convolution."""

    in_size: tuple[int, int]  # H, W
    in_lanes: int
    channels: int  # C, the input channels summed over (per group: 1 when depthwise)
    out_blocks: int
    out_size: tuple[int, int]  # OH, OW
    lanes: int
    width: int  # the accumulators' lanes: `lanes`, or more (zero weights past them)
    kernel: tuple[int, int]
    strides: tuple[int, int]
    dilations: tuple[int, int]
    pads: tuple[int, int]  # top, left
    depthwise: bool
    pixels: int
    fma: bool
    unrolled: bool
    parallel: bool  # the outer loop (output blocks, else rows) split over threads

    def interior(self, axis: int = 1) -> tuple[int, int]:
        """The output rows (axis 0) or columns (1) [lo, hi) whose taps all
        lie inside the input."""
        return inside_outputs(
            self.in_size[axis],
            self.out_size[axis],
            self.kernel[axis],
            self.strides[axis],
            self.dilations[axis],
            self.pads[axis],
        )


def _column_blocks(g: _Geometry, lo: int, hi: int) -> list[tuple[int, int, int, bool]]:
    """How a row's columns are computed: (start, end, pixels, border) runs of
    blocks of `pixels` columns, `border` when their taps leave the input
    (columns outside [lo, hi)). A dense kernel masks whole blocks at the
    borders; a depthwise one takes border pixels one at a time (its input
    values are vectors: masking them cost more than it saved), unless the
    row is narrower than a block (DS-CNN's 5 columns: 0.81 -> 0.65 us); so
    does an unrolled (scalar) one, whose instructions a mask's wasted taps
    would add to."""
    width, size = g.out_size[1], g.pixels
    runs: list[tuple[int, int, int, bool]] = []
    singles = g.depthwise or g.unrolled  # border pixels one at a time, taps clipped
    if g.depthwise and not g.unrolled and (lo, hi) != (0, width) and width < size:
        return [(0, width, width, True)]  # a row narrower than a block: one masked block
    if singles:
        inside = lo + (hi - lo) // size * size
        runs += [(0, lo, 1, True), (lo, inside, size, False), (inside, hi, hi - inside, False)]
        runs.append((hi, width, 1, True))
        return [run for run in runs if run[1] > run[0]]
    first, last = -(-lo // size), max(-(-lo // size), hi // size)  # blocks wholly inside
    for start in range(0, min(first * size, width), size):
        runs.append((start, min(start + size, width), min(size, width - start), True))
    if last > first:
        runs.append((first * size, last * size, size, False))
    for start in range(last * size, width, size):
        end = min(start + size, width)
        runs.append((start, end, end - start, start < lo or end > hi))
    return runs


class ConvOpLowering(OnnxLowering[kernel.ConvOp]):
    """`kernel.conv` -> register-blocked loops (see the module docstring)."""

    def rewrite(self, op: kernel.ConvOp, rewriter: PatternRewriter) -> None:
        x_shape, y_shape = shape_of(op.X), shape_of(op.Y)
        depthwise = (op.attr("group") or 1) > 1
        g = _Geometry(
            in_size=(x_shape[2], x_shape[3]),
            in_lanes=x_shape[4],
            channels=1 if depthwise else shape_of(op.W)[1],
            out_blocks=y_shape[1],
            out_size=(y_shape[2], y_shape[3]),
            lanes=y_shape[4],
            width=shape_of(op.W)[-1],
            kernel=_pair(op.attr("kernel_shape")),
            strides=_pair(op.attr("strides")),
            dilations=_pair(op.attr("dilations")),
            pads=_pair(op.attr("pads")),
            depthwise=depthwise,
            pixels=op.attr("pixels"),
            fma=bool(op.attr("fma")),
            unrolled=bool(op.attr("unrolled")),
            parallel=bool(op.attr("parallel")),
        )
        x, w = buffer_of(rewriter, op.X), buffer_of(rewriter, op.W)
        bias = None if is_none(op.B) else buffer_of(rewriter, op.B)
        residual = None if is_none(op.R) else buffer_of(rewriter, op.R)
        if residual is not None and op.attr("in_place"):
            out = residual  # each output reads only its own element of R first
        else:
            out = self.result_buffer(rewriter, op.Y, list(y_shape))
        kernel_loops = _Kernel(g, x, w, bias, residual, out, *activations(op))
        kernel_loops.build(builder_before(op), y_shape[0])
        self.replace(rewriter, op, [out])


def _pair(values: Sequence[int]) -> tuple[int, int]:
    return int(values[0]), int(values[1])


@dataclass
class _Kernel:
    """The loops of one blocked convolution."""

    g: _Geometry
    x: SSAValue
    w: SSAValue
    bias: SSAValue | None
    residual: SSAValue | None
    out: SSAValue
    activation: Activation
    row_activation: Activation | None

    def build(self, b: Builder, batch: int) -> None:
        """The loops; with `parallel`, the outermost one over images and
        output blocks is split over threads, or, when there is one of each,
        the loop over the rows inside the input."""
        g = self.g
        if g.in_size == g.out_size == g.kernel == (1, 1) and g.out_blocks > 1 and not g.depthwise:
            loops_over(b, [batch], lambda inner, at: self._vector(inner, at[0]), g.parallel)
            return
        outer = g.parallel and (batch > 1 or g.out_blocks > 1)
        rows = g.parallel and not outer
        loops_over(
            b, [batch, g.out_blocks], lambda inner, at: self._rows(inner, at[0], at[1], rows), outer
        )

    def _rows(self, b: Builder, n: SSAValue, cb: SSAValue, parallel: bool) -> None:
        """Every output row: the rows whose taps all lie inside the input
        apart from the others, whose tap range `_block` clips. A kernel one
        tap high then has none in a border row, and no tap loop of zero or
        one trip: gcc 12 (-march=znver4, skylake-avx512) vectorised the loop
        over rows around such a loop and gave wrong rows (a random graph: a
        1x4 window, rows padded)."""
        g = self.g
        lo, hi = g.interior(0)
        for first, last, inside in ((0, lo, False), (lo, hi, True), (hi, g.out_size[0], False)):
            if last - first == 1:
                self._row(b, n, cb, Arith(b).index(first), inside)
            elif last > first:
                row = functools.partial(self._looped_row, n, cb, inside)
                for_range(b, first, last, [], row, parallel=parallel and inside)

    def _looped_row(
        self, n: SSAValue, cb: SSAValue, inside: bool, b: Builder, oh: SSAValue, _: list[SSAValue]
    ) -> list[SSAValue]:
        self._row(b, n, cb, oh, inside)
        return []

    def _vector(self, b: Builder, n: SSAValue) -> None:
        """A 1x1 kernel of one pixel (a Gemm of one row): register blocks
        of `pixels` output blocks instead of pixels, so that independent
        accumulators hide the latency of the additions."""
        g = self.g
        size = -(-g.out_blocks // -(-g.out_blocks // g.pixels))  # 10 by 8: 5 and 5
        for first in range(0, g.out_blocks, size):
            self._output_blocks(b, n, list(range(first, min(first + size, g.out_blocks))))

    def _output_blocks(self, b: Builder, n: SSAValue, blocks: list[int]) -> None:
        """The one pixel of output blocks `blocks`, all lanes."""
        g = self.g
        accumulators = []
        for j in range(len(blocks)):
            acc = b.insert(memref.AllocaOp.get(f32, shape=[g.width]))
            acc.memref.name_hint = f"acc{j}"
            accumulators.append(acc.memref)
        cbs: list[Size] = list(blocks)
        self._lanes(b, lambda inner, v: self._initial(inner, cbs, v, accumulators), g.width)

        def channel(inner: Builder, ci: Size, block: Size, lane_in: Size) -> None:
            value = load(inner, self.x, [n, block, 0, 0, lane_in])

            def lane(lb: Builder, v: SSAValue) -> None:
                for cb, acc in zip(blocks, accumulators, strict=True):
                    weight = load(lb, self.w, [cb, ci, 0, 0, v])
                    accumulate(lb, acc, v, value, weight, g.fma)

            self._lanes(inner, lane, g.width)

        self._channels(b, channel)
        at: list[tuple[Size, Size, Size]] = [(cb, 0, 0) for cb in blocks]
        self._lanes(b, lambda inner, v: self._store(inner, n, at, v, accumulators))
        activate = self.row_activation
        if activate is not None:

            def finish(lb: Builder, v: SSAValue) -> None:
                a = Arith(lb)
                for cb in blocks:
                    where = [n, a.index(cb), a.index(0), a.index(0), v]
                    result = activate(lb, load(lb, self.out, where))
                    lb.insert(memref.StoreOp.get(result, self.out, where))

            self._lanes(b, finish)

    def _row(self, b: Builder, n: SSAValue, cb: SSAValue, oh: SSAValue, inside: bool) -> None:
        g = self.g
        lo, hi = g.interior()
        for start, end, pixels, border in _column_blocks(g, lo, hi):
            if end - start > pixels:
                body = functools.partial(self._looped_block, n, cb, oh, pixels, border, inside)
                for_range(b, start, end, [], body, step=pixels)
            else:
                at = Arith(b).index(start)
                self._block(b, n, cb, oh, at, pixels, border=border, row_inside=inside)
        if self.row_activation is not None:
            activate = self.row_activation

            def column(inner: Builder, ow: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                def lane(lb: Builder, v: SSAValue) -> None:
                    at = [n, cb, oh, ow, v]
                    lb.insert(
                        memref.StoreOp.get(activate(lb, load(lb, self.out, at)), self.out, at)
                    )

                self._lanes(inner, lane)
                return []

            for_range(b, 0, g.out_size[1], [], column)

    def _looped_block(
        self,
        n: SSAValue,
        cb: SSAValue,
        oh: SSAValue,
        pixels: int,
        border: bool,
        row_inside: bool,
        b: Builder,
        ow0: SSAValue,
        _: list[SSAValue],
    ) -> list[SSAValue]:
        """`_block` as the body of a loop over the blocks of a run."""
        self._block(b, n, cb, oh, ow0, pixels, border=border, row_inside=row_inside)
        return []

    def _block(
        self,
        b: Builder,
        n: SSAValue,
        cb: SSAValue,
        oh: SSAValue,
        ow0: SSAValue,
        pixels: int,
        *,
        border: bool,
        row_inside: bool,
    ) -> None:
        """Outputs (n, cb, oh, ow0 + j) for j < pixels, all lanes. A `border`
        block has taps outside the input's columns: one pixel clips its tap
        range, more mask those taps (`_taps`). Unless `row_inside`, the row's
        taps are clipped too (none, for a kernel one tap high)."""
        g = self.g
        a = Arith(b)
        columns = [a.add(ow0, j) for j in range(pixels)]
        top = a.sub(a.mul(oh, g.strides[0]), g.pads[0])
        kh_lo, kh_hi = tap_range(a, top, g.kernel[0], g.dilations[0], g.in_size[0])
        if row_inside or g.kernel[0] == 1:
            kh_lo, kh_hi = 0, g.kernel[0] if row_inside else 0
        lefts = [a.sub(a.mul(c, g.strides[1]), g.pads[1]) for c in columns]
        if border and pixels == 1:
            kw_lo, kw_hi = tap_range(a, lefts[0], g.kernel[1], g.dilations[1], g.in_size[1])
        else:
            kw_lo, kw_hi = 0, g.kernel[1]
        masked = border and pixels > 1
        accumulators = []
        for j in range(pixels):
            acc = b.insert(memref.AllocaOp.get(f32, shape=[g.width]))
            acc.memref.name_hint = f"acc{j}"
            accumulators.append(acc.memref)
        cbs: list[Size] = [cb] * pixels
        self._lanes(b, lambda inner, v: self._initial(inner, cbs, v, accumulators), g.width)

        def channel(inner: Builder, ci: Size, block: Size, lane_in: Size) -> None:
            source = (ci, block, lane_in)

            def tap_row(row_b: Builder, kh: SSAValue) -> None:
                def tap(tap_b: Builder, kw: SSAValue) -> None:
                    self._taps(tap_b, n, cb, source, top, lefts, kh, kw, accumulators, masked)

                for_taps(row_b, kw_lo, kw_hi, g.kernel[1], tap, one_tap_if=g.unrolled)

            for_taps(inner, kh_lo, kh_hi, g.kernel[0], tap_row, one_tap_if=g.unrolled)

        self._channels(b, channel)
        at = [(cb, oh, ow) for ow in columns]
        self._lanes(b, lambda inner, v: self._store(inner, n, at, v, accumulators))

    def _channels(self, b: Builder, body: Callable[[Builder, Size, Size, Size], None]) -> None:
        """A loop over the input channels summed over: body(ci, block, lane)
        with ci = block * in_lanes + lane; nested loops over blocks and lanes
        when the blocks are whole (no division per channel)."""
        g = self.g
        one_block = g.in_lanes == g.channels or g.depthwise  # (depthwise: x's lane is v)
        if one_block or g.channels % g.in_lanes:

            def flat(inner: Builder, ci: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                a = Arith(inner)
                if one_block:
                    body(inner, ci, 0, ci)
                else:
                    body(inner, ci, a.floordiv(ci, g.in_lanes), remainder(inner, ci, g.in_lanes))
                return []

            for_range(b, 0, g.channels, [], flat)
            return

        def block_loop(outer: Builder, block: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            def lane_loop(inner: Builder, lane: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                a = Arith(inner)
                body(inner, a.add(a.mul(block, g.in_lanes), lane), block, lane)
                return []

            for_range(outer, 0, g.in_lanes, [], lane_loop)
            return []

        for_range(b, 0, g.channels // g.in_lanes, [], block_loop)

    def _lanes(
        self, b: Builder, body: Callable[[Builder, SSAValue], None], trips: int | None = None
    ) -> None:
        """A constant-trip loop over the lanes (or `trips` of them)."""

        count = self.g.lanes if trips is None else trips
        if self.g.unrolled:
            a = Arith(b)
            for v in range(count):
                body(b, a.index(v))
            return

        def lane(inner: Builder, v: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            body(inner, v)
            return []

        for_range(b, 0, count, [], lane)

    def _initial(
        self, b: Builder, cbs: list[Size], v: SSAValue, accumulators: list[SSAValue]
    ) -> None:
        """acc_j[v] = the bias of output block cbs[j] (lane v), or 0."""
        a = Arith(b)
        starts: dict[object, SSAValue] = {}
        for cb, acc in zip(cbs, accumulators, strict=True):
            if cb not in starts:
                starts[cb] = (
                    scalar.constant(b, 0.0, f32)
                    if self.bias is None
                    else load(b, self.bias, [a.add(a.mul(cb, self.g.width), v)])
                )
            b.insert(memref.StoreOp.get(starts[cb], acc, [v]))

    def _taps(
        self,
        b: Builder,
        n: SSAValue,
        cb: SSAValue,
        source: tuple[Size, Size, Size],
        top: Size,
        lefts: list[Size],
        kh: SSAValue,
        kw: SSAValue,
        accumulators: list[SSAValue],
        masked: bool,
    ) -> None:
        """acc_j[v] += x(pixel j) * w[v] for every lane v, for one input
        channel and tap; `masked`: a pixel whose tap falls outside the input
        reads its column clamped and takes 0 for it (padding)."""
        g = self.g
        a = Arith(b)
        ih = a.add(top, a.mul(kh, g.dilations[0]))
        columns = [a.add(left, a.mul(kw, g.dilations[1])) for left in lefts]
        inside: list[SSAValue | None] = [None] * len(columns)
        if masked:
            last = g.in_size[1] - 1
            inside = [a.both(a.less(-1, iw), a.less(iw, g.in_size[1])) for iw in columns]
            columns = [a.clamp(iw, 0, last) for iw in columns]
        if g.depthwise:

            def lane(inner: Builder, v: SSAValue) -> None:
                weight = load(inner, self.w, [cb, kh, kw, v])
                for acc, iw, ok in zip(accumulators, columns, inside, strict=True):
                    value = padded(inner, load(inner, self.x, [n, cb, ih, iw, v]), ok)
                    accumulate(inner, acc, v, value, weight, g.fma)

            self._lanes(b, lane)
            return
        ci, block, lane_in = source
        values = [
            padded(b, load(b, self.x, [n, a.index(block), ih, iw, lane_in]), ok)
            for iw, ok in zip(columns, inside, strict=True)
        ]

        def dense_lane(inner: Builder, v: SSAValue) -> None:
            weight = load(inner, self.w, [cb, ci, kh, kw, v])
            for acc, value in zip(accumulators, values, strict=True):
                accumulate(inner, acc, v, value, weight, g.fma)

        self._lanes(b, dense_lane, g.width)

    def _store(
        self,
        b: Builder,
        n: SSAValue,
        positions: Sequence[tuple[Size, Size, Size]],
        v: SSAValue,
        accumulators: list[SSAValue],
    ) -> None:
        """Output (n, cb, oh, ow, v) of each accumulator's (cb, oh, ow), with
        the epilogue."""
        a = Arith(b)
        for acc, (cb, oh, ow) in zip(accumulators, positions, strict=True):
            result = load(b, acc, [v])
            at = [n, a.index(cb), a.index(oh), a.index(ow), v]
            if self.residual is not None:
                result = scalar.ADD(b, result, load(b, self.residual, at))
            b.insert(memref.StoreOp.get(self.activation(b, result), self.out, at))


__all__ = ["ConvOpLowering"]
