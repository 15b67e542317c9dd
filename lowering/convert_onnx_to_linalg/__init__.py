"""`convert-onnx-to-linalg`: onnx operations on tensors -> linalg on buffers.

Preconditions: every function holds `onnx.*` operations over tensors (as the
importer produces them, possibly simplified by onnx-level passes); a dynamic
dimension's symbol is in the tensor type (`dialects/dims.py`) and the free
dimensions are listed in the function's `onnxc.dims`.

Postconditions: no `onnx.*` operation and no tensor is left. Functions take the
free dimensions as leading `index` arguments, then their inputs and outputs as
memref arguments, and return nothing (destination-passing style); a dynamic
input or output is seen through `onnxc.input` / `onnxc.output`, which give it
its sizes; sizes known only at run time are `index` arithmetic (see
`shapes.py`), checked with `onnxc.check` where the model could disagree with
them; each intermediate is a `memref.alloc`; constants are
`memref.global`s read with `memref.get_global`; computation is `linalg.generic`
(and other structured linalg operations), each tagged with the ONNX node it comes
from in `onnxc.comment`. Reshapes are `memref.collapse_shape`/`expand_shape` views.

The patterns live in the modules of this package, one module per operator
category; every `OnnxLowering` subclass is collected, so adding an operator
touches only its category module.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    ArrayAttr,
    FunctionType,
    IndexType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.linalg import ops as linalg_ops
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint, Rewriter

from onnxc.dialects import onnx
from onnxc.dialects.kernel import DOMAIN as KERNELS
from onnxc.dialects.onnxc import CheckOp, InputOp, OutputOp, SizeLimits
from onnxc.dialects.onnxc_strings import StringGlobalOp
from onnxc.errors import InternalError, UnsupportedError
from onnxc.ir_names import COMMENT, DIMS
from onnxc.lowering.buffer_uses import VIEWS, aliases
from onnxc.lowering.convert_onnx_to_linalg.common import (
    PARALLEL,
    LoweringContext,
    OnnxLowering,
    buffer_behind,
    memref_type,
)
from onnxc.lowering.convert_onnx_to_linalg.shape_values import track
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.node_progress import counter
from onnxc.targets import get_target


def _lowering_classes() -> list[type[OnnxLowering[Any]]]:
    """Every `OnnxLowering` of this package's modules (its category
    subpackages' included)."""
    found: list[type[OnnxLowering[Any]]] = []
    for info in sorted(pkgutil.walk_packages(__path__, f"{__name__}."), key=lambda i: i.name):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, OnnxLowering)
                and value.__module__ == module.__name__
                and hasattr(value, "source")
            ):
                found.append(value)
    return found


def lowerings() -> dict[str, type[OnnxLowering[Any]]]:
    """Every `OnnxLowering` of an ONNX operator, by operator name (the operators
    onnxc compiles; the `kernel` dialect's own operations are left out)."""
    found = {
        c.source.SCHEMA.name: c for c in _lowering_classes() if c.source.SCHEMA.domain != KERNELS
    }
    return dict(sorted(found.items()))


def collect_patterns(context: LoweringContext) -> list[RewritePattern]:
    """One instance of every lowering pattern of this package."""
    return [pattern(context) for pattern in _lowering_classes()]


def _free_dims(function: func.FuncOp) -> list[str]:
    names = function.attributes.get(DIMS)
    if not isinstance(names, ArrayAttr):
        return []
    return [n.data for n in names.data if isinstance(n, StringAttr)]


def _convert_signature(function: func.FuncOp) -> tuple[list[SSAValue], Shapes]:
    """Turn tensor arguments into buffers, the free dimensions into leading
    `index` arguments, and add one output buffer per result; returns the
    output buffers and the function's `Shapes`. An input with dynamic sizes is
    seen through `onnxc.input`, which gives it the free dimensions' values."""
    block = function.body.block
    free = _free_dims(function)
    for position, name in enumerate(free):
        dim = block.insert_arg(IndexType(), position)
        dim.name_hint = sanitize_hint(name)
    shapes = Shapes(function, free)
    first = block.first_op
    point = InsertPoint.before(first) if first else InsertPoint.at_end(block)
    inputs = [a for a in block.args[len(free) :] if isinstance(a.type, TensorType)]
    for number, arg in enumerate(inputs):
        index = arg.index
        buffer = block.insert_arg(memref_type(arg.type), index)
        buffer.name_hint = arg.name_hint
        view: SSAValue = buffer
        if any(size < 0 for size in memref_type(arg.type).get_shape()):
            shapes.check_count(shapes.sizes(arg), f"input {arg.name_hint}")
            sizes = [s for s in shapes.sizes(arg) if isinstance(s, SSAValue)]
            bound = InputOp(buffer, sizes, number, buffer.type)
            Rewriter.insert_op(bound, point)
            view = bound.result
        cast = UnrealizedConversionCastOp.get([view], [arg.type])
        Rewriter.insert_op(cast, point)
        arg.replace_all_uses_with(cast.results[0])
        block.erase_arg(arg)
    outputs: list[SSAValue] = []
    returned = block.last_op
    assert isinstance(returned, func.ReturnOp)
    # The returned values' types: what inference knows, at least the declared.
    for index, result_type in enumerate(v.type for v in returned.operands):
        out = block.insert_arg(memref_type(result_type), len(block.args))
        out.name_hint = f"out{index}"
        outputs.append(out)
    function.function_type = FunctionType.from_lists([a.type for a in block.args], [])
    return outputs, shapes


def _finish_returns(function: func.FuncOp, outputs: list[SSAValue], shapes: Shapes) -> None:
    """Write results into the output buffers: a result computed into a fresh
    buffer is computed into the output buffer instead; anything else (an input, a
    weight, a view, a result returned twice) is copied. An output with dynamic
    sizes is bound to the sizes the model computed with `onnxc.output`."""
    block = function.body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    claimed: set[Operation] = set()
    for number, (value, out) in enumerate(zip(list(ret.arguments), outputs, strict=True)):
        buffer = buffer_behind(value)
        source = buffer.owner
        dynamic = any(size < 0 for size in memref_type(out.type).get_shape())
        fresh = isinstance(source, memref.AllocOp) and source not in claimed
        if fresh and isinstance(source, memref.AllocOp) and not dynamic:
            if source.memref.type == out.type:
                claimed.add(source)
                source.memref.replace_all_uses_with(out)
                Rewriter.erase_op(source)
                continue
        if fresh and isinstance(source, memref.AllocOp) and dynamic:
            claimed.add(source)
            bound = OutputOp(out, list(source.dynamic_sizes), number, source.memref.type)
            Rewriter.replace_op(source, bound)
            continue
        target = out
        if dynamic:
            sizes = shapes.sizes(buffer)
            shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
            t = MemRefType(memref_type(out.type).get_element_type(), shape)
            operands = [s for s in sizes if isinstance(s, SSAValue)]
            bound = OutputOp(out, operands, number, t)
            Rewriter.insert_op(bound, InsertPoint.before(ret))
            target = bound.result
        rank = len(memref_type(out.type).get_shape())
        identity = AffineMapAttr(AffineMap.identity(rank))
        body = Block(arg_types=[memref_type(out.type).get_element_type()] * 2)
        body.add_op(linalg_ops.YieldOp(body.args[0]))
        copy = linalg_ops.GenericOp(
            [buffer], [target], Region(body), [identity, identity], [PARALLEL] * rank
        )
        copy.attributes[COMMENT] = StringAttr("copy to graph output")
        block.insert_op_before(copy, ret)
    block.insert_op_before(func.ReturnOp(), ret)
    ret.detach()
    ret.erase()
    _bind_outputs_early(block)


def _bind_outputs_early(block: Block) -> None:
    """Move each `onnxc.output` of the function's block up to where its sizes
    are known (after the inputs are bound and the checks before it): outputs
    whose sizes follow from the inputs' are then bound together, before
    anything is computed, so the C reports every such output's shape before
    it returns ONNXC_ERR_CAPACITY."""
    ops = list(block.ops)
    position = {op: k for k, op in enumerate(ops)}
    for op in ops:
        if not isinstance(op, OutputOp):
            continue
        # after the inputs and the checks before it: a size refused is
        # ONNXC_ERR_SHAPE, whatever the capacities
        stops = [k for k in range(position[op]) if isinstance(ops[k], InputOp | CheckOp)]
        after = stops[-1] if stops else -1
        for operand in op.operands:
            owner = operand.owner
            while isinstance(owner, Operation) and owner.parent_block() is not block:
                owner = owner.parent_op()
            if isinstance(owner, Operation) and owner in position:
                after = max(after, position[owner])
        while after + 1 < position[op] and isinstance(ops[after + 1], OutputOp):
            after += 1  # outputs bound at one point stay in their order
        if after + 1 >= position[op]:
            continue
        op.detach()
        if after < 0:
            block.insert_op_before(op, ops[0])
        else:
            block.insert_op_after(op, ops[after])
        ops = list(block.ops)
        position = {o: k for k, o in enumerate(ops)}


def sanitize_hint(name: str) -> str:
    """An SSA name hint from a dimension's name (any text: ASCII letters,
    digits and `_` kept, anything else `_`, as xDSL's names allow)."""
    cleaned = "".join(c if (c.isascii() and c.isalnum()) or c == "_" else "_" for c in name)
    return cleaned if cleaned and not cleaned[0].isdigit() else "d" + cleaned


def _check_converted(module: ModuleOp, lowered: Collection[str] = ()) -> None:
    """Reject the onnx operations left (or, before the walk, those whose
    operator is not in `lowered`): the first is named, and every other
    operator that is missing is listed in the same line."""
    missing: dict[str, list[onnx.OnnxOp]] = {}
    for op in module.walk():
        if isinstance(op, onnx.OnnxOp) and not isinstance(op, onnx.NoValueOp):
            internal = op.SCHEMA.domain == KERNELS and bool(lowered)  # always lowered
            if op.SCHEMA.name not in lowered and not internal:
                missing.setdefault(op.SCHEMA.name, []).append(op)
    if not missing:
        return
    first = next(iter(missing.values()))[0]
    message = (
        f"{first.node_label()}: operator {first.SCHEMA.name} is not supported yet "
        "(no lowering to linalg)"
    )
    others = [
        f"{name} ({len(ops)} node{'s' if len(ops) > 1 else ''})"
        for name, ops in missing.items()
        if name != first.SCHEMA.name
    ]
    if others:
        message += f"; nor are {', '.join(others)} (onnxc check lists every node)"
    raise UnsupportedError(message)


def _remove_casts(module: ModuleOp) -> None:
    """Fold buffer->tensor->buffer cast pairs and drop what is left unused,
    including weights that no operation reads."""
    for op in list(module.walk()):
        if not isinstance(op, UnrealizedConversionCastOp) or op.parent is None:
            continue
        source = op.inputs[0]
        inner = source.owner
        if (
            isinstance(inner, UnrealizedConversionCastOp)
            and isinstance(inner.inputs[0].type, MemRefType)
            and isinstance(op.results[0].type, MemRefType)
        ):
            op.results[0].replace_all_uses_with(inner.inputs[0])
            op.detach()
            op.erase()
    changed = True
    while changed:
        changed = False
        for op in list(module.walk()):
            if (
                isinstance(op, UnrealizedConversionCastOp | onnx.NoValueOp | memref.GetGlobalOp)
                and op.parent is not None
                and not any(r.uses for r in op.results)
            ):
                op.detach()
                op.erase()
                changed = True
    for op in module.walk():
        if isinstance(op, UnrealizedConversionCastOp):
            raise InternalError(f"internal error: a tensor is left after lowering: {op}")
    # Constants consumed at compile time (shapes, axes, bounds) leave unread weights.
    read = {o.name_.root_reference.data for o in module.walk() if isinstance(o, memref.GetGlobalOp)}
    for op in list(module.body.block.ops):
        if isinstance(op, memref.GlobalOp | StringGlobalOp) and op.sym_name.data not in read:
            op.detach()
            op.erase()


def _drop_unread_buffers(module: ModuleOp) -> None:
    """Remove the buffers nothing reads, and what only writes them: shape
    tensors whose values the lowering followed as sizes (`shape_values.py`)
    are computed, and then never loaded. A buffer is unread when every use
    of it (or of a view of it) is a store into it, a dealloc, or a generic
    whose outputs are all unread buffers of that kind."""
    changed = True
    while changed:
        changed = False
        for alloc in [op for op in module.walk() if isinstance(op, memref.AllocOp)]:
            writers = _only_writers(alloc.memref)
            if writers is None:
                continue
            for op in [*writers, alloc]:
                if op.parent is not None:
                    Rewriter.erase_op(op, safe_erase=False)
            changed = True


def _only_writers(buffer: SSAValue) -> list[Operation] | None:
    """The ops that use `buffer` only to write it (stores, deallocs, generics
    writing nothing else), when no op reads it; else None."""
    writers: list[Operation] = []
    for alias in aliases(buffer):
        for use in alias.uses:
            user = use.operation
            if isinstance(user, VIEWS):
                continue
            if isinstance(user, memref.StoreOp) and use.index == 1:
                writers.append(user)
            elif isinstance(user, memref.DeallocOp):
                writers.append(user)
            elif (
                isinstance(user, linalg_ops.GenericOp)
                and use.index >= len(user.inputs)
                and len(user.outputs) == 1
                and not any(v.uses for v in user.body.block.args[len(user.inputs) :])
            ):
                writers.append(user)
            else:
                return None
    views = [a.owner for a in aliases(buffer) if a is not buffer]
    return [*writers, *(v for v in reversed(views) if isinstance(v, Operation))]


@dataclass(frozen=True)
class ConvertOnnxToLinalgPass(ModulePass):
    """Lower the onnx dialect to linalg on buffers; see the module docstring."""

    name = "convert-onnx-to-linalg"

    target: str = "host"
    """Decides whether long float sums accumulate in double (`Target.double_sums`)
    and the size limits of run-time sizes (`Target.size_limits`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check_converted(op, lowerings())  # fail before lowering anything
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        limits = SizeLimits(*get_target(self.target).size_limits)
        for function in functions:
            limits.attach(function)
        converted = {f: _convert_signature(f) for f in functions}
        nodes = sum(1 for o in op.walk() if isinstance(o, onnx.OnnxOp))
        context = LoweringContext(
            {f: shapes for f, (_, shapes) in converted.items()},
            track,
            counter(nodes),
            double_sums=get_target(self.target).double_sums,
            transposed_recurrences=get_target(self.target).is_host,
        )
        PatternRewriteWalker(
            GreedyRewritePatternApplier(collect_patterns(context)),
            apply_recursively=False,
        ).rewrite_module(op)
        for finish in context.finishers:
            finish()
        _check_converted(op)
        for function, (outs, shapes) in converted.items():
            _finish_returns(function, outs, shapes)
        _remove_casts(op)
        _drop_unread_buffers(op)
        _remove_casts(op)  # again: what only the dropped code read
