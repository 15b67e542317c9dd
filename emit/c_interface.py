"""The C interface of a generated model: `NAME.h`, and the parts of `NAME.c`
that are not the computation (weights, the tensor tables, the entry points).

`print_c_files` takes a loop-level `builtin.module` holding constant
`memref.global` weights and one `func.func` (free dimensions as leading `index`
arguments, then graph inputs and outputs as memref arguments, no results; the
planned arena as one `memref.alloc` of bytes tagged `onnxc.arena`) and returns
the files. The function body is printed by `emit/c_printer.py`; this file owns
everything a caller of the model sees, so the contract is written in one
place.

A static model (every size known at compile time):
- `NAME_run_with_workspace(workspace, inputs..., outputs...)`: one pointer per
  graph input and output, in graph order, typed by the element-type table; the
  workspace holds `NAME_WORKSPACE_SIZE` bytes aligned to `ONNXC_ARENA_ALIGN`;
- `NAME_run(inputs..., outputs...)`: the same with a static default arena
  (left out with `ONNXC_NO_DEFAULT_ARENA`).

A model with free dimensions (or sizes computed from data) takes them first,
as `ptrdiff_t` parameters named after the dim_params:
- `NAME_run_with_workspace(workspace, &workspace_size, dims..., inputs...,
  outputs...)`: `workspace_size` gives the workspace's bytes and receives the
  bytes needed; an output whose sizes are known only at run time is an
  `onnxc_tensor *` (data, capacity in elements, shape written by the model);
- `NAME_workspace_size(dims...)`: the bytes the workspace needs for those
  sizes (plus what sizes computed from data need, reported at run time);
- `NAME_WORKSPACE_SIZE` and `NAME_run` only when every free dimension has a
  bound (`max_dims`) and no size depends on data.

Every model has `NAME_invoke(workspace, &workspace_size, inputs[], outputs[])`,
the generic form with `onnxc_tensor` descriptors (the free dimensions come from
the input shapes), and `NAME_inputs[]` / `NAME_outputs[]`. Every entry point
returns `ONNXC_OK` or a negative `ONNXC_ERR_*` status.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import is_side_effect_free

from onnxc.dialects.onnxc import (
    CheckOp,
    InputOp,
    OutputOp,
    SizeLimits,
    WorkspaceAvailableOp,
    WorkspaceOp,
)
from onnxc.dialects.onnxc_strings import STRING, StringGlobalOp
from onnxc.element_types import ElementType
from onnxc.emit import c_strings, c_weight_blob
from onnxc.emit.c_names import Namer, c_comment, c_string, sanitize
from onnxc.emit.c_printer import BodyPrinter, Memref, mul
from onnxc.emit.c_types import row, storage_literals, storage_values
from onnxc.emit.c_weights import (
    LISTED_BYTES,
    LITTLE_ENDIAN_CHECK,
    byte_string_declaration,
    byte_string_definition,
    little_endian_bytes,
)
from onnxc.emit.runner import Dim, TensorSpec
from onnxc.errors import CEmitError
from onnxc.intervals import INFINITY, Interval, evaluate, upper_bound
from onnxc.ir_names import (
    ARENA,
    DIMS,
    INPUT_NAMES,
    MAX_BUFFER_BYTES_32,
    MAX_DIMS,
    MAX_STATIC_ARENA,
    OUTPUT_NAMES,
)
from onnxc.runtime_c import sources_for

__all__ = ["CParam", "PrintedC", "print_c", "print_c_files"]

VALUES_PER_LINE = 8


@dataclass(frozen=True)
class CParam:
    """One graph input or output as C sees it. `shape` holds -1 where a size
    is known only at run time; `dim_names` the free dimension a size is (or
    None); `max_shape` upper bounds (-1 where unbounded)."""

    onnx_name: str
    c_name: str
    element: ElementType
    shape: tuple[int, ...]
    dim_names: tuple[str | None, ...]
    max_shape: tuple[int, ...]
    is_input: bool

    @property
    def c_type(self) -> str:
        return self.element.storage_c_type

    @property
    def dtype_code(self) -> str:
        return self.element.enum

    @property
    def is_static(self) -> bool:
        return all(d >= 0 for d in self.shape)

    @property
    def numel(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def declaration(self) -> str:
        if not self.is_input and not self.is_static:
            return f"onnxc_tensor *{self.c_name}"
        const = "const " if self.is_input else ""
        return f"{const}{self.c_type} *{self.c_name}"

    def spec(self) -> TensorSpec:
        dims: list[Dim] = []
        for size, name in zip(self.shape, self.dim_names, strict=True):
            dims.append(size if size >= 0 else name)
        return TensorSpec(self.onnx_name, self.element, tuple(dims), self.max_shape)


@dataclass(frozen=True)
class PrintedC:
    """What `print_c_files` wrote: the files by name, the graph inputs and
    outputs as the C declares them, the free dimensions (C parameters, in
    order) and `NAME_WORKSPACE_SIZE` (None when the model has no bound)."""

    files: dict[str, str]
    inputs: list[TensorSpec]
    outputs: list[TensorSpec]
    workspace_size: int | None
    dims: list[str]
    weights: np.ndarray | None = None
    """The contents of `NAME.weights` (uint8) when the weights are a binary file."""


def _string_list(attr: Attribute | None) -> list[str] | None:
    if not isinstance(attr, ArrayAttr):
        return None
    return [a.data for a in attr.data if isinstance(a, StringAttr)]


def _banner(version: str, options_comment: str, what: str) -> str:
    lines = [f"/* {what} Generated by onnxc {version}; do not edit."]
    if options_comment:
        lines.append(" * " + c_comment(f"Options: {options_comment}")[3:-3])
    return "\n".join(lines) + "\n */"


def _guard(lines: list[str], condition: str, status: str, indent: str = "  ") -> None:
    lines += [f"{indent}if ({condition}) {{", f"{indent}  return {status};", f"{indent}}}"]


class ModelPrinter:
    """Prints one model; see `print_c_files`."""

    def __init__(self, module: ModuleOp, name: str) -> None:
        funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
        if len(funcs) != 1:
            raise CEmitError(f"expected exactly one func.func, found {len(funcs)}")
        self.fn = funcs[0]
        self.limits = SizeLimits.of(self.fn)
        self.globals = [op for op in module.ops if isinstance(op, memref.GlobalOp)]
        self.string_globals = [op for op in module.ops if isinstance(op, StringGlobalOp)]
        self.name = name
        self.namer = Namer(
            [f"{name}_{s}" for s in ("run", "run_with_workspace", "invoke", "arena")]
            + [f"{name}_{s}" for s in ("inputs", "outputs", "workspace_size")]
            + ["available", "needed"]
        )
        self.names: dict[SSAValue, str] = {}
        self.memrefs: dict[SSAValue, Memref] = {}
        self.global_names: dict[str, str] = {}
        self.blob: np.ndarray | None = None
        """The weights file's contents, when the weights are one (`weights`)."""
        self.arena_size = 0
        self.arena_value: SSAValue | None = None
        self.short_output = ""
        """The C flag of the group of outputs being bound: a capacity too small."""
        self.dim_names: dict[SSAValue, str] = {}
        """The ONNX name of each free dimension's argument."""
        self.dims = self._dims()
        self.bounded = all(interval.high != INFINITY for _, _, interval in self.dims)
        self.params = self._params()
        self.dynamic = (
            bool(self.dims)
            or not all(p.is_static for p in self.params)
            or any(isinstance(op, WorkspaceOp | OutputOp) for op in self.fn.walk())
        )

    # --- the interface ------------------------------------------------------------

    def _dims(self) -> list[tuple[str, SSAValue, Interval]]:
        """The free dimensions: (C name, argument, range)."""
        names = _string_list(self.fn.attributes.get(DIMS)) or []
        bounds = self.fn.attributes.get(MAX_DIMS)
        found: list[tuple[str, SSAValue, Interval]] = []
        for name, arg in zip(names, self.fn.body.block.args, strict=False):
            if not isinstance(arg.type, IndexType):
                raise CEmitError(f"free dimension '{name}' is not an index argument")
            high: float = INFINITY
            if isinstance(bounds, DictionaryAttr):
                bound = bounds.data.get(name)
                if isinstance(bound, IntegerAttr):
                    high = bound.value.data
            c_name = self.namer.take(sanitize(name))
            self.names[arg] = c_name
            self.dim_names[arg] = name
            found.append((c_name, arg, Interval(0, high)))
        return found

    def ranges(self) -> dict[SSAValue, Interval]:
        return {arg: interval for _, arg, interval in self.dims}

    def _bindings(self) -> dict[tuple[type, int], InputOp | OutputOp]:
        """Each input's and output's binding op, by (its class, its index):
        found in one walk (a model may have hundreds of arguments)."""
        found: dict[tuple[type, int], InputOp | OutputOp] = {}
        for op in self.fn.walk():
            if isinstance(op, InputOp | OutputOp):
                found.setdefault((type(op), op.index.value.data), op)
        return found

    def _params(self) -> list[CParam]:
        args = list(self.fn.body.block.args[len(self.dims) :])
        attrs = self.fn.attributes
        in_names = _string_list(attrs.get(INPUT_NAMES))
        out_names = _string_list(attrs.get(OUTPUT_NAMES))
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
        bindings = self._bindings()
        for i, (arg, onnx_name) in enumerate(zip(args, in_names + out_names, strict=True)):
            t = arg.type
            if not isinstance(t, MemRefType):
                raise CEmitError(f"argument {i} of @{self.fn.sym_name.data} is not a memref")
            is_input = i < len(in_names)
            k = i if is_input else i - len(in_names)
            shape = tuple(t.get_shape())
            names: list[str | None] = [None] * len(shape)
            bounds = [d if d >= 0 else -1 for d in shape]
            binding = bindings.get((InputOp if is_input else OutputOp, k))
            if binding is not None:
                # The argument's type says what C passes; the binding what
                # each size is (a free dimension, or its bound).
                sizes = iter(binding.sizes)
                result = binding.result.type
                assert isinstance(result, MemRefType)
                for axis, size in enumerate(result.get_shape()):
                    if size >= 0:
                        bounds[axis] = size
                        continue
                    value = next(sizes)
                    names[axis] = self.dim_names.get(value)
                    # Bounds are given under max_dims: with a free dimension
                    # unbounded, a constant may still bound a size, uselessly.
                    bound = upper_bound(value, self.ranges()) if self.bounded else None
                    if bound is not None and bound > self.limits.elements:
                        bound = None  # a size past it is refused: no bound
                    bounds[axis] = -1 if bound is None else bound
            elif any(d < 0 for d in shape):
                raise CEmitError(f"'{onnx_name}' has sizes known at run time but no binding")
            c_name = self.namer.take(onnx_name)
            self.names[arg] = c_name
            if is_input or all(d >= 0 for d in shape):
                self.memrefs[arg] = Memref(c_name, tuple(str(d) for d in shape))
            shape = tuple(d if d >= 0 else -1 for d in shape)
            params.append(
                CParam(
                    onnx_name,
                    c_name,
                    row(t.element_type),
                    shape,
                    tuple(names),
                    tuple(bounds),
                    is_input,
                )
            )
        return params

    def width_guard(self) -> list[str]:
        """An #error when C whose run-time sizes are checked against a 64-bit
        target's limits is compiled where ptrdiff_t is narrower: its limit
        constants would not fit, and the checks would not hold."""
        if not self.dynamic or self.limits.buffer_bytes <= MAX_BUFFER_BYTES_32:
            return []
        return [
            "#if PTRDIFF_MAX < INT64_MAX",
            f'#error "{self.name}.c was generated for a 64-bit target: generate it for a '
            '32-bit one (--target) to build it here"',
            "#endif",
            "",
        ]

    def workspace_bound(self) -> int | None:
        """NAME_WORKSPACE_SIZE: the arena's bytes, or its upper bound; None
        when unbounded or when sizes computed from data add to it."""
        if not self.dynamic:
            return self.arena_size
        if any(isinstance(op, WorkspaceOp) for op in self.fn.walk()):
            return None
        if self.arena_value is None:
            return self.arena_size
        bound = upper_bound(self.arena_value, self.ranges())
        return None if bound is None or bound > MAX_STATIC_ARENA else bound

    # --- the computation ----------------------------------------------------------

    def abi(self, body: BodyPrinter, op: Operation) -> bool:
        """Print the operations that concern the interface."""
        if isinstance(op, memref.AllocOp) and ARENA in op.attributes:
            t = op.memref.type
            assert isinstance(t, MemRefType)
            if len(t.get_shape()) != 1:
                raise CEmitError("the arena must be a 1-D alloc of bytes")
            body.emit("unsigned char *const arena = (unsigned char *)workspace;")
            if op.dynamic_sizes:
                self.arena_value = op.dynamic_sizes[0]
                size = body.expr(op.dynamic_sizes[0])
                self._require_workspace(body, size)
                body.bind_memref(op.memref, "arena", [size])
            else:
                self.arena_size = t.get_shape()[0]
                if self.dynamic and self.arena_size > 0:
                    self._require_workspace(body, str(self.arena_size))
                body.bind_memref(op.memref, "arena", [str(self.arena_size)])
            return True
        if isinstance(op, InputOp):
            t = op.result.type
            assert isinstance(t, MemRefType)
            body.bind_memref(op.result, self.names[op.argument], body.sizes_of(t, op.sizes))
            return True
        if isinstance(op, OutputOp):
            self._bind_output(body, op)
            return True
        if isinstance(op, CheckOp):
            body.emit(c_comment(op.message.data))
            body.emit(f"if (!({body.expr(op.condition)})) {{")
            body.emit("  return ONNXC_ERR_SHAPE;")
            body.emit("}")
            return True
        if isinstance(op, WorkspaceOp):
            self._require_workspace(body, body.expr(op.bytes))
            return True
        if isinstance(op, WorkspaceAvailableOp):
            body.define(op.result, "(ptrdiff_t)available")
            return True
        if isinstance(op, func.ReturnOp) and self.dynamic:
            body.emit("*workspace_size = needed;")
            body.emit("return ONNXC_OK;")
            return True
        return False

    def _require_workspace(self, body: BodyPrinter, size: str) -> None:
        body.emit(f"if ((size_t){size} > (size_t){self.limits.buffer_bytes}u) {{")
        body.emit("  return ONNXC_ERR_SHAPE; /* sizes past the limits (saturated) */")
        body.emit("}")
        body.emit(f"if (available < (size_t){size}) {{")
        body.emit(f"  *workspace_size = (size_t){size};")
        body.emit("  return ONNXC_ERR_WORKSPACE;")
        body.emit("}")
        body.emit(f"if (needed < (size_t){size}) {{")
        body.emit(f"  needed = (size_t){size};")
        body.emit("}")

    def _bind_output(self, body: BodyPrinter, op: OutputOp) -> None:
        """Write an output's shape and check its capacity. Outputs bound next to
        each other (only arithmetic between them) are one group: every shape in
        it is written before a capacity too small stops the model."""
        t = op.result.type
        assert isinstance(t, MemRefType)
        param = self.names[op.argument]
        sizes = body.sizes_of(t, op.sizes)
        if not isinstance(_bound_nearby(op, before=True), OutputOp):
            self.short_output = self.namer.take("short_output")
            body.emit(f"int {self.short_output} = 0;")
        count = "1"
        for axis, size in enumerate(sizes):
            body.emit(f"{param}->shape[{axis}] = (int64_t){size};")
            count = mul(count, size)
        body.emit(f"if ({param}->capacity < (size_t)({count})) {{")
        body.emit(f"  {self.short_output} = 1;")
        body.emit("}")
        if not isinstance(_bound_nearby(op, before=False), OutputOp):
            body.emit(f"if ({self.short_output}) {{")
            body.emit("  return ONNXC_ERR_CAPACITY;")
            body.emit("}")
        ct = row(t.element_type).storage_c_type
        data = self.namer.take(f"{param}_data")
        body.emit(f"{ct} *const {data} = ({ct} *){param}->data;")
        body.bind_memref(op.result, data, sizes)

    def body(self) -> list[str]:
        printer = BodyPrinter(self.namer, self.names, self.memrefs, self.global_names, self.abi)
        printer.print_block(self.fn.body.block)
        return printer.lines

    # --- file-level parts ---------------------------------------------------------

    def weights(self, separate: bool, binary: bool = False) -> tuple[list[str], list[str]]:
        """Weight definitions (see `c_weights`), and (when `separate`) the
        `extern` declarations NAME.c needs: separate weights get external
        linkage, prefixed NAME_. When `binary`, the weights of more than
        `LISTED_BYTES` go to the weights file instead (`c_weight_blob`; its
        contents in `self.blob`) and are read at their offsets in it."""
        blob = c_weight_blob.WeightBlob() if binary else None
        out: list[str] = []
        declarations: list[str] = []
        storage = "" if separate else "static "
        as_bytes = False  # some weight is a byte string: the file needs the endian guard
        for g in self.globals:
            sym = g.sym_name.data
            name = self.namer.take(f"{self.name}_{sym}" if separate else sym)
            t = g.type
            if not isinstance(t, MemRefType) or g.constant is None:
                raise CEmitError(f"memref.global @{sym} must be a constant memref")
            if not isinstance(g.initial_value, DenseIntOrFPElementsAttr):
                raise CEmitError(f"memref.global @{sym} has no dense initial value")
            count = math.prod(t.get_shape())
            ct = row(t.element_type).storage_c_type
            if count == 0:  # never read: a compound literal, no object to leave unused
                self.global_names[sym] = f"((const {ct}[1]){{0}})"
                continue
            raw = bytes(g.initial_value.data.data)
            values = storage_values(raw, t.element_type, count)
            if blob is not None and values.nbytes > LISTED_BYTES:
                offset = blob.add(little_endian_bytes(values))
                as_bytes = True
                self.global_names[sym] = c_weight_blob.access(self.name, ct, offset)
                continue
            if values.nbytes > LISTED_BYTES:
                data = little_endian_bytes(values)
                as_bytes = True
                self.global_names[sym] = f"{name}.v"
                declarations += byte_string_declaration(ct, name, data.size, values.size)
                out += byte_string_definition(storage, ct, name, data, values.size, separate)
                out.append("")
                continue
            self.global_names[sym] = name
            literals = storage_literals(values, t.element_type)
            decl = f"const {ct} {name}[{max(1, len(literals))}] ONNXC_WEIGHT_ATTRIBUTES"
            declarations.append(f"extern {decl};")
            out.append(f"{storage}{decl} = {{")
            for k in range(0, len(literals), VALUES_PER_LINE):
                out.append("  " + ", ".join(literals[k : k + VALUES_PER_LINE]) + ",")
            out.append("};")
            out.append("")
        for g in self.string_globals:
            sym = g.sym_name.data
            name = self.namer.take(f"{self.name}_{sym}" if separate else sym)
            self.global_names[sym] = name
            definition, declaration = c_strings.global_lines(g, name, storage)
            out += definition
            declarations.append(f"extern {declaration};")
        if blob is not None:
            self.blob = blob.finish()
            out = [*c_weight_blob.c_lines(self.name, self.blob), *out]
        if as_bytes:
            out = [*LITTLE_ENDIAN_CHECK, "", *out]
        return out, (declarations + [""] if separate and declarations else [])

    def tables(self) -> list[str]:
        out: list[str] = []
        for kind, is_input in (("inputs", True), ("outputs", False)):
            rows: list[str] = []
            params = [p for p in self.params if p.is_input == is_input]
            for k, p in enumerate(params):
                shape = names = bounds = "NULL"
                if p.shape:
                    shape = f"{self.name}_{kind}{k}_shape"
                    dims = ", ".join(str(d) for d in p.shape)
                    out.append(f"static const int64_t {shape}[{len(p.shape)}] = {{{dims}}};")
                    bounds = shape
                    if p.max_shape != p.shape:
                        bounds = f"{self.name}_{kind}{k}_max_shape"
                        dims = ", ".join(str(d) for d in p.max_shape)
                        out.append(f"static const int64_t {bounds}[{len(p.shape)}] = {{{dims}}};")
                    if any(p.dim_names):
                        names = f"{self.name}_{kind}{k}_dim_names"
                        entries = ", ".join(c_string(n) if n else "NULL" for n in p.dim_names)
                        out.append(
                            f"static const char *const {names}[{len(p.shape)}] = {{{entries}}};"
                        )
                rows.append(
                    f"  {{{c_string(p.onnx_name)}, {p.dtype_code}, {len(p.shape)}, {shape}, "
                    f"{bounds}, {names}}},"
                )
            if not rows:
                rows.append("  {NULL, ONNXC_DTYPE_UNDEFINED, 0, NULL, NULL, NULL}, /* none */")
            out += [f"const onnxc_tensor_info {self.name}_{kind}[] = {{", *rows, "};"]
        return out + [""]

    def run_parameters(self, *, workspace: bool) -> str:
        """The C parameter list of NAME_run (or NAME_run_with_workspace)."""
        parts: list[str] = []
        if workspace:
            parts.append("void *workspace")
            if self.dynamic:
                parts.append("size_t *workspace_size")
        parts += [f"ptrdiff_t {c_name}" for c_name, _, _ in self.dims]
        parts += [p.declaration() for p in self.params]
        return ", ".join(parts) if parts else "void"

    def _checks(self) -> list[str]:
        nulls = ["workspace == NULL"]
        if self.dynamic:
            nulls.append("workspace_size == NULL")
        for p in self.params:
            if not p.is_static and not p.is_input:
                nulls.append(f"{p.c_name} == NULL || {p.c_name}->shape == NULL")
                nulls.append(f"({p.c_name}->data == NULL && {p.c_name}->capacity > 0)")
            elif p.is_static and p.numel:
                nulls.append(f"{p.c_name} == NULL")
            elif not p.is_static:
                nulls.append(f"{p.c_name} == NULL")
        lines: list[str] = []
        _guard(lines, " || ".join(nulls), "ONNXC_ERR_NULL_ARG")
        _guard(lines, "(uintptr_t)workspace % ONNXC_ARENA_ALIGN != 0", "ONNXC_ERR_MISALIGNED")
        if self.blob is not None:
            _guard(lines, f"{self.name}_weight_data == NULL", "ONNXC_ERR_WEIGHTS")
        for c_name, _, interval in self.dims:
            condition = f"{c_name} < 0"
            if interval.high != INFINITY:
                condition += f" || {c_name} > {int(interval.high)}"
            _guard(lines, condition, "ONNXC_ERR_SHAPE")
        if self.dynamic:
            lines += ["  const size_t available = *workspace_size;", "  size_t needed = 0;"]
        return lines

    def entry_points(self, body: list[str]) -> list[str]:
        name, params = self.name, self.params
        args = self.fn.body.block.args[len(self.dims) :]
        unused = [
            f"  (void){p.c_name};" for p, arg in zip(params, args, strict=True) if not arg.uses
        ]
        unused += [f"  (void){c};" for c, arg, _ in self.dims if not arg.uses]
        if self.dynamic and not any(
            isinstance(op, memref.AllocOp) and ARENA in op.attributes for op in self.fn.walk()
        ):
            unused.append("  (void)available;")
        lines = [
            f"int {name}_run_with_workspace(",
            f"    {self.run_parameters(workspace=True)}) {{",
            *self._checks(),
            *unused,
            *body,
            "}",
            "",
            *self.workspace_size_function(),
            *self.invoke(),
        ]
        bound = self.workspace_bound()
        if bound is None:
            return lines
        arguments = ["base"]
        if self.dynamic:
            arguments.append("&size")
        arguments += [c for c, _, _ in self.dims] + [p.c_name for p in params]
        size = [f"  size_t size = (size_t){name}_WORKSPACE_SIZE;"] if self.dynamic else []
        return lines + [
            "#ifndef ONNXC_NO_DEFAULT_ARENA",
            "/* The default arena, over-allocated so it can be aligned at run time. */",
            f"static onnxc_arena_unit {name}_arena[({name}_WORKSPACE_SIZE + "
            "ONNXC_ARENA_ALIGN + sizeof(onnxc_arena_unit) - 1) / "
            "sizeof(onnxc_arena_unit)];",
            "",
            f"int {name}_run({self.run_parameters(workspace=False)}) {{",
            f"  unsigned char *base = (unsigned char *){name}_arena;",
            *size,
            "  base += (ONNXC_ARENA_ALIGN - (uintptr_t)base % ONNXC_ARENA_ALIGN) %",
            "          ONNXC_ARENA_ALIGN;",
            f"  return {name}_run_with_workspace(" + ", ".join(arguments) + ");",
            "}",
            "#endif /* ONNXC_NO_DEFAULT_ARENA */",
            "",
        ]

    def workspace_size_function(self) -> list[str]:
        """NAME_workspace_size(dims...): the arena's size for those sizes,
        printed from the arithmetic that computes it (dynamic models)."""
        if not self.dynamic:
            return []
        signature = ", ".join(f"ptrdiff_t {c}" for c, _, _ in self.dims) or "void"
        head = [f"size_t {self.name}_workspace_size({signature}) {{"]
        value = self.arena_value
        if value is None or evaluate(value, self.ranges()) is None:
            size = str(self.arena_size) if value is None else "0"
            unused = [f"  (void){c};" for c, _, _ in self.dims]
            return [*head, *unused, f"  return (size_t){size};", "}", ""]
        slice_ops = _slice(value)
        names = {arg: c for c, arg, _ in self.dims}
        printer = BodyPrinter(Namer(self.namer.used), dict(names), {}, {}, lambda b, o: False)
        for op in slice_ops:
            printer.print_op(op)
        used = {v for op in slice_ops for v in op.operands} | {value}
        unused = [f"  (void){c};" for c, arg, _ in self.dims if arg not in used]
        return [*head, *unused, *printer.lines, f"  return (size_t){printer.expr(value)};", "}", ""]

    def invoke(self) -> list[str]:
        """NAME_invoke: the entry point of generic drivers. Tensors come as
        `onnxc_tensor` descriptors in NAME_inputs / NAME_outputs order; the
        free dimensions are read from the input shapes; every input shape and
        static output capacity is checked, static output shapes written."""
        ins = [p for p in self.params if p.is_input]
        outs = [p for p in self.params if not p.is_input]
        lines = [
            f"int {self.name}_invoke(void *workspace, size_t *workspace_size,",
            "    const onnxc_tensor *inputs, onnxc_tensor *outputs) {",
        ]
        c_of = {self.dim_names[arg]: c for c, arg, _ in self.dims}
        assigned: set[str] = set()
        lines += [f"  ptrdiff_t {c} = -1;" for c, _, _ in self.dims]
        _guard(lines, "workspace_size == NULL", "ONNXC_ERR_NULL_ARG")
        if not self.dynamic and self.arena_size:
            lines += [
                f"  if (*workspace_size < (size_t){self.name}_WORKSPACE_SIZE) {{",
                f"    *workspace_size = (size_t){self.name}_WORKSPACE_SIZE;",
                "    return ONNXC_ERR_WORKSPACE;",
                "  }",
            ]
        checks = (["inputs == NULL"] if ins else []) + (["outputs == NULL"] if outs else [])
        if checks:
            _guard(lines, " || ".join(checks), "ONNXC_ERR_NULL_ARG")
        lines += [f"  (void){v};" for v, ps in (("inputs", ins), ("outputs", outs)) if not ps]
        for k, p in enumerate(ins):
            if not p.shape:
                continue
            _guard(lines, f"inputs[{k}].shape == NULL", "ONNXC_ERR_NULL_ARG")
            for d, (size, dim) in enumerate(zip(p.shape, p.dim_names, strict=True)):
                given = f"inputs[{k}].shape[{d}]"
                if size >= 0:
                    _guard(lines, f"{given} != {size}", "ONNXC_ERR_SHAPE")
                elif dim is not None and dim not in assigned:
                    assigned.add(dim)
                    lines.append(f"  {c_of[dim]} = (ptrdiff_t){given};")
                elif dim is not None:
                    _guard(lines, f"{given} != (int64_t){c_of[dim]}", "ONNXC_ERR_SHAPE")
        static = [(k, p) for k, p in enumerate(outs) if p.is_static]
        for k, p in static:
            if p.shape:
                _guard(lines, f"outputs[{k}].shape == NULL", "ONNXC_ERR_NULL_ARG")
                lines += [f"  outputs[{k}].shape[{d}] = {size};" for d, size in enumerate(p.shape)]
        short = [f"outputs[{k}].capacity < {p.numel}u" for k, p in static]
        if short:  # every shape is written before a capacity stops the run
            _guard(lines, " || ".join(short), "ONNXC_ERR_CAPACITY")
        if not self.dynamic:
            lines.append(f"  *workspace_size = (size_t){self.name}_WORKSPACE_SIZE;")
        args = ["workspace"] + (["workspace_size"] if self.dynamic else [])
        args += [c for c, _, _ in self.dims]
        args += [f"(const {p.c_type} *)inputs[{k}].data" for k, p in enumerate(ins)]
        args += [
            f"({p.c_type} *)outputs[{k}].data" if p.is_static else f"&outputs[{k}]"
            for k, p in enumerate(outs)
        ]
        call = ", ".join(args)
        return [*lines, f"  return {self.name}_run_with_workspace({call});", "}", ""]

    def header(self, banner: str) -> str:
        """The text of NAME.h."""
        name, params = self.name, self.params
        guard = f"{name.upper()}_H_"
        n_in = sum(p.is_input for p in params)
        n_out = len(params) - n_in
        bound = self.workspace_bound()
        lines = [
            banner,
            f"#ifndef {guard}",
            f"#define {guard}",
            "",
            '#include "onnxc_runtime.h"',
            "",
            "#ifdef __cplusplus",
            'extern "C" {',
            "#endif",
            "",
        ]
        if bound is not None:
            what = "one inference needs" if not self.dynamic else "the largest sizes need"
            lines += [f"/* Bytes of scratch memory (the arena) {what}. */"]
            lines += [f"#define {name}_WORKSPACE_SIZE {bound}"]
        if self.blob is not None:
            lines += c_weight_blob.header_lines(name, self.blob)
        lines += [
            f"#define {name}_NUM_INPUTS {n_in}",
            f"#define {name}_NUM_OUTPUTS {n_out}",
            f"#define {name}_NUM_DIMS {len(self.dims)}",
            "",
            "/* Graph inputs and outputs: name, onnxc_dtype, rank, shape (-1: known at",
            "   run time), its bounds, the free dimension each size is. */",
            f"extern const onnxc_tensor_info {name}_inputs[];",
            f"extern const onnxc_tensor_info {name}_outputs[];",
            "",
        ]
        packed = sorted({p.element.name for p in params if p.element.packing > 1})
        if packed:
            lines += [
                f"/* {', '.join(packed)} tensors are packed bytes: two 4-bit (four 2-bit)",
                "   elements per byte, the first in the least significant bits, as ONNX",
                "   serialises them (see onnxc_packed_get); capacities count elements. */",
                "",
            ]
        if bound is not None:
            lines += [
                "#ifndef ONNXC_NO_DEFAULT_ARENA",
                "/* Run one inference using the built-in static arena (not reentrant).",
                "   Returns ONNXC_OK or a negative ONNXC_ERR_* status. Define",
                "   ONNXC_NO_DEFAULT_ARENA when building to drop it and its arena. */",
                f"int {name}_run({self.run_parameters(workspace=False)});",
                "#endif",
                "",
            ]
        if self.dynamic:
            dims = ", ".join(f"ptrdiff_t {c}" for c, _, _ in self.dims) or "void"
            lines += [
                f"/* Bytes of workspace {name}_run_with_workspace needs for these sizes (sizes",
                "   computed from data may need more; the run reports it). */",
                f"size_t {name}_workspace_size({dims});",
                "",
                "/* Run one inference with a caller-provided workspace aligned to",
                "   ONNXC_ARENA_ALIGN; *workspace_size gives its bytes and receives the",
                "   bytes needed (ONNXC_ERR_WORKSPACE when it is too small). The free",
                "   dimensions come first; an output whose sizes are known only at run",
                "   time is an onnxc_tensor: its shape is written, and ONNXC_ERR_CAPACITY",
                "   returned before anything is written when its capacity is too small.",
                "   Every output whose sizes follow from the input sizes has its shape",
                "   written before that status, so one retry with capacities for those",
                "   shapes suffices; an output whose sizes follow from computed values",
                "   (NonZero, Unique, a loop's trip count) is checked once they are",
                f"   known. The bytes {name}_workspace_size gives are checked first.",
            ]
            if any(isinstance(op, WorkspaceOp) for op in self.fn.walk()):
                lines += [
                    "   Storage that grows with computed sizes (a loop's trips) is",
                    "   requested as the run reaches it: ONNXC_ERR_WORKSPACE then reports",
                    "   the bytes needed up to that point, and a retry with them may stop",
                    "   later asking for more (grow the workspace geometrically).",
                ]
            lines[-1] += " */"
        else:
            lines += [
                f"/* Same, with a caller-provided arena of {name}_WORKSPACE_SIZE bytes,",
                "   aligned to ONNXC_ARENA_ALIGN; NULL or misaligned is an error.",
                "   Instances with separate workspaces may run concurrently. */",
            ]
        lines += [
            f"int {name}_run_with_workspace({self.run_parameters(workspace=True)});",
            "",
            "/* Same, for generic drivers: tensors as onnxc_tensor descriptors in the",
            f"   order of {name}_inputs and {name}_outputs. *workspace_size gives the",
            "   bytes at workspace and receives the bytes needed; every input shape",
            "   is checked (ONNXC_ERR_SHAPE), every output's shape written and its",
            "   capacity checked (ONNXC_ERR_CAPACITY); the shapes of fixed-shape",
            f"   outputs (in {name}_outputs) are checked first. */",
            f"int {name}_invoke(void *workspace, size_t *workspace_size,",
            "    const onnxc_tensor *inputs, onnxc_tensor *outputs);",
            "",
            "#ifdef __cplusplus",
            "}",
            "#endif",
            "",
            f"#endif /* {guard} */",
            "",
        ]
        return "\n".join(lines)


def _bound_nearby(op: Operation, before: bool) -> Operation | None:
    """The nearest op before (after) `op` in its block that is not plain
    arithmetic: what decides whether `op` starts (ends) a group of outputs."""
    other = op.prev_op if before else op.next_op
    while other is not None and not other.regions and is_side_effect_free(other):
        other = other.prev_op if before else other.next_op
    return other


def _slice(value: SSAValue) -> list[Operation]:
    """The arith ops `value` is computed from, in program order."""
    found: set[Operation] = set()
    stack = [value]
    while stack:
        owner = stack.pop().owner
        if isinstance(owner, Operation) and owner not in found:
            if not owner.name.startswith("arith."):
                raise CEmitError(f"the workspace size depends on {owner.name}")
            found.add(owner)
            stack.extend(owner.operands)
    block = value.owner.parent_block() if isinstance(value.owner, Operation) else None
    order = {op: i for i, op in enumerate(block.ops)} if block is not None else {}
    return sorted(found, key=lambda op: order.get(op, 0))


def print_c(
    module: ModuleOp,
    name: str,
    *,
    options_comment: str = "",
    version: str = "unknown",
) -> tuple[str, str]:
    """Print `module` as C: returns (the text of NAME.c, the text of NAME.h)."""
    files = print_c_files(module, name, options_comment=options_comment, version=version).files
    return files[f"{name}.c"], files[f"{name}.h"]


def _uses_strings(module: ModuleOp) -> bool:
    """Whether the module computes on strings (its C includes the string helpers)."""
    for op in module.walk():
        if isinstance(op, StringGlobalOp):
            return True
        for value in (*op.results, *op.operands):
            t = value.type
            if t == STRING or (isinstance(t, MemRefType) and t.element_type == STRING):
                return True
    return False


def print_c_files(
    module: ModuleOp,
    name: str,
    *,
    options_comment: str = "",
    version: str = "unknown",
    separate_weights: bool = False,
    binary_weights: bool = False,
) -> PrintedC:
    """Print `module` as C files: file name -> text, `NAME.c` and `NAME.h`, the
    optional runtime sources NAME.c calls (`runtime_c.sources_for`), and
    with `separate_weights` also `NAME_weights.c` holding every weight array
    (external `NAME_`-prefixed symbols), so large models can be built or placed
    apart; with `binary_weights` the weights are the bytes `PrintedC.weights`
    for `NAME.weights` instead (see `c_weight_blob`). `name` must be a C
    identifier; it prefixes every public symbol.
    Raises `CEmitError` on IR outside the printer's contract."""
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name):
        raise CEmitError(f"model name {name!r} is not a C identifier")
    printer = ModelPrinter(module, name)
    weights, declarations = printer.weights(separate_weights, binary_weights)
    tables = printer.tables()
    run = printer.entry_points(printer.body())
    includes = [
        f'#include "{name}.h"',
        *([f'#include "{c_strings.HEADER}"'] if _uses_strings(module) else []),
        "",
        "#include <math.h>",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        *printer.width_guard(),
    ]
    c_lines = [
        _banner(version, options_comment, f"{name}.c:"),
        *includes,
        *(declarations if separate_weights else weights),
        *tables,
        *run,
    ]
    files = {
        f"{name}.c": "\n".join(c_lines),
        f"{name}.h": printer.header(_banner(version, options_comment, f"{name}.h:")),
    }
    files.update(sources_for(files[f"{name}.c"]))
    if separate_weights:
        weights_banner = _banner(
            version, options_comment, f"{name}_weights.c: the weights of {name}.c."
        )
        files[f"{name}_weights.c"] = "\n".join(
            [weights_banner, f'#include "{name}.h"', "", *declarations, *weights]
        )
    inputs = [p.spec() for p in printer.params if p.is_input]
    outputs = [p.spec() for p in printer.params if not p.is_input]
    dims = [printer.dim_names[arg] for _, arg, _ in printer.dims]
    return PrintedC(files, inputs, outputs, printer.workspace_bound(), dims, printer.blob)
