"""`onnx-fold-constants`: evaluate at compile time what depends only on constants
and static shapes, and drop what nothing uses.

Exporters emit shape arithmetic that a compiler with static shapes can finish:
PyTorch's `x.view(x.size(0), -1)` becomes Shape -> Gather -> Unsqueeze -> Concat
-> Reshape, and fp16 or int weights come with a Cast. This pass turns such chains
into plain `onnx.Constant`s so the lowering sees constant shape inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from onnx.defs import OpSchema
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, NoneType, StringAttr, TensorType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from onnxc.dialects import onnx as onnx_dialect
from onnxc.dialects.constants import constant_attr, elements_to_numpy, numpy_dtype
from onnxc.errors import OnnxcError
from onnxc.folding import MAX_ROUNDS, NON_DETERMINISTIC, reference_hazard
from onnxc.ir_names import ONNX_NODE_NAME
from onnxc.lowering.onnx_export import evaluate
from onnxc.lowering.onnx_infer_shapes import has_dynamic_types, infer_function, update_signature


def _static_shape(value: SSAValue) -> tuple[int, ...] | None:
    value_type = value.type
    if not isinstance(value_type, TensorType):
        return None
    shape = tuple(value_type.get_shape())
    return None if any(size < 0 for size in shape) else shape


def _node_name(op: Operation) -> str:
    name = op.attributes.get(ONNX_NODE_NAME)
    return name.data if isinstance(name, StringAttr) else ""


def _constant(op: Operation, array: np.ndarray, result: SSAValue) -> onnx_dialect.OnnxOp:
    """An `onnx.Constant` of `result`'s element type holding `array` (so of
    its static shape), named after `op`."""
    old_type = result.type
    assert isinstance(old_type, TensorType)
    result_type = TensorType(old_type.get_element_type(), array.shape)
    hint = result.name_hint or _node_name(op) or "folded"
    attributes: dict[str, Attribute] = {}
    if ONNX_NODE_NAME in op.attributes:
        attributes[ONNX_NODE_NAME] = op.attributes[ONNX_NODE_NAME]
    constant = onnx_dialect.ConstantOp.create(
        result_types=[result_type],
        properties={"value": constant_attr(array, result_type, hint)},
        attributes=attributes,
    )
    constant.results[0].name_hint = result.name_hint
    return constant


def _replace_by_constants(
    rewriter: PatternRewriter, op: Operation, arrays: list[np.ndarray | None]
) -> None:
    """Replace each tensor result of `op` by a constant (None: a `none` result)."""
    for result, array in zip(op.results, arrays, strict=True):
        if array is None:
            continue
        constant = _constant(op, array, result)
        rewriter.insert(constant, InsertPoint.before(op))
        rewriter.replace_all_uses_with(result, constant.results[0])
    rewriter.erase(op)


def _is_constant(value: SSAValue) -> bool:
    """Whether `value` is an `onnx.Constant` in the `value` form."""
    owner = value.owner
    return isinstance(owner, onnx_dialect.ConstantOp) and "value" in owner.properties


def _constant_input(value: SSAValue) -> np.ndarray:
    owner = value.owner
    assert isinstance(owner, Operation)
    return elements_to_numpy(owner.properties["value"])


def _has_numpy_elements(value: SSAValue) -> bool:
    value_type = value.type
    if isinstance(value_type, NoneType):
        return True
    if not isinstance(value_type, TensorType):
        return False
    try:
        numpy_dtype(value_type.get_element_type())
    except TypeError:
        return False
    return True


def _checked(op: onnx_dialect.OnnxOp, result: SSAValue, value: Any) -> np.ndarray:
    """`value` as an array of `result`'s type (where its type has static
    sizes), or an error if it is not one."""
    result_type = result.type
    assert isinstance(result_type, TensorType)
    expected_dtype = numpy_dtype(result_type.get_element_type())
    expected_shape = tuple(result_type.get_shape())
    array = np.asarray(value)
    fits = len(array.shape) == len(expected_shape) and all(
        e < 0 or e == a for e, a in zip(expected_shape, array.shape, strict=True)
    )
    if array.dtype != expected_dtype or not fits:
        raise OnnxcError(
            f"{op.node_label()}: constant folding computed a "
            f"{array.dtype} tensor of shape {list(array.shape)}, but the operation's "
            f"type is {result_type}"
        )
    return array


class ShapeOpFolding(RewritePattern):
    """`onnx.Shape` of a statically shaped tensor -> the constant slice
    `shape[start:end]` (negative bounds count from the end, then clamp)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx_dialect.ShapeOp,
        rewriter: PatternRewriter,
    ) -> None:
        shape = _static_shape(op.operands[0])
        if shape is None:
            return
        start, end = op.attr("start"), op.attr("end")
        selected = shape[start:end] if end is not None else shape[start:]
        array = np.array(selected, dtype=np.int64)
        _replace_by_constants(rewriter, op, [_checked(op, op.results[0], array)])


class SizeOpFolding(RewritePattern):
    """`onnx.Size` of a statically shaped tensor -> its element count (an int64
    scalar)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx_dialect.SizeOp,
        rewriter: PatternRewriter,
    ) -> None:
        shape = _static_shape(op.operands[0])
        if shape is None:
            return
        array = np.array(int(np.prod(shape, dtype=np.int64)), dtype=np.int64)
        _replace_by_constants(rewriter, op, [_checked(op, op.results[0], array)])


_CONSTANT_FORMS: dict[str, np.dtype] = {
    "value_float": np.dtype(np.float32),
    "value_floats": np.dtype(np.float32),
    "value_int": np.dtype(np.int64),
    "value_ints": np.dtype(np.int64),
}


class ConstantOpNormalisation(RewritePattern):
    """`onnx.Constant` given by `value_float`, `value_floats`, `value_int` or
    `value_ints` -> the same constant given by a tensor `value` (the only form
    the lowering reads). String and sparse forms are left alone."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: onnx_dialect.ConstantOp,
        rewriter: PatternRewriter,
    ) -> None:
        form = next((name for name in _CONSTANT_FORMS if name in op.properties), None)
        if form is None or "value" in op.properties:
            return
        array = np.array(op.attr(form), dtype=_CONSTANT_FORMS[form])
        _replace_by_constants(rewriter, op, [_checked(op, op.results[0], array)])


class ConstantOperandsFolding(RewritePattern):
    """Any deterministic `onnx.*` operation without subgraphs whose inputs are
    all `onnx.Constant`s (omitted optional inputs aside) -> one constant per
    result, computed by onnx's reference implementation and checked against the
    operation's result types."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, onnx_dialect.OnnxOp) or not self._foldable(op):
            return
        present = [v for v in op.operands if not isinstance(v.type, NoneType)]
        if not present or not all(_is_constant(v) for v in present):
            return
        inputs = [None if isinstance(v.type, NoneType) else _constant_input(v) for v in op.operands]
        axis = op.attr("axis") if "axis" in op.SCHEMA.attributes else None
        hazard = reference_hazard(op.SCHEMA.name, inputs, axis if isinstance(axis, int) else None)
        if hazard is not None:
            raise OnnxcError(f"{op.node_label()}: {hazard}")
        try:
            values = evaluate(op, inputs)
        except Exception as error:  # the reference raises anything on bad input
            message = str(error).strip().splitlines()
            reason = message[0] if message else type(error).__name__
            raise OnnxcError(f"{op.node_label()}: constant folding failed: {reason}") from error
        arrays = [
            None if isinstance(r.type, NoneType) else _checked(op, r, v)
            for r, v in zip(op.results, values, strict=True)
        ]
        _replace_by_constants(rewriter, op, arrays)

    @staticmethod
    def _foldable(op: onnx_dialect.OnnxOp) -> bool:
        schema = op.SCHEMA
        if schema.name in NON_DETERMINISTIC or schema.name == "Constant":
            return False
        if any(a.type == OpSchema.AttrType.GRAPH for a in schema.attributes.values()):
            return False
        if schema.name == "Dropout" and not isinstance(op.operands[2].type, NoneType):
            return False  # training_mode may ask for a random mask
        return all(_has_numpy_elements(v) for v in [*op.operands, *op.results])


class DeadOperationErasure(RewritePattern):
    """An `onnx.*` operation (or `onnx.NoValue`) none of whose results is used,
    and which has no regions -> erased."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, onnx_dialect.OnnxOp | onnx_dialect.NoValueOp):
            return
        if op.regions or any(result.uses for result in op.results):
            return
        rewriter.erase(op)


@dataclass(frozen=True)
class OnnxFoldConstantsPass(ModulePass):
    """Fold shapes and constant subexpressions of the onnx dialect into
    `onnx.Constant`s and erase dead onnx operations, to a fixed point.
    Preconditions: `onnx.*` operations on tensors (as the importer produces them);
    Shape and Size are folded only for statically shaped inputs. Postconditions:
    every `onnx.Shape`/`onnx.Size` of a static tensor and every deterministic,
    region-free onnx operation whose inputs are all constants is replaced by an
    `onnx.Constant` with a tensor `value` (keeping the node's `onnx_node_name`),
    every `onnx.Constant` in the `value_float(s)`/`value_int(s)` forms uses `value`
    instead, and no region-free onnx operation is left with all results unused.
    The folded values come from `onnx.reference` and must match the result types
    inferred at import, otherwise the pass fails naming the node. When types
    have dynamic sizes, each round of folding is followed by
    `onnx-infer-shapes`, and folding repeats while that makes a type more
    static (a Shape of a tensor whose sizes became known folds next round)."""

    name = "onnx-fold-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        walker = PatternRewriteWalker(
            GreedyRewritePatternApplier(
                [
                    ConstantOpNormalisation(),
                    ShapeOpFolding(),
                    SizeOpFolding(),
                    ConstantOperandsFolding(),
                    DeadOperationErasure(),
                ]
            ),
            apply_recursively=True,
        )
        functions = [f for f in op.walk() if isinstance(f, func.FuncOp)]
        for _ in range(MAX_ROUNDS):
            walker.rewrite_module(op)
            for function in functions:
                update_signature(function)
            dynamic = [f for f in functions if has_dynamic_types(f)]
            if not any([infer_function(f) for f in dynamic]):
                break
