"""State carried between decoding steps: `onnx.TensorScatter` (a KV cache
written at per-batch positions) and `onnx.CausalConvWithState` (a causal
depthwise convolution that keeps its last inputs).

Both read a concatenation or a window of two buffers without building it:
each output position picks, in its body, the buffer holding the element it
needs (`loops.choose`, an `scf.if`, so the buffer not taken is not read).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType
from xdsl.dialects.linalg.ops import IndexOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.dialects.onnxc import CheckOp
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    accumulator,
    buffer_of,
    check,
    comment_for,
    element_type,
    fill,
    generic,
    identity_map,
    indexed_generic,
    is_none,
    normalize_axis,
    unsupported,
)
from onnxc.lowering.convert_onnx_to_linalg.elementwise.activations import swish
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, convert, rounded
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import builder_before, choose, index, nest
from onnxc.lowering.convert_onnx_to_linalg.tensor.indexing import require_sizes
from onnxc.lowering.index_arith import Size

Padded = Callable[[Builder, Sequence[SSAValue], SSAValue], SSAValue]
"""Builds the element at a position of a padded sequence: gets the loop
position (batch and channel first) and the position in the sequence."""


def _load(b: Builder, buffer: SSAValue, position: Sequence[SSAValue]) -> SSAValue:
    return b.insert(memref.LoadOp.get(buffer, list(position))).res


class TensorScatterOpLowering(OnnxLowering[onnx.TensorScatterOp]):
    """`onnx.TensorScatter`: present_cache is past_cache with `update`
    written along `axis` (not 0) from position write_indices[batch]
    (default 0), wrapping around the cache in `circular` mode. One generic
    over the cache: position p along the axis holds update element
    p - write_indices[batch] (modulo the cache length when circular) when
    that is inside the update, else the past element. In `linear` mode a
    write index outside [0, cache length - update length] stops the model
    with ONNXC_ERR_SHAPE (it would write outside the cache)."""

    def rewrite(self, op: onnx.TensorScatterOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.past_cache)
        rank = len(sizes)
        axis = normalize_axis(op, op.attr("axis"), rank)
        if axis == 0:
            raise unsupported(op, "axis 0 is the batch axis")
        update_sizes = shapes.sizes(op.update)
        if len(update_sizes) != rank:
            raise unsupported(op, "past_cache and update must have the same rank")
        require_sizes(op, rewriter, shapes, update_sizes, sizes, "update", at_most=True)
        others = [d for d in range(rank) if d != axis]
        kept = [update_sizes[d] for d in others]
        require_sizes(op, rewriter, shapes, kept, [sizes[d] for d in others], "update")
        mode = op.attr("mode")
        if mode not in ("linear", "circular"):
            raise unsupported(op, f"mode '{mode}'")
        length, capacity = shapes.index(update_sizes[axis]), shapes.index(sizes[axis])
        starts = None
        if not is_none(op.write_indices):
            index_sizes = shapes.sizes(op.write_indices)
            require_sizes(op, rewriter, shapes, index_sizes, sizes[:1], "write_indices")
            starts = buffer_of(rewriter, op.write_indices)
            if mode == "linear":
                room = shapes.sub(sizes[axis], update_sizes[axis])
                self._check_starts(op, starts, sizes[0], room)
        output = self.result_buffer(rewriter, op.present_cache, sizes)
        update = buffer_of(rewriter, op.update)

        def body(b: Builder, position: list[SSAValue], args: Sequence[SSAValue]) -> SSAValue:
            offset = position[axis]
            if starts is not None:
                start = _start(b, starts, position[0])
                offset = b.insert(arith.SubiOp(offset, start)).result
                if mode == "circular":  # a remainder in [0, capacity)
                    rest = b.insert(arith.RemSIOp(offset, capacity)).result
                    rest = b.insert(arith.AddiOp(rest, capacity)).result
                    offset = b.insert(arith.RemSIOp(rest, capacity)).result
            after = b.insert(arith.CmpiOp(offset, index(b, 0), "sge")).result
            before = b.insert(arith.CmpiOp(offset, length, "slt")).result
            at = [offset if d == axis else p for d, p in enumerate(position)]
            return choose(
                b, scalar.AND(b, after, before), lambda t: _load(t, update, at), lambda _: args[0]
            )

        past = buffer_of(rewriter, op.past_cache)
        indexed_generic(rewriter, op, output, body, [past], [identity_map(rank)])
        self.replace(rewriter, op, [output])

    def _check_starts(
        self,
        op: onnx.TensorScatterOp,
        starts: SSAValue,
        batch: Size,
        room: Size,
    ) -> None:
        """A run-time check that each write index is in [0, room] (the cache
        length less the update's)."""
        last = self.shapes.index(room)
        message = f"{comment_for(op).data}: the write index leaves room for the update"

        def verify(b: Builder, position: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
            start = _start(b, starts, position[0])
            low = b.insert(arith.CmpiOp(start, index(b, 0), "sge")).result
            high = b.insert(arith.CmpiOp(start, last, "sle")).result
            b.insert(CheckOp(scalar.AND(b, low, high), message))
            return []

        nest(builder_before(op), [batch], [], verify)


def _start(b: Builder, starts: SSAValue, batch: SSAValue) -> SSAValue:
    """write_indices[batch] as an index."""
    return b.insert(arith.IndexCastOp(_load(b, starts, [batch]), IndexType())).result


class CausalConvWithStateOpLowering(OnnxLowering[onnx.CausalConvWithStateOp]):
    """`onnx.CausalConvWithState`: input (batch, channels, length), weight
    (channels, 1, k), optional bias (channels) and past_state (batch,
    channels, k - 1, zeros when absent). Over the padded sequence past_state
    ++ input: output[t] = bias + sum_i weight[i] padded[t + i] (a generic
    whose last loop, over i, reduces; 16-bit floats accumulate in float), then
    with activation silu (or its alias swish) x * sigmoid(x) of the result
    rounded to the input type, as onnx.reference does; present_state is the
    last k - 1 positions of the padded sequence."""

    def rewrite(self, op: onnx.CausalConvWithStateOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        sizes = shapes.sizes(op.input)
        kernel = shapes.sizes(op.weight)
        if len(sizes) != 3 or len(kernel) != 3:
            raise unsupported(op, "input and weight must be 3-D")
        batch, channels, length = sizes
        require_sizes(op, rewriter, shapes, kernel[:2], [channels, 1], "weight")
        if isinstance(kernel[2], int) and kernel[2] < 1:
            raise unsupported(op, "the kernel is empty")
        if not isinstance(kernel[2], int):
            check(rewriter, op, shapes.less(0, kernel[2]), "the kernel is not empty")
        history = shapes.sub(kernel[2], 1)
        activation = op.attr("activation")
        if activation not in ("none", "silu", "swish"):
            raise unsupported(op, f"activation '{activation}'")
        x = buffer_of(rewriter, op.input)
        past = None
        if not is_none(op.past_state):
            state_sizes = shapes.sizes(op.past_state)
            if len(state_sizes) != 3:
                raise unsupported(op, "past_state must be 3-D")
            expected = [batch, channels, history]
            require_sizes(op, rewriter, shapes, state_sizes, expected, "past_state")
            past = buffer_of(rewriter, op.past_state)
        element = element_type(op.input)
        shift = shapes.index(history)

        def padded(b: Builder, position: Sequence[SSAValue], p: SSAValue) -> SSAValue:
            """Element p of past_state ++ input at (batch, channel)."""
            early = b.insert(arith.CmpiOp(p, shift, "slt")).result

            def from_past(t: Builder) -> SSAValue:
                if past is None:
                    return constant(t, 0.0, element)
                return _load(t, past, [*position[:2], p])

            def from_input(t: Builder) -> SSAValue:
                return _load(t, x, [*position[:2], t.insert(arith.SubiOp(p, shift)).result])

            return choose(b, early, from_past, from_input)

        output = self.result_buffer(rewriter, op.output, sizes)
        self._convolve(op, rewriter, output, padded)
        state = self.result_buffer(rewriter, op.present_state, [batch, channels, history])
        end = shapes.index(length)

        def kept(b: Builder, position: list[SSAValue], _: Sequence[SSAValue]) -> SSAValue:
            return padded(b, position, b.insert(arith.AddiOp(end, position[2])).result)

        indexed_generic(rewriter, op, state, kept)
        self.replace(rewriter, op, [output, state])

    def _convolve(
        self,
        op: onnx.CausalConvWithStateOp,
        rewriter: PatternRewriter,
        output: SSAValue,
        padded: Padded,
    ) -> None:
        """output = activation(bias + the depthwise convolution of the
        padded sequence)."""
        element = element_type(output)
        acc = accumulator(rewriter, output, self.shapes.sizes(output))
        wide = element_type(acc.buffer)
        b_, c_, t_, i_ = (AffineDimExpr(d) for d in range(4))
        if is_none(op.bias):
            fill(rewriter, op, acc.buffer, 0.0)
        else:
            channels = self.shapes.sizes(output)[1:2]
            require_sizes(op, rewriter, self.shapes, self.shapes.sizes(op.bias), channels, "bias")
            generic(
                rewriter,
                op,
                [buffer_of(rewriter, op.bias)],
                [acc.buffer],
                [AffineMap(3, 0, (AffineDimExpr(1),)), identity_map(3)],
                [PARALLEL] * 3,
                lambda b, args: convert(b, args[0], wide),
            )

        def body(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            loop = [b.insert(IndexOp(d)).result for d in range(4)]
            p = b.insert(arith.AddiOp(loop[2], loop[3])).result
            value = convert(b, padded(b, loop, p), wide)
            return scalar.ADD(b, args[1], scalar.MUL(b, convert(b, args[0], wide), value))

        weight_map = AffineMap(4, 0, (c_, AffineConstantExpr(0), i_))
        generic(
            rewriter,
            op,
            [buffer_of(rewriter, op.weight)],
            [acc.buffer],
            [weight_map, AffineMap(4, 0, (b_, c_, t_))],
            [PARALLEL] * 3 + [REDUCTION],
            body,
        )
        if op.attr("activation") == "none":
            acc.finish(rewriter, op)
            return

        def activated(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
            return convert(b, swish(b, rounded(b, args[0], element)), element)

        inputs = [] if acc.buffer is output else [acc.buffer]  # in place when it is
        maps = [identity_map(3)] * (len(inputs) + 1)
        generic(rewriter, op, inputs, [output], maps, [PARALLEL] * 3, activated)
