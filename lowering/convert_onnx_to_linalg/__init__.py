"""`convert-onnx-to-linalg`: onnx operations on tensors -> linalg on buffers.

Preconditions: every function holds `onnx.*` operations over statically shaped
tensors (as the importer produces them, possibly simplified by onnx-level passes).

Postconditions: no `onnx.*` operation and no tensor is left. Functions take their
inputs and then their outputs as memref arguments and return nothing
(destination-passing style); each intermediate is a `memref.alloc`; constants are
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
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    FunctionType,
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

from onnxc.dialects import onnx
from onnxc.errors import InternalError, UnsupportedError
from onnxc.ir_names import COMMENT
from onnxc.lowering.convert_onnx_to_linalg.common import PARALLEL, OnnxLowering, memref_type


def lowerings() -> dict[str, type[OnnxLowering[Any]]]:
    """Every `OnnxLowering` of this package's modules, by the ONNX operator it
    lowers (the operators onnxc compiles)."""
    found: dict[str, type[OnnxLowering[Any]]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for value in vars(module).values():
            if (
                inspect.isclass(value)
                and issubclass(value, OnnxLowering)
                and value.__module__ == module.__name__
                and hasattr(value, "source")
            ):
                found[value.source.SCHEMA.name] = value
    return dict(sorted(found.items()))


def collect_patterns() -> list[RewritePattern]:
    """One instance of every lowering pattern of this package."""
    return [pattern() for pattern in lowerings().values()]


def _convert_signature(function: func.FuncOp) -> list[SSAValue]:
    """Turn tensor arguments into buffers and add one output buffer per result;
    returns the output buffers."""
    block = function.body.block
    for index, arg in enumerate(list(block.args)):
        if not isinstance(arg.type, TensorType):
            continue
        buffer = block.insert_arg(memref_type(arg.type), index)
        buffer.name_hint = arg.name_hint
        cast = UnrealizedConversionCastOp.get([buffer], [arg.type])
        first = block.first_op
        block.insert_op_before(cast, first) if first else block.add_op(cast)
        arg.replace_all_uses_with(cast.results[0])
        block.erase_arg(arg)
    outputs: list[SSAValue] = []
    for index, result_type in enumerate(function.function_type.outputs.data):
        out = block.insert_arg(memref_type(result_type), len(block.args))
        out.name_hint = f"out{index}"
        outputs.append(out)
    function.function_type = FunctionType.from_lists([a.type for a in block.args], [])
    return outputs


def _finish_returns(function: func.FuncOp, outputs: list[SSAValue]) -> None:
    """Write results into the output buffers: a result computed into a fresh
    buffer is computed into the output buffer instead; anything else (an input, a
    weight, a view, a result returned twice) is copied."""
    block = function.body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    claimed: set[Operation] = set()
    for value, out in zip(list(ret.arguments), outputs, strict=True):
        buffer = _buffer_behind(value)
        source = buffer.owner
        if (
            isinstance(source, memref.AllocOp)
            and source not in claimed
            and source.memref.type == out.type
        ):
            claimed.add(source)
            source.memref.replace_all_uses_with(out)
            source.detach()
            source.erase()
            continue
        rank = len(memref_type(out.type).get_shape())
        identity = AffineMapAttr(AffineMap.identity(rank))
        body = Block(arg_types=[memref_type(out.type).get_element_type()] * 2)
        body.add_op(linalg_ops.YieldOp(body.args[0]))
        copy = linalg_ops.GenericOp(
            [buffer], [out], Region(body), [identity, identity], [PARALLEL] * rank
        )
        copy.attributes[COMMENT] = StringAttr("copy to graph output")
        block.insert_op_before(copy, ret)
    block.insert_op_before(func.ReturnOp(), ret)
    ret.detach()
    ret.erase()


def _buffer_behind(value: SSAValue) -> SSAValue:
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and isinstance(
        owner.inputs[0].type, MemRefType
    ):
        return owner.inputs[0]
    raise InternalError(f"internal error: graph output computed by unconverted operation {owner}")


def _check_converted(module: ModuleOp) -> None:
    for op in module.walk():
        if isinstance(op, onnx.OnnxOp):
            raise UnsupportedError(
                f"{op.node_label()}: operator {op.SCHEMA.name} is not supported yet "
                "(no lowering to linalg)"
            )


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
        if isinstance(op, memref.GlobalOp) and op.sym_name.data not in read:
            op.detach()
            op.erase()


@dataclass(frozen=True)
class ConvertOnnxToLinalgPass(ModulePass):
    """Lower the onnx dialect to linalg on buffers; see the module docstring."""

    name = "convert-onnx-to-linalg"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        outputs = {f: _convert_signature(f) for f in functions}
        PatternRewriteWalker(
            GreedyRewritePatternApplier(collect_patterns()),
            apply_recursively=False,
        ).rewrite_module(op)
        _check_converted(op)
        for function, outs in outputs.items():
            _finish_returns(function, outs)
        _remove_casts(op)
