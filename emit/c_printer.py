"""The C printer: loop-level IR (func/scf/memref/arith/math/affine) to C99 text.

`print_c` turns a `builtin.module` holding constant `memref.global` weights and one
`func.func` (graph inputs then outputs as static memref arguments, no results) into
``NAME.c`` and ``NAME.h``. Scalar ops are a table from op name to a C format string;
everything else (loops, ifs, loads, stores, buffers) is a handful of methods.

Conventions of the generated C:
- every SSA result becomes a `const` local (`v3`, or its IR name hint); constants are
  inlined; results nobody (transitively) needs are not emitted, so no unused locals;
- `index` is `ptrdiff_t`: signed and pointer-wide like MLIR's index, the cheapest
  integer on 32-bit MCUs, and wide enough for any offset into an addressable array;
- memrefs are row-major pointers indexed with a linearised offset from static
  strides; `memref.alloc` buffers live at static offsets of one arena (bump
  allocation, each buffer aligned to ONNXC_ARENA_ALIGN);
- integer add/sub/mul wrap (computed in the unsigned type) except on `index`;
  `math.roundeven` is `rint` (assumes the default rounding mode); `maximumf` and
  `minimumf` propagate NaN but do not order -0 and +0.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import affine, arith, func, memref, scf
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
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
    AffineSymExpr,
)

from onnxc.emit.header import CParam, param_list, print_header

__all__ = ["ARENA_ALIGN", "ARENA_ATTR", "CEmitError", "PrintedC", "print_c", "print_c_files"]

ARENA_ALIGN = 16  # must equal ONNXC_ARENA_ALIGN in onnxc_runtime.h
ARENA_ATTR = "onnxc.arena"  # marks the alloc that is the whole planned arena
VALUES_PER_LINE = 8

# Scalar ops: op name -> C expression. {0}.. are operands, {t} the result C type,
# {u} the unsigned type of operand 0, {ur} the unsigned type of the result,
# {m} the libm suffix ("f" for f32), {one} the literal 1 of the float type.
_UNARY_MATH = (
    "exp exp2 expm1 log log2 log10 log1p sqrt cbrt sin cos tan asin acos atan "
    "sinh cosh tanh asinh acosh atanh erf floor ceil round trunc"
)
OPS: dict[str, str] = {
    **{f"math.{f}": f"{f}{{m}}({{0}})" for f in _UNARY_MATH.split()},
    "math.roundeven": "rint{m}({0})",
    "math.absf": "fabs{m}({0})",
    "math.rsqrt": "{one} / sqrt{m}({0})",
    "math.powf": "pow{m}({0}, {1})",
    "math.fpowi": "pow{m}({0}, ({t}){1})",
    "math.atan2": "atan2{m}({0}, {1})",
    "math.copysign": "copysign{m}({0}, {1})",
    "math.fma": "fma{m}({0}, {1}, {2})",
    "math.absi": "{0} < 0 ? -{0} : {0}",
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
    "arith.divsi": "{0} / {1}",
    "arith.remsi": "{0} % {1}",
    "arith.divui": "({t})(({u}){0} / ({u}){1})",
    "arith.remui": "({t})(({u}){0} % ({u}){1})",
    "arith.floordivsi": "({t})onnxc_floordiv_i64({0}, {1})",
    "arith.ceildivsi": "({t})onnxc_ceildiv_i64({0}, {1})",
    "arith.maxsi": "{0} > {1} ? {0} : {1}",
    "arith.minsi": "{0} < {1} ? {0} : {1}",
    "arith.maxui": "({u}){0} > ({u}){1} ? {0} : {1}",
    "arith.minui": "({u}){0} < ({u}){1} ? {0} : {1}",
    "arith.andi": "{0} & {1}",
    "arith.ori": "{0} | {1}",
    "arith.xori": "{0} ^ {1}",
    "arith.shli": "({t})(({u}){0} << {1})",
    "arith.shrsi": "{0} >> {1}",
    "arith.shrui": "({t})(({u}){0} >> {1})",
    "arith.index_cast": "({t}){0}",
    "arith.index_castui": "({t})({u}){0}",
    "arith.sitofp": "({t}){0}",
    "arith.uitofp": "({t})({u}){0}",
    "arith.fptosi": "({t}){0}",
    "arith.fptoui": "({t})({ur}){0}",
    "arith.extf": "({t}){0}",
    "arith.truncf": "({t}){0}",
    "arith.extsi": "({t}){0}",
    "arith.extui": "({t})({u}){0}",
    "arith.trunci": "({t})({ur}){0}",
    # Special cases picked by `_scalar_format`:
    "arith.extsi.i1": "({t})-({t}){0}",
    "arith.trunci.i1": "({t})({0} & 1)",
    "arith.bitcast.f32": "onnxc_f32_bits({0})",
    "arith.bitcast.i32": "onnxc_bits_f32({0})",
    "arith.bitcast.f64": "onnxc_f64_bits({0})",
    "arith.bitcast.i64": "onnxc_bits_f64({0})",
}
# Integer add/sub/mul wrap like MLIR: computed in an unsigned type, except on index.
WRAPPING = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*"}
CMPF = {
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
CMPI = {
    "eq": "{0} == {1}",
    "ne": "{0} != {1}",
    "slt": "{0} < {1}",
    "sle": "{0} <= {1}",
    "sgt": "{0} > {1}",
    "sge": "{0} >= {1}",
    "ult": "({u}){0} < ({u}){1}",
    "ule": "({u}){0} <= ({u}){1}",
    "ugt": "({u}){0} > ({u}){1}",
    "uge": "({u}){0} >= ({u}){1}",
}
AFFINE_HELPERS = {
    AffineBinaryOpKind.FloorDiv: "onnxc_floordiv",
    AffineBinaryOpKind.CeilDiv: "onnxc_ceildiv",
    AffineBinaryOpKind.Mod: "onnxc_mod",
}
# Ops whose C has an effect: always printed. Others are printed only when needed.
EFFECTFUL = {
    "memref.store",
    "memref.copy",
    "scf.for",
    "scf.if",
    "scf.yield",
    "func.return",
}
ALIASES = {"memref.collapse_shape", "memref.expand_shape"}

C_KEYWORDS = set(
    "auto break case char const continue default do double else enum extern float "
    "for goto if inline int long register restrict return short signed sizeof "
    "static struct switch typedef union unsigned void volatile while _Bool _Complex "
    "_Imaginary main arena workspace NULL INFINITY NAN isnan float_t double_t y0 y1 "
    "yn j0 j1 jn gamma signgam errno".split()
)


class CEmitError(Exception):
    """The module holds something the C printer cannot print."""


@dataclass(frozen=True)
class PrintedC:
    """What `print_c_files` wrote: the files by name, the graph inputs and
    outputs as C parameters (inputs first, in order) and `NAME_WORKSPACE_SIZE`."""

    files: dict[str, str]
    params: list[CParam]
    workspace_size: int


def c_type(t: Attribute) -> str:
    if isinstance(t, Float32Type):
        return "float"
    if isinstance(t, Float64Type):
        return "double"
    if isinstance(t, IndexType):
        return "ptrdiff_t"
    if isinstance(t, IntegerType):
        w = t.width.data
        if w == 1:
            return "uint8_t"
        if w in (8, 16, 32, 64):
            u = "u" if t.signedness.data == Signedness.UNSIGNED else ""
            return f"{u}int{w}_t"
    raise CEmitError(f"no C type for {t}")


def unsigned_type(t: Attribute) -> str:
    if isinstance(t, IndexType):
        return "size_t"
    if isinstance(t, IntegerType):
        return f"uint{max(8, t.width.data)}_t"
    return c_type(t)


def element_size(t: Attribute) -> int:
    """Bytes of one element; index counts 8 (an upper bound on every target)."""
    if isinstance(t, IndexType):
        return 8
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    return {"float": 4, "double": 8}[c_type(t)]


def dtype_code(t: Attribute) -> str:
    ct = c_type(t)
    if isinstance(t, IntegerType) and t.width.data == 1:
        return "ONNXC_DTYPE_BOOL"
    return "ONNXC_DTYPE_" + {"float": "FLOAT", "double": "DOUBLE"}.get(ct, ct[:-2].upper()).replace(
        "PTRDIFF", "INT64"
    )


def sanitize(name: str) -> str:
    """A C identifier from any string (no leading underscore: those are reserved)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", name).lstrip("_")
    if not s or s[0].isdigit():
        s = "t_" + s
    return s


def c_string(text: str) -> str:
    out = []
    for ch in text.encode():
        c = chr(ch)
        if c in '"\\?':
            out.append("\\" + c)
        elif 32 <= ch < 127:
            out.append(c)
        else:
            out.append(f"\\{ch:03o}")
    return '"' + "".join(out) + '"'


def c_comment(text: str) -> str:
    text = " ".join(text.split())
    for bad, good in (("*/", "* /"), ("/*", "/ *"), ("??", "? ?")):
        text = text.replace(bad, good)
    return f"/* {text} */"


def float_literal(v: float, t: Attribute) -> str:
    if v != v:
        return "NAN"
    if v in (float("inf"), float("-inf")):
        return "INFINITY" if v > 0 else "(-INFINITY)"
    f32 = isinstance(t, Float32Type)
    s = ("%.9g" if f32 else "%.17g") % v
    if not any(c in s for c in ".e"):
        s += ".0"
    s += "f" if f32 else ""
    return f"({s})" if s.startswith("-") else s


def int_literal(v: int, t: Attribute) -> str:
    if isinstance(t, IntegerType) and t.width.data == 1:
        return "1" if v else "0"
    width = t.width.data if isinstance(t, IntegerType) else 64
    if v == -(1 << (width - 1)) and width in (32, 64):
        return f"INT{width}_MIN"
    return f"({v})" if v < 0 else str(v)


class Namer:
    """Hands out unique C identifiers, deterministically."""

    def __init__(self, reserved: Sequence[str]) -> None:
        self.used = set(C_KEYWORDS) | set(reserved)
        self.counters: dict[str, int] = {}

    def take(self, base: str) -> str:
        base = sanitize(base)
        if base.lower().startswith("onnxc_"):
            base = "t_" + base
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        return name

    def numbered(self, prefix: str) -> str:
        while True:
            k = self.counters.get(prefix, 0)
            self.counters[prefix] = k + 1
            if f"{prefix}{k}" not in self.used:
                self.used.add(f"{prefix}{k}")
                return f"{prefix}{k}"


def _memref_type(value: SSAValue) -> MemRefType[Attribute]:
    t = value.type
    if not isinstance(t, MemRefType):
        raise CEmitError(f"expected a memref, got {t}")
    if any(d < 0 for d in t.get_shape()):
        raise CEmitError(f"dynamic shapes are not supported: {t}")
    if not isinstance(t.layout, NoneAttr) and not (
        isinstance(t.layout, AffineMapAttr) and t.layout.data.is_identity()
    ):
        raise CEmitError(f"only row-major (identity layout) memrefs: {t}")
    return t


def _numel(shape: Sequence[int]) -> int:
    return int(np.prod(shape, dtype=np.int64)) if shape else 1


def _string_list(attr: Attribute | None) -> list[str] | None:
    if not isinstance(attr, ArrayAttr):
        return None
    return [a.data for a in attr.data if isinstance(a, StringAttr)]


class CPrinter:
    """Prints one model; see `print_c`."""

    def __init__(self, module: ModuleOp, name: str) -> None:
        funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
        if len(funcs) != 1:
            raise CEmitError(f"expected exactly one func.func, found {len(funcs)}")
        self.fn = funcs[0]
        self.globals = [op for op in module.ops if isinstance(op, memref.GlobalOp)]
        self.name = name
        self.namer = Namer(
            [f"{name}_{s}" for s in ("run", "run_with_workspace", "arena")]
            + [f"{name}_{s}" for s in ("inputs", "outputs")]
        )
        self.names: dict[SSAValue, str] = {}
        self.global_names: dict[str, str] = {}
        self.lines: list[str] = []
        self.indent = 1
        self.arena_size = 0
        self.uses_arena = False
        self.needed = self._needed_ops()
        self.params = self._params()

    # --- analysis -------------------------------------------------------------

    def _needed_ops(self) -> set[Operation]:
        """Effectful ops and, transitively, the ops their operands come from."""
        needed: set[Operation] = set()
        for op in reversed(list(self.fn.walk())):
            if op.name in EFFECTFUL or any(
                use.operation in needed for r in op.results for use in r.uses
            ):
                needed.add(op)
        return needed

    def _is_used(self, value: SSAValue) -> bool:
        return any(use.operation in self.needed for use in value.uses)

    def _params(self) -> list[CParam]:
        args = self.fn.body.block.args
        attrs = self.fn.attributes
        in_names = _string_list(attrs.get("onnxc.input_names"))
        out_names = _string_list(attrs.get("onnxc.output_names"))
        if in_names is None and out_names is None:
            n_in = max(0, len(args) - 1)
            in_names = [f"arg{i}" for i in range(n_in)]
            out_names = [f"arg{i}" for i in range(n_in, len(args))]
        elif in_names is None:
            assert out_names is not None
            in_names = [f"arg{i}" for i in range(len(args) - len(out_names))]
        elif out_names is None:
            out_names = [f"arg{i}" for i in range(len(in_names), len(args))]
        if len(in_names) + len(out_names) != len(args):
            raise CEmitError(
                f"@{self.fn.sym_name.data} has {len(args)} arguments but names for "
                f"{len(in_names)} inputs and {len(out_names)} outputs"
            )
        params: list[CParam] = []
        for i, (arg, onnx_name) in enumerate(zip(args, in_names + out_names, strict=True)):
            t = _memref_type(arg)
            c_name = self.namer.take(onnx_name)
            self.names[arg] = c_name
            params.append(
                CParam(
                    onnx_name,
                    c_name,
                    c_type(t.element_type),
                    dtype_code(t.element_type),
                    tuple(t.get_shape()),
                    i < len(in_names),
                )
            )
        return params

    # --- small helpers ----------------------------------------------------------

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.indent + line)

    def expr(self, value: SSAValue) -> str:
        op = value.owner
        if isinstance(op, arith.ConstantOp):
            attr = op.value
            if isinstance(attr, FloatAttr):
                return float_literal(attr.value.data, value.type)
            if isinstance(attr, IntegerAttr):
                return int_literal(attr.value.data, value.type)
            raise CEmitError(f"unsupported constant {attr}")
        if value not in self.names:
            raise CEmitError(f"value {value} used before it is printed")
        return self.names[value]

    def local_name(self, value: SSAValue, prefix: str = "v") -> str:
        hint = value.name_hint
        if hint and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", hint):
            name = self.namer.take(hint)
        else:
            name = self.namer.numbered(prefix)
        self.names[value] = name
        return name

    def offset(self, ref: SSAValue, indices: Sequence[SSAValue]) -> str:
        """Row-major linear offset of `indices` into `ref`, folding constants."""
        shape = _memref_type(ref).get_shape()
        acc = "0"
        for dim, idx in zip(shape, indices, strict=True):
            i = self.expr(idx)
            if acc == "0":
                acc = i
            elif acc.isdigit() and i.isdigit():
                acc = str(int(acc) * dim + int(i))
            else:
                acc = f"({acc} * {dim} + {i})" if i != "0" else f"({acc} * {dim})"
        return acc[1:-1] if acc.startswith("(") and acc.endswith(")") else acc

    def affine(self, e: AffineExpr, operands: Sequence[SSAValue], n_dims: int) -> str:
        if isinstance(e, AffineDimExpr):
            return self.expr(operands[e.position])
        if isinstance(e, AffineSymExpr):
            return self.expr(operands[n_dims + e.position])
        if isinstance(e, AffineConstantExpr):
            return str(e.value) if e.value >= 0 else f"({e.value})"
        assert isinstance(e, AffineBinaryOpExpr)
        lhs = self.affine(e.lhs, operands, n_dims)
        rhs = e.rhs
        if _binds_tighter(e.lhs, e.kind, True):
            lhs = lhs[1:-1]
        if e.kind in AFFINE_HELPERS:
            helper = AFFINE_HELPERS[e.kind]
            return f"{helper}({lhs}, {self.affine(rhs, operands, n_dims)})"
        if e.kind == AffineBinaryOpKind.Add:
            if isinstance(rhs, AffineConstantExpr) and rhs.value < 0:
                return f"({lhs} - {-rhs.value})"
            if (
                isinstance(rhs, AffineBinaryOpExpr)
                and rhs.kind == AffineBinaryOpKind.Mul
                and isinstance(rhs.rhs, AffineConstantExpr)
                and rhs.rhs.value == -1
            ):
                return f"({lhs} - {self.affine(rhs.lhs, operands, n_dims)})"
            text = self.affine(rhs, operands, n_dims)
            text = text[1:-1] if _binds_tighter(rhs, e.kind, False) else text
            return f"({lhs} + {text})"
        return f"({lhs} * {self.affine(rhs, operands, n_dims)})"

    def _scalar_format(self, op: Operation) -> str | None:
        name = op.name
        rt = op.results[0].type
        if name in WRAPPING:
            if isinstance(rt, IndexType):
                return f"{{0}} {WRAPPING[name]} {{1}}"
            w = "uint64_t" if element_size(rt) > 4 else "uint32_t"
            return f"({{t}})(({w}){{0}} {WRAPPING[name]} ({w}){{1}})"
        if isinstance(op, arith.CmpfOp):
            return CMPF[arith.CMPF_COMPARISON_OPERATIONS[op.predicate.value.data]]
        if isinstance(op, arith.CmpiOp):
            return CMPI[arith.CMPI_COMPARISON_OPERATIONS[op.predicate.value.data]]
        src = op.operands[0].type if op.operands else rt
        if name in ("arith.extsi", "arith.trunci"):
            narrow = src if name == "arith.extsi" else rt
            if isinstance(narrow, IntegerType) and narrow.width.data == 1:
                return OPS[name + ".i1"]
        if name == "arith.bitcast":
            if c_type(src) == c_type(rt):
                return "{0}"
            if isinstance(rt, Float32Type | Float64Type):
                return OPS[f"{name}.f{element_size(rt) * 8}"]
            return OPS[f"{name}.i{element_size(rt) * 8}"]
        return OPS.get(name)

    # --- op printing --------------------------------------------------------------

    def print_block(self, block: Block) -> None:
        for op in block.ops:
            comment = op.attributes.get("onnxc.comment")
            if isinstance(comment, StringAttr) and (op in self.needed or op.name in ALIASES):
                self.emit(c_comment(comment.data))
            self.print_op(op)

    def print_op(self, op: Operation) -> None:
        if isinstance(op, arith.ConstantOp | memref.DeallocOp):
            return  # constants are inlined; the arena is static
        if isinstance(op, memref.GetGlobalOp):
            self.names[op.memref] = self.global_names[op.name_.root_reference.data]
            return
        if op.name in ALIASES:
            self.names[op.results[0]] = self.expr(op.operands[0])
            return
        if isinstance(op, memref.ViewOp):
            return self.print_view(op)
        if op not in self.needed:
            return
        if isinstance(op, memref.AllocOp | memref.AllocaOp):
            return self.print_alloc(op.results[0])
        if isinstance(op, memref.LoadOp):
            ref, *idx = op.operands
            v = op.results[0]
            rhs = f"{self.expr(ref)}[{self.offset(ref, idx)}]"
            return self.emit(f"const {c_type(v.type)} {self.local_name(v)} = {rhs};")
        if isinstance(op, memref.StoreOp):
            value, ref, *idx = op.operands
            target = f"{self.expr(ref)}[{self.offset(ref, idx)}]"
            return self.emit(f"{target} = {self.expr(value)};")
        if isinstance(op, memref.CopyOp):
            return self.print_copy(op.operands[0], op.operands[1])
        if isinstance(op, scf.ForOp):
            return self.print_for(op)
        if isinstance(op, scf.IfOp):
            return self.print_if(op)
        if isinstance(op, scf.YieldOp):
            return self.print_yield(op)
        if isinstance(op, func.ReturnOp):
            return self.emit("return ONNXC_OK;")
        if isinstance(op, affine.ApplyOp):
            amap = op.map.data
            v = op.results[0]
            text = self.affine(amap.results[0], op.operands, amap.num_dims)
            if text.startswith("(") and text.endswith(")"):
                text = text[1:-1]
            return self.emit(f"const ptrdiff_t {self.local_name(v)} = {text};")
        fmt = self._scalar_format(op) if len(op.results) == 1 else None
        if fmt is None:
            raise CEmitError(self._unsupported(op))
        v = op.results[0]
        src = op.operands[0].type if op.operands else v.type
        ft = v.type if isinstance(v.type, Float32Type | Float64Type) else src
        f32 = isinstance(ft, Float32Type)
        text = fmt.format(
            *(self.expr(o) for o in op.operands),
            t=c_type(v.type),
            u=unsigned_type(src),
            ur=unsigned_type(v.type),
            m="f" if f32 else "",
            one="1.0f" if f32 else "1.0",
        )
        self.emit(f"const {c_type(v.type)} {self.local_name(v)} = {text};")

    def _unsupported(self, op: Operation) -> str:
        where = op.attributes.get("onnxc.comment")
        node = f" (in {where.data})" if isinstance(where, StringAttr) else ""
        types = ", ".join(str(r.type) for r in op.results)
        return f"the C printer does not support {op.name} -> ({types}){node}"

    def print_alloc(self, value: SSAValue) -> None:
        """An alloc is bump-allocated in the arena. A planned module (see the
        plan-memory pass) has one alloc, of bytes, that is the whole arena."""
        t = _memref_type(value)
        size = _numel(t.get_shape()) * element_size(t.element_type)
        offset = -(-self.arena_size // ARENA_ALIGN) * ARENA_ALIGN
        self.arena_size = offset + size
        if value.owner.attributes.get(ARENA_ATTR) is not None and offset == 0:
            self.names[value] = "arena"
            self.uses_arena = True
            return
        ct = c_type(t.element_type)
        base = f"(arena + {offset})" if offset else "arena"
        name = self.local_name(value, "buf")
        self.emit(f"{ct} *const {name} = ({ct} *){base};")

    def print_view(self, op: memref.ViewOp) -> None:
        """`memref.view %bytes[%shift][]`: a typed pointer into a byte buffer."""
        if op.sizes:
            raise CEmitError("memref.view with dynamic sizes is not supported")
        t = _memref_type(op.result)
        ct = c_type(t.element_type)
        source, shift = self.expr(op.source), self.expr(op.byte_shift)
        base = source if shift == "0" else f"({source} + {shift})"
        name = self.local_name(op.result, "buf")
        self.emit(f"{ct} *const {name} = ({ct} *){base};")

    def print_copy(self, src: SSAValue, dst: SSAValue) -> None:
        n = _numel(_memref_type(src).get_shape())
        if n != _numel(_memref_type(dst).get_shape()):
            raise CEmitError("memref.copy between buffers of different sizes")
        s, d = self.expr(src), self.expr(dst)
        if n == 1:
            self.emit(f"{d}[0] = {s}[0];")
        elif n > 1:
            k = self.namer.numbered("k")
            self.emit(f"for (ptrdiff_t {k} = 0; {k} < {n}; ++{k}) {{")
            self.emit(f"  {d}[{k}] = {s}[{k}];")
            self.emit("}")

    def print_for(self, op: scf.ForOp) -> None:
        block = op.body.block
        iv, *carried = block.args
        for arg, init, res in zip(carried, op.iter_args, op.results, strict=True):
            name = self.local_name(arg)
            self.names[res] = name
            self.emit(f"{c_type(arg.type)} {name} = {self.expr(init)};")
        i = self.local_name(iv, "i")
        lb, ub, step = (self.expr(v) for v in (op.lb, op.ub, op.step))
        inc = f"++{i}" if step == "1" else f"{i} += {step}"
        self.emit(f"for ({c_type(iv.type)} {i} = {lb}; {i} < {ub}; {inc}) {{")
        self.indent += 1
        self.print_block(block)
        self.indent -= 1
        self.emit("}")
        for res in op.results:
            if not self._is_used(res):
                self.emit(f"(void){self.names[res]};")

    def print_if(self, op: scf.IfOp) -> None:
        for res in op.results:
            self.emit(f"{c_type(res.type)} {self.local_name(res)};")
        self.emit(f"if ({self.expr(op.cond)}) {{")
        self.indent += 1
        self.print_block(op.true_region.block)
        self.indent -= 1
        else_ops = [o for b in op.false_region.blocks for o in b.ops]
        if else_ops and not (len(else_ops) == 1 and not else_ops[0].operands):
            self.emit("} else {")
            self.indent += 1
            self.print_block(op.false_region.block)
            self.indent -= 1
        self.emit("}")
        for res in op.results:
            if not self._is_used(res):
                self.emit(f"(void){self.names[res]};")

    def print_yield(self, op: scf.YieldOp) -> None:
        parent = op.parent_op()
        if isinstance(parent, scf.ForOp):
            targets = [self.names[a] for a in parent.body.block.args[1:]]
        elif isinstance(parent, scf.IfOp):
            targets = [self.names[r] for r in parent.results]
        else:
            raise CEmitError(f"scf.yield inside {parent and parent.name}")
        values = [self.expr(v) for v in op.operands]
        pairs = [
            (t, v, o.type) for t, v, o in zip(targets, values, op.operands, strict=True) if t != v
        ]
        # Carried values may be yielded swapped: go through temporaries then.
        if any(v in targets for _, v, _ in pairs):
            self.emit("{")
            temps = []
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

    # --- file-level parts ---------------------------------------------------------

    def print_weights(self, separate: bool) -> tuple[list[str], list[str]]:
        """Weight definitions, and (when `separate`) the `extern` declarations
        NAME.c needs: separate weights get external linkage, prefixed NAME_."""
        out: list[str] = []
        declarations: list[str] = []
        storage = "" if separate else "static "
        for g in self.globals:
            sym = g.sym_name.data
            name = self.namer.take(f"{self.name}_{sym}" if separate else sym)
            self.global_names[sym] = name
            t = g.type
            if not isinstance(t, MemRefType) or g.constant is None:
                raise CEmitError(f"memref.global @{sym} must be a constant memref")
            if not isinstance(g.initial_value, DenseIntOrFPElementsAttr):
                raise CEmitError(f"memref.global @{sym} has no dense initial value")
            values = _weight_values(g.initial_value, t)
            ct = c_type(t.element_type)
            decl = f"const {ct} {name}[{max(1, len(values))}] ONNXC_WEIGHT_ATTRIBUTES"
            declarations.append(f"extern {decl};")
            if values:
                out.append(f"{storage}{decl} = {{")
                for k in range(0, len(values), VALUES_PER_LINE):
                    out.append("  " + ", ".join(values[k : k + VALUES_PER_LINE]) + ",")
                out.append("};")
            else:
                out.append(f"{storage}{decl} = {{0}}; /* empty */")
            out.append("")
        return out, (declarations + [""] if separate and declarations else [])

    def print_tables(self) -> list[str]:
        out: list[str] = []
        for kind, is_input in (("inputs", True), ("outputs", False)):
            rows = []
            params = [p for p in self.params if p.is_input == is_input]
            for k, p in enumerate(params):
                shape = "NULL"
                if p.shape:
                    shape = f"{self.name}_{kind}{k}_shape"
                    dims = ", ".join(str(d) for d in p.shape)
                    out.append(f"static const int32_t {shape}[{len(p.shape)}] = {{{dims}}};")
                rows.append(
                    f"  {{{c_string(p.onnx_name)}, {p.dtype_code}, {len(p.shape)}, {shape}}},"
                )
            if not rows:
                rows.append("  {NULL, ONNXC_DTYPE_UNDEFINED, 0, NULL}, /* none */")
            out += [f"const onnxc_tensor_info {self.name}_{kind}[] = {{", *rows, "};"]
        return out + [""]

    def print_run(self) -> list[str]:
        self.lines = []
        self.print_block(self.fn.body.block)
        body = self.lines
        name, params = self.name, self.params
        checks = " || ".join(
            ["workspace == NULL"] + [f"{p.c_name} == NULL" for p in params if p.numel]
        )
        head = [
            f"int {name}_run_with_workspace(",
            f"    {param_list(params, workspace=True)}) {{",
        ]
        args = self.fn.body.block.args
        unused = [
            f"  (void){p.c_name};"
            for p, arg in zip(params, args, strict=True)
            if p.numel == 0 and not self._is_used(arg)
        ]
        arena = ["  unsigned char *const arena = (unsigned char *)workspace;"]
        out = head + [
            f"  if ({checks}) {{",
            "    return ONNXC_ERR_NULL_ARG;",
            "  }",
            "  if ((uintptr_t)workspace % ONNXC_ARENA_ALIGN != 0) {",
            "    return ONNXC_ERR_MISALIGNED;",
            "  }",
            *unused,
            *(arena if self.arena_size or self.uses_arena else []),
            *body,
            "}",
            "",
            *self.print_invoke(),
            "#ifndef ONNXC_NO_DEFAULT_ARENA",
            "/* The default arena, over-allocated so it can be aligned at run time. */",
            f"static onnxc_arena_unit {name}_arena[({name}_WORKSPACE_SIZE + "
            "ONNXC_ARENA_ALIGN + sizeof(onnxc_arena_unit) - 1) / "
            "sizeof(onnxc_arena_unit)];",
            "",
            f"int {name}_run({param_list(params, workspace=False)}) {{",
            f"  unsigned char *base = (unsigned char *){name}_arena;",
            "  base += (ONNXC_ARENA_ALIGN - (uintptr_t)base % ONNXC_ARENA_ALIGN) %",
            "          ONNXC_ARENA_ALIGN;",
            f"  return {name}_run_with_workspace("
            + ", ".join(["base"] + [p.c_name for p in params])
            + ");",
            "}",
            "#endif /* ONNXC_NO_DEFAULT_ARENA */",
            "",
        ]
        return out

    def print_invoke(self) -> list[str]:
        """NAME_invoke: the same entry point with tensors passed as arrays of
        pointers in NAME_inputs / NAME_outputs order, for generic drivers."""
        ins = [p for p in self.params if p.is_input]
        outs = [p for p in self.params if not p.is_input]
        args = [f"(const {p.c_type} *)inputs[{k}]" for k, p in enumerate(ins)]
        args += [f"({p.c_type} *)outputs[{k}]" for k, p in enumerate(outs)]
        checks = (["inputs == NULL"] if ins else []) + (["outputs == NULL"] if outs else [])
        unused = [f"  (void){v};" for v, ps in (("inputs", ins), ("outputs", outs)) if not ps]
        guard = [f"  if ({' || '.join(checks)}) {{", "    return ONNXC_ERR_NULL_ARG;", "  }"]
        return [
            f"int {self.name}_invoke(void *workspace, const void *const *inputs, "
            "void *const *outputs) {",
            *(guard if checks else []),
            *unused,
            f"  return {self.name}_run_with_workspace(" + ", ".join(["workspace", *args]) + ");",
            "}",
            "",
        ]


def _binds_tighter(e: AffineExpr, parent: AffineBinaryOpKind, is_lhs: bool) -> bool:
    """Whether `e`, printed in parentheses, needs none as an operand of `parent`."""
    if not isinstance(e, AffineBinaryOpExpr) or e.kind in AFFINE_HELPERS:
        return False
    mul = AffineBinaryOpKind.Mul
    if e.kind == mul:
        return parent == AffineBinaryOpKind.Add or is_lhs
    return parent == AffineBinaryOpKind.Add and is_lhs


def _weight_values(attr: DenseIntOrFPElementsAttr, t: MemRefType[Attribute]) -> list[str]:
    """C literals of a weight, from the attribute's raw little-endian bytes."""
    et = t.element_type
    n = _numel(t.get_shape())
    raw = bytes(attr.data.data)
    if isinstance(et, Float32Type | Float64Type):
        arr = np.frombuffer(raw, dtype="<f4" if isinstance(et, Float32Type) else "<f8")
    elif isinstance(et, IntegerType) and et.width.data == 1:
        arr = (np.frombuffer(raw, dtype=np.uint8) != 0).astype(np.uint8)
    elif isinstance(et, IntegerType):
        sign = "u" if et.signedness.data == Signedness.UNSIGNED else "i"
        arr = np.frombuffer(raw, dtype=f"<{sign}{element_size(et)}")
    else:
        raise CEmitError(f"unsupported weight element type {et}")
    if arr.size == 1 and n != 1:
        arr = np.broadcast_to(arr, (n,))
    if arr.size != n:
        raise CEmitError(f"weight holds {arr.size} values, its type {t} needs {n}")
    if isinstance(et, Float32Type | Float64Type):
        return [float_literal(v, et) for v in arr.tolist()]
    return [int_literal(v, et) for v in arr.tolist()]


def _banner(version: str, options_comment: str, what: str) -> str:
    lines = [f"/* {what} Generated by onnxc {version}; do not edit."]
    if options_comment:
        lines.append(" * " + c_comment(f"Options: {options_comment}")[3:-3])
    return "\n".join(lines) + "\n */"


def _version(version: str | None) -> str:
    if version is not None:
        return version
    try:
        import onnxc

        return str(getattr(onnxc, "__version__", "unknown"))
    except ImportError:
        return "unknown"


def print_c(
    module: ModuleOp,
    name: str,
    *,
    options_comment: str = "",
    version: str | None = None,
) -> tuple[str, str]:
    """Print `module` as C: returns (the text of NAME.c, the text of NAME.h).

    `name` must be a C identifier; it prefixes every public symbol (`NAME_run`, ...).
    `version` defaults to `onnxc.__version__`. Raises `CEmitError` on IR outside the
    printer's contract (see the module docstring), naming the op and its ONNX node.
    """
    files = print_c_files(module, name, options_comment=options_comment, version=version).files
    return files[f"{name}.c"], files[f"{name}.h"]


def print_c_files(
    module: ModuleOp,
    name: str,
    *,
    options_comment: str = "",
    version: str | None = None,
    separate_weights: bool = False,
) -> PrintedC:
    """Print `module` as C files: file name -> text, `NAME.c` and `NAME.h`, and
    with `separate_weights` also `NAME_weights.c` holding every weight array
    (external `NAME_`-prefixed symbols), so large models can be built or placed
    apart; with the interface they declare. Otherwise as `print_c`."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        raise ValueError(f"model name {name!r} is not a C identifier")
    ver = _version(version)
    p = CPrinter(module, name)
    weights, declarations = p.print_weights(separate_weights)
    tables = p.print_tables()
    run = p.print_run()
    includes = [
        f'#include "{name}.h"',
        "",
        "#include <math.h>",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
    ]
    c_lines = [
        _banner(ver, options_comment, f"{name}.c:"),
        *includes,
        *(declarations if separate_weights else weights),
        *tables,
        *run,
    ]
    banner = _banner(ver, options_comment, f"{name}.h:")
    files = {
        f"{name}.c": "\n".join(c_lines),
        f"{name}.h": print_header(name, p.params, p.arena_size, banner),
    }
    if separate_weights:
        weights_banner = _banner(
            ver, options_comment, f"{name}_weights.c: the weights of {name}.c."
        )
        files[f"{name}_weights.c"] = "\n".join(
            [weights_banner, f'#include "{name}.h"', "", *declarations, *weights]
        )
    return PrintedC(files, p.params, p.arena_size)
