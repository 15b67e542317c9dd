"""Index arithmetic on sizes that may be known at compile time or only at run
time, shared by the lowerings' shape helper and the memory planner.

A `Size` is an int or an `index` value. Every operation folds when its
operands are ints (and on the identities x+0, x*1, x*0, max(x, x) ...), so
static sizes never build arithmetic; otherwise it builds the `arith` op once
per distinct computation (hash-consed) through the subclass's `_insert`,
which decides where the op goes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeGuard

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Operation, SSAValue

Size = int | SSAValue
"""A size: known at compile time, or an `index` value computed at run time."""


INDEX = IndexType()


def is_static(sizes: Sequence[Size]) -> TypeGuard[Sequence[int]]:
    return all(isinstance(s, int) for s in sizes)


def static(sizes: Sequence[Size]) -> list[int]:
    """`sizes` as ints; only for sizes known to be static."""
    assert is_static(sizes), sizes
    return [s for s in sizes if isinstance(s, int)]


class IndexArith:
    """Folding, hash-consed index arithmetic; subclasses say where ops go."""

    def __init__(self) -> None:
        self.cache: dict[tuple[object, ...], SSAValue] = {}

    def _insert(self, op: Operation, operands: Sequence[SSAValue]) -> SSAValue:
        """Insert `op` (whose operands are `operands`); return its result."""
        raise NotImplementedError

    def same(self, a: Size, b: Size) -> bool:
        """Whether two sizes are known to be equal (same constant or value)."""
        return a is b or (isinstance(a, int) and isinstance(b, int) and a == b)

    def index(self, size: Size) -> SSAValue:
        """`size` as an `index` value (a constant when it is an int)."""
        if isinstance(size, SSAValue):
            return size
        key = ("const", size)
        if key not in self.cache:
            self.cache[key] = self._insert(arith.ConstantOp.from_int_and_width(size, INDEX), [])
        return self.cache[key]

    def _build(
        self, name: str, a: Size, b: Size, make: Callable[[SSAValue, SSAValue], Operation]
    ) -> SSAValue:
        key = (name, a, b)
        if key not in self.cache:
            lhs, rhs = self.index(a), self.index(b)
            self.cache[key] = self._insert(make(lhs, rhs), [lhs, rhs])
        return self.cache[key]

    def add(self, a: Size, b: Size) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if b == 0:
            return a
        if a == 0:
            return b
        return self._build("add", a, b, arith.AddiOp)

    def sub(self, a: Size, b: Size) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if b == 0:
            return a
        return self._build("sub", a, b, arith.SubiOp)

    def mul(self, a: Size, b: Size) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 1:
            return b
        if b == 1:
            return a
        if a == 0 or b == 0:
            return 0
        return self._build("mul", a, b, arith.MuliOp)

    def floordiv(self, a: Size, b: Size) -> Size:
        """a // b, rounding toward negative infinity; b > 0."""
        if isinstance(a, int) and isinstance(b, int):
            return a // b
        if b == 1:
            return a
        return self._build("floordiv", a, b, arith.FloorDivSIOp)

    def ceildiv(self, a: Size, b: Size) -> Size:
        """ceil(a / b); b > 0."""
        if isinstance(a, int) and isinstance(b, int):
            return -(-a // b)
        if b == 1:
            return a
        return self._build("ceildiv", a, b, arith.CeilDivSIOp)

    def align(self, a: Size, alignment: int) -> Size:
        """`a` rounded up to a multiple of `alignment` (itself when it is a
        product with a multiple of `alignment`)."""
        if isinstance(a, SSAValue) and isinstance(a.owner, arith.MuliOp):
            for operand in a.owner.operands:
                factor = operand.owner
                if (
                    isinstance(factor, arith.ConstantOp)
                    and isinstance(factor.value, IntegerAttr)
                    and factor.value.value.data % alignment == 0
                ):
                    return a
        return self.mul(self.ceildiv(a, alignment), alignment)

    def max(self, a: Size, b: Size) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return max(a, b)
        if self.same(a, b):
            return a
        return self._build("max", a, b, arith.MaxSIOp)

    def min(self, a: Size, b: Size) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return min(a, b)
        if self.same(a, b):
            return a
        return self._build("min", a, b, arith.MinSIOp)

    def clamp(self, value: Size, low: Size, high: Size) -> Size:
        return self.min(self.max(value, low), high)

    def saturating_product(self, sizes: Sequence[Size], limit: int) -> Size:
        """The product of `sizes`, or `limit` when it is `limit` or more (a
        negative size counts as 0: callers check signs apart): computed so
        that nothing overflows whatever the run-time values (no intermediate
        past twice `limit`), for the checks that refuse a size too large
        before anything uses it. Only min, max and multiplications: where
        the sizes are bounded, the bound of the result is their product's."""
        result: Size = 1
        for size in sizes:
            result = self._saturating_mul(result, size, limit)
        return result

    def _saturating_mul(self, a: Size, b: Size, limit: int) -> Size:
        if isinstance(a, int) and isinstance(b, int):
            return min(max(a, 0) * max(b, 0), limit)
        if isinstance(b, int):
            a, b = b, a
        assert isinstance(b, SSAValue)
        b_within = self.min(self.max(b, 0), limit)
        if isinstance(a, int):
            if a <= 0:
                return 0
            # b * a when b <= limit // a, else at least limit: capped
            return self.min(self.mul(self.min(b_within, limit // a + 1), a), limit)
        a_within = self.min(self.max(a, 0), limit)
        factor = self.floordiv(limit, self.max(a_within, 1))
        capped = self.mul(self.min(b_within, self.add(factor, 1)), a_within)
        return self.min(capped, limit)

    def product(self, sizes: Sequence[Size]) -> Size:
        result: Size = 1
        for size in sizes:
            result = self.mul(result, size)
        return result

    def equal(self, a: Size, b: Size) -> SSAValue:
        """An i1 value: a == b at run time."""
        return self._build("eq", a, b, lambda x, y: arith.CmpiOp(x, y, "eq"))

    def either(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """An i1 value: a or b."""
        return self._build("or", a, b, arith.OrIOp)

    def both(self, a: SSAValue, b: SSAValue) -> SSAValue:
        """An i1 value: a and b."""
        return self._build("and", a, b, arith.AndIOp)

    def flag(self, condition: SSAValue) -> Size:
        """`condition` as the size 1 or 0."""
        return self.select(condition, 1, 0)

    def select(self, condition: SSAValue, a: Size, b: Size) -> Size:
        """`condition ? a : b` (an i1 condition)."""
        if self.same(a, b):
            return a
        key = ("select", condition, a, b)
        if key not in self.cache:
            lhs, rhs = self.index(a), self.index(b)
            made = arith.SelectOp(condition, lhs, rhs)
            self.cache[key] = self._insert(made, [condition, lhs, rhs])
        return self.cache[key]

    def less(self, a: Size, b: Size) -> SSAValue:
        """An i1 value: a < b at run time."""
        return self._build("lt", a, b, lambda x, y: arith.CmpiOp(x, y, "slt"))
