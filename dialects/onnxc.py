"""The `onnxc` dialect: the few operations of the model's C interface that
arith, memref and func have no words for.

Sizes known only at run time cross the interface here: how big an input is
(`onnxc.input`), how big an output turns out to be and whether the caller's
buffer holds it (`onnxc.output`), whether the workspace holds what a
data-dependent buffer needs (`onnxc.workspace`), and whether sizes given at run
time fit the model (`onnxc.check`). The C printer turns each into a few lines
that return a distinct status (`ONNXC_ERR_SHAPE`, `ONNXC_ERR_CAPACITY`,
`ONNXC_ERR_WORKSPACE`) instead of touching memory out of bounds.

A Loop's carried value whose size changes from trip to trip, or an If
result whose size the branch taken decides, lives in `onnxc.loop_storage`,
bytes that plan-memory takes from the workspace left when the loop (or
branch) starts; `onnxc.reserve` says how many of them a write is about
to use (plan-memory turns it into a workspace check), and
`onnxc.workspace_available` reads how many bytes the caller gave.

Two scalar operations are the runtime's own: `onnxc.uniform`, the random
number of the random operators, which the C printer prints as a call of the
runtime's counter-based generator, and `onnxc.sigmoid`, the logistic
function (Sigmoid, SiLU, the recurrent gates), which it prints as the
runtime's vectorisable `onnxc_sigmoidf` on float. Two more are calls of the runtime's image
decoder (onnxc_image.c): `onnxc.image_size` and `onnxc.image_decode`.
`onnxc.profile_mark`, only in profiling builds, calls the hook whoever links
the model provides (`onnxc_profile_mark`, declared by the runtime header).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.dialects.builtin import (
    I1,
    AnyFloatConstr,
    ArrayAttr,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure
from xdsl.utils.exceptions import VerifyException

from onnxc.dialects.onnxc_strings import STRING_ATTRIBUTES, STRING_OPS
from onnxc.ir_names import MAX_BUFFER_BYTES, MAX_ELEMENTS, SIZE_LIMITS


@dataclass(frozen=True)
class SizeLimits:
    """The most elements a tensor sized at run time may have and the most
    bytes a buffer may take (`onnxc.ir_names.MAX_ELEMENTS`); a function's
    are in its `onnxc.size_limits` attribute, the 64-bit ones without it."""

    elements: int = MAX_ELEMENTS
    buffer_bytes: int = MAX_BUFFER_BYTES

    def describe(self) -> str:
        """ "2^40 elements", for check messages."""
        n = self.elements
        return f"2^{n.bit_length() - 1} elements" if n & (n - 1) == 0 else f"{n} elements"

    @staticmethod
    def of(function: Operation) -> SizeLimits:
        found = function.attributes.get(SIZE_LIMITS)
        if isinstance(found, ArrayAttr) and len(found.data) == 2:
            elements, buffer_bytes = found.data
            if isinstance(elements, IntegerAttr) and isinstance(buffer_bytes, IntegerAttr):
                return SizeLimits(elements.value.data, buffer_bytes.value.data)
        return SizeLimits()

    def attach(self, function: Operation) -> None:
        """Record these limits on `function`."""
        function.attributes[SIZE_LIMITS] = ArrayAttr(
            [IntegerAttr(self.elements, 64), IntegerAttr(self.buffer_bytes, 64)]
        )


def _dynamic_count(t: Attribute) -> int:
    assert isinstance(t, MemRefType)
    return sum(1 for s in t.get_shape() if s < 0)


class _BindingOp(IRDLOperation):
    """A graph input or output buffer (memref argument `index` of its kind)
    seen with its run-time sizes, one `index` operand per dynamic dimension of
    the result."""

    argument = operand_def(MemRefType)
    sizes = var_operand_def(IndexType)
    index = prop_def(IntegerAttr)
    result = result_def(MemRefType)

    assembly_format = (
        "$argument `[` $sizes `]` `index` $index attr-dict `:` type($argument) `to` type($result)"
    )

    def __init__(self, argument: SSAValue, sizes: Sequence[SSAValue], index: int, t: Attribute):
        super().__init__(
            operands=[argument, sizes],
            result_types=[t],
            properties={"index": IntegerAttr(index, i64)},
        )

    def verify_(self) -> None:
        if len(self.sizes) != _dynamic_count(self.result.type):
            raise VerifyException(f"{self.name} needs one size per dynamic dimension")


@irdl_op_definition
class InputOp(_BindingOp):
    """`onnxc.input`: graph input `index` with the sizes given at run time."""

    name = "onnxc.input"

    # It reads the caller's sizes and may stop the model (a size above its
    # bound): kept even where the input's values are not read (an input read
    # only for its length), so the C interface still binds its dimensions.
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())


@irdl_op_definition
class OutputOp(_BindingOp):
    """`onnxc.output`: graph output `index` with the sizes the model computed:
    its shape is reported to the caller, and if the caller's capacity is too
    small the model stops with ONNXC_ERR_CAPACITY before writing anything
    there. Outputs bound next to each other (only arithmetic between them)
    stop together, once every one of their shapes is reported."""

    name = "onnxc.output"

    traits = traits_def(MemoryWriteEffect())


@irdl_op_definition
class CheckOp(IRDLOperation):
    """`onnxc.check %ok, "why"`: the model stops with ONNXC_ERR_SHAPE unless
    `%ok` holds (sizes given at run time that do not fit the model)."""

    name = "onnxc.check"

    condition = operand_def(I1)
    message = prop_def(StringAttr)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$condition `,` $message attr-dict"

    def __init__(self, condition: SSAValue, message: str):
        super().__init__(operands=[condition], properties={"message": StringAttr(message)})


@irdl_op_definition
class WorkspaceOp(IRDLOperation):
    """`onnxc.workspace %bytes`: the workspace must hold `%bytes` bytes from
    here on; if it does not, the model stops with ONNXC_ERR_WORKSPACE and
    reports `%bytes` as the size needed."""

    name = "onnxc.workspace"

    bytes = operand_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$bytes attr-dict"

    def __init__(self, size: SSAValue):
        super().__init__(operands=[size])


@irdl_op_definition
class LoopStorageOp(IRDLOperation):
    """`onnxc.loop_storage : memref<?xi8>`: the bytes holding a loop-carried
    value whose size changes from trip to trip, or an If result whose size
    the branch taken decides (read and written through `memref.view`s at
    its current sizes). plan-memory gives it a share of the workspace left
    when the loop or branch starts."""

    name = "onnxc.loop_storage"

    result = result_def(MemRefType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "attr-dict `:` type($result)"

    def __init__(self, result_type: MemRefType):
        super().__init__(result_types=[result_type])


@irdl_op_definition
class ReserveOp(IRDLOperation):
    """`onnxc.reserve %storage, %bytes`: the next write into loop storage
    `%storage` uses `%bytes` bytes of it (plan-memory checks that its share
    of the workspace holds them)."""

    name = "onnxc.reserve"

    storage = operand_def(MemRefType)
    bytes = operand_def(IndexType)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = "$storage `,` $bytes attr-dict `:` type($storage)"

    def __init__(self, storage: SSAValue, size: SSAValue):
        super().__init__(operands=[storage, size])


@irdl_op_definition
class WorkspaceAvailableOp(IRDLOperation):
    """`onnxc.workspace_available`: the bytes of workspace the caller gave."""

    name = "onnxc.workspace_available"

    result = result_def(IndexType)

    traits = traits_def(Pure())

    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__(result_types=[IndexType()])


@irdl_op_definition
class UniformOp(IRDLOperation):
    """`onnxc.uniform %key, %counter : f32`: a random number uniform in
    [0, 1), a pure function of the i64 key (from a node's seed) and counter
    (which element): `onnxc_uniformf` / `onnxc_uniform` of the runtime
    (SplitMix64, counter-based), float or double as the result type."""

    name = "onnxc.uniform"

    key = operand_def(i64)
    counter = operand_def(i64)
    result = result_def(Float32Type | Float64Type)

    traits = traits_def(Pure())

    assembly_format = "$key `,` $counter attr-dict `:` type($result)"

    def __init__(self, key: SSAValue, counter: SSAValue, t: Attribute):
        super().__init__(operands=[key, counter], result_types=[t])


@irdl_op_definition
class SigmoidOp(IRDLOperation):
    """`onnxc.sigmoid %x : f32`: 1 / (1 + exp(-x)), of any float type (the
    runtime's `onnxc_sigmoidf` on float, the formula on double)."""

    name = "onnxc.sigmoid"

    T: ClassVar = VarConstraint("T", AnyFloatConstr)
    x = operand_def(T)
    result = result_def(T)

    traits = traits_def(Pure())

    assembly_format = "$x attr-dict `:` type($result)"

    def __init__(self, x: SSAValue):
        super().__init__(operands=[x], result_types=[x.type])


@irdl_op_definition
class Dot2Op(IRDLOperation):
    """`onnxc.dot2 %a, %b, %acc`: acc + a.lo * b.lo + a.hi * b.hi, where .lo
    and .hi are the signed 16-bit halves of the i32 words a and b; wraps
    modulo 2^32 (`onnxc_dot2` of the runtime: SMLAD on Armv7E-M)."""

    name = "onnxc.dot2"

    a = operand_def(IntegerType(32))
    b = operand_def(IntegerType(32))
    acc = operand_def(IntegerType(32))
    result = result_def(IntegerType(32))

    traits = traits_def(Pure())

    assembly_format = "$a `,` $b `,` $acc attr-dict"

    def __init__(self, a: SSAValue, b: SSAValue, acc: SSAValue):
        super().__init__(operands=[a, b, acc], result_types=[IntegerType(32)])


@irdl_op_definition
class WidenBytesOp(IRDLOperation):
    """`onnxc.widen_bytes %w odd 0`: bytes 0 and 2 of the i32 word w (bytes 1
    and 3 with `odd` 1), each sign-extended into a 16-bit half, byte 0 (1)
    in the low one (`onnxc_widen_bytes02` / `13` of the runtime: SXTB16 on
    Armv7E-M)."""

    name = "onnxc.widen_bytes"

    word = operand_def(IntegerType(32))
    odd = prop_def(IntegerAttr)
    result = result_def(IntegerType(32))

    traits = traits_def(Pure())

    assembly_format = "$word `odd` $odd attr-dict"

    def __init__(self, word: SSAValue, odd: bool):
        super().__init__(
            operands=[word],
            result_types=[IntegerType(32)],
            properties={"odd": IntegerAttr(int(odd), i64)},
        )


@irdl_op_definition
class ImageSizeOp(IRDLOperation):
    """`onnxc.image_size %stream : memref<?xui8>`: the height and width of the
    image encoded in the bytes of `%stream` (0 and 0 when the runtime cannot
    decode it) and the scratch bytes `onnxc.image_decode` needs:
    `onnxc_image_size` of the runtime."""

    name = "onnxc.image_size"

    stream = operand_def(MemRefType)
    height = result_def(IndexType)
    width = result_def(IndexType)
    scratch = result_def(IndexType)

    traits = traits_def(MemoryReadEffect())

    assembly_format = "$stream attr-dict `:` type($stream)"

    def __init__(self, stream: SSAValue):
        super().__init__(operands=[stream], result_types=[IndexType()] * 3)


@irdl_op_definition
class ImageDecodeOp(IRDLOperation):
    """`onnxc.image_decode %stream, %scratch pixel_format N`: decodes the
    image in `%stream` into the first height x width x channels bytes of
    `%scratch` (row-major, channels 3 for pixel format 0 RGB and 1 BGR, 1 for
    2 grayscale); the result is whether it could (not if the stream is
    corrupt): `onnxc_image_decode` of the runtime."""

    name = "onnxc.image_decode"

    stream = operand_def(MemRefType)
    scratch = operand_def(MemRefType)
    pixel_format = prop_def(IntegerAttr)
    ok = result_def(I1)

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    assembly_format = (
        "$stream `,` $scratch `pixel_format` $pixel_format attr-dict `:` type($stream) `,`"
        " type($scratch)"
    )

    def __init__(self, stream: SSAValue, scratch: SSAValue, pixel_format: int):
        super().__init__(
            operands=[stream, scratch],
            result_types=[IntegerType(1)],
            properties={"pixel_format": IntegerAttr(pixel_format, i64)},
        )


@irdl_op_definition
class ProfileMarkOp(IRDLOperation):
    """`onnxc.profile_mark 3, "Conv conv1"`: step `node` of the function (the
    code of one ONNX node) starts here, and the step before it ends; a mark
    with an empty label ends the last step. Printed as a call of the
    `onnxc_profile_mark` hook, which a profiling harness provides."""

    name = "onnxc.profile_mark"
    assembly_format = "$node `,` $label attr-dict"
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())  # a call: keep it in place
    node = prop_def(IntegerAttr)
    label = prop_def(StringAttr)

    @classmethod
    def at(cls, node: int, label: str) -> ProfileMarkOp:
        """The mark of step `node` labelled `label`."""
        return cls.create(properties={"node": IntegerAttr(node, i64), "label": StringAttr(label)})


ONNXC = Dialect(
    "onnxc",
    [
        InputOp,
        OutputOp,
        CheckOp,
        WorkspaceOp,
        LoopStorageOp,
        ReserveOp,
        WorkspaceAvailableOp,
        UniformOp,
        SigmoidOp,
        Dot2Op,
        WidenBytesOp,
        ImageSizeOp,
        ImageDecodeOp,
        ProfileMarkOp,
        *STRING_OPS,
    ],
    STRING_ATTRIBUTES,
)
