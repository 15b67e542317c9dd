"""The shape helper: every size a lowering needs, as a constant or a run-time
`index` value.

Lowerings never read a tensor's shape as Python ints when it may be dynamic:
they ask `Shapes` for its sizes (`sizes`), compute with them (`add`, `mul`,
`ceildiv`, ... fold constants, so a static model builds no arithmetic at all
and its C keeps constant loop bounds and strides), and allocate with them.
This is onnx-mlir's IndexExpr, over SSA values.

A dynamic dimension's symbol (see `dialects/dims.py`) names one size: the
free dimensions are the function's leading `index` arguments; any other
symbol is bound to the value the lowering of the operation that first
produces it computes (`result_sizes`), and every later use of the symbol reads
that value. Equal symbols are equal sizes, which is how broadcasting knows two
run-time dimensions match.

Index arithmetic whose operands are all known at entry (free dimensions and
constants) is built once, at the top of the function (the prologue), so the
sizes of everything that does not depend on data are known before any work
is done; the rest is built where it is needed. Equal computations are built
once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerAttr, MemRefType, TensorType
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects.dims import dims_of
from onnxc.dialects.onnxc import CheckOp, InputOp, OutputOp, SizeLimits
from onnxc.errors import InternalError, UnsupportedError
from onnxc.lowering.index_arith import INDEX, IndexArith, Size


class Shapes(IndexArith):
    """The sizes of one function's tensors, and the index arithmetic on them."""

    def __init__(self, function: func.FuncOp, free: Sequence[str]) -> None:
        super().__init__()
        self.function = function
        self.limits = SizeLimits.of(function)
        """The target's limits on run-time sizes (`check_count`)."""
        self.symbols: dict[str, Size] = {}
        self.entry: set[SSAValue] = set()
        """Values known at entry: free dimensions, prologue arithmetic."""
        self.last_entry_op: Operation | None = None
        self.rewriter: PatternRewriter | None = None
        self.elements: dict[SSAValue, list[Size]] = {}
        """The elements of shape tensors, as sizes (see `shape_values.py`)."""
        self.checked: set[SSAValue] = set()
        """Conditions already checked at entry."""
        block = function.body.block
        for name, arg in zip(free, block.args, strict=False):
            self.symbols[name] = arg
            self.entry.add(arg)

    # --- symbols ----------------------------------------------------------------

    def sizes(self, value: SSAValue) -> list[Size]:
        """The sizes of a tensor (or memref) value, from its type: ints where
        static, the bound value of the symbol where dynamic."""
        value_type = value.type
        if isinstance(value_type, MemRefType):
            if _static_type(value_type):
                return list(value_type.get_shape())
            return self._memref_sizes(value)
        assert isinstance(value_type, TensorType), value_type
        found: list[Size] = []
        for dim in dims_of(value_type):
            if isinstance(dim, int):
                found.append(dim)
            elif dim in self.symbols:
                found.append(self.symbols[dim])
            else:
                raise InternalError(f"internal error: the size '{dim}' is used before it is known")
        return found

    def _memref_sizes(self, value: SSAValue) -> list[Size]:
        value_type = value.type
        assert isinstance(value_type, MemRefType)
        owner = value.owner
        dynamic: list[SSAValue] = []
        if isinstance(owner, memref.AllocOp):
            dynamic = list(owner.dynamic_sizes)
        elif isinstance(owner, memref.ReinterpretCastOp | memref.ViewOp | InputOp | OutputOp):
            dynamic = list(owner.sizes)
        elif isinstance(owner, memref.ExpandShapeOp):
            dynamic = list(owner.output_shape)
        elif isinstance(owner, memref.CollapseShapeOp):
            source = self.sizes(owner.src)
            return [
                self.product([source[cast(IntegerAttr, d).value.data] for d in group.data])
                for group in owner.reassociation.data
            ]
        else:
            raise InternalError(f"internal error: no sizes for the buffer {value}")
        shape = value_type.get_shape()
        if any(s < 0 and s != DYNAMIC_INDEX for s in shape) or len(dynamic) != shape.count(
            DYNAMIC_INDEX
        ):  # what inference made of an invalid model (a negative scale)
            raise UnsupportedError(f"a value of type {value_type} has no valid sizes")
        values = iter(dynamic)
        return [s if s >= 0 else next(values) for s in shape]

    def result_sizes(self, result: SSAValue, computed: Sequence[Size]) -> list[Size]:
        """The sizes to give `result`: its type's static sizes, the bound values
        of its symbols, and for a symbol not bound yet `computed` (which
        binds it)."""
        result_type = result.type
        assert isinstance(result_type, TensorType), result_type
        dims = dims_of(result_type)
        if len(dims) != len(computed):
            raise InternalError(
                f"internal error: computed rank {len(computed)} for a result of type {result_type}"
            )
        found: list[Size] = []
        for dim, size in zip(dims, computed, strict=True):
            if isinstance(dim, int):
                known: Size = dim
            elif dim in self.symbols:
                known = self.symbols[dim]
            else:
                self.symbols[dim] = known = size
            if isinstance(size, SSAValue) and not self.same(known, size):
                self._check(self.equal(known, size), f"size of {dim} as inferred")
            elif isinstance(size, int) and isinstance(known, int) and size != known:
                raise UnsupportedError(
                    f"the result type says size {known} where the operator gives {size} "
                    f"({result_type})"
                )
            found.append(known)
        if not all(isinstance(size, int) for size in found):
            self.check_count(found, str(result_type))
        return found

    def check_count(self, sizes: Sequence[Size], what: str) -> None:
        """A run-time check that `sizes` are none negative and hold at most
        `limits.elements` elements (ONNXC_ERR_SHAPE otherwise), computed without
        overflow: no size arithmetic after it can overflow. At entry (once)
        when the sizes are known there, else here."""
        if not all(self._available(s) for s in sizes if isinstance(s, SSAValue)):
            return  # computed in a region (a Loop's carried sizes), checked there
        limit = self.limits.elements + 1
        count = self.saturating_product(sizes, limit)
        fits = self.less(count, limit)
        for size in sizes:
            if isinstance(size, SSAValue):
                fits = self.both(fits, self.less(-1, size))
        if fits in self.checked:
            return
        message = f"{what}: no negative size, at most {self.limits.describe()}"
        if fits in self.entry:
            check = CheckOp(fits, message)
            if self.last_entry_op is None:
                block = self.function.body.block
                first = block.first_op
                point = InsertPoint.before(first) if first else InsertPoint.at_end(block)
            else:
                point = InsertPoint.after(self.last_entry_op)
            Rewriter.insert_op(check, point)
            self.last_entry_op = check
            self.checked.add(fits)
        else:
            self._check(fits, message)

    def _available(self, value: SSAValue) -> bool:
        """Whether `value` may be used where run-time arithmetic is built now:
        it is defined in a block around that point, not inside a region of
        some op (the sizes a Loop's body computes for its results)."""
        owner = value.owner
        block = owner if isinstance(owner, Block) else owner.parent_block()
        where: Block | None = (
            self.rewriter.insertion_point.block if self.rewriter else self.function.body.block
        )
        while where is not None:
            if where is block:
                return True
            parent = where.parent_op()
            where = parent.parent_block() if parent else None
        return False

    def _check(self, condition: SSAValue, message: str) -> None:
        """A run-time check at the current position (ONNXC_ERR_SHAPE when it fails)."""
        if self.rewriter is None:
            raise InternalError("internal error: no insertion point for a check")
        self.rewriter.insert(CheckOp(condition, message))

    # --- building ---------------------------------------------------------------

    def use(self, rewriter: PatternRewriter) -> None:
        """Build run-time arithmetic at `rewriter`'s position from now on."""
        self.rewriter = rewriter

    def _insert(self, op: Operation, operands: Sequence[SSAValue]) -> SSAValue:
        if all(v in self.entry for v in operands):
            block = self.function.body.block
            if self.last_entry_op is None:
                first = block.first_op
                point = InsertPoint.before(first) if first else InsertPoint.at_end(block)
            else:
                point = InsertPoint.after(self.last_entry_op)
            Rewriter.insert_op(op, point)
            self.last_entry_op = op
            self.entry.add(op.results[0])
        else:
            if self.rewriter is None:
                raise InternalError("internal error: no insertion point for a size")
            self.rewriter.insert(op)
        return op.results[0]

    def broadcast(self, a: Size, b: Size) -> Size:
        """The size two broadcast dimensions give: the one that is not 1 (they
        are equal or one of them is 1, which the caller checks at run time
        when it cannot know)."""
        if isinstance(a, int) and isinstance(b, int):
            return b if a == 1 else a
        if a == 1 or self.same(a, b):
            return b
        if b == 1:
            return a
        is_one = self.equal(a, 1)
        key = ("broadcast", a, b)
        if key not in self.cache:
            lhs, rhs = self.index(a), self.index(b)
            self.cache[key] = self._insert(arith.SelectOp(is_one, rhs, lhs), [is_one, lhs, rhs])
        return self.cache[key]

    def from_integer(self, value: SSAValue) -> SSAValue:
        """An integer scalar (an element loaded from a shape tensor) as an
        index value."""
        if isinstance(value.type, IndexType):
            return value
        key = ("from", value)
        if key not in self.cache:
            self.cache[key] = self._insert(arith.IndexCastOp(value, INDEX), [value])
        return self.cache[key]

    def alloc(self, value_type: Attribute, sizes: Sequence[Size]) -> memref.AllocOp:
        """A `memref.alloc` (not inserted) of `value_type`'s element type and
        `sizes`, dynamic where they are values."""
        assert isinstance(value_type, TensorType | MemRefType), value_type
        shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
        dynamic = [s for s in sizes if isinstance(s, SSAValue)]
        return memref.AllocOp.get(value_type.get_element_type(), shape=shape, dynamic_sizes=dynamic)


def _static_type(t: MemRefType[Attribute]) -> bool:
    return all(s >= 0 for s in t.get_shape())
