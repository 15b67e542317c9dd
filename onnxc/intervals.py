"""Bounds of sizes computed at run time: interval arithmetic over the `index`
arithmetic (arith) that computes them.

The memory planner and the C interface ask two questions of a size: does it
depend on data (a value loaded from a tensor), or only on the free dimensions;
and, when every free dimension has an upper bound (`max_dims`), how large can
it get. `evaluate` answers both: an `Interval` when the value is computed from
constants and the given inputs alone, None when it reaches anything else.
Interval arithmetic is sound (the true value is always inside), if not always
tight (subtraction widens).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue

INFINITY = math.inf


@dataclass(frozen=True)
class Interval:
    """All values from `low` to `high` (either may be infinite)."""

    low: float
    high: float

    def __add__(self, other: Interval) -> Interval:
        return Interval(self.low + other.low, self.high + other.high)

    def __sub__(self, other: Interval) -> Interval:
        return Interval(self.low - other.high, self.high - other.low)

    def __mul__(self, other: Interval) -> Interval:
        products = [_times(a, b) for a in (self.low, self.high) for b in (other.low, other.high)]
        return Interval(min(products), max(products))

    def join(self, other: Interval) -> Interval:
        return Interval(min(self.low, other.low), max(self.high, other.high))


UNBOUNDED = Interval(-INFINITY, INFINITY)
"""Any value: what `evaluate` takes a value computed from data to be when
asked for bounds."""


def _times(a: float, b: float) -> float:
    if a == 0 or b == 0:
        return 0.0
    return a * b


def _divide(value: Interval, divisor: Interval, rounding: str) -> Interval | None:
    """Integer division by a divisor that is never negative: a divisor that
    may be 0 divides by 1 or more, or gives 0 (the runtime's x / 0)."""
    if divisor.low < 0 or divisor.high <= 0:
        return None  # only non-negative divisors are bounded here
    if divisor.low == 0:
        found = _divide(value, Interval(1, divisor.high), rounding)
        return None if found is None else found.join(Interval(0, 0))
    candidates = [
        value.low / divisor.low,
        value.low / divisor.high,
        value.high / divisor.low,
        value.high / divisor.high,
    ]
    low, high = min(candidates), max(candidates)
    if rounding == "ceil":
        return Interval(math.ceil(low) if math.isfinite(low) else low, _up(high))
    return Interval(_down(low), math.floor(high) if math.isfinite(high) else high)


def _up(x: float) -> float:
    return math.ceil(x) if math.isfinite(x) else x


def _down(x: float) -> float:
    return math.floor(x) if math.isfinite(x) else x


def evaluate(
    value: SSAValue,
    inputs: dict[SSAValue, Interval],
    memo: dict[SSAValue, Interval | None] | None = None,
    *,
    unknown: Interval | None = None,
) -> Interval | None:
    """The interval of `value`, given the intervals of `inputs`. A value that
    is neither an input nor computed from inputs and constants by the
    arithmetic known here (one loaded from a tensor, say) is `unknown`: by
    default None, which makes everything computed from it None (it depends
    on data); `Interval(-inf, inf)` instead bounds what only a bounded
    operand limits (min(count, n) <= n)."""
    memo = {} if memo is None else memo
    if value in inputs:
        return inputs[value]
    if value in memo:
        return memo[value]
    memo[value] = unknown  # a cycle (none in SSA) or an unknown op stays unknown
    op = value.owner
    result: Interval | None = unknown
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        v = float(op.value.value.data)
        result = Interval(v, v)
    elif isinstance(op, arith.IndexCastOp | arith.ExtSIOp | arith.ExtUIOp):
        result = evaluate(op.operands[0], inputs, memo, unknown=unknown)
    elif isinstance(op, arith.CmpiOp):
        args = [evaluate(v, inputs, memo, unknown=unknown) for v in op.operands]
        result = _compare(op, args[0], args[1])
    elif isinstance(op, Operation) and op.name.startswith("arith."):
        args = [evaluate(v, inputs, memo, unknown=unknown) for v in op.operands]
        found = [a for a in args if a is not None]
        if args and len(found) == len(args):
            result = _combine(op, found)
            result = unknown if result is None else result
    memo[value] = result
    return result


def _combine(op: object, args: list[Interval]) -> Interval | None:
    if isinstance(op, arith.AddiOp):
        return args[0] + args[1]
    if isinstance(op, arith.SubiOp):
        return args[0] - args[1]
    if isinstance(op, arith.MuliOp):
        return args[0] * args[1]
    if isinstance(op, arith.FloorDivSIOp | arith.DivSIOp | arith.DivUIOp):
        return _divide(args[0], args[1], "floor")
    if isinstance(op, arith.CeilDivSIOp):
        return _divide(args[0], args[1], "ceil")
    if isinstance(op, arith.MaxSIOp | arith.MaxUIOp):
        return Interval(max(args[0].low, args[1].low), max(args[0].high, args[1].high))
    if isinstance(op, arith.MinSIOp | arith.MinUIOp):
        return Interval(min(args[0].low, args[1].low), min(args[0].high, args[1].high))
    if isinstance(op, arith.SelectOp):
        if args[0].low == args[0].high:  # the condition is known
            return args[1] if args[0].low else args[2]
        return args[1].join(args[2])
    if isinstance(op, arith.AndIOp | arith.OrIOp):
        if all(0 <= a.low and a.high <= 1 for a in args):  # conditions: known when decided
            pick = min if isinstance(op, arith.AndIOp) else max
            return Interval(pick(a.low for a in args), pick(a.high for a in args))
        return Interval(0, 1)
    return None


_ALWAYS = {
    # predicate: (always true when, always false when), on intervals a and b
    "eq": (lambda a, b: a.low == a.high == b.low == b.high, lambda a, b: _apart(a, b)),
    "ne": (lambda a, b: _apart(a, b), lambda a, b: a.low == a.high == b.low == b.high),
    "slt": (lambda a, b: a.high < b.low, lambda a, b: a.low >= b.high),
    "sle": (lambda a, b: a.high <= b.low, lambda a, b: a.low > b.high),
    "sgt": (lambda a, b: a.low > b.high, lambda a, b: a.high <= b.low),
    "sge": (lambda a, b: a.low >= b.high, lambda a, b: a.high < b.low),
}


def _apart(a: Interval, b: Interval) -> bool:
    return a.high < b.low or b.high < a.low


def _compare(op: arith.CmpiOp, a: Interval | None, b: Interval | None) -> Interval | None:
    """A comparison's value: 0 or 1, or exactly one of them when the
    intervals decide it; None when it depends on data."""
    if a is None or b is None:
        return None
    predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
    if predicate in _ALWAYS:
        true, false = _ALWAYS[predicate]
        if true(a, b):
            return Interval(1, 1)
        if false(a, b):
            return Interval(0, 0)
    return Interval(0, 1)


def upper_bound(value: SSAValue, inputs: dict[SSAValue, Interval]) -> int | None:
    """The least integer `value` never exceeds, or None when it is unbounded
    (a value computed from data is bounded only by what bounds it: min(count,
    n) <= n)."""
    found = evaluate(value, inputs, unknown=UNBOUNDED)
    if found is None or not math.isfinite(found.high):
        return None
    return int(found.high)
