"""`emulate-narrow-floats`: compute float16, bfloat16 and the 8-bit floats in
float.

C99 has no 16-bit float types, and most microcontrollers no 16-bit float
arithmetic, so generated code keeps float16 and bfloat16 tensors as 16-bit
storage words and computes in float (as MLIR's `arith-emulate-unsupported-
floats` does). Every value that a load, a conversion into a narrow type or a
bit cast produces in a narrow type is widened right after it (`arith.extf`, an
exact conversion); every other narrow value (arithmetic, math, selects, loop
and `scf.if` results, constants) becomes a float value; a value stored into a
narrow buffer is narrowed right before the store (`arith.truncf`, round to
nearest even). A narrow value that is only copied (loaded and stored
unchanged) is not converted at all.

So each ONNX operation rounds to the narrow type once, when its result is
stored, and computes in float in between: exact for the basic operations
(float has more than twice the narrow types' precision), and as onnxruntime
does it on CPUs for the others.

Preconditions: loop-level IR (loads and stores, no linalg). Postconditions:
narrow float types appear only as memref element types, results of loads,
`truncf`, `sitofp`, `uitofp` and `bitcast` into them, operands of stores, `extf`
and `bitcast` out of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import (
    Float32Type,
    FloatAttr,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc import element_types

NARROW: tuple[Attribute, ...] = tuple(row.ir_type for row in element_types.STORAGE_FLOATS)
WIDE = Float32Type()

_NARROW_PRODUCERS = (memref.LoadOp, arith.TruncFOp, arith.SIToFPOp, arith.UIToFPOp, arith.BitcastOp)
"""Ops whose narrow results keep their type (a widening follows them)."""


def _is_narrow(t: Attribute) -> bool:
    return t in NARROW


def _rounded(value: float, t: Attribute) -> float:
    """`value` rounded to the narrow type `t`, as a float."""
    dtype = element_types.row_of(t).numpy_dtype
    return float(np.array(value, dtype=np.float32).astype(dtype).astype(np.float64))


def _keeps_narrow(op: Operation, value: SSAValue) -> bool:
    """Whether `op` uses `value` as a narrow word: stores it unchanged into a
    buffer of its type, or reinterprets its bits."""
    if isinstance(op, arith.BitcastOp):
        return True
    if not isinstance(op, memref.StoreOp) or op.value is not value:
        return False
    t = op.memref.type
    return isinstance(t, MemRefType) and t.element_type == value.type


class _Emulation:
    """One function's emulation; `narrowed` remembers the narrow type of every
    value turned into a float value."""

    def __init__(self) -> None:
        self.narrowed: dict[SSAValue, Attribute] = {}

    def widen_after(self, op: Operation, value: SSAValue) -> None:
        """Insert `extf` after `op` and let the users of `value` that compute
        read the widened value."""
        users = [use for use in value.uses if not _keeps_narrow(use.operation, value)]
        if not users:
            return
        wide = arith.ExtFOp(value, WIDE)
        Rewriter.insert_op(wide, InsertPoint.after(op))
        for use in users:
            use.operation.operands[use.index] = wide.result

    def narrow_before(self, op: Operation, index: int, t: Attribute) -> None:
        """Narrow operand `index` of `op` to `t` when it is a float value."""
        value = op.operands[index]
        if value.type == t:
            return
        narrow = arith.TruncFOp(value, t)
        Rewriter.insert_op(narrow, InsertPoint.before(op))
        op.operands[index] = narrow.result

    def retype(self, value: SSAValue) -> None:
        original = value.type
        self.narrowed[Rewriter.replace_value_with_new_type(value, WIDE)] = original

    def emulate(self, op: Operation) -> None:
        if isinstance(op, arith.ConstantOp) and _is_narrow(op.result.type):
            value = op.value
            assert isinstance(value, FloatAttr)
            wide = arith.ConstantOp(FloatAttr(_rounded(value.value.data, op.result.type), WIDE))
            self.narrowed[wide.result] = op.result.type
            Rewriter.replace_op(op, wide)
            return
        if isinstance(op, memref.StoreOp):
            t = op.memref.type
            assert isinstance(t, MemRefType)
            if _is_narrow(t.element_type):
                self.narrow_before(op, 0, t.element_type)
            return
        if isinstance(op, arith.BitcastOp) and op.input in self.narrowed:
            self.narrow_before(op, 0, self.narrowed[op.input])
        if isinstance(op, arith.ExtFOp) and op.input.type == WIDE:
            if op.result.type == WIDE:
                op.result.replace_all_uses_with(op.input)
                Rewriter.erase_op(op)
            return
        if isinstance(op, _NARROW_PRODUCERS):
            for result in op.results:
                if _is_narrow(result.type):
                    self.widen_after(op, result)
            return
        for region in op.regions:
            for block in region.blocks:
                for arg in list(block.args):
                    if _is_narrow(arg.type):
                        self.retype(arg)
        for result in list(op.results):
            if _is_narrow(result.type):
                self.retype(result)


def emulate_function(fn: func.FuncOp) -> None:
    """Emulate the narrow float arithmetic of one function, in program order."""
    emulation = _Emulation()
    for op in list(fn.body.walk()):
        if op.parent is not None:
            emulation.emulate(op)


@dataclass(frozen=True)
class EmulateNarrowFloatsPass(ModulePass):
    """Compute float16 and bfloat16 in float; see the module docstring."""

    name = "emulate-narrow-floats"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in op.walk():
            if isinstance(fn, func.FuncOp):
                emulate_function(fn)
