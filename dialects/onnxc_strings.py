"""String tensors in the IR: the `!onnxc.string` element type, string
constants (`#onnxc.strings`), and the scalar string operations that arith has
no words for.

An ONNX string is a sequence of bytes (UTF-8 text). In C an element is an
`onnxc_string` (runtime_c/onnxc_strings.h): a pointer to its bytes and their
count, not NUL-terminated. The bytes live in the caller's inputs, in constant
storage (string literals, flash on a microcontroller), or in a byte buffer of
the workspace that an operation making new strings (StringConcat, case
changes) fills. A tensor of strings is an array of these descriptors, so
copying, gathering or transposing strings moves descriptors, never bytes.

The scalar operations compute on one element each inside loop bodies:
`onnxc.string_equal` and `onnxc.string_less` (bytewise equality and order:
Equal, the dictionary lookups, sorted tables),
`onnxc.string_size` (bytes of a string), `onnxc.string_make` (a descriptor
over bytes of a buffer), and the byte-level helpers of the runtime header that
the string operators call (`onnxc.string_call`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    I1,
    ArrayAttr,
    BytesAttr,
    IndexType,
    MemRefType,
    StringAttr,
    TensorType,
    i1,
)
from xdsl.ir import Attribute, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class StringType(ParametrizedAttribute, TypeAttribute):
    """`!onnxc.string`: the element type of ONNX string tensors."""

    name = "onnxc.string"


STRING = StringType()


@irdl_attr_definition
class StringElementsAttr(ParametrizedAttribute):
    """`#onnxc.strings<tensor<2x!onnxc.string>, ["a", "b"]>`: a string
    tensor's value, its elements in row-major order."""

    name = "onnxc.strings"

    type: TensorType | MemRefType
    values: ArrayAttr[StringAttr | BytesAttr]
    """The elements; the parser reads a string literal holding escaped
    non-ASCII bytes back as bytes, so both spellings occur."""

    def strings(self) -> list[str]:
        """The elements as `str`."""
        return [v.data.decode() if isinstance(v, BytesAttr) else v.data for v in self.values.data]

    def verify(self) -> None:
        shape = self.type.get_shape()
        count = 1
        for size in shape:
            count *= size
        if self.type.get_element_type() != STRING:
            raise VerifyException("#onnxc.strings needs a tensor or memref of !onnxc.string")
        if count != len(self.values.data):
            raise VerifyException(
                f"#onnxc.strings holds {len(self.values.data)} strings for {count} elements"
            )

    @classmethod
    def of(cls, shaped: TensorType | MemRefType, values: Sequence[str]) -> StringElementsAttr:
        return cls(shaped, ArrayAttr([StringAttr(v) for v in values]))


@irdl_op_definition
class StringGlobalOp(IRDLOperation):
    """`onnxc.string_global @name : memref<2x!onnxc.string> = #onnxc.strings<...>`:
    a constant string tensor, read with `memref.get_global` (memref.global
    holds only numbers). Printed as a `static const onnxc_string` array over
    string literals."""

    name = "onnxc.string_global"
    sym_name = prop_def(StringAttr)
    type = prop_def(MemRefType)
    initial_value = prop_def(StringElementsAttr)
    traits = traits_def(SymbolOpInterface())
    assembly_format = "$sym_name `:` $type `=` qualified($initial_value) attr-dict"

    def __init__(self, name: str, initial_value: StringElementsAttr):
        shaped = initial_value.type
        buffer = MemRefType(STRING, shaped.get_shape())
        super().__init__(
            properties={
                "sym_name": StringAttr(name),
                "type": buffer,
                "initial_value": StringElementsAttr(buffer, initial_value.values),
            }
        )


class _StringComparison(IRDLOperation):
    """A comparison of two strings giving an i1."""

    lhs = operand_def(StringType)
    rhs = operand_def(StringType)
    result = result_def(I1)
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict"

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[i1])


@irdl_op_definition
class StringEqualOp(_StringComparison):
    """`onnxc.string_equal %a, %b`: whether two strings hold the same bytes."""

    name = "onnxc.string_equal"


@irdl_op_definition
class StringLessOp(_StringComparison):
    """`onnxc.string_less %a, %b`: whether `a` sorts before `b`, bytewise
    (unsigned bytes, a prefix first), the order of Python's `bytes`."""

    name = "onnxc.string_less"


@irdl_op_definition
class StringEmptyOp(IRDLOperation):
    """`onnxc.string_empty`: the empty string, the zero of string tensors
    (Pad's and Trilu's fill, NonZero's test)."""

    name = "onnxc.string_empty"
    result = result_def(StringType)
    traits = traits_def(Pure())
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__(result_types=[STRING])


@irdl_op_definition
class StringSizeOp(IRDLOperation):
    """`onnxc.string_size %s`: the bytes of a string."""

    name = "onnxc.string_size"
    input = operand_def(StringType)
    result = result_def(IndexType)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value], result_types=[IndexType()])


@irdl_op_definition
class StringMakeOp(IRDLOperation):
    """`onnxc.string_make %bytes[%start], %size : memref<?xi8>`: the string
    of `size` bytes of the byte buffer `bytes` from `start` on, or of the
    string `%s` from byte `start` on (`onnxc.string_make %s[%start], %size`:
    a substring, pointing into the same bytes)."""

    name = "onnxc.string_make"
    source = operand_def(MemRefType | StringType)
    start = operand_def(IndexType)
    size = operand_def(IndexType)
    result = result_def(StringType)
    traits = traits_def(Pure())
    assembly_format = "$source `[` $start `]` `,` $size attr-dict `:` type($source)"

    def __init__(self, source: SSAValue, start: SSAValue, size: SSAValue):
        super().__init__(operands=[source, start, size], result_types=[STRING])


@irdl_op_definition
class StringCallOp(IRDLOperation):
    """`onnxc.string_call "onnxc_case_size"(%s, %upper) : (...) -> index`:
    a call of one of the runtime header's string helpers, whose C name is
    `callee`. Strings pass as an `onnxc_string`'s data and size, a memref
    as a pointer to its first element, other scalars as they are."""

    name = "onnxc.string_call"
    callee = prop_def(StringAttr)
    arguments = var_operand_def()
    result = result_def()
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())
    assembly_format = (
        "$callee `(` $arguments `)` attr-dict `:` functional-type($arguments, $result)"
    )

    def __init__(self, callee: str, arguments: Sequence[SSAValue], result_type: Attribute):
        super().__init__(
            operands=[arguments],
            result_types=[result_type],
            properties={"callee": StringAttr(callee)},
        )


STRING_OPS = [
    StringGlobalOp,
    StringEqualOp,
    StringLessOp,
    StringEmptyOp,
    StringSizeOp,
    StringMakeOp,
    StringCallOp,
]
STRING_ATTRIBUTES = [StringType, StringElementsAttr]
