"""The C printer of function bodies: loop-level IR (func/scf/memref/arith/math/
affine) to C99 statements.

Scalar operations are a table from op name to a C format (`SCALAR`), with the
type spellings a format may use; structural operations (loops, ifs, loads,
stores, views) have one method each, dispatched on the op class. What the
body's arguments and the arena are in C, and the ABI operations that check
sizes, come from the caller (`emit/c_interface.py`), so this file knows nothing
of the model's interface, and nothing of ONNX.

Conventions of the generated C:
- every SSA result becomes a `const` local (its IR name hint, or `v3`);
  constants are inlined;
- a memref is a pointer indexed with a row-major offset computed from its
  sizes, which are literals when static (so the C compiler sees constant
  strides) and C locals when known only at run time;
- signedness: an integer type decides the storage (`int8_t` or `uint8_t`),
  the operation its meaning (`arith.divui` divides as unsigned, `arith.cmpi slt`
  compares as signed), as in MLIR;
- no undefined behaviour: integer add/sub/mul wrap (computed in an unsigned
  type wide enough to escape C's promotion to int), but for 32- and 64-bit
  ones marked `nsw` (the producer proved they cannot overflow: the integer
  kernels' dot products, which gcc vectorizes only as plain signed sums),
  division and remainder by 0
  give 0 (runtime helpers), shifts by the width or more give 0 (or the sign),
  float-to-integer conversions saturate, NaN gives 0;
- float16 and bfloat16 values appear only as storage words: `emulate-narrow-
  floats` has turned their arithmetic into float, and the printer converts at
  loads and stores with the runtime helpers;
- buffers of the 4-bit and 2-bit types are packed bytes, read and written an
  element at a time with the runtime's `onnxc_packed_get`/`_set`; their
  scalars are 8-bit C values kept in range (signed ones sign-extended);
- `math.roundeven` is `rint` (the default rounding mode); `maximumf` and
  `minimumf` propagate NaN but do not order -0 and +0;
- a `memref.alloca` (of a static shape) is a local array;
- `onnxc.uniform` is a call of the runtime's counter-based random generator;
  `onnxc.sigmoid` of its `onnxc_sigmoidf` on float (the formula on double);
  `onnxc.dot2` and `onnxc.widen_bytes` of its pair arithmetic (SMLAD and
  SXTB16 on Armv7E-M);
  `onnxc.image_size` and `onnxc.image_decode` are calls of its image decoder;
  `onnxc.profile_mark` (profiling builds) is a call of the profiling hook.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import singledispatchmethod

from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import (
    AffineMapAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    Signedness,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)

from onnxc import element_types
from onnxc.dialects.onnxc import ImageDecodeOp, ImageSizeOp, ProfileMarkOp
from onnxc.dialects.onnxc_strings import (
    StringCallOp,
    StringEmptyOp,
    StringEqualOp,
    StringLessOp,
    StringMakeOp,
    StringSizeOp,
)
from onnxc.element_types import Kind
from onnxc.emit.c_names import Namer, c_comment, c_string
from onnxc.emit.c_strings import call_text
from onnxc.emit.c_types import (
    bits,
    c_type,
    float_literal,
    int_literal,
    is_float,
    libm_suffix,
    packed_bits,
    signed_type,
    storage_type,
    unsigned_type,
    wide_unsigned_type,
)
from onnxc.errors import CEmitError
from onnxc.ir_names import ARENA, COMMENT, IN_RANGE, PARALLEL

__all__ = ["BodyPrinter", "Memref", "SCALAR"]

_UNARY_MATH = (
    "exp exp2 expm1 log log2 log10 log1p sqrt cbrt sin cos tan asin acos atan "
    "sinh cosh tanh asinh acosh atanh erf floor ceil round trunc"
)

_VECTORISABLE = {
    "math.exp": "onnxc_expf({0})",
    "math.tanh": "onnxc_tanhf({0})",
    "onnxc.sigmoid": "onnxc_sigmoidf({0})",
}
"""The runtime's f32 functions that a loop of vectorises, unlike libm's calls."""

SCALAR: dict[str, str] = {
    **{f"math.{f}": f"{f}{{m}}({{0}})" for f in _UNARY_MATH.split()},
    "math.roundeven": "rint{m}({0})",
    "math.absf": "fabs{m}({0})",
    "math.rsqrt": "{one} / sqrt{m}({0})",
    "math.powf": "pow{m}({0}, {1})",
    "math.fpowi": "pow{m}({0}, ({t}){1})",
    "math.atan2": "atan2{m}({0}, {1})",
    "math.copysign": "copysign{m}({0}, {1})",
    "math.fma": "fma{m}({0}, {1}, {2})",
    "math.absi": "{S}{0} < 0 ? ({t})(0u - {W}{0}) : {0}",
    "arith.addf": "{0} + {1}",
    "arith.subf": "{0} - {1}",
    "arith.mulf": "{0} * {1}",
    "arith.divf": "{0} / {1}",
    "arith.remf": "fmod{m}({0}, {1})",
    "arith.negf": "-{0}",
    "arith.maximumf": "(isnan({0}) || {0} > {1}) ? {0} : {1}",
    "arith.minimumf": "(isnan({0}) || {0} < {1}) ? {0} : {1}",
    "arith.maxnumf": "fmax{m}({0}, {1})",
    "arith.minnumf": "fmin{m}({0}, {1})",
    "arith.select": "{0} ? {1} : {2}",
    "arith.maxsi": "{S}{0} > {S}{1} ? {0} : {1}",
    "arith.minsi": "{S}{0} < {S}{1} ? {0} : {1}",
    "arith.maxui": "{U}{0} > {U}{1} ? {0} : {1}",
    "arith.minui": "{U}{0} < {U}{1} ? {0} : {1}",
    "arith.andi": "{0} & {1}",
    "arith.ori": "{0} | {1}",
    "arith.xori": "{0} ^ {1}",
    "arith.shli": "{U}{1} >= {bits} ? ({t})0 : ({t})({W}{0} << {U}{1})",
    "arith.shrui": "{U}{1} >= {bits} ? ({t})0 : ({t})({U}{0} >> {U}{1})",
    "arith.shrsi": ("{U}{1} >= {bits} ? ({t})({S}{0} < 0 ? -1 : 0) : ({t})({S}{0} >> {U}{1})"),
    "arith.floordivsi": "({t})onnxc_floordiv_i64({S}{0}, {S}{1})",
    "arith.ceildivsi": "({t})onnxc_ceildiv_i64({S}{0}, {S}{1})",
    "arith.index_cast": "({t}){S}{0}",
    "arith.index_castui": "({t}){U}{0}",
    "arith.sitofp": "({t}){S}{0}",
    "arith.uitofp": "({t}){U}{0}",
    "arith.extsi": "({t}){S}{0}",
    "arith.extui": "({t}){U}{0}",
    "arith.trunci": "({t})({ur}){0}",
    "arith.extf": "({t}){0}",
    "arith.truncf": "({t}){0}",
    "onnxc.uniform": "onnxc_uniform{m}({0}, {1})",
    "onnxc.sigmoid": "{one} / ({one} + exp{m}(-{0}))",
    "onnxc.dot2": "onnxc_dot2({0}, {1}, {2})",
}
"""Scalar ops: op name -> C expression. {0}.. are the operands; {t} is the
result's C type; {S}, {U} and {W} casts to the signed, unsigned and wide
unsigned types of operand 0's width (empty when operand 0 has that type);
{ur} the unsigned type of the result's width; {bits} operand 0's width; {m}
the <math.h> suffix and {one} the literal 1 of the float type. Ops whose C
depends on more than this have a method of their own (`_special`)."""

_WRAPPING = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}
_DIVISION = {
    "arith.divsi": ("divs", "signed"),
    "arith.remsi": ("rems", "signed"),
    "arith.divui": ("divu", "unsigned"),
    "arith.remui": ("remu", "unsigned"),
}
_CMPF = {
    "false": "0",
    "oeq": "{0} == {1}",
    "ogt": "{0} > {1}",
    "oge": "{0} >= {1}",
    "olt": "{0} < {1}",
    "ole": "{0} <= {1}",
    "one": "{0} < {1} || {0} > {1}",
    "ord": "!(isnan({0}) || isnan({1}))",
    "ueq": "!({0} < {1} || {0} > {1})",
    "ugt": "!({0} <= {1})",
    "uge": "!({0} < {1})",
    "ult": "!({0} >= {1})",
    "ule": "!({0} > {1})",
    "une": "{0} != {1}",
    "uno": "isnan({0}) || isnan({1})",
    "true": "1",
}
_CMPI = {
    "eq": "{0} == {1}",
    "ne": "{0} != {1}",
    "slt": "{S}{0} < {S}{1}",
    "sle": "{S}{0} <= {S}{1}",
    "sgt": "{S}{0} > {S}{1}",
    "sge": "{S}{0} >= {S}{1}",
    "ult": "{U}{0} < {U}{1}",
    "ule": "{U}{0} <= {U}{1}",
    "ugt": "{U}{0} > {U}{1}",
    "uge": "{U}{0} >= {U}{1}",
}
_KEEPS_RANGE = frozenset(
    {"arith.select", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui"}
)
"""Integer ops whose result is one of their operands."""
_AFFINE_HELPERS = {
    AffineBinaryOpKind.FloorDiv: "onnxc_floordiv",
    AffineBinaryOpKind.CeilDiv: "onnxc_ceildiv",
    AffineBinaryOpKind.Mod: "onnxc_mod",
}
_NARROW_FLOAT = {
    row.ir_type: row.runtime_name for row in element_types.STORAGE_FLOATS if row.runtime_name
}
"""Storage-only float types and the runtime's name for them."""


@dataclass(frozen=True)
class Memref:
    """A memref value in C: its base pointer and the C expression of each
    dimension's size (a literal when static). Memrefs are row-major and
    contiguous."""

    pointer: str
    sizes: tuple[str, ...]


AbiPrinter = Callable[["BodyPrinter", Operation], bool]
"""Prints an ABI operation (size checks, output binding, the arena) and
returns True, or returns False for an op it does not know."""


def _identity_layout(t: MemRefType[Attribute]) -> bool:
    layout = t.layout
    return isinstance(layout, NoneAttr) or (
        isinstance(layout, AffineMapAttr) and layout.data == AffineMap.identity(t.get_num_dims())
    )


def _is_literal(text: str) -> bool:
    return text.isdigit()


def mul(a: str, b: str) -> str:
    """The C product of two size expressions, folded when both are literals."""
    if _is_literal(a) and _is_literal(b):
        return str(int(a) * int(b))
    if a == "1":
        return b
    if b == "1":
        return a
    return f"{a} * {b}"


class BodyPrinter:
    """Prints the body of one function as C statements, into `lines`.

    `names` holds the C name of each function argument (and anything else the
    caller names), `memrefs` the `Memref` of each memref argument; `abi`
    prints the operations of the model's interface (see `AbiPrinter`)."""

    def __init__(
        self,
        namer: Namer,
        names: dict[SSAValue, str],
        memrefs: dict[SSAValue, Memref],
        global_names: dict[str, str],
        abi: AbiPrinter,
        indent: int = 1,
    ) -> None:
        self.namer = namer
        self.names = names
        self.memrefs = memrefs
        self.global_names = global_names
        self.abi = abi
        self.lines: list[str] = []
        self.indent = indent
        self.comments: list[str | None] = [None]

    # --- small helpers ----------------------------------------------------------

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.indent + line)

    def expr(self, value: SSAValue) -> str:
        """The C expression of a scalar value: its local, or an inlined constant."""
        op = value.owner
        if isinstance(op, arith.ConstantOp):
            return self.constant(op.value, value.type)
        if value not in self.names:
            raise CEmitError(f"value {value} is used before it is printed")
        return self.names[value]

    def constant(self, attr: Attribute, t: Attribute) -> str:
        if isinstance(attr, FloatAttr):
            if t in _NARROW_FLOAT:
                raise CEmitError(f"a {t} constant must be emulated in float before printing")
            return float_literal(attr.value.data, t)
        if isinstance(attr, IntegerAttr):
            return int_literal(attr.value.data, t)
        raise CEmitError(f"the C printer does not support the constant {attr}")

    def local_name(self, value: SSAValue, prefix: str = "v") -> str:
        """A new C local for `value`: its IR name hint when that is a valid
        identifier, else `prefix` numbered."""
        hint = value.name_hint
        if hint and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", hint):
            name = self.namer.take(hint)
        else:
            name = self.namer.numbered(prefix)
        self.names[value] = name
        return name

    def define(self, value: SSAValue, text: str) -> None:
        """`const T name = text;` for a scalar result."""
        self.emit(f"const {c_type(value.type)} {self.local_name(value)} = {text};")

    def buffer(self, value: SSAValue) -> Memref:
        """The pointer and sizes of a memref value printed so far."""
        found = self.memrefs.get(value)
        if found is None:
            raise CEmitError(f"memref {value} is used before it is defined")
        return found

    def bind_memref(self, value: SSAValue, pointer: str, sizes: Sequence[str]) -> None:
        self.memrefs[value] = Memref(pointer, tuple(sizes))

    def sizes_of(self, t: MemRefType[Attribute], dynamic: Sequence[SSAValue]) -> list[str]:
        """The sizes of a memref type whose `?` dims are `dynamic`, in order."""
        if not _identity_layout(t):
            raise CEmitError(f"only row-major (identity layout) memrefs are printed, not {t}")
        values = iter(dynamic)
        sizes: list[str] = []
        for size in t.get_shape():
            if size >= 0:
                sizes.append(str(size))
                continue
            value = next(values, None)
            if value is None:
                raise CEmitError(f"{t} has more dynamic sizes than operands")
            sizes.append(self.expr(value))
        return sizes

    def offset(self, ref: SSAValue, indices: Sequence[SSAValue]) -> str:
        """Row-major linear offset of `indices` into `ref`, folding constants."""
        sizes = self.buffer(ref).sizes
        acc = "0"
        for size, index in zip(sizes, indices, strict=True):
            i = self.expr(index)
            if acc == "0":
                acc = i
            elif _is_literal(acc) and _is_literal(i) and _is_literal(size):
                acc = str(int(acc) * int(size) + int(i))
            else:
                acc = f"({acc} * {size} + {i})" if i != "0" else f"({acc} * {size})"
        return acc[1:-1] if acc.startswith("(") and acc.endswith(")") else acc

    def element(self, ref: SSAValue, indices: Sequence[SSAValue]) -> str:
        return f"{self.buffer(ref).pointer}[{self.offset(ref, indices)}]"

    # --- blocks and comments ------------------------------------------------------

    def print_block(self, block: Block) -> None:
        """Print `block`'s ops; a comment naming where an op comes from is
        written once above each run of ops with the same comment."""
        self.comments.append(self.comments[-1])
        for op in block.ops:
            comment = op.attributes.get(COMMENT)
            previous = self.comments[-1]
            fresh = isinstance(comment, StringAttr) and comment.data != previous
            if isinstance(comment, StringAttr) and fresh:
                self.comments[-1] = comment.data
            start = len(self.lines)
            self.print_op(op)
            if isinstance(comment, StringAttr) and fresh:
                if len(self.lines) > start:
                    self.lines.insert(start, "  " * self.indent + c_comment(comment.data))
                else:
                    self.comments[-1] = previous
        self.comments.pop()

    def print_region_block(self, block: Block) -> None:
        """Print a nested block one indent deeper."""
        self.indent += 1
        self.print_block(block)
        self.indent -= 1

    # --- op printing --------------------------------------------------------------

    @singledispatchmethod
    def print_op(self, op: Operation) -> None:
        """Print one op (the fallback: scalar ops by table, ABI ops by the
        caller, anything else an error)."""
        if self.abi(self, op):
            return
        if len(op.results) != 1:
            raise CEmitError(self._unsupported(op))
        text = self._special(op)
        if text is None:
            fmt = SCALAR.get(op.name)
            if fmt is None:
                raise CEmitError(self._unsupported(op))
            text = self.format(fmt, op)
        self.define(op.results[0], self._in_range(op, text))

    def _in_range(self, op: Operation, text: str) -> str:
        """`text` brought back into the range of a 4-bit or 2-bit integer
        result (dropping high bits, as two's complement does), unless the op
        cannot leave it."""
        result = op.results[0].type
        width = packed_bits(result)
        if not width or is_float(result) or op.name in _KEEPS_RANGE:
            return text
        if element_types.kind_of(result) is Kind.SIGNED:
            return f"onnxc_sign_extend((uint32_t)({text}), {width})"
        return f"(uint8_t)(({text}) & {(1 << width) - 1}u)"

    def format(self, fmt: str, op: Operation) -> str:
        result = op.results[0].type
        source = op.operands[0].type if op.operands else result
        float_type = result if is_float(result) else source
        storage = c_type(source) if not is_float(source) else ""

        def cast(to: str) -> str:
            return "" if to == storage else f"({to})"

        return fmt.format(
            *(self.expr(o) for o in op.operands),
            t=c_type(result),
            S=cast(signed_type(source)),
            U=cast(unsigned_type(source)),
            W=cast(wide_unsigned_type(source)),
            ur=unsigned_type(result),
            bits=bits(source) if not is_float(source) else 0,
            m=libm_suffix(float_type),
            one="1.0f" if isinstance(float_type, Float32Type) else "1.0",
        )

    def _special(self, op: Operation) -> str | None:
        """The C of scalar ops that a format alone cannot say, else None."""
        name = op.name
        result = op.results[0].type
        source = op.operands[0].type if op.operands else result
        if name in _WRAPPING:
            symbol = _WRAPPING[name]
            if isinstance(result, IndexType) or _no_signed_wrap(op):
                return f"{self.expr(op.operands[0])} {symbol} {self.expr(op.operands[1])}"
            return self.format(f"({{t}})({{W}}{{0}} {symbol} {{W}}{{1}})", op)
        if name in _DIVISION:
            return self._division(op)
        if isinstance(op, arith.CmpfOp):
            predicate = arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]
            return self.format(_CMPF[predicate], op)
        if isinstance(op, arith.CmpiOp):
            predicate = arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]
            return self.format(_CMPI[predicate], op)
        narrow = _is_bool(source) if name == "arith.extsi" else _is_bool(result)
        if name == "arith.extsi" and narrow:
            return self.format("({t})-({t}){0}", op)
        if name == "arith.extui" and _is_bool(source):
            return self.format("({t}){0}", op)
        if name == "arith.trunci" and _is_bool(result):
            return self.format("({0} & 1)", op)
        if name in ("arith.fptosi", "arith.fptoui"):
            return self._float_to_int(op)
        if name in ("arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp"):
            return self._narrow_float_conversion(op)
        if name == "arith.bitcast":
            return self._bitcast(op)
        if name == "onnxc.widen_bytes":
            odd = op.properties["odd"]
            assert isinstance(odd, IntegerAttr)
            return self.format(f"onnxc_widen_bytes{'13' if odd.value.data else '02'}({{0}})", op)
        if name in _VECTORISABLE and isinstance(result, Float32Type):
            return self.format(_VECTORISABLE[name], op)
        if name in ("arith.index_cast", "arith.index_castui") and isinstance(result, IndexType):
            if bits(source) == 64:  # may not fit a 32-bit ptrdiff_t: saturate
                kind = "u" if name == "arith.index_castui" else "i"
                return self.format(f"onnxc_index_from_{kind}64({{0}})", op)
        return None

    def _division(self, op: Operation) -> str:
        helper, kind = _DIVISION[op.name]
        lhs, rhs = op.operands
        divisor = rhs.owner
        safe = (
            isinstance(divisor, arith.ConstantOp)
            and isinstance(divisor.value, IntegerAttr)
            and divisor.value.value.data not in (0, -1)
        )
        if isinstance(lhs.type, IndexType) or safe:
            cast = "{S}" if kind == "signed" else "{U}"
            symbol = "/" if "div" in helper else "%"
            if isinstance(lhs.type, IndexType) and kind == "signed":
                return f"{self.expr(lhs)} {symbol} {self.expr(rhs)}"
            return self.format(f"({{t}})({cast}{{0}} {symbol} {cast}{{1}})", op)
        width = 64 if bits(lhs.type) > 32 else 32
        cast = "{S}" if kind == "signed" else "{U}"
        return self.format(f"({{t}})onnxc_{helper}{width}({cast}{{0}}, {cast}{{1}})", op)

    def _float_to_int(self, op: Operation) -> str:
        result = op.results[0].type
        width = bits(result)
        if IN_RANGE in op.attributes:
            return self.format("({t}){0}", op)
        if packed_bits(result):  # through int32, then the low bits (`_in_range`)
            return self.format("(int32_t)onnxc_fptosi({0}, INT32_MIN, INT32_MAX)", op)
        if op.name == "arith.fptoui":
            high = "UINT64_MAX" if width == 64 else f"{(1 << width) - 1}u"
            return self.format(f"({{t}})onnxc_fptoui({{0}}, {high})", op)
        low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
        i64 = IntegerType(64)
        return self.format(
            f"({{t}})onnxc_fptosi({{0}}, {int_literal(low, i64)}, {int_literal(high, i64)})", op
        )

    def _narrow_float_conversion(self, op: Operation) -> str | None:
        """Conversions into or out of storage-only float words (float16,
        bfloat16, the 8-bit floats)."""
        result = op.results[0].type
        source = op.operands[0].type
        value = self.expr(op.operands[0])
        if source in _NARROW_FLOAT:
            widened = f"onnxc_{_NARROW_FLOAT[source]}_to_f32({value})"
            return widened if isinstance(result, Float32Type) else f"({c_type(result)}){widened}"
        if result not in _NARROW_FLOAT:
            return None
        narrow = _NARROW_FLOAT[result]
        if isinstance(source, Float32Type):
            return f"onnxc_f32_to_{narrow}({value})"
        if isinstance(source, Float64Type):
            return f"onnxc_f64_to_{narrow}({value})"
        signed = op.name != "arith.uitofp"
        if narrow not in ("f16", "bf16"):  # 8-bit floats: integers go through double
            cast = signed_type(source) if signed else unsigned_type(source)
            return f"onnxc_f64_to_{narrow}((double)({cast}){value})"
        if narrow == "f16" or bits(source) <= 32:
            # f16 overflows long before float stops holding integers exactly;
            # integers up to 32 bits are exact in double.
            via = "float" if narrow == "f16" else "double"
            cast = signed_type(source) if signed else unsigned_type(source)
            helper = "f32" if narrow == "f16" else "f64"
            return f"onnxc_{helper}_to_{narrow}(({via})({cast}){value})"
        if signed:
            return f"onnxc_i64_to_bf16((int64_t)({signed_type(source)}){value})"
        return f"onnxc_u64_to_bf16((uint64_t){value})"

    def _bitcast(self, op: Operation) -> str:
        result = op.results[0].type
        source = op.operands[0].type
        value = self.expr(op.operands[0])
        if isinstance(result, Float32Type | Float64Type) and not is_float(source):
            width = bits(source)
            return f"onnxc_f{width}_bits((int{width}_t){value})"
        if isinstance(source, Float32Type | Float64Type) and not is_float(result):
            width = bits(result)
            return f"({c_type(result)})onnxc_bits_f{width}({value})"
        return f"({c_type(result)}){value}"  # same-width integers or storage words

    def _unsupported(self, op: Operation) -> str:
        where = op.attributes.get(COMMENT)
        node = f" (in {where.data})" if isinstance(where, StringAttr) else ""
        types = ", ".join(str(r.type) for r in op.results)
        return f"the C printer does not support {op.name} -> ({types}){node}"

    @print_op.register(arith.ConstantOp)
    def _print_arith_constant(self, op: arith.ConstantOp) -> None:
        pass  # inlined where used

    @print_op.register(memref.DeallocOp)
    def _print_memref_dealloc(self, op: memref.DeallocOp) -> None:
        pass  # buffers live in the workspace

    @print_op.register(memref.GetGlobalOp)
    def _print_memref_get_global(self, op: memref.GetGlobalOp) -> None:
        name = self.global_names[op.name_.root_reference.data]
        t = op.memref.type
        assert isinstance(t, MemRefType)
        self.bind_memref(op.memref, name, self.sizes_of(t, []))

    @print_op.register(memref.AllocOp)
    def _print_memref_alloc(self, op: memref.AllocOp) -> None:
        if ARENA not in op.attributes:
            raise CEmitError(
                "memref.alloc outside the planned arena: run plan-memory before printing"
            )
        if not self.abi(self, op):
            raise CEmitError("the arena alloc has no workspace to print into")

    @print_op.register(memref.AllocaOp)
    def _print_memref_alloca(self, op: memref.AllocaOp) -> None:
        """`memref.alloca` of a static shape: a local array (kernels'
        accumulators, which the C compiler keeps in registers)."""
        t = op.memref.type
        assert isinstance(t, MemRefType)
        if any(size < 0 for size in t.get_shape()) or packed_bits(t.element_type):
            raise CEmitError("memref.alloca needs a static shape of whole-byte elements")
        name = self.local_name(op.memref, "local")
        count = 1
        for size in t.get_shape():
            count *= size
        self.emit(f"{storage_type(t.element_type)} {name}[{count}];")
        self.bind_memref(op.memref, name, self.sizes_of(t, []))

    @print_op.register(memref.ViewOp)
    def _print_memref_view(self, op: memref.ViewOp) -> None:
        """`memref.view %bytes[%shift][sizes]`: a typed pointer into a byte buffer."""
        t = op.result.type
        assert isinstance(t, MemRefType)
        ct = storage_type(t.element_type)
        source, shift = self.buffer(op.source).pointer, self.expr(op.byte_shift)
        base = source if shift == "0" else f"({source} + {shift})"
        name = self.local_name(op.result, "buf")
        self.emit(f"{ct} *const {name} = ({ct} *){base};")
        self.bind_memref(op.result, name, self.sizes_of(t, op.sizes))

    @print_op.register(memref.ExpandShapeOp)
    def _print_memref_expand_shape(self, op: memref.ExpandShapeOp) -> None:
        t = op.result.type
        assert isinstance(t, MemRefType)
        self.bind_memref(op.result, self.buffer(op.src).pointer, self.sizes_of(t, op.output_shape))

    @print_op.register(memref.CollapseShapeOp)
    def _print_memref_collapse_shape(self, op: memref.CollapseShapeOp) -> None:
        source = self.buffer(op.src)
        sizes: list[str] = []
        for group in op.reassociation.data:
            product = "1"
            for dim in group.data:
                assert isinstance(dim, IntegerAttr)
                product = mul(product, source.sizes[dim.value.data])
            sizes.append(product if _is_literal(product) else f"({product})")
        self.bind_memref(op.result, source.pointer, sizes)

    @print_op.register(memref.ReinterpretCastOp)
    def _print_memref_reinterpret_cast(self, op: memref.ReinterpretCastOp) -> None:
        t = op.result.type
        assert isinstance(t, MemRefType)
        if any(o != 0 for o in op.static_offsets.get_values()) or op.offsets:
            raise CEmitError("memref.reinterpret_cast with an offset is not supported")
        pointer = self.buffer(op.source).pointer
        self.bind_memref(op.result, pointer, self.sizes_of(t, op.sizes))

    @print_op.register(memref.DimOp)
    def _print_memref_dim(self, op: memref.DimOp) -> None:
        index = op.index.owner
        if not (isinstance(index, arith.ConstantOp) and isinstance(index.value, IntegerAttr)):
            raise CEmitError("memref.dim needs a constant dimension index")
        self.names[op.result] = self.buffer(op.source).sizes[index.value.value.data]

    @print_op.register(StringEmptyOp)
    @print_op.register(StringEqualOp)
    @print_op.register(StringLessOp)
    @print_op.register(StringSizeOp)
    @print_op.register(StringMakeOp)
    @print_op.register(StringCallOp)
    def _print_string_op(self, op: Operation) -> None:
        text = call_text(op, self.expr, lambda value: self.buffer(value).pointer)
        self.define(op.results[0], text)

    @print_op.register(memref.LoadOp)
    def _print_memref_load(self, op: memref.LoadOp) -> None:
        width = packed_bits(op.res.type)
        if not width:
            self.define(op.res, self.element(op.memref, op.indices))
            return
        pointer, offset = self.buffer(op.memref).pointer, self.offset(op.memref, op.indices)
        code = f"onnxc_packed_get({pointer}, {offset}, {width})"
        if element_types.kind_of(op.res.type) is Kind.SIGNED:
            code = f"onnxc_sign_extend({code}, {width})"
        self.define(op.res, f"({c_type(op.res.type)}){code}")

    @print_op.register(memref.StoreOp)
    def _print_memref_store(self, op: memref.StoreOp) -> None:
        width = packed_bits(op.value.type)
        if not width:
            self.emit(f"{self.element(op.memref, op.indices)} = {self.expr(op.value)};")
            return
        pointer, offset = self.buffer(op.memref).pointer, self.offset(op.memref, op.indices)
        code = f"(uint32_t)(uint8_t){self.expr(op.value)}"
        self.emit(f"onnxc_packed_set({pointer}, {offset}, {width}, {code});")

    @print_op.register(memref.CopyOp)
    def _print_memref_copy(self, op: memref.CopyOp) -> None:
        source, target = self.buffer(op.source), self.buffer(op.destination)
        count = "1"
        for size in source.sizes:
            count = mul(count, size)
        source_type = op.source.type
        assert isinstance(source_type, MemRefType)
        width = packed_bits(source_type.element_type)
        if width:  # whole packed buffers: copy their bytes
            per_byte = 8 // width
            count = (
                str(-(-int(count) // per_byte))
                if _is_literal(count)
                else f"(({count}) + {per_byte - 1}) / {per_byte}"
            )
        if count == "1":
            self.emit(f"{target.pointer}[0] = {source.pointer}[0];")
        elif count != "0":
            k = self.namer.numbered("k")
            self.emit(f"for (ptrdiff_t {k} = 0; {k} < {count}; ++{k}) {{")
            self.emit(f"  {target.pointer}[{k}] = {source.pointer}[{k}];")
            self.emit("}")

    @print_op.register(scf.ForOp)
    def _print_scf_for(self, op: scf.ForOp) -> None:
        block = op.body.block
        iv, *carried = block.args
        for arg, init, res in zip(carried, op.iter_args, op.results, strict=True):
            name = self.local_name(arg)
            self.names[res] = name
            self.emit(f"{c_type(arg.type)} {name} = {self.expr(init)};")
        i = self.local_name(iv, "i")
        lb, ub, step = (self.expr(v) for v in (op.lb, op.ub, op.step))
        inc = f"++{i}" if step == "1" else f"{i} += {step}"
        if PARALLEL in op.attributes and not carried:
            self.emit("ONNXC_PARALLEL_FOR")
        self.emit(f"for ({c_type(iv.type)} {i} = {lb}; {i} < {ub}; {inc}) {{")
        self.print_region_block(block)
        self.emit("}")
        self._discard_unused(op.results)

    @print_op.register(scf.IfOp)
    def _print_scf_if(self, op: scf.IfOp) -> None:
        for res in op.results:
            self.emit(f"{c_type(res.type)} {self.local_name(res)};")
        self.emit(f"if ({self.expr(op.cond)}) {{")
        self.print_region_block(op.true_region.block)
        else_ops = [o for b in op.false_region.blocks for o in b.ops]
        if else_ops and not (len(else_ops) == 1 and not else_ops[0].operands):
            self.emit("} else {")
            self.print_region_block(op.false_region.block)
        self.emit("}")
        self._discard_unused(op.results)

    @print_op.register(scf.WhileOp)
    def _print_scf_while(self, op: scf.WhileOp) -> None:
        """`for (;;)`: the `before` region, `break` unless its condition
        holds, then the `after` region. The values the condition forwards
        are the loop's results (declared before it) and the `after`
        region's arguments; the `after` region's yield updates the `before`
        region's arguments."""
        before, after = op.before_region.block, op.after_region.block
        for arg, init in zip(before.args, op.arguments, strict=True):
            self.emit(f"{c_type(arg.type)} {self.local_name(arg)} = {self.expr(init)};")
        for res in op.results:
            self.emit(f"{c_type(res.type)} {self.local_name(res)} = 0;")
        for arg, res in zip(after.args, op.results, strict=True):
            self.names[arg] = self.names[res]
        self.emit("for (;;) {")
        self.print_region_block(before)
        self.print_region_block(after)
        self.emit("}")
        self._discard_unused(op.results)

    @print_op.register(scf.ConditionOp)
    def _print_scf_condition(self, op: scf.ConditionOp) -> None:
        parent = op.parent_op()
        assert isinstance(parent, scf.WhileOp)
        for res, value in zip(parent.results, op.args, strict=True):
            self.emit(f"{self.names[res]} = {self.expr(value)};")
        self.emit(f"if (!{self.expr(op.condition)}) break;")

    def _discard_unused(self, results: Sequence[SSAValue]) -> None:
        """`(void)x;` for loop or if results nothing reads (no unused-variable
        warning)."""
        for res in results:
            if not res.uses:
                self.emit(f"(void){self.names[res]};")

    @print_op.register(scf.YieldOp)
    def _print_scf_yield(self, op: scf.YieldOp) -> None:
        parent = op.parent_op()
        if isinstance(parent, scf.ForOp):
            targets = [self.names[a] for a in parent.body.block.args[1:]]
        elif isinstance(parent, scf.IfOp):
            targets = [self.names[r] for r in parent.results]
        elif isinstance(parent, scf.WhileOp):
            targets = [self.names[a] for a in parent.before_region.block.args]
        else:
            raise CEmitError(f"scf.yield inside {parent and parent.name}")
        values = [self.expr(v) for v in op.operands]
        pairs = [
            (t, v, o.type) for t, v, o in zip(targets, values, op.operands, strict=True) if t != v
        ]
        # Carried values may be yielded swapped: go through temporaries then.
        if any(v in targets for _, v, _ in pairs):
            self.emit("{")
            temps: list[tuple[str, str]] = []
            for t, v, vt in pairs:
                tmp = self.namer.numbered("tmp")
                temps.append((t, tmp))
                self.emit(f"  const {c_type(vt)} {tmp} = {v};")
            for t, tmp in temps:
                self.emit(f"  {t} = {tmp};")
            self.emit("}")
        else:
            for t, v, _ in pairs:
                self.emit(f"{t} = {v};")

    @print_op.register(ImageSizeOp)
    def _print_image_size(self, op: ImageSizeOp) -> None:
        stream = self.buffer(op.stream)
        height = self.local_name(op.height, "height")
        width = self.local_name(op.width, "width")
        self.emit(f"ptrdiff_t {height}, {width};")
        call = f"onnxc_image_size({stream.pointer}, {stream.sizes[0]}, &{height}, &{width})"
        self.define(op.scratch, call)

    @print_op.register(ImageDecodeOp)
    def _print_image_decode(self, op: ImageDecodeOp) -> None:
        stream, scratch = self.buffer(op.stream), self.buffer(op.scratch)
        arguments = [stream.pointer, stream.sizes[0], scratch.pointer, scratch.sizes[0]]
        code = op.pixel_format.value.data
        self.define(op.ok, f"onnxc_image_decode({', '.join(arguments)}, {code}) != 0")

    @print_op.register(ProfileMarkOp)
    def _print_profile_mark(self, op: ProfileMarkOp) -> None:
        node = op.node.value.data
        self.emit(f"onnxc_profile_mark({node}, {c_string(op.label.data)});")

    @print_op.register(func.ReturnOp)
    def _print_func_return(self, op: func.ReturnOp) -> None:
        if not self.abi(self, op):  # the interface may report sizes first
            self.emit("return ONNXC_OK;")

    @print_op.register(affine.ApplyOp)
    def _print_affine_apply(self, op: affine.ApplyOp) -> None:
        amap = op.map.data
        text = self.affine_expr(amap.results[0], op.operands, amap.num_dims)
        if text.startswith("(") and text.endswith(")"):
            text = text[1:-1]
        self.define(op.results[0], text)

    def affine_expr(self, e: AffineExpr, operands: Sequence[SSAValue], n_dims: int) -> str:
        """The C of an affine expression over index operands."""
        if isinstance(e, AffineDimExpr):
            return self.expr(operands[e.position])
        if isinstance(e, AffineSymExpr):
            return self.expr(operands[n_dims + e.position])
        if isinstance(e, AffineConstantExpr):
            return str(e.value) if e.value >= 0 else f"({e.value})"
        assert isinstance(e, AffineBinaryOpExpr)
        lhs = self.affine_expr(e.lhs, operands, n_dims)
        rhs = e.rhs
        if _binds_tighter(e.lhs, e.kind, True):
            lhs = lhs[1:-1]
        if e.kind in _AFFINE_HELPERS:
            helper = _AFFINE_HELPERS[e.kind]
            return f"{helper}({lhs}, {self.affine_expr(rhs, operands, n_dims)})"
        if e.kind == AffineBinaryOpKind.Add:
            if isinstance(rhs, AffineConstantExpr) and rhs.value < 0:
                return f"({lhs} - {-rhs.value})"
            if (
                isinstance(rhs, AffineBinaryOpExpr)
                and rhs.kind == AffineBinaryOpKind.Mul
                and isinstance(rhs.rhs, AffineConstantExpr)
                and rhs.rhs.value == -1
            ):
                return f"({lhs} - {self.affine_expr(rhs.lhs, operands, n_dims)})"
            text = self.affine_expr(rhs, operands, n_dims)
            text = text[1:-1] if _binds_tighter(rhs, e.kind, False) else text
            return f"({lhs} + {text})"
        return f"({lhs} * {self.affine_expr(rhs, operands, n_dims)})"


def _no_signed_wrap(op: Operation) -> bool:
    """Whether `op` is a 32- or 64-bit integer add/sub/mul marked `nsw`:
    plain signed C arithmetic then, which the C compiler's vectorizer reads
    as a dot product where the wrapping form hides it."""
    flags = op.properties.get("overflowFlags")
    result = op.results[0].type
    return (
        isinstance(flags, arith.IntegerOverflowAttr)
        and arith.IntegerOverflowFlag.NSW in flags.data
        and isinstance(result, IntegerType)
        and result.width.data in (32, 64)
        and result.signedness.data != Signedness.UNSIGNED
    )


def _is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


def _binds_tighter(e: AffineExpr, parent: AffineBinaryOpKind, is_lhs: bool) -> bool:
    """Whether `e`, printed in parentheses, needs none as an operand of `parent`."""
    if not isinstance(e, AffineBinaryOpExpr) or e.kind in _AFFINE_HELPERS:
        return False
    if e.kind == AffineBinaryOpKind.Mul:
        return parent == AffineBinaryOpKind.Add or is_lhs
    return parent == AffineBinaryOpKind.Add and is_lhs
