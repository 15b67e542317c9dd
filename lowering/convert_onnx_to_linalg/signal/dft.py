"""Fourier transforms: DFT (opset 20: `axis` and `dft_length` as inputs) and
STFT, each a set of rows transformed by `fft.py` (the fast transform for a
power-of-two length known at compile time, else the direct sum), in the
accumulator type (float for float and the 16-bit floats, double for
double). Real input has a trailing dimension of 1, complex input one of 2
(real, imaginary).

DFT follows numpy's fft/ifft/rfft/irfft, as the spec's reference does: a
signal longer than `dft_length` is cut, a shorter one padded with zeros; the
inverse divides by L; the one-sided inverse (IRFFT) rebuilds the full
spectrum from its Hermitian half (the first L / 2 + 1 bins, cut or padded
with zeros) and returns the real part. onnxruntime differs from numpy in
IRFFT when the input does not have L / 2 + 1 bins; onnxc follows numpy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import Attribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    OnnxLowering,
    accumulator_type,
    buffer_of,
    check,
    element_type,
    is_none,
    shape_of,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, convert
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, index, when
from onnxc.lowering.convert_onnx_to_linalg.shape_values import shape_scalar
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.convert_onnx_to_linalg.signal.fft import (
    Sample,
    Signal,
    Transform,
    prepare,
    spectra,
)
from onnxc.lowering.index_arith import Size


def _positive(
    op: onnx.OnnxOp, rewriter: PatternRewriter, shapes: Shapes, size: Size, what: str
) -> None:
    """`size` > 0: an error when known, else a run-time check."""
    if isinstance(size, int):
        if size <= 0:
            raise unsupported(op, f"{what} = {size} (it must be positive)")
        return
    check(rewriter, op, shapes.less(0, size), f"{what} > 0")


def _complex_parts(op: onnx.OnnxOp, value: SSAValue) -> int:
    """2 for a complex signal, 1 for a real one (its static last dimension)."""
    parts = shape_of(value)[-1]
    if parts not in (1, 2):
        raise unsupported(op, f"a last dimension of {parts} (1 for real, 2 for complex)")
    return parts


def _loader(
    x: SSAValue, parts: int, acc: Attribute, at: Callable[[Builder, SSAValue], list[SSAValue]]
) -> Sample:
    """Sample n of `x` at indices `at(n)` (without the last, the part)."""

    def sample(b: Builder, n: SSAValue) -> tuple[SSAValue, SSAValue | None]:
        position = at(b, n)
        values = [
            b.insert(memref.LoadOp.get(x, [*position, index(b, p)])).res for p in range(parts)
        ]
        wide = widened(b, values, acc)
        return wide[0], wide[1] if parts == 2 else None

    return sample


@dataclass(frozen=True)
class _Along:
    """DFT along one axis: its output sizes, length L and samples summed."""

    axis: int
    out_sizes: list[Size]
    length: Size
    count: Size


class DFTOpLowering(OnnxLowering[onnx.DFTOp]):
    """`onnx.DFT` along `axis` (default -2), of `dft_length` (a constant or
    run-time scalar) samples, forward or `inverse`, `onesided`. An axis known
    only at run time selects, with `scf.if`, among the transforms along the
    axes that give the result's shape (ONNXC_ERR_SHAPE for any other)."""

    def rewrite(self, op: onnx.DFTOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        rank = len(shapes.sizes(op.input))
        if rank < 2:
            raise unsupported(op, "the input must be at least 2-D (..., length, 1 or 2)")
        axis = -2 if is_none(op.axis) else shape_scalar(op, rewriter, shapes, op.axis, "axis")
        length = None
        if not is_none(op.dft_length):
            length = shape_scalar(op, rewriter, shapes, op.dft_length, "dft_length")
            _positive(op, rewriter, shapes, length, "dft_length")
        if isinstance(axis, int):
            if not (-rank <= axis <= -2 or 0 <= axis <= rank - 2):
                raise unsupported(op, f"axis {axis} for rank {rank}")
            plans = [self.along(op, axis % rank, length)]
        else:
            plans = self.candidates(op, rank, length)
        output = self.result_buffer(rewriter, op.output, plans[0].out_sizes)
        x = buffer_of(rewriter, op.input)
        acc = accumulator_type(element_type(output))
        inverse = bool(op.attr("inverse"))
        transforms = [prepare(rewriter, op, plan.length, inverse, acc) for plan in plans]
        here = builder_before(op)
        if len(plans) == 1:
            self.emit(op, here, plans[0], x, output, transforms[0])
        else:
            assert isinstance(axis, SSAValue)
            negative = shapes.less(axis, 0)
            normal = shapes.select(negative, shapes.add(axis, rank), axis)
            matches = [shapes.equal(normal, plan.axis) for plan in plans]
            known = matches[0]
            for match in matches[1:]:
                known = shapes.either(known, match)
            check(rewriter, op, known, "axis gives the output's shape")
            for plan, match, transform in zip(plans, matches, transforms, strict=True):
                when(here, match, lambda b, p=plan, t=transform: self.emit(op, b, p, x, output, t))
        self.replace(rewriter, op, [output])

    def along(self, op: onnx.DFTOp, axis: int, length: Size | None) -> _Along:
        shapes = self.shapes
        sizes = shapes.sizes(op.input)
        inverse, onesided = bool(op.attr("inverse")), bool(op.attr("onesided"))
        real_output = inverse and onesided
        signal = sizes[axis]
        if length is None:
            length = shapes.mul(shapes.sub(signal, 1), 2) if real_output else signal
        half = shapes.add(shapes.floordiv(length, 2), 1)
        bins = half if onesided and not inverse else length
        out_sizes = [*sizes[:axis], bins, *sizes[axis + 1 : -1], 1 if real_output else 2]
        count = shapes.min(signal, half if real_output else length)
        return _Along(axis, out_sizes, length, count)

    def candidates(self, op: onnx.DFTOp, rank: int, length: Size | None) -> list[_Along]:
        """The transforms along each axis whose output has the result's
        declared shape, when they all have the same sizes."""
        declared = shape_of(op.output)
        plans = [
            plan
            for plan in (self.along(op, axis, length) for axis in range(rank - 1))
            if all(
                d < 0 or not isinstance(s, int) or s == d
                for s, d in zip(plan.out_sizes, declared, strict=True)
            )
        ]
        if not plans or any(
            not all(
                self.shapes.same(a, b) for a, b in zip(p.out_sizes, plans[0].out_sizes, strict=True)
            )
            for p in plans
        ):
            raise unsupported(op, "an axis known only at run time that decides the output's shape")
        return plans

    def emit(
        self,
        op: onnx.DFTOp,
        here: Builder,
        plan: _Along,
        x: SSAValue,
        output: SSAValue,
        transform: Transform,
    ) -> None:
        """The transforms along `plan.axis`, built at `here`."""
        axis = plan.axis
        real_output = transform.inverse and bool(op.attr("onesided"))
        parts = _complex_parts(op, op.input)
        element = element_type(output)
        acc = transform.acc
        scale = None
        if transform.inverse:
            steps = scalar.number(here, plan.length, acc)
            scale = scalar.DIV(here, constant(here, 1.0, acc), steps)

        def sample_of(b: Builder, position: list[SSAValue]) -> Sample:
            return _loader(x, parts, acc, lambda b, n: [*position[:axis], n, *position[axis:]])

        def store(b: Builder, position: list[SSAValue], k: SSAValue, re: SSAValue, im: SSAValue):
            at = [*position[:axis], k, *position[axis:]]
            for part, value in enumerate([re] if real_output else [re, im]):
                if scale is not None:
                    value = scalar.MUL(b, value, scale)
                converted = convert(b, value, element)
                b.insert(memref.StoreOp.get(converted, output, [*at, index(b, part)]))

        rows = [size for d, size in enumerate(plan.out_sizes[:-1]) if d != axis]
        signal = Signal(sample_of, plan.count, hermitian=real_output)
        spectra(here, rows, transform, signal, plan.out_sizes[axis], store)


class STFTOpLowering(OnnxLowering[onnx.STFTOp]):
    """`onnx.STFT`: for each batch, frame f and bin k, the DFT of
    frame_length samples from f * frame_step, each times `window` (all ones
    without it): [batch, frames, bins, 2], frames = (signal_length -
    frame_length) / frame_step + 1, bins = frame_length / 2 + 1 when
    `onesided` (the default), else frame_length."""

    def rewrite(self, op: onnx.STFTOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        if len(shapes.sizes(op.signal)) != 3:
            raise unsupported(op, "the signal must be 3-D (batch, length, 1 or 2)")
        if not is_none(op.window) and len(shapes.sizes(op.window)) != 1:
            raise unsupported(op, "the window must be 1-D")
        batch, signal_length, _ = shapes.sizes(op.signal)
        parts = _complex_parts(op, op.signal)
        step = shape_scalar(op, rewriter, shapes, op.frame_step, "frame_step")
        _positive(op, rewriter, shapes, step, "frame_step")
        window = None if is_none(op.window) else buffer_of(rewriter, op.window)
        window_length = None if is_none(op.window) else shapes.sizes(op.window)[0]
        if not is_none(op.frame_length):
            length = shape_scalar(op, rewriter, shapes, op.frame_length, "frame_length")
            if window_length is not None and not shapes.same(length, window_length):
                if isinstance(length, int) and isinstance(window_length, int):
                    raise unsupported(op, f"a window of {window_length} for frames of {length}")
                check(rewriter, op, shapes.equal(length, window_length), "window of frame_length")
        else:
            length = signal_length if window_length is None else window_length
        _positive(op, rewriter, shapes, length, "frame_length")
        frames = shapes.add(shapes.floordiv(shapes.sub(signal_length, length), step), 1)
        frames = shapes.max(frames, 0)
        bins = shapes.add(shapes.floordiv(length, 2), 1) if op.attr("onesided") else length
        output = self.result_buffer(rewriter, op.output, [batch, frames, bins, 2])
        element = element_type(output)
        acc = accumulator_type(element)
        x = buffer_of(rewriter, op.signal)
        stride = shapes.index(step)
        transform = prepare(rewriter, op, length, False, acc)

        def sample_of(b: Builder, position: list[SSAValue]) -> Sample:
            row, frame = position
            start = b.insert(arith.MuliOp(frame, stride)).result

            def at(b: Builder, n: SSAValue) -> list[SSAValue]:
                return [row, b.insert(arith.AddiOp(start, n)).result]

            sample = _loader(x, parts, acc, at)
            return sample if window is None else _windowed(sample, window, acc)

        def store(b: Builder, position: list[SSAValue], k: SSAValue, re: SSAValue, im: SSAValue):
            for part, value in enumerate((re, im)):
                converted = convert(b, value, element)
                b.insert(memref.StoreOp.get(converted, output, [*position, k, index(b, part)]))

        here = builder_before(op)
        spectra(here, [batch, frames], transform, Signal(sample_of, length), bins, store)
        self.replace(rewriter, op, [output])


def _windowed(sample: Sample, window: SSAValue, acc: Attribute) -> Sample:
    """Sample n times window[n]."""

    def weighted(b: Builder, n: SSAValue) -> tuple[SSAValue, SSAValue | None]:
        xr, xi = sample(b, n)
        (weight,) = widened(b, [b.insert(memref.LoadOp.get(window, [n])).res], acc)
        return scalar.MUL(b, xr, weight), None if xi is None else scalar.MUL(b, xi, weight)

    return weighted
