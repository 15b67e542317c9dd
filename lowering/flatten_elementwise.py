"""`flatten-elementwise`: an elementwise structured op over whole buffers
runs as one loop over all their elements.

An elementwise op of an NCHW tensor (QuantizeLinear, an activation, a
residual Add) becomes a nest of four loops whose innermost one runs over a
row, often of a few elements (DS-CNN's 5, a pooled 1): too short for the C
compiler to vectorize, so a QuantizeLinear ran one scalar division per
element. Over the buffers' collapsed views (`memref.collapse_shape`, a
pointer in C) the same op is one loop of C * H * W trips, which it
vectorizes, and no loop of one trip is left for the nest's comment to lose.

Preconditions: linalg on buffers (after `plan-memory`). Postconditions: every
`linalg.generic` with only parallel iterators over two or more dimensions,
whose body reads no `linalg.index`, whose operands are buffers of static
shapes in the default row-major layout and of byte-addressable element types,
and whose indexing maps are each the identity or read one element (no
dimension: a scalar operand's), iterates over one dimension: its
identity-mapped operands are their one-dimensional views.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AnyFloat,
    ArrayAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    i64,
)
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.dialects.linalg.ops import GenericOp, IndexOp
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter


@dataclass(frozen=True)
class FlattenElementwisePass(ModulePass):
    name = "flatten-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for generic in [o for o in op.walk() if isinstance(o, GenericOp)]:
            if _flattens(generic):
                _flatten(generic)


def _flat_element(t: Attribute) -> bool:
    """Whether a buffer of elements `t` is addressed element by element (not
    the packed 4- and 2-bit types, not strings)."""
    if isinstance(t, IntegerType):
        return t.width.data in (1, 8, 16, 32, 64)
    return isinstance(t, AnyFloat)


def _flattens(op: GenericOp) -> bool:
    rank = len(op.iterator_types)
    if rank < 2 or any(i.data != IteratorType.PARALLEL for i in op.iterator_types.data):
        return False
    if any(isinstance(inner, IndexOp) for inner in op.body.walk()):
        return False
    shape: tuple[int, ...] | None = None
    for operand, indexing in zip(op.operands, op.indexing_maps.data, strict=True):
        t = operand.type
        if not isinstance(t, MemRefType) or not isinstance(t.layout, NoneAttr):
            return False
        if not _flat_element(t.get_element_type()):
            return False
        affine = indexing.data
        if affine == AffineMap.identity(rank):
            if shape is not None and tuple(t.get_shape()) != shape:
                return False
            shape = tuple(t.get_shape())
        elif affine.results or t.get_shape():
            return False
    return shape is not None and all(size >= 0 for size in shape)


def _flatten(op: GenericOp) -> None:
    rank = len(op.iterator_types)
    identity = AffineMap.identity(rank)
    point = InsertPoint.before(op)

    def flat(value: SSAValue, indexing: AffineMapAttr) -> tuple[SSAValue, AffineMapAttr]:
        if indexing.data != identity:
            return value, AffineMapAttr(AffineMap(1, 0, ()))
        t = value.type
        assert isinstance(t, MemRefType)
        size = 1
        for extent in t.get_shape():
            size *= extent
        group = ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in range(rank)])])
        view = memref.CollapseShapeOp.create(
            operands=[value],
            result_types=[MemRefType(t.get_element_type(), [size])],
            properties={"reassociation": group},
        )
        Rewriter.insert_op(view, point)
        view.result.name_hint = value.name_hint
        return view.result, AffineMapAttr(AffineMap.identity(1))

    maps = list(op.indexing_maps.data)
    ins = [flat(v, m) for v, m in zip(op.inputs, maps[: len(op.inputs)], strict=True)]
    outs = [flat(v, m) for v, m in zip(op.outputs, maps[len(op.inputs) :], strict=True)]
    new = GenericOp(
        [v for v, _ in ins],
        [v for v, _ in outs],
        Rewriter.move_region_contents_to_new_regions(op.body),
        [m for _, m in ins + outs],
        [IteratorTypeAttr.parallel()],
        [r.type for r in op.results],
    )
    new.attributes.update(op.attributes)
    Rewriter.replace_op(op, new)
