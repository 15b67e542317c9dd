"""The state of one recurrent node while its steps are built (`rnn.py`:
RNN, GRU, LSTM): the buffers a step reads and writes, and the small pieces
the cells share (a gate's row, its biases, the recurrent term h R^T, the
clipped activations, the peepholes, where a state unit goes in the outputs).
Values are loaded widened to the accumulator type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.ir import Attribute, SSAValue

from onnxc.lowering.convert_onnx_to_linalg import scalar
from onnxc.lowering.convert_onnx_to_linalg.common import element_type, widened
from onnxc.lowering.convert_onnx_to_linalg.recurrent.activations import Activation
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant, convert
from onnxc.lowering.convert_onnx_to_linalg.scf_loops import for_range, index
from onnxc.lowering.index_arith import Size


@dataclass
class Recurrence:
    """What the steps of one recurrent node read and write: the projected
    input `xw` [directions, seq, batch, gates * hidden], the weights R, the
    biases B and peepholes P (None when absent), the gate buffer, the state,
    and the direction being built (`d`, its activations `f`)."""

    acc: Attribute
    hidden_size: Size
    hidden: SSAValue
    xw: SSAValue
    r: SSAValue
    bias: SSAValue | None
    peepholes: SSAValue | None
    gates: SSAValue
    h: SSAValue
    c: SSAValue | None
    clip: float | None
    total_gates: int
    layout: int
    transposed: bool = False
    """Whether `r` holds R transposed, [directions, hidden, gates * hidden]:
    the recurrent term then runs along the gate rows (see `rows`)."""
    d: int = 0
    f: Sequence[Activation] = ()

    def load(self, b: Builder, buffer: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        value = b.insert(memref.LoadOp.get(buffer, indices)).res
        return widened(b, [value], self.acc)[0]

    def store(self, b: Builder, value: SSAValue, buffer: SSAValue, at: Sequence[SSAValue]) -> None:
        b.insert(memref.StoreOp.get(value, buffer, at))

    def row(self, b: Builder, gate: int, u: SSAValue) -> SSAValue:
        """The row of unit `u` of gate `gate` in the gate axis."""
        if gate == 0:
            return u
        return b.insert(arith.AddiOp(self.times_hidden(b, gate), u)).result

    def times_hidden(self, b: Builder, factor: int) -> SSAValue:
        """factor * hidden (a constant when the hidden size is one)."""
        if isinstance(self.hidden_size, int):
            return index(b, factor * self.hidden_size)
        return b.insert(arith.MuliOp(index(b, factor), self.hidden)).result

    def bias_of(self, b: Builder, row: SSAValue, recurrent: bool) -> SSAValue | None:
        """Wb (or Rb) of `row`, None without B."""
        if self.bias is None:
            return None
        if recurrent:
            row = b.insert(arith.AddiOp(self.times_hidden(b, self.total_gates), row)).result
        return self.load(b, self.bias, [index(b, self.d), row])

    def projected(self, b: Builder, t: SSAValue, batch: SSAValue, row: SSAValue) -> SSAValue:
        """X_t W^T + Wb at `row`."""
        value = self.load(b, self.xw, [index(b, self.d), t, batch, row])
        bias = self.bias_of(b, row, recurrent=False)
        return value if bias is None else scalar.ADD(b, value, bias)

    def rows(
        self,
        b: Builder,
        t: SSAValue,
        batch: SSAValue,
        first: int,
        count: int,
        projected: bool = True,
        scale: int | None = None,
    ) -> None:
        """Gate buffer rows of gates first..first+count-1: (the projection and
        Wb, when `projected`) + Rb + sum_k h[k] (* gate `scale`[k]) R[row, k],
        k in order. With R `transposed`, the rows start at their first terms
        and then, for each k, every row adds its term: the same sums in the
        same order, with the loop over the rows innermost, reading R^T's row
        k contiguously (the C compiler vectorises it)."""
        rows = self.times_hidden(b, count)

        def first_terms(b: Builder, row: SSAValue) -> SSAValue:
            start = self.projected(b, t, batch, row) if projected else constant(b, 0.0, self.acc)
            bias = self.bias_of(b, row, recurrent=True)
            return start if bias is None else scalar.ADD(b, start, bias)

        if self.transposed:
            self._rows_along(b, first, rows, scale, first_terms)
            return

        def each(b: Builder, u: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            row = self.row(b, first, u)
            start = first_terms(b, row)

            def term(b: Builder, k: SSAValue, total: list[SSAValue]) -> list[SSAValue]:
                state = self.load(b, self.h, [k])
                if scale is not None:
                    state = scalar.MUL(b, state, self.load(b, self.gates, [self.row(b, scale, k)]))
                weight = self.load(b, self.r, [index(b, self.d), row, k])
                return [scalar.ADD(b, total[0], scalar.MUL(b, state, weight))]

            (total,) = for_range(b, 0, self.hidden, [start], term)
            self.store(b, total, self.gates, [row])
            return []

        for_range(b, 0, rows, [], each)

    def _rows_along(
        self,
        b: Builder,
        first: int,
        rows: SSAValue,
        scale: int | None,
        first_terms: Callable[[Builder, SSAValue], SSAValue],
    ) -> None:
        """`rows` with R transposed: the loop over the rows innermost."""

        def start(b: Builder, u: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            row = self.row(b, first, u)
            self.store(b, first_terms(b, row), self.gates, [row])
            return []

        for_range(b, 0, rows, [], start)

        def term(b: Builder, k: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            state = self.load(b, self.h, [k])
            if scale is not None:
                state = scalar.MUL(b, state, self.load(b, self.gates, [self.row(b, scale, k)]))

            def add(b: Builder, u: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
                row = self.row(b, first, u)
                weight = self.load(b, self.r, [index(b, self.d), k, row])
                total = scalar.ADD(b, self.load(b, self.gates, [row]), scalar.MUL(b, state, weight))
                self.store(b, total, self.gates, [row])
                return []

            for_range(b, 0, rows, [], add)
            return []

        for_range(b, 0, self.hidden, [], term)

    def gate(self, b: Builder, gate: int, u: SSAValue) -> SSAValue:
        return self.load(b, self.gates, [self.row(b, gate, u)])

    def activate(self, b: Builder, k: int, x: SSAValue, clipped: bool = True) -> SSAValue:
        """Activation `k` of the direction, of `x` clipped to [-clip, clip]
        (unless not `clipped`: LSTM's h of the cell state)."""
        if self.clip is not None and clipped:
            x = scalar.MIN(b, x, constant(b, self.clip, x.type))
            x = scalar.MAX(b, x, constant(b, -self.clip, x.type))
        return self.f[k](b, x)

    def peephole(self, b: Builder, k: int, u: SSAValue, x: SSAValue, c: SSAValue) -> SSAValue:
        """x + P[k * hidden + u] * c (x itself without P)."""
        if self.peepholes is None:
            return x
        weight = self.load(b, self.peepholes, [index(b, self.d), self.row(b, k, u)])
        return scalar.ADD(b, x, scalar.MUL(b, weight, c))

    def state_at(self, b: Builder, batch: SSAValue, u: SSAValue) -> list[SSAValue]:
        """The indices of unit `u` of row `batch` in initial_h, Y_h and kin."""
        d = index(b, self.d)
        return [batch, d, u] if self.layout else [d, batch, u]

    def output_at(self, b: Builder, batch: SSAValue, u: SSAValue, t: SSAValue) -> list[SSAValue]:
        """The indices of unit `u` of row `batch` at time `t` in Y."""
        d = index(b, self.d)
        return [batch, t, d, u] if self.layout else [t, d, batch, u]

    def write(
        self, b: Builder, state: SSAValue, u: SSAValue, target: SSAValue, at: Sequence[SSAValue]
    ) -> None:
        """state[u], in the output's element type, to `target` at `at`."""
        value = convert(b, self.load(b, state, [u]), element_type(target))
        self.store(b, value, target, at)

    def clear(self, b: Builder) -> None:
        """Zero the state."""
        for state in (self.h, self.c):
            if state is not None:
                self.units(
                    b,
                    lambda b, u, state=state: self.store(b, constant(b, 0.0, self.acc), state, [u]),
                )

    def units(self, b: Builder, body: Callable[[Builder, SSAValue], None]) -> None:
        """`body` for each hidden unit."""

        def each(b: Builder, u: SSAValue, _: list[SSAValue]) -> list[SSAValue]:
            body(b, u)
            return []

        for_range(b, 0, self.hidden, [], each)
