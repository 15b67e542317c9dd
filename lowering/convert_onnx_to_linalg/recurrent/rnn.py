"""Recurrent networks: RNN, GRU and LSTM, forward, reverse and bidirectional.

The input projection of every time step, X W^T, does not depend on the
state: it is one matrix product for the whole sequence (a `linalg.generic`
over direction, time, batch, gate row and the input axis as a reduction),
done before the recurrence, as onnxruntime does. The recurrence is
sequential: per direction, per batch row, an `scf.for` over that row's time
steps (its sequence length, or the whole sequence) computes the gate
pre-activations (the projection, the biases and h R^T) into a small buffer,
then updates the state unit by unit. The state (h, and c for LSTM) lives in
buffers of the hidden size, in the accumulator type (float for the 16-bit
floats), and is written to Y at each step and to Y_h / Y_c at the end.

With `sequence_lens`, a row's steps beyond its length are not computed: Y is
zero there and Y_h / Y_c hold the last valid state; the reverse direction
starts at the row's last valid step (onnxruntime's reading of the spec).
The state and its pieces are in `cell.py`, the activation functions
in `recurrent/activations.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import IndexType, MemRefType
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.pattern_rewriter import PatternRewriter

from onnxc.dialects import onnx
from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    REDUCTION,
    OnnxLowering,
    accumulator_type,
    alloc,
    buffer_of,
    element_type,
    fill,
    generic,
    is_none,
    unsupported,
    widened,
)
from onnxc.lowering.convert_onnx_to_linalg.recurrent.activations import activations
from onnxc.lowering.convert_onnx_to_linalg.recurrent.cell import Recurrence
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import (
    builder_before,
    for_range,
    index,
    nest,
    when,
)
from onnxc.lowering.index_arith import Size

_RANKS = {
    "X": 3,
    "W": 3,
    "R": 3,
    "B": 2,
    "sequence_lens": 1,
    "initial_h": 3,
    "initial_c": 3,
    "P": 2,
}
"""The rank of each input of RNN, GRU and LSTM (the spec's)."""


class RecurrentLowering(OnnxLowering[onnx.OnnxOp]):
    """The lowering RNN, GRU and LSTM share: shapes, the input projection, the
    loops over directions, batch rows and time steps, the outputs. `cell`
    builds one time step of one batch row (the operator's equations)."""

    gate_count: ClassVar[int]
    default_activations: ClassVar[tuple[str, ...]]

    def cell(
        self, op: onnx.OnnxOp, net: Recurrence, b: Builder, t: SSAValue, batch: SSAValue
    ) -> None:
        """One time step `t` of row `batch`: the new state into `net.h` (and `net.c`)."""
        raise NotImplementedError

    def rewrite(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> None:
        shapes = self.shapes
        for formal, value in zip(op.SCHEMA.inputs, op.operands, strict=False):
            rank = _RANKS.get(formal.name)
            if rank is not None and not is_none(value) and len(shapes.sizes(value)) != rank:
                raise unsupported(op, f"{formal.name} must be {rank}-D")
        x_value, w_value, r_value, b_value, lens_value, h0_value = op.operands[:6]
        layout = op.attr("layout")
        direction = op.attr("direction")
        if direction not in ("forward", "reverse", "bidirectional"):
            raise unsupported(op, f"direction '{direction}'")
        directions = 2 if direction == "bidirectional" else 1
        x_sizes = shapes.sizes(x_value)
        seq, batch_size = (x_sizes[1], x_sizes[0]) if layout else (x_sizes[0], x_sizes[1])
        hidden = shapes.sizes(r_value)[2]
        rows = shapes.mul(hidden, self.gate_count)
        element = element_type(x_value)
        acc = accumulator_type(element)
        outputs = list(op.results)
        y_sizes: list[Size] = (
            [batch_size, seq, directions, hidden]
            if layout
            else [seq, directions, batch_size, hidden]
        )
        state_sizes: list[Size] = (
            [batch_size, directions, hidden] if layout else [directions, batch_size, hidden]
        )
        y = None if is_none(outputs[0]) else self.result_buffer(rewriter, outputs[0], y_sizes)
        finals = [
            None if is_none(r) else self.result_buffer(rewriter, r, state_sizes)
            for r in outputs[1:]
        ]
        if y is not None and not is_none(lens_value):
            fill(rewriter, op, y, 0.0)
        x, w = buffer_of(rewriter, x_value), buffer_of(rewriter, w_value)
        r = buffer_of(rewriter, r_value)
        xw = alloc(rewriter, MemRefType(acc, [-1] * 4), [directions, seq, batch_size, rows])
        transposed = self.context.transposed_recurrences
        if transposed:
            inputs = x_sizes[2]
            w = _transposed(rewriter, op, w, acc, [directions, inputs, rows])
            r = _transposed(rewriter, op, r, acc, [directions, hidden, rows])
        _project(rewriter, op, x, w, xw, layout, transposed)
        starts = [h0_value, *op.operands[6:7]]  # initial_h, and initial_c of LSTM
        initial = [None if is_none(v) else buffer_of(rewriter, v) for v in starts]
        lens = None if is_none(lens_value) else buffer_of(rewriter, lens_value)
        net = Recurrence(
            acc,
            hidden,
            shapes.index(hidden),
            xw,
            r,
            None if is_none(b_value) else buffer_of(rewriter, b_value),
            self.peepholes(op, rewriter),
            alloc(rewriter, MemRefType(acc, [-1]), [rows]),
            alloc(rewriter, MemRefType(acc, [-1]), [hidden]),
            alloc(rewriter, MemRefType(acc, [-1]), [hidden]) if len(finals) == 2 else None,
            op.attr("clip"),
            self.gate_count,
            layout,
            transposed,
        )
        length = shapes.index(seq)
        here = builder_before(op)
        for d, functions in enumerate(activations(op, self.default_activations, directions)):
            net.d, net.f = d, functions

            def row(b: Builder, position: list[SSAValue], _: list[SSAValue]) -> list[SSAValue]:
                batch = position[0]
                steps = length if lens is None else _length(b, lens, batch, length)
                reverse = direction == "reverse" or net.d == 1
                self.sequence(
                    op, net, b, batch, steps, reverse, initial, [y, *finals], lens is not None
                )
                return []

            nest(here, [batch_size], [], row)
        self.replace(rewriter, op, [y, *finals])

    def sequence(
        self,
        op: onnx.OnnxOp,
        net: Recurrence,
        b: Builder,
        batch: SSAValue,
        steps: SSAValue,
        reverse: bool,
        initial: Sequence[SSAValue | None],
        outputs: Sequence[SSAValue | None],
        may_be_empty: bool,
    ) -> None:
        """The steps of row `batch` in direction `net.d`: the state from
        `initial` (or 0), `steps` cells, each written to Y, the last state to
        Y_h (and Y_c); 0 there when `steps` is 0 (`may_be_empty`: it can be)."""
        y, *finals = outputs
        for state, start in zip([net.h, net.c], initial, strict=False):
            if state is not None:
                net.units(
                    b,
                    lambda b, u, state=state, start=start: net.store(
                        b,
                        constant(b, 0.0, net.acc)
                        if start is None
                        else net.load(b, start, net.state_at(b, batch, u)),
                        state,
                        [u],
                    ),
                )

        def step(b: Builder, s: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            t = s
            if reverse:
                last = b.insert(arith.SubiOp(steps, index(b, 1))).result
                t = b.insert(arith.SubiOp(last, s)).result
            self.cell(op, net, b, t, batch)
            if y is not None:
                output: SSAValue = y
                net.units(
                    b, lambda b, u: net.write(b, net.h, u, output, net.output_at(b, batch, u, t))
                )
            return []

        for_range(b, 0, steps, [], step)
        if may_be_empty:  # a row of length 0 ends in a zero state (as onnxruntime's)
            empty = b.insert(arith.CmpiOp(steps, index(b, 0), "eq")).result
            when(b, empty, lambda b: net.clear(b))
        for state, final in zip([net.h, net.c], finals, strict=False):
            if state is not None and final is not None:
                net.units(
                    b,
                    lambda b, u, state=state, final=final: net.write(
                        b, state, u, final, net.state_at(b, batch, u)
                    ),
                )

    def peepholes(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> SSAValue | None:
        return None


def _transposed(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    weights: SSAValue,
    acc: Attribute,
    sizes: list[Size],
) -> SSAValue:
    """A copy of W or R [directions, rows, k] transposed to [directions, k,
    rows], in the accumulator type: made once per call, it lets the
    products run along the rows (a copy of 1/seq of their work)."""
    copy = alloc(rewriter, MemRefType(acc, [-1] * 3), sizes)
    source = AffineMap.from_callable(lambda d, k, j: (d, j, k))
    generic(
        rewriter,
        op,
        [weights],
        [copy],
        [source, AffineMap.identity(3)],
        [PARALLEL] * 3,
        lambda b, args: widened(b, args[:1], acc)[0],
    )
    return copy


def _project(
    rewriter: PatternRewriter,
    op: onnx.OnnxOp,
    x: SSAValue,
    w: SSAValue,
    xw: SSAValue,
    layout: int,
    transposed: bool,
) -> None:
    """xw[d, t, b, j] = sum_i X[t, b, i] W[d, j, i] (X[b, t, i] in layout 1):
    a zero fill and one generic over (d, t, b, j, i), i a reduction; with W
    `transposed` ([d, i, j]), over (d, t, b, i, j): each sum in the same
    order, the loop over j innermost and contiguous."""
    fill(rewriter, op, xw, 0.0)
    if transposed:
        x_map = AffineMap.from_callable(
            lambda d, t, b, i, j: (b, t, i) if layout else (t, b, i)  # noqa: ARG005
        )
        w_map = AffineMap.from_callable(lambda d, t, b, i, j: (d, i, j))  # noqa: ARG005
        out_map = AffineMap.from_callable(lambda d, t, b, i, j: (d, t, b, j))  # noqa: ARG005
        iterators = [PARALLEL] * 3 + [REDUCTION, PARALLEL]
    else:
        x_map = AffineMap.from_callable(
            lambda d, t, b, j, i: (b, t, i) if layout else (t, b, i)  # noqa: ARG005
        )
        w_map = AffineMap.from_callable(lambda d, t, b, j, i: (d, j, i))  # noqa: ARG005
        out_map = AffineMap.from_callable(lambda d, t, b, j, i: (d, t, b, j))  # noqa: ARG005
        iterators = [PARALLEL] * 4 + [REDUCTION]

    def multiply_add(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        acc = args[2]
        xv, wv = widened(b, args[:2], acc.type)
        return scalar.ADD(b, acc, scalar.MUL(b, xv, wv))

    generic(
        rewriter,
        op,
        [x, w],
        [xw],
        [x_map, w_map, out_map],
        iterators,
        multiply_add,
    )


def _length(b: Builder, lens: SSAValue, batch: SSAValue, seq: SSAValue) -> SSAValue:
    """sequence_lens[batch], clamped to [0, seq] (no step outside X)."""
    value = b.insert(memref.LoadOp.get(lens, [batch])).res
    length = b.insert(arith.IndexCastOp(value, IndexType())).result
    length = b.insert(arith.MaxSIOp(length, index(b, 0))).result
    return b.insert(arith.MinSIOp(length, seq)).result


class RNNOpLowering(RecurrentLowering):
    """`onnx.RNN`: Ht = f(Xt W^T + Ht-1 R^T + Wb + Rb), f default Tanh."""

    source = onnx.RNNOp
    gate_count = 1
    default_activations = ("Tanh",)

    def cell(
        self, op: onnx.OnnxOp, net: Recurrence, b: Builder, t: SSAValue, batch: SSAValue
    ) -> None:
        net.rows(b, t, batch, 0, 1)
        net.units(b, lambda b, u: net.store(b, net.activate(b, 0, net.gate(b, 0, u)), net.h, [u]))


class GRUOpLowering(RecurrentLowering):
    """`onnx.GRU` (gates z, r, h; f default Sigmoid, g Tanh):
    zt = f(Xt Wz^T + Ht-1 Rz^T + Wbz + Rbz), rt likewise,
    ht = g(Xt Wh^T + (rt . Ht-1) Rh^T + Rbh + Wbh), or with
    `linear_before_reset`, g(Xt Wh^T + rt . (Ht-1 Rh^T + Rbh) + Wbh),
    Ht = (1 - zt) . ht + zt . Ht-1."""

    source = onnx.GRUOp
    gate_count = 3
    default_activations = ("Sigmoid", "Tanh")

    def cell(
        self, op: onnx.OnnxOp, net: Recurrence, b: Builder, t: SSAValue, batch: SSAValue
    ) -> None:
        net.rows(b, t, batch, 0, 2)
        net.units(
            b,
            lambda b, u: net.store(
                b, net.activate(b, 0, net.gate(b, 1, u)), net.gates, [net.row(b, 1, u)]
            ),
        )
        linear = op.attr("linear_before_reset")
        if linear:
            net.rows(b, t, batch, 2, 1, projected=False)
        else:
            net.rows(b, t, batch, 2, 1, scale=1)

        def update(b: Builder, u: SSAValue) -> None:
            z = net.activate(b, 0, net.gate(b, 0, u))
            pre = net.gate(b, 2, u)
            if linear:
                reset = scalar.MUL(b, net.gate(b, 1, u), pre)
                pre = scalar.ADD(b, net.projected(b, t, batch, net.row(b, 2, u)), reset)
            candidate = net.activate(b, 1, pre)
            previous = net.load(b, net.h, [u])
            keep = scalar.MUL(b, z, previous)
            one = constant(b, 1.0, z.type)
            new = scalar.ADD(b, scalar.MUL(b, scalar.SUB(b, one, z), candidate), keep)
            net.store(b, new, net.h, [u])

        net.units(b, update)


class LSTMOpLowering(RecurrentLowering):
    """`onnx.LSTM` (gates i, o, f, c; f default Sigmoid, g and h Tanh):
    it = f(Xt Wi^T + Ht-1 Ri^T + Pi . Ct-1 + Wbi + Rbi),
    ft = f(... Pf . Ct-1 ...) (1 - it with `input_forget`), ct = g(...),
    Ct = ft . Ct-1 + it . ct, ot = f(... Po . Ct ...), Ht = ot . h(Ct)."""

    source = onnx.LSTMOp
    gate_count = 4
    default_activations = ("Sigmoid", "Tanh", "Tanh")

    def peepholes(self, op: onnx.OnnxOp, rewriter: PatternRewriter) -> SSAValue | None:
        assert isinstance(op, onnx.LSTMOp)
        return None if is_none(op.P) else buffer_of(rewriter, op.P)

    def cell(
        self, op: onnx.OnnxOp, net: Recurrence, b: Builder, t: SSAValue, batch: SSAValue
    ) -> None:
        assert net.c is not None
        cells = net.c
        net.rows(b, t, batch, 0, 4)
        coupled = op.attr("input_forget")

        def update(b: Builder, u: SSAValue) -> None:
            previous = net.load(b, cells, [u])
            i = net.activate(b, 0, net.peephole(b, 0, u, net.gate(b, 0, u), previous))
            if coupled:
                f = scalar.SUB(b, constant(b, 1.0, i.type), i)
            else:
                f = net.activate(b, 0, net.peephole(b, 2, u, net.gate(b, 2, u), previous))
            candidate = net.activate(b, 1, net.gate(b, 3, u))
            c = scalar.ADD(b, scalar.MUL(b, f, previous), scalar.MUL(b, i, candidate))
            o = net.activate(b, 0, net.peephole(b, 1, u, net.gate(b, 1, u), c))
            net.store(b, c, cells, [u])
            net.store(b, scalar.MUL(b, o, net.activate(b, 2, c, clipped=False)), net.h, [u])

        net.units(b, update)
