"""Helpers shared by the onnx-to-linalg patterns.

The conversion is one walk over the function: each pattern replaces an `onnx.*`
operation on tensors by linalg (and memref) operations on buffers. While the walk
is under way, tensor and buffer values meet through
`builtin.unrealized_conversion_cast`: `buffer_of` gets the buffer behind a tensor
operand, `replace_with_buffers` hands the new buffers to the remaining tensor
users. The pass removes the casts once every operation is converted.

A new elementwise lowering is one call to `elementwise`; anything structured is
one call to `generic` with its indexing maps.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar, cast, get_args, get_origin

import numpy as np
from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    IndexType,
    MemRefType,
    ModuleOp,
    NoneType,
    StringAttr,
    TensorType,
    UnitAttr,
    UnrealizedConversionCastOp,
)
from xdsl.dialects.linalg import ops as linalg_ops
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import SymbolTable

from onnxc import element_types
from onnxc.dialects import onnx
from onnxc.dialects.constants import dense_attr, elements_to_numpy, numpy_dtype
from onnxc.dialects.onnxc import CheckOp
from onnxc.dialects.onnxc_strings import STRING, StringElementsAttr, StringGlobalOp
from onnxc.errors import InternalError, UnsupportedError
from onnxc.ir_names import COMMENT
from onnxc.lowering.convert_onnx_to_linalg.scalar import constant_ops, convert
from onnxc.lowering.convert_onnx_to_linalg.shapes import Shapes
from onnxc.lowering.index_arith import Size

PARALLEL = IteratorTypeAttr.parallel()
REDUCTION = IteratorTypeAttr.reduction()

BodyBuilder = Callable[[Builder, Sequence[SSAValue]], SSAValue | Sequence[SSAValue]]
"""Builds the scalar body of a generic: gets the block arguments (one per input,
then one per output, the outputs holding the current accumulator), returns the
value(s) to yield."""


OpT = TypeVar("OpT", bound=onnx.OnnxOp)


@dataclass
class LoweringContext:
    """What the patterns of one run of the pass share: the `Shapes` of each
    function being lowered, and what to do before lowering each op (follow
    shape values, `shape_values.track`)."""

    shapes: dict[Operation, Shapes]
    before: Callable[[onnx.OnnxOp, Shapes], None] = lambda op, shapes: None
    lowered: Callable[[], None] = lambda: None
    """Called after each node is lowered (progress, `node_progress`)."""
    finishers: list[Callable[[], None]] = field(default_factory=list[Callable[[], None]])
    """Called in order once every op is lowered: what a pattern can only
    finish when the ops nested in it are (the yields of If and Loop bodies)."""
    double_sums: bool = True
    """Long float sums accumulate in double (the target's `double_sums`)."""
    transposed_recurrences: bool = False
    """Recurrent layers read W and R through transposed copies in the
    workspace (`recurrent/rnn.py`): host targets, whose memory holds them."""

    def shapes_of(self, op: Operation) -> Shapes:
        parent = op.parent_op()
        while parent is not None and parent not in self.shapes:
            parent = parent.parent_op()
        if parent is None:
            raise UnsupportedError(f"{op.name} is outside any function being lowered")
        return self.shapes[parent]


class OnnxLowering(RewritePattern, Generic[OpT]):
    """Base of the convert-onnx-to-linalg patterns: lowers the operations of one
    class, `source` (taken from the type argument, `OnnxLowering[onnx.ConvOp]`,
    or set by the subclass), with `rewrite`. The pass collects every subclass
    that has a `source`, so the lowered operators are known by class. While
    `rewrite` runs, `shapes` holds the sizes of the function being lowered,
    building run-time size arithmetic before the op being rewritten."""

    source: ClassVar[type[onnx.OnnxOp]]
    shapes: Shapes

    def __init__(self, context: LoweringContext) -> None:
        self.context = context

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for base in getattr(cls, "__orig_bases__", ()):
            if get_origin(base) is OnnxLowering:
                (argument,) = get_args(base)
                if isinstance(argument, type) and argument is not onnx.OnnxOp:
                    cls.source = argument

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, self.source):
            self.shapes = self.context.shapes_of(op)
            self.shapes.use(rewriter)
            self.context.before(op, self.shapes)
            try:
                self.rewrite(cast(OpT, op), rewriter)
            except UnsupportedError as error:  # name the node, once
                if str(error).startswith("node '"):
                    raise
                raise UnsupportedError(f"{op.node_label()}: {error}") from None
            self.context.lowered()

    def replace(
        self, rewriter: PatternRewriter, op: Operation, buffers: Sequence[SSAValue | None]
    ) -> None:
        """`replace_with_buffers`, first binding the symbols of `op`'s results
        that are not bound yet to their buffers' sizes."""
        for result, buffer in zip(op.results, buffers, strict=True):
            if buffer is not None and isinstance(result.type, TensorType):
                self.shapes.result_sizes(result, self.shapes.sizes(buffer))
        replace_with_buffers(rewriter, op, buffers, self.shapes)

    def result_buffer(
        self, rewriter: PatternRewriter, result: SSAValue, computed: Sequence[Size]
    ) -> SSAValue:
        """A new buffer for `result`, of the sizes `result_sizes` gives it."""
        return alloc(rewriter, result.type, self.shapes.result_sizes(result, computed))

    def rewrite(self, op: OpT, rewriter: PatternRewriter) -> None:
        raise NotImplementedError(type(self).__name__)


def unsupported(op: onnx.OnnxOp, what: str) -> UnsupportedError:
    """The error for a case `op`'s pattern does not lower, naming the node."""
    return UnsupportedError(f"{op.node_label()}: {what}")


def check(rewriter: PatternRewriter, op: Operation, condition: SSAValue, what: str) -> None:
    """A run-time check that `condition` holds (ONNXC_ERR_SHAPE otherwise),
    described as `what` of `op`'s node."""
    rewriter.insert(CheckOp(condition, f"{comment_for(op).data}: {what}"))


def require_equal(
    rewriter: PatternRewriter, shapes: Shapes, op: onnx.OnnxOp, got: Size, want: Size, what: str
) -> None:
    """Sizes `got` and `want` are equal (`what` says what that means): an
    error now where both are known, else a run-time check."""
    if isinstance(got, int) and isinstance(want, int):
        if got != want:
            raise unsupported(op, f"not the case that {what} ({got} != {want})")
    elif not shapes.same(got, want):
        check(rewriter, op, shapes.equal(got, want), what)


def comment_for(op: Operation) -> StringAttr:
    """The `onnxc.comment` of what `op` lowers to: 'OpType node_name'."""
    label = onnx.node_name(op) if isinstance(op, onnx.OnnxOp) else ""
    kind = op.SCHEMA.name if isinstance(op, onnx.OnnxOp) else op.name
    return StringAttr(f"{kind} {label}".strip())


def tensor_type(value: SSAValue) -> TensorType:
    value_type = value.type
    assert isinstance(value_type, TensorType), value_type
    return value_type


def memref_type(value_type: Attribute) -> MemRefType:
    """The buffer type of a tensor type (identity layout)."""
    assert isinstance(value_type, TensorType | MemRefType), value_type
    return MemRefType(value_type.get_element_type(), value_type.get_shape())


def shape_of(value: SSAValue) -> tuple[int, ...]:
    value_type = value.type
    assert isinstance(value_type, TensorType | MemRefType), value_type
    return tuple(value_type.get_shape())


def is_none(value: SSAValue) -> bool:
    """An omitted optional input or output."""
    return isinstance(value.owner, onnx.NoValueOp) or isinstance(value.type, NoneType)


def buffer_of(rewriter: PatternRewriter, value: SSAValue) -> SSAValue:
    """The buffer holding tensor `value` (a cast is inserted while its producer
    is still unconverted)."""
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and isinstance(
        owner.inputs[0].type, MemRefType
    ):
        return owner.inputs[0]
    cast = UnrealizedConversionCastOp.get([value], [memref_type(value.type)])
    rewriter.insert(cast)
    return cast.results[0]


def buffer_behind(value: SSAValue) -> SSAValue:
    """The buffer of a tensor whose producer is lowered (the input of the
    cast that stands for it)."""
    owner = value.owner
    if isinstance(owner, UnrealizedConversionCastOp) and isinstance(
        owner.inputs[0].type, MemRefType
    ):
        return owner.inputs[0]
    raise InternalError(f"internal error: {value} is computed by an unconverted operation")


def replace_with_buffers(
    rewriter: PatternRewriter,
    op: Operation,
    buffers: Sequence[SSAValue | None],
    shapes: Shapes | None = None,
) -> None:
    """Replace `op`'s tensor results by buffers (None for a `none` result);
    what `shapes` knows of the results' values moves to their replacements."""
    new_results: list[SSAValue | None] = []
    for result, buffer in zip(op.results, buffers, strict=True):
        if buffer is None:
            new_results.append(None)
            continue
        if isinstance(buffer.owner, memref.AllocOp) and not buffer.name_hint:
            buffer.name_hint = result.name_hint  # the ONNX tensor's name, for the C
        cast = UnrealizedConversionCastOp.get([buffer], [result.type])
        rewriter.insert(cast, InsertPoint.before(op))
        new_results.append(cast.results[0])
    for result, new in zip(op.results, new_results, strict=True):
        if new is not None:
            result.replace_all_uses_with(new)
            if shapes is not None and result in shapes.elements:
                shapes.elements[new] = shapes.elements.pop(result)
    for result in op.results:
        if result.uses:
            label = op.node_label() if isinstance(op, onnx.OnnxOp) else op.name
            raise UnsupportedError(f"{label}: an optional output that is not supported is used")
    rewriter.erase(op)


def alloc(
    rewriter: PatternRewriter, value_type: Attribute, sizes: Sequence[Size] | None = None
) -> SSAValue:
    """A new buffer for a value of `value_type` (a tensor or memref type), of
    `sizes` (which a type with dynamic dimensions needs)."""
    element = memref_type(value_type).get_element_type()
    if sizes is None:
        shape = shape_of_type(value_type)
        if any(size < 0 for size in shape):
            raise InternalError(f"internal error: allocating {value_type} without its sizes")
        sizes = list(shape)
    shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
    dynamic = [s for s in sizes if isinstance(s, SSAValue)]
    op = memref.AllocOp.get(element, shape=shape, dynamic_sizes=dynamic)
    rewriter.insert(op)
    return op.memref


def load_scalar(rewriter: PatternRewriter, op: onnx.OnnxOp, value: SSAValue) -> SSAValue:
    """The one element of a scalar operand, loaded at run time. A tensor of
    one element of any rank is accepted as the scalar (function bodies pass
    [1]-shaped values where the spec says scalar); more elements are an
    `unsupported` error naming `op`."""
    buffer = buffer_of(rewriter, value)
    shape = shape_of(value)
    if any(size != 1 for size in shape):
        raise unsupported(op, f"a scalar input has shape {list(shape)}")
    zero = rewriter.insert(arith.ConstantOp.from_int_and_width(0, IndexType())).result
    return rewriter.insert(memref.LoadOp.get(buffer, [zero] * len(shape))).res


def shape_of_type(value_type: Attribute) -> tuple[int, ...]:
    assert isinstance(value_type, TensorType | MemRefType), value_type
    return tuple(value_type.get_shape())


def insert(rewriter: PatternRewriter, op: Operation, source: Operation) -> Operation:
    """Insert `op` before the operation being rewritten, tagged with the ONNX
    node it comes from."""
    op.attributes[COMMENT] = comment_for(source)
    rewriter.insert(op)
    return op


def identity_map(rank: int) -> AffineMap:
    return AffineMap.identity(rank)


def generic(
    rewriter: PatternRewriter,
    source: Operation,
    inputs: Sequence[SSAValue],
    outputs: Sequence[SSAValue],
    maps: Sequence[AffineMap],
    iterators: Sequence[IteratorTypeAttr],
    body: BodyBuilder,
) -> linalg_ops.GenericOp:
    """Insert a `linalg.generic` over buffers; `body` builds its scalar region."""
    element_types = [element_type(v) for v in [*inputs, *outputs]]
    block = Block(arg_types=element_types)
    builder = Builder(InsertPoint.at_end(block))
    yielded = body(builder, block.args)
    values = [yielded] if isinstance(yielded, SSAValue) else list(yielded)
    builder.insert(linalg_ops.YieldOp(*values))
    op = linalg_ops.GenericOp(
        inputs,
        outputs,
        Region(block),
        [AffineMapAttr(m) for m in maps],
        iterators,
    )
    insert(rewriter, op, source)
    return op


def copy(
    rewriter: PatternRewriter,
    source: Operation,
    input_buffer: SSAValue,
    output_buffer: SSAValue,
    read: AffineMap,
    write: AffineMap,
) -> linalg_ops.GenericOp:
    """Copy elements of `input_buffer` into `output_buffer`: loop point `p` reads
    `read(p)` and writes `write(p)` (a transpose, a slice, a concat piece)."""
    return generic(
        rewriter,
        source,
        [input_buffer],
        [output_buffer],
        [read, write],
        [PARALLEL] * read.num_dims,
        lambda _, args: args[0],
    )


IndexedBody = Callable[[Builder, list[SSAValue], Sequence[SSAValue]], SSAValue]
"""Builds the element at one output position: gets the position (one `index`
per output axis) and the elements of the generic's inputs there."""


def indexed_generic(
    rewriter: PatternRewriter,
    source: Operation,
    output: SSAValue,
    body: IndexedBody,
    inputs: Sequence[SSAValue] = (),
    input_maps: Sequence[AffineMap] = (),
) -> linalg_ops.GenericOp:
    """A parallel generic over every position of `output`: `body` gets the
    position (`linalg.index` of each loop) and the elements of `inputs` (read
    through `input_maps`), and gives the element to write, usually loaded
    from a buffer at a position it computes."""
    rank = len(shape_of(output))

    def indexed(b: Builder, args: Sequence[SSAValue]) -> SSAValue:
        position: list[SSAValue] = [b.insert(linalg_ops.IndexOp(d)).result for d in range(rank)]
        return body(b, position, args[: len(inputs)])

    maps = [*input_maps, identity_map(rank)]
    return generic(rewriter, source, inputs, [output], maps, [PARALLEL] * rank, indexed)


def row_major(b: Builder, position: Sequence[SSAValue], sizes: Sequence[SSAValue]) -> SSAValue:
    """The row-major linear `index` of `position` in a grid of `sizes`
    (`index` values), built at `b`."""
    if not position:  # a scalar: its one element
        return b.insert(arith.ConstantOp.from_int_and_width(0, IndexType())).result
    linear = position[0]
    for at, size in zip(position[1:], sizes[1:], strict=True):
        scaled = b.insert(arith.MuliOp(linear, size)).result
        linear = b.insert(arith.AddiOp(scaled, at)).result
    return linear


def element_type(value: SSAValue) -> Attribute:
    """The element type of a tensor or memref value (a scalar's own type)."""
    value_type = value.type
    if isinstance(value_type, MemRefType | TensorType):
        return value_type.get_element_type()
    return value_type


def elementwise(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    body: BodyBuilder,
    inputs: Sequence[SSAValue] | None = None,
) -> None:
    """Lower `op` as an elementwise map of its inputs (multidirectionally
    broadcast to its single result's shape) into a new buffer, and replace it."""
    tensors = list(op.operands if inputs is None else inputs)
    result = op.results[0]
    in_sizes = [shapes.sizes(t) for t in tensors]
    computed = broadcast_sizes(shapes, in_sizes, len(shape_of(result)))
    output = alloc(rewriter, result.type, shapes.result_sizes(result, computed))
    broadcast_into(rewriter, shapes, op, body, tensors, output)
    replace_with_buffers(rewriter, op, [output], shapes)


def broadcast_sizes(shapes: Shapes, in_sizes: Sequence[Sequence[Size]], rank: int) -> list[Size]:
    """The sizes inputs of `in_sizes` broadcast to (numpy rules, at `rank`)."""
    computed: list[Size] = []
    for axis in range(rank):
        size: Size = 1
        for sizes in in_sizes:
            offset = rank - len(sizes)
            if axis >= offset:
                size = shapes.broadcast(size, sizes[axis - offset])
        computed.append(size)
    return computed


def broadcast_into(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    body: BodyBuilder,
    tensors: Sequence[SSAValue],
    output: SSAValue,
    extra: Sequence[tuple[SSAValue, AffineMap]] = (),
) -> None:
    """Write `body` of `tensors` (broadcast to `output`'s sizes), and of the
    `extra` buffers (read through their maps), into `output`; the body gets
    the tensors' elements, then the extras'.

    An input dimension that is 1 repeats and one equal to the output's (the
    same size or symbol) is read as is, through the generic's indexing map.
    One that may or may not be 1, which only the sizes given at run time tell,
    is read in the body at `size == 1 ? 0 : index`, after a check that it is 1
    or the output's size."""
    out_sizes = shapes.sizes(output)
    rank = len(out_sizes)
    in_sizes = [shapes.sizes(t) for t in tensors]
    buffers = [buffer_of(rewriter, t) for t in tensors]
    mapped: list[int] = []
    maps: list[AffineMap] = []
    runtime: dict[int, list[bool]] = {}
    for k, sizes in enumerate(in_sizes):
        reads = broadcast_reads(rewriter, shapes, op, f"input {k}", sizes, out_sizes)
        if any(r is None for r in reads):
            runtime[k] = [r is None for r in reads]
        else:
            mapped.append(k)
            maps.append(AffineMap(rank, 0, tuple(r for r in reads if r is not None)))
    maps += [m for _, m in extra]
    maps.append(identity_map(rank))

    def gathered(b: Builder, args: Sequence[SSAValue]) -> SSAValue | Sequence[SSAValue]:
        values: dict[int, SSAValue] = dict(zip(mapped, args, strict=False))
        if runtime:
            loop = [b.insert(linalg_ops.IndexOp(d)).result for d in range(rank)]
            for k, ambiguous in runtime.items():
                indices = broadcast_indices(b, shapes, in_sizes[k], ambiguous, loop)
                values[k] = b.insert(memref.LoadOp.get(buffers[k], indices)).res
        rest = list(args[len(mapped) : len(args) - 1])  # the extras' elements
        return body(b, [*(values[k] for k in range(len(tensors))), *rest])

    generic(
        rewriter,
        op,
        [*(buffers[k] for k in mapped), *(buffer for buffer, _ in extra)],
        [output],
        maps,
        [PARALLEL] * rank,
        gathered,
    )


def broadcast_reads(
    rewriter: PatternRewriter,
    shapes: Shapes,
    op: onnx.OnnxOp,
    what: str,
    sizes: Sequence[Size],
    out_sizes: Sequence[Size],
) -> list[AffineExpr | None]:
    """How an operand of `sizes` is read when broadcast (numpy rules, aligned
    at the right) to `out_sizes`: per operand axis, the loop dimension, 0 for
    a size-1 axis that repeats, or None for a size that may or may not be 1
    (only the sizes given at run time tell; a run-time check that it is 1 or
    the output's size is inserted)."""
    offset = len(out_sizes) - len(sizes)
    if offset < 0:  # a result of a lower rank (Clip's min not a scalar)
        rank = len(out_sizes)
        raise unsupported(op, f"{what} of rank {len(sizes)} does not broadcast to rank {rank}")
    reads: list[AffineExpr | None] = []
    for j, size in enumerate(sizes):
        out = out_sizes[offset + j]
        if shapes.same(size, out):
            reads.append(AffineDimExpr(offset + j))
        elif size == 1:
            reads.append(AffineConstantExpr(0))
        elif isinstance(size, int) and isinstance(out, int):
            raise unsupported(op, f"{what} of size {size} does not broadcast to {out}")
        else:
            reads.append(None)
            fits = shapes.either(shapes.equal(size, 1), shapes.equal(size, out))
            check(rewriter, op, fits, f"{what} broadcasts")
    return reads


def broadcast_indices(
    b: Builder,
    shapes: Shapes,
    sizes: Sequence[Size],
    ambiguous: Sequence[bool],
    loop: Sequence[SSAValue],
) -> list[SSAValue]:
    """Inside a body, the indices of an operand of `sizes` broadcast to the
    last len(sizes) of the `loop` indices: `size == 1 ? 0 : index` where it
    is `ambiguous`, 0 where the size is 1, the loop index elsewhere."""
    offset = len(loop) - len(sizes)
    zero = b.insert(arith.ConstantOp.from_int_and_width(0, IndexType())).result
    indices: list[SSAValue] = []
    for j, unknown in enumerate(ambiguous):
        if unknown:
            one = b.insert(arith.CmpiOp(shapes.index(sizes[j]), shapes.index(1), "eq"))
            indices.append(b.insert(arith.SelectOp(one, zero, loop[offset + j])).result)
        else:
            indices.append(zero if sizes[j] == 1 else loop[offset + j])
    return indices


def constant_value(value: SSAValue) -> np.ndarray | None:
    """The compile-time value of a tensor, if it is a constant (an `onnx.Constant`
    with a `value`, or an already lowered weight), else None."""
    owner = value.owner
    if isinstance(owner, onnx.ConstantOp):
        tensor = owner.properties.get("value")
        return None if tensor is None else elements_to_numpy(tensor)
    if isinstance(owner, UnrealizedConversionCastOp):
        source = owner.inputs[0].owner
        if isinstance(source, memref.GetGlobalOp):
            module = source.get_toplevel_object()
            if isinstance(module, ModuleOp):
                symbol = SymbolTable.lookup_symbol(module, source.name_)
                if isinstance(symbol, memref.GlobalOp | StringGlobalOp) and not isinstance(
                    symbol.initial_value, type(None)
                ):
                    return elements_to_numpy(symbol.initial_value)
        return (
            constant_value(owner.inputs[0])
            if isinstance(owner.inputs[0].type, TensorType)
            else None
        )
    return None


def required_constant(op: onnx.OnnxOp, value: SSAValue, what: str) -> np.ndarray:
    """The constant value of input `what`, or a clear error when it is computed
    at run time."""
    array = constant_value(value)
    if array is None:
        raise unsupported(op, f"input '{what}' must be a compile-time constant")
    return array


def normalize_axis(op: onnx.OnnxOp, axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise unsupported(op, f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def weight(
    rewriter: PatternRewriter,
    source: onnx.OnnxOp,
    array: np.ndarray,
    element_type: Attribute,
    suffix: str = "",
) -> SSAValue:
    """A compile-time array, converted to `element_type`, as a private
    constant `memref.global` named after the node, read with
    `memref.get_global`."""
    module = source.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    hint = onnx.node_name(source) or source.SCHEMA.name
    label = f"{hint}_{suffix}" if suffix else hint
    base = re.sub(r"[^A-Za-z0-9_]", "_", label).strip("_")
    if not base or base[0].isdigit():
        base = "w_" + base
    name, counter = base, 0
    while SymbolTable.lookup_symbol(module, name) is not None:
        counter += 1
        name = f"{base}_{counter}"
    buffer_type = MemRefType(element_type, list(array.shape))
    if element_type == STRING:
        strings = dense_attr(array, buffer_type)
        assert isinstance(strings, StringElementsAttr)
        rewriter.insert(StringGlobalOp(name, strings), InsertPoint.at_start(module.body.block))
        return rewriter.insert(memref.GetGlobalOp(name, buffer_type)).memref
    global_op = memref.GlobalOp.get(
        StringAttr(name),
        buffer_type,
        dense_attr(array.astype(numpy_dtype(element_type)), buffer_type),
        constant=UnitAttr(),
        alignment=16,
    )
    rewriter.insert(global_op, InsertPoint.at_start(module.body.block))
    return rewriter.insert(memref.GetGlobalOp(name, buffer_type)).memref


def fill(rewriter: PatternRewriter, source: Operation, buffer: SSAValue, value: float) -> None:
    """Fill `buffer` with `value` in its element type (`linalg.fill`)."""
    element = memref_type(buffer.type).get_element_type()
    ops = constant_ops(value, element)
    for op in ops:
        rewriter.insert(op)
    fill_with(rewriter, source, buffer, ops[-1].results[0])


def fill_with(
    rewriter: PatternRewriter, source: Operation, buffer: SSAValue, value: SSAValue
) -> None:
    """Fill `buffer` with the scalar `value`: `linalg.fill` (a number), or a
    `linalg.generic` yielding it (a string, which linalg.fill does not take)."""
    if value.type != STRING:
        insert(rewriter, linalg_ops.FillOp((value,), (buffer,), ()), source)
        return
    rank = len(memref_type(buffer.type).get_shape())
    generic(
        rewriter, source, [], [buffer], [identity_map(rank)], [PARALLEL] * rank, lambda b, _: value
    )


def accumulator_type(element: Attribute) -> Attribute:
    """The type sums and products of `element` accumulate in: float for the
    16-bit float types (so a reduction rounds once, at the end, as
    onnxruntime's float kernels do), the element type itself otherwise."""
    row = element_types.of_ir(element)
    return row.compute_type if row is not None and row.compute_type is not None else element


@dataclass
class Accumulator:
    """Where an operation accumulates its `output` buffer: the buffer itself,
    or, for 16-bit float outputs, a float buffer of the same shape that
    `finish` rounds into `output`."""

    buffer: SSAValue
    output: SSAValue

    def finish(self, rewriter: PatternRewriter, source: Operation) -> None:
        if self.buffer is self.output:
            return
        rank = len(shape_of(self.output))
        target = element_type(self.output)
        generic(
            rewriter,
            source,
            [self.buffer],
            [self.output],
            [identity_map(rank), identity_map(rank)],
            [PARALLEL] * rank,
            lambda b, args: convert(b, args[0], target),
        )


def accumulator(
    rewriter: PatternRewriter, output: SSAValue, sizes: Sequence[Size] | None = None
) -> Accumulator:
    """The `Accumulator` of `output`, of `sizes` (a new buffer for 16-bit
    floats)."""
    element = element_type(output)
    wide = accumulator_type(element)
    if wide == element:
        return Accumulator(output, output)
    buffer = alloc(rewriter, MemRefType(wide, shape_of(output)), sizes)
    return Accumulator(buffer, output)


def widened(b: Builder, values: Sequence[SSAValue], t: Attribute) -> list[SSAValue]:
    """`values` converted to type `t` (the accumulator's), where they differ."""
    return [v if v.type == t else convert(b, v, t) for v in values]
