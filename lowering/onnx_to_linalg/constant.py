"""Constants and identities: `onnx.Constant` becomes a `memref.global`."""

from __future__ import annotations

import re

from xdsl.dialects import memref
from xdsl.dialects.builtin import ModuleOp, StringAttr, SymbolTable, UnitAttr
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from onnxc.dialects import onnx
from onnxc.dialects.constants import dense_attr, elements_to_numpy
from onnxc.lowering.onnx_to_linalg.common import (
    buffer_of,
    memref_type,
    replace_with_buffers,
    unsupported,
)


def _global_name(module: ModuleOp, hint: str) -> str:
    base = re.sub(r"[^A-Za-z0-9_]", "_", hint).strip("_") or "weight"
    if base[0].isdigit():
        base = "w_" + base
    name, counter = base, 0
    while SymbolTable.lookup_symbol(module, name) is not None:
        counter += 1
        name = f"{base}_{counter}"
    return name


class ConstantOpLowering(RewritePattern):
    """`onnx.Constant` with a tensor `value` -> a private constant `memref.global`
    (weights in flash on a microcontroller) and a `memref.get_global`. Other
    forms (`value_float`, ...) are normalised to `value` by onnx-fold-constants."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx.ConstantOp,  # type: ignore[name-defined]
        rewriter: PatternRewriter,
    ) -> None:
        value = op.properties.get("value")
        if value is None:
            raise unsupported(op, "only the 'value' form of Constant is lowered")
        module = op.get_toplevel_object()
        assert isinstance(module, ModuleOp)
        result_type = op.results[0].type
        buffer_type = memref_type(result_type)
        node = op.attributes.get("onnx_node_name")
        name = _global_name(module, node.data if isinstance(node, StringAttr) else "")
        array = elements_to_numpy(value)
        global_op = memref.GlobalOp.get(
            StringAttr(name),
            buffer_type,
            dense_attr(array, buffer_type),
            constant=UnitAttr(),
            alignment=16,
        )
        rewriter.insert(global_op, InsertPoint.at_start(module.body.block))
        get = memref.GetGlobalOp(name, buffer_type)
        rewriter.insert(get, InsertPoint.before(op))
        replace_with_buffers(rewriter, op, [get.memref])


class IdentityOpLowering(RewritePattern):
    """`onnx.Identity` is its input's buffer."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx.IdentityOp,  # type: ignore[name-defined]
        rewriter: PatternRewriter,
    ) -> None:
        replace_with_buffers(rewriter, op, [buffer_of(rewriter, op.operands[0])])
