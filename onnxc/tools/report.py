"""The size report: where a compiled model's RAM and flash go.

    report = build_report("model.onnx", dims={"N": 1}, target="cortex-m4")
    print(report.format())

It has three parts:

- a per-layer table from the onnx-level IR (after `lower(module, "onnx")`): one row
  per ONNX node in node order with its output shapes, output bytes, weight bytes
  (constant operands) and multiply-accumulates;
- RAM: the onnx-level sum of intermediate tensors and their max-live bound (node
  order, no in-place; see `max_live_bound`), next to the planned arena
  (`NAME_WORKSPACE_SIZE`) and the figures the memory planner records on the
  loop-level function (`onnxc.memory`);
- flash: the bytes of the weight globals of the loop-level module and, when the
  target's compiler and size tool are installed, text/data/bss of the generated C
  compiled at `-Os` (code size is text less the weights, which are `static const`).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from math import prod
from pathlib import Path

import numpy as np
from xdsl.dialects import func, memref
from xdsl.dialects.builtin import (
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from onnxc import element_types
from onnxc.api import GeneratedC, generate_with
from onnxc.containers import ShapeArgument
from onnxc.dialects.dims import dims_of
from onnxc.dialects.onnx import (
    ConstantOp,
    IfOp,
    LoopOp,
    OnnxOp,
    ScanOp,
    YieldOp,
    element_type_name,
    node_name,
)
from onnxc.dialects.onnxc_strings import StringGlobalOp
from onnxc.errors import OnnxcError, UnsupportedError
from onnxc.frontend import ModelLike
from onnxc.ir_names import MEMORY as MEMORY_ATTR
from onnxc.lowering.plan_memory import greedy_by_size
from onnxc.options import CompileOptions
from onnxc.targets import get_target
from onnxc.tools.arena_map import ArenaMap, arena_buffers
from onnxc.tools.short_names import shorten

MAC_OPS = (
    "Conv",
    "ConvInteger",
    "QLinearConv",
    "ConvTranspose",
    "Gemm",
    "MatMul",
    "MatMulInteger",
    "QLinearMatMul",
)
"""Operators whose multiply-accumulates the table counts; every other row has 0
(but a node holding bodies: see `node_work`)."""

TRIP_LIMIT = 1 << 31
"""A Loop's constant trip count is taken as one from this on: exporters write
int64's maximum for "until the condition says stop"."""


# --- the onnx level -------------------------------------------------------------


@dataclass(frozen=True)
class LayerRow:
    """One ONNX node: `outputs` are (shape, element type name) of its tensor
    results (-1 for a size known only at run time), `output_bytes` their bytes
    (None when a size is known only at run time, which only a node of a body
    may have), `weight_bytes` the bytes of the `onnx.Constant`s it uses (its
    bodies' nodes' too), `macs` its multiply-accumulates (`node_work`). A node
    of an If, Loop or Scan body follows the node holding it, `depth` levels
    down, in the body named `body` ("then", "else" or "body")."""

    name: str
    op_type: str
    outputs: tuple[tuple[tuple[int, ...], str], ...]
    output_bytes: int | None
    weight_bytes: int
    macs: int
    depth: int = 0
    body: str = ""


def _main_block(module: ModuleOp) -> Block:
    funcs = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if len(funcs) != 1:
        raise OnnxcError(f"size report: expected one func.func, found {len(funcs)}")
    return funcs[0].body.block


def _nodes(block: Block) -> list[OnnxOp]:
    """The ONNX nodes of `block` in order, without constants."""
    return [op for op in block.ops if isinstance(op, OnnxOp) and not isinstance(op, ConstantOp)]


def _bodies(op: OnnxOp) -> list[tuple[str, Block]]:
    """The subgraphs a node holds, by name: If's "then" and "else" (in that
    order), Loop's and Scan's "body"."""
    if not op.regions:
        return []
    names = [name for name, _ in type(op).get_irdl_definition().regions]
    found = [(n.removesuffix("_branch"), r.block) for n, r in zip(names, op.regions, strict=True)]
    return sorted(found, key=lambda body: body[0] == "else")


def _all_nodes(block: Block) -> Iterator[OnnxOp]:
    """The ONNX nodes of `block` and of the bodies they hold, at any depth."""
    for op in _nodes(block):
        yield op
        for _, body in _bodies(op):
            yield from _all_nodes(body)


def _shape(value: SSAValue) -> tuple[int, ...]:
    assert isinstance(value.type, TensorType)
    return tuple(value.type.get_shape())


def _sized_bytes(value: SSAValue, where: OnnxOp) -> int | None:
    """Bytes of a tensor value, None when a size is known only at run time;
    0 for `none` and other non-tensor values."""
    value_type = value.type
    if not isinstance(value_type, TensorType):
        return 0
    shape = _shape(value)
    if any(d < 0 for d in shape):
        return None
    row = element_types.of_ir(value_type.get_element_type())
    if row is None:
        raise OnnxcError(f"size report: {where.node_label()} has elements of unknown size")
    return row.storage_bytes(prod(shape))


def _tensor_bytes(value: SSAValue, where: OnnxOp) -> int:
    """`_sized_bytes` of a value of the main graph, whose sizes the report
    needs (a body's may be known only at run time: those are not counted)."""
    size = _sized_bytes(value, where)
    if size is None:
        assert isinstance(value.type, TensorType)
        dims = ", ".join(str(d) for d in dims_of(value.type))
        raise UnsupportedError(
            f"size report: {where.node_label()} has sizes known only at run time ({dims}); "
            "the report needs them bound (--dim, --shape), and cannot cover sizes computed "
            "from data (NonZero, a Loop growing a tensor)"
        )
    return size


def macs(op: OnnxOp) -> int:
    """Multiply-accumulates of one node: the operators of `MAC_OPS`, else 0.

    Conv: every output element sums (C/group) x prod(kernel) products, that is
    the weight's size per output channel. ConvTranspose: every input element is
    scattered through (M/group) x prod(kernel) weights. Gemm and MatMul: every
    output element is a dot product over K (batch dims are in the output size).
    """
    op_type = op.SCHEMA.name
    if op_type not in MAC_OPS or not isinstance(op.results[0].type, TensorType):
        return 0
    output = prod(_shape(op.results[0]))
    if op_type in ("Conv", "ConvInteger", "QLinearConv"):
        weights = op.operands[3 if op_type == "QLinearConv" else 1]
        return output * prod(_shape(weights)[1:])
    if op_type == "ConvTranspose":
        return prod(_shape(op.operands[0])) * prod(_shape(op.operands[1])[1:])
    a = _shape(op.operands[0])
    if op_type == "Gemm":
        return output * (a[0] if op.attr("transA") else a[1])
    return output * a[-1]


def _trips(op: OnnxOp) -> int:
    """How many times a Loop's or Scan's body runs, as far as the IR tells:
    a Loop's constant trip count (below `TRIP_LIMIT`), the length of a
    Scan's first scan input along its axis; else 1 (one iteration counted)."""
    if isinstance(op, LoopOp):
        owner = op.M.owner
        count = owner.attr("value") if isinstance(owner, ConstantOp) else None
        if isinstance(count, np.ndarray) and count.size == 1:
            trips = int(count.reshape(-1)[0])
            return trips if 0 <= trips < TRIP_LIMIT else 1
        return 1
    if isinstance(op, ScanOp):
        first = op.operands[len(op.operands) - int(op.attr("num_scan_inputs"))]
        shape = _shape(first)
        axis = (op.attr("scan_input_axes") or [0])[0] % max(len(shape), 1)
        return shape[axis] if shape and shape[axis] >= 0 else 1
    return 1


def node_work(op: OnnxOp) -> int:
    """Multiply-accumulates of a node with those of the bodies it holds: an
    If's larger branch (one runs), a Loop's or Scan's body times its trips
    (`_trips`); 0 for a node whose sizes are known only at run time."""
    sized = all(
        all(d >= 0 for d in _shape(v))
        for v in [*op.operands, *op.results]
        if isinstance(v.type, TensorType)
    )
    own = macs(op) if sized else 0
    bodies = [sum(node_work(inner) for inner in _nodes(body)) for _, body in _bodies(op)]
    if not bodies:
        return own
    if isinstance(op, IfOp):
        return own + max(bodies)
    return own + _trips(op) * sum(bodies)


def node_macs(onnx_module: ModuleOp) -> list[tuple[str, int]]:
    """(node name, multiply-accumulates) of an onnx-level module's nodes, in
    order, those of the bodies a node holds included (`node_work`)."""
    return [(node_name(op), node_work(op)) for op in _nodes(_main_block(onnx_module))]


def _constants(op: OnnxOp) -> set[SSAValue]:
    """The constants a node uses, its bodies' nodes' included."""
    found = {v for v in op.operands if isinstance(v.owner, ConstantOp)}
    for _, body in _bodies(op):
        for inner in _all_nodes(body):
            found.update(v for v in inner.operands if isinstance(v.owner, ConstantOp))
    return found


def _rows(block: Block, depth: int, body: str) -> Iterator[LayerRow]:
    for op in _nodes(block):
        outputs = tuple(
            (_shape(r), element_type_name(r.type.get_element_type()))
            for r in op.results
            if isinstance(r.type, TensorType)
        )
        sizes = [_sized_bytes(r, op) if depth else _tensor_bytes(r, op) for r in op.results]
        yield LayerRow(
            name=node_name(op),
            op_type=op.SCHEMA.name,
            outputs=outputs,
            output_bytes=None if None in sizes else sum(s or 0 for s in sizes),
            weight_bytes=sum(_tensor_bytes(v, op) for v in _constants(op)),
            macs=node_work(op),
            depth=depth,
            body=body,
        )
        for name, inner in _bodies(op):
            yield from _rows(inner, depth + 1, name)


def layer_rows(onnx_module: ModuleOp) -> list[LayerRow]:
    """The per-layer table of an onnx-level module, in node order, each
    node holding bodies followed by their nodes."""
    return list(_rows(_main_block(onnx_module), 0, ""))


def onnx_weight_bytes(onnx_module: ModuleOp) -> int:
    """Bytes of the constants the nodes use (bodies' too), each counted once."""
    constants: set[SSAValue] = set()
    for op in _all_nodes(_main_block(onnx_module)):
        constants.update(v for v in op.operands if isinstance(v.owner, ConstantOp))
    return sum(_tensor_bytes(v, v.owner) for v in constants if isinstance(v.owner, ConstantOp))


@dataclass(frozen=True)
class LiveRange:
    """An intermediate tensor: live from node `first` to node `last` (positions
    in node order, both included)."""

    first: int
    last: int
    size: int


def _intermediates(block: Block) -> list[tuple[LiveRange, OnnxOp, SSAValue]]:
    """The intermediate tensors of one graph (the main one or a body), in
    node order: each node result that is not the graph's output, live from
    its producer to its last consumer (a node consuming it inside a body
    counts as the node holding the body), or only at its producer when
    nothing consumes it. Sizes are those the value's type gives, -1 when
    known only at run time."""
    nodes = _nodes(block)
    position: dict[Operation, int] = {op: i for i, op in enumerate(nodes)}
    found: list[tuple[LiveRange, OnnxOp, SSAValue]] = []
    for i, op in enumerate(nodes):
        for result in op.results:
            consumers = [block.find_ancestor_op_in_block(use.operation) for use in result.uses]
            if any(isinstance(c, func.ReturnOp | YieldOp) for c in consumers):
                continue
            last = max(
                (position[c] for c in consumers if c is not None and c in position), default=i
            )
            size = _sized_bytes(result, op)
            found.append((LiveRange(i, max(i, last), -1 if size is None else size), op, result))
    return found


def _counted(block: Block, depth: int) -> list[LiveRange]:
    """The ranges of `_intermediates` of a graph: the main graph's (`depth`
    0) sizes must be known, else the report's error; a body's known only at
    run time count 0 (see `uncounted`)."""
    ranges: list[LiveRange] = []
    for found, op, value in _intermediates(block):
        if found.size < 0 and not depth:
            _tensor_bytes(value, op)  # raises
        ranges.append(LiveRange(found.first, found.last, max(found.size, 0)))
    return ranges


def _ranges(block: Block, depth: int) -> list[LiveRange]:
    """`_counted` of a graph, then, at the position of each node holding
    bodies, what they hold live at once at most (the larger branch of an If;
    a Loop's or Scan's body holds its tensors within one iteration)."""
    ranges = _counted(block, depth)
    for i, op in enumerate(_nodes(block)):
        peak = max((_peak(_ranges(body, depth + 1)) for _, body in _bodies(op)), default=0)
        if peak:
            ranges.append(LiveRange(i, i, peak))
    return ranges


def _peak(ranges: Sequence[LiveRange]) -> int:
    """The largest sum of the sizes of the ranges live at one position."""
    change: dict[int, int] = {}
    for r in ranges:
        change[r.first] = change.get(r.first, 0) + r.size
        change[r.last + 1] = change.get(r.last + 1, 0) - r.size
    live = peak = 0
    for k in sorted(change):
        live += change[k]
        peak = max(peak, live)
    return peak


def live_ranges(onnx_module: ModuleOp) -> list[LiveRange]:
    """Every intermediate tensor of an onnx-level module's main graph (graph
    inputs and constants are not intermediates; see `_intermediates`), and
    for each node holding bodies one range at its position: the most its
    bodies hold live at once (see `_ranges`)."""
    return _ranges(_main_block(onnx_module), 0)


def _body_blocks(onnx_module: ModuleOp) -> list[Block]:
    """The bodies of the nodes of an onnx-level module, at any depth."""
    return [body for op in _all_nodes(_main_block(onnx_module)) for _, body in _bodies(op)]


def intermediates_bytes(onnx_module: ModuleOp) -> int:
    """The sum of the bytes of all intermediate tensors: the main graph's (see
    `live_ranges`) and every body's, both branches of an If (a body's whose
    sizes are known only at run time apart: see `uncounted`)."""
    graphs = [(_main_block(onnx_module), 0), *((b, 1) for b in _body_blocks(onnx_module))]
    return sum(r.size for block, depth in graphs for r in _counted(block, depth))


def uncounted(onnx_module: ModuleOp) -> int:
    """How many intermediate tensors of bodies the figures leave out, their
    sizes being known only at run time."""
    return sum(
        1
        for body in _body_blocks(onnx_module)
        for found, _, _ in _intermediates(body)
        if found.size < 0
    )


def max_live_bound(onnx_module: ModuleOp) -> int:
    """The max-live bound of the intermediate tensors in node order, no in-place:
    the largest sum, over node positions k, of the bytes of the intermediates
    live at k (produced at or before k, last consumed at or after k), what
    the bodies of a node at k hold included. Reshapes and other views count
    as tensors of their own."""
    return _peak(live_ranges(onnx_module))


def greedy_by_size_bytes(onnx_module: ModuleOp) -> int:
    """The arena TFLite Micro's greedy-by-size planner would give the same
    intermediate tensors (node order, no in-place; a node's bodies as one
    block at its position): the figure to beat."""
    return greedy_by_size([(r.first, r.last, r.size) for r in live_ranges(onnx_module)])


# --- the loop level -------------------------------------------------------------


def memory_plan(loops_module: ModuleOp) -> dict[str, int]:
    """The integer entries of the planner's `onnxc.memory` function attribute
    (`arena`, `intermediates`, `max_live`, `greedy_by_size`, ...); empty when the
    module carries no plan."""
    fn = _main_block(loops_module).parent_op()
    assert fn is not None
    plan = fn.attributes.get(MEMORY_ATTR)
    if not isinstance(plan, DictionaryAttr):
        return {}
    return {k: v.value.data for k, v in plan.data.items() if isinstance(v, IntegerAttr)}


def flash_weight_bytes(loops_module: ModuleOp, pointer_bytes: int = 8) -> int:
    """Bytes of the constant `memref.global`s (the weights), as the C stores
    them, and of the string constants: an `onnxc_string` record (a pointer
    and a size_t of `pointer_bytes` each) per element, and its bytes with
    their terminating NUL."""
    total = 0
    for op in loops_module.ops:
        if isinstance(op, memref.GlobalOp) and op.constant is not None:
            memref_type: Attribute = op.type
            assert isinstance(memref_type, MemRefType)
            row = element_types.row_of(memref_type.element_type)
            total += row.storage_bytes(prod(memref_type.get_shape()))
        elif isinstance(op, StringGlobalOp):
            strings = op.initial_value.strings()
            total += 2 * pointer_bytes * len(strings)
            total += sum(len(text.encode()) + 1 for text in strings)
    return total


# --- code size ------------------------------------------------------------------


@dataclass(frozen=True)
class CodeSize:
    """Berkeley `size` figures of the model's object files (the runtime is a
    header): `text` includes read-only data, hence the weights; `code` is text
    less `weights`."""

    text: int
    data: int
    bss: int
    weights: int
    command: str

    @property
    def code(self) -> int:
        return self.text - self.weights


def measure_code_size(generated: GeneratedC, target: str, weights: int) -> CodeSize | str:
    """Compile `generated` for `target` at `-Os -c` and read its sizes; a string
    saying why when it cannot be measured (tool missing, compile error)."""
    spec = get_target(target)
    size_tool = spec.size_tool or "size"
    for tool in (spec.cc, size_tool):
        if shutil.which(tool) is None:
            return f"not measured ({tool} not found)"
    with tempfile.TemporaryDirectory(prefix="onnxc-report-") as directory:
        generated.write(directory)
        sources = generated.c_files()
        objects = [Path(s).with_suffix(".o").name for s in sources]
        flags = ["-std=c99", "-Os", *spec.cpu_flags, "-c"]
        for source, obj in zip(sources, objects, strict=True):
            built = subprocess.run(
                [spec.cc, *flags, source, "-o", obj],
                cwd=directory,
                capture_output=True,
                text=True,
                check=False,
            )
            if built.returncode != 0:
                lines = built.stderr.strip().splitlines() or ["no message"]
                first_error = next((line for line in lines if "error" in line), lines[0])
                return f"not measured ({spec.cc} failed: {first_error})"
        sized = subprocess.run(
            [size_tool, "-B", *objects],
            cwd=directory,
            capture_output=True,
            text=True,
            check=False,
        )
    if sized.returncode != 0:
        return f"not measured ({size_tool} failed: {sized.stderr.strip()})"
    text = data = bss = 0
    for line in sized.stdout.splitlines()[1:]:
        fields = line.split()
        text, data, bss = text + int(fields[0]), data + int(fields[1]), bss + int(fields[2])
    return CodeSize(text, data, bss, weights, " ".join([spec.cc, *flags]))


# --- the report -----------------------------------------------------------------


@dataclass
class Report:
    """Every figure of the size report; `format()` renders it as text."""

    name: str
    target: str
    layers: list[LayerRow]
    intermediates_bytes: int
    max_live_bound: int
    greedy_by_size: int
    workspace_size: int
    weight_bytes: int
    code_size: CodeSize | str
    memory_plan: dict[str, int] = field(default_factory=dict[str, int])
    onnx_weight_bytes: int = 0
    arena: ArenaMap = field(default_factory=lambda: ArenaMap([], [""]))
    uncounted: int = 0
    """Intermediate tensors of bodies left out, their sizes known only at run time."""

    def format(self) -> str:
        return format_report(self)


@dataclass
class StageFigures:
    """The report's figures, collected from the IR levels of one compilation:
    pass an instance as `generate_c(..., on_stage=...)`."""

    layers: list[LayerRow] = field(default_factory=list[LayerRow])
    intermediates: int = 0
    bound: int = 0
    greedy_by_size: int = 0
    onnx_weights: int = 0
    uncounted: int = 0
    plan: dict[str, int] = field(default_factory=dict[str, int])
    weights: int = 0
    arena: ArenaMap = field(default_factory=lambda: ArenaMap([], [""]))
    pointer_bytes: int = 8
    """The target's pointer size (string constants' records)."""

    def __call__(self, stage: str, module: ModuleOp) -> None:
        if stage == "onnx":
            self.layers = layer_rows(module)
            self.intermediates = intermediates_bytes(module)
            self.bound = max_live_bound(module)
            self.greedy_by_size = greedy_by_size_bytes(module)
            self.onnx_weights = onnx_weight_bytes(module)
            self.uncounted = uncounted(module)
        elif stage == "memory":
            self.arena = arena_buffers(module)
        elif stage == "loops":
            self.plan = memory_plan(module)
            self.weights = flash_weight_bytes(module, self.pointer_bytes)


def build_report(
    model: ModelLike,
    *,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    name: str | None = None,
    target: str = "host",
    measure_code: bool = True,
) -> Report:
    """Compile `model` as `generate_c` does and gather the size report: the
    table and onnx-level bounds after the onnx stage, the memory plan and the
    weights after the loops stage (one compilation, observed through
    `on_stage`); with `measure_code` the C is compiled with `target`'s compiler."""
    seen = StageFigures(pointer_bytes=get_target(target).pointer_bytes)
    options = CompileOptions.make(dims=dims, shapes=shapes, name=name, target=target)
    generated = generate_with(model, options, on_stage=seen)
    return make_report(generated, seen, target, measure_code=measure_code)


def make_report(
    generated: GeneratedC, seen: StageFigures, target: str, *, measure_code: bool = True
) -> Report:
    """The report of C already generated while `seen` observed the stages."""
    if generated.workspace_size is None:
        raise UnsupportedError(
            "size report: the workspace has no size bound (bind the free dimensions)"
        )
    code_size = (
        measure_code_size(generated, target, seen.weights) if measure_code else "not measured"
    )
    return Report(
        name=generated.name,
        target=target,
        layers=seen.layers,
        intermediates_bytes=seen.intermediates,
        max_live_bound=seen.bound,
        greedy_by_size=seen.greedy_by_size,
        workspace_size=generated.workspace_size,
        weight_bytes=seen.weights,
        code_size=code_size,
        memory_plan=seen.plan,
        onnx_weight_bytes=seen.onnx_weights,
        arena=seen.arena,
        uncounted=seen.uncounted,
    )


def _b(n: int) -> str:
    return f"{n:,} B"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: set[int]) -> list[str]:
    """Rows of cells in aligned columns: `right` holds the right-aligned columns."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            c.rjust(w) if i in right else c.ljust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return [line(header), rule, *(line(r) for r in rows[:-1]), rule, line(rows[-1])]


LAYER_HEADER = ("#", "node", "operator", "output", "dtype", "output B", "weight B", "MACs")
LAYER_NUMERIC = frozenset({0, 5, 6, 7})
"""The columns of the layer table, and which of them are numbers."""


def _numbers(layers: Sequence[LayerRow]) -> list[str]:
    """The rows' numbers: 1, 2, ... for the main graph's nodes, 2.1, 2.2, ...
    for the nodes of the bodies node 2 holds (its branches numbered on)."""
    numbers: list[str] = []
    counts = [0]
    for layer in layers:
        del counts[layer.depth + 1 :]
        counts += [0] * (layer.depth + 1 - len(counts))
        counts[layer.depth] += 1
        numbers.append(".".join(map(str, counts)))
    return numbers


def layer_cells(report: Report) -> list[list[str]]:
    """The layer table's rows of cells (see `LAYER_HEADER`), then the total
    (of the main graph's nodes, which count their bodies' work)."""
    rows: list[list[str]] = []
    for number, layer in zip(_numbers(report.layers), report.layers, strict=True):
        shapes = ", ".join(
            "x".join("?" if d < 0 else str(d) for d in s) or "scalar" for s, _ in layer.outputs
        )
        dtypes = ", ".join(sorted({t for _, t in layer.outputs}))
        where = f"{'  ' * layer.depth}{layer.body}: " if layer.depth else ""
        rows.append(
            [
                number,
                where + (layer.name or "(unnamed)"),
                layer.op_type,
                shapes,
                dtypes,
                "?" if layer.output_bytes is None else f"{layer.output_bytes:,}",
                f"{layer.weight_bytes:,}",
                f"{layer.macs:,}",
            ]
        )
    main = [layer for layer in report.layers if not layer.depth]
    rows.append(
        [
            "",
            "total",
            "",
            "",
            "",
            f"{sum(r.output_bytes or 0 for r in main):,}",
            f"{report.onnx_weight_bytes:,}",
            f"{sum(r.macs for r in main):,}",
        ]
    )
    return rows


def _layer_table(report: Report) -> list[str]:
    """The layer table as text, long node names shortened (`shorten`)."""
    cells = [[c if k != 1 else shorten(c) for k, c in enumerate(r)] for r in layer_cells(report)]
    return _table(LAYER_HEADER, cells, right=set(LAYER_NUMERIC))


def plan_lines(report: Report) -> list[str]:
    plan = report.memory_plan
    ratio = (
        f"{report.workspace_size / report.max_live_bound:.2f}" if report.max_live_bound else "n/a"
    )
    lines = [
        f"  arena {_b(report.workspace_size)}, "
        f"intermediates total {_b(report.intermediates_bytes)}, "
        f"max-live bound {_b(report.max_live_bound)} (arena/bound = {ratio}), "
        f"TFLite Micro greedy-by-size {_b(report.greedy_by_size)}",
        f"  arena: {report.name}_WORKSPACE_SIZE; the others: ONNX-level tensors in node "
        "order, no in-place, those of If/Loop/Scan bodies included",
    ]
    if report.uncounted:
        lines.append(
            f"  not counted: {report.uncounted:,} tensors of bodies whose sizes are known "
            "only at run time"
        )
    if not plan:
        lines.append(f"  planner figures: none ({MEMORY_ATTR} is not on the function)")
        return lines
    if "arena" in plan and plan["arena"] != report.workspace_size:
        lines.append(f"  note: the planner's arena is {_b(plan['arena'])}")
    planned = [
        f"{label} {_b(plan[key])}"
        for key, label in (
            ("intermediates", "intermediates"),
            ("max_live", "max-live after in-place merging"),
            ("greedy_by_size", "greedy-by-size"),
        )
        if key in plan
    ]
    if "in_place" in plan:
        planned.append(f"{plan['in_place']:,} buffers reuse an input in place")
    known = {"arena", "intermediates", "max_live", "greedy_by_size", "in_place"}
    planned += [f"{key} {plan[key]:,}" for key in sorted(plan) if key not in known]
    if planned:
        lines.append("  planned buffers: " + ", ".join(planned))
    return lines


def flash_lines(report: Report) -> list[str]:
    lines = [f"  weights {_b(report.weight_bytes)} (constant memref.globals of the C)"]
    size = report.code_size
    if isinstance(size, str):
        lines.append(f"  code size: {size}")
    else:
        lines += [
            f"  code size: {_b(size.code)} (text {_b(size.text)} less weights "
            f"{_b(size.weights)}); data {_b(size.data)}, "
            f"bss {_b(size.bss)} (includes the default arena)",
            f"  measured with: {size.command}",
        ]
    return lines


def format_report(report: Report) -> str:
    """The report as plain text: the layer table, the memory plan, flash."""
    lines = [
        f"onnxc size report: {report.name} (target {report.target})",
        "",
        "layers (ONNX level, node order; MACs of Conv, ConvTranspose, Gemm, MatMul and their",
        "integer forms only; the nodes of If/Loop/Scan bodies under the node holding them,",
        "which counts the larger branch, or its body once per iteration when the count is",
        "known, else once)",
        *_layer_table(report),
        "",
        "memory plan (RAM)",
        *plan_lines(report),
        "",
        "flash",
        *flash_lines(report),
    ]
    return "\n".join(lines) + "\n"
