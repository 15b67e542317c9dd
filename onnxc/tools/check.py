"""`onnxc check`: every node of a model that onnxc cannot compile yet, at once.

A compile stops at the first problem; a user asking "will my model
compile?" wants the whole gap. `find_gaps` reads the model as the importer
prepares it (checked, functions inlined, opset upgraded, shapes inferred)
and lists, per node, what stands in the way: a domain other than the
default one and ai.onnx.ml, an operator with no lowering, an element type outside the
element-type table. When no node is in the way, it compiles the model and
reports the first error of the compile, if any (an attribute value or a case
of an operator a lowering does not handle).

`check` also gives the model's free dimensions, which `run --random` and
`bench` need sizes for, with the flags that bind them; and it tells "cannot
compile" from "compiles once the sizes are bound": a model that does not
compile with free dimensions (an If whose result's rank a bound size
decides) is compiled again with them bound (`PROBE_SIZES`).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import onnx

from onnxc import element_types
from onnxc.containers import ShapeArgument
from onnxc.emit.runner import Dim
from onnxc.errors import OnnxcError, OnnxcWarning
from onnxc.frontend import DOMAINS, ModelLike, load_model, prepare_model
from onnxc.frontend.rewrites.check_model import foreign_reason
from onnxc.frontend.sequences.operators import RESOLVED_OPS
from onnxc.progress import Progress
from onnxc.tools.free_dims import (
    NamedShape,
    dim_flag,
    free_names,
    input_shapes,
    size_flags,
    unsized,
)
from onnxc.tools.short_names import shorten

__all__ = ["Checked", "Gap", "check", "find_gaps", "format_check", "format_gaps"]


@dataclass(frozen=True)
class Gap:
    """One node onnxc cannot compile, and why (node "" for the whole model)."""

    domain: str
    operator: str
    opset: int | None
    node: str
    reason: str


def _opset_of(node: onnx.NodeProto, opsets: Mapping[str, int]) -> int | None:
    """The version of the operator's schema the model's opset selects."""
    domain = "" if node.domain == "ai.onnx" else node.domain
    try:
        return onnx.defs.get_schema(node.op_type, opsets.get(domain, 1), domain).since_version
    except onnx.defs.SchemaError:
        return None


def _type_problem(node: onnx.NodeProto, types: Mapping[str, onnx.TypeProto]) -> str | None:
    for name in [*node.input, *node.output]:
        found = types.get(name)
        if found is None or not found.HasField("tensor_type"):
            continue
        code = found.tensor_type.elem_type
        if code and element_types.by_onnx_code(code) is None:
            return f"'{name}' has element type {element_types.onnx_type_name(code)}"
    return None


def _node_gaps(model: onnx.ModelProto) -> list[Gap]:
    from onnxc.lowering.convert_onnx_to_linalg import lowerings

    lowered = set(lowerings())
    graph = model.graph
    opsets = {("" if o.domain == "ai.onnx" else o.domain): o.version for o in model.opset_import}
    types = {v.name: v.type for v in [*graph.input, *graph.output, *graph.value_info]}
    gaps: list[Gap] = []
    for index, node in enumerate(graph.node):
        name = node.name or f"{node.op_type}_{index}"
        domain = node.domain or "ai.onnx"
        if node.domain not in DOMAINS:
            foreign = foreign_reason(node)
            if foreign is None:  # an expansion replaces it
                continue
            reason = foreign
        elif node.op_type not in lowered and node.op_type not in RESOLVED_OPS.get(
            "" if domain == "ai.onnx" else domain, ()
        ):
            reason = "operator not supported yet (no lowering)"
        else:
            problem = _type_problem(node, types)
            if problem is None:
                continue
            reason = problem
        gaps.append(Gap(domain, node.op_type, _opset_of(node, opsets), name, reason))
    return gaps


_NODE_ERROR = re.compile(r"^node '(?P<node>[^']*)' \((?P<op>[A-Za-z0-9_]+)\): (?P<reason>.*)$")


PROBE_SIZES = (1, 2)
"""The sizes `check` binds free dimensions to, in turn, when the model does
not compile with them free: 1, the usual batch; 2, the smallest size that
does not broadcast. A probe stops at the first size that compiles, and after
one that fails as the model did with them free (the sizes are not the cause)."""


@dataclass(frozen=True)
class Checked:
    """What `check` finds: the gaps with the sizes given; the free dimensions
    (dim_params left for run time, unnamed input dims as `INPUT_dimK`) and the
    inputs that have them (None for an unnamed dimension, in a model the
    front end cannot prepare); and, when the gaps go away once the free
    dimensions are bound, the size (of `PROBE_SIZES`) they were bound to."""

    gaps: list[Gap]
    free: list[str] = field(default_factory=list[str])
    inputs: list[NamedShape] = field(default_factory=list[NamedShape])
    compiles_with: int | None = None


def check(
    model: ModelLike,
    *,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    max_dims: Mapping[str, int] | None = None,
    probe: bool = True,
    progress: Progress | None = None,
) -> Checked:
    """Whether `model` compiles with these sizes: the nodes in the way, and
    its free dimensions; with `probe`, a model that does not compile with
    free dimensions for a reason other than its operators is compiled again
    with them bound (`PROBE_SIZES`). `progress`, if given, is told the end
    of each stage."""
    proto = load_model(model)
    if progress is not None:
        progress.step("load")
    try:
        prepared = prepare_model(proto, dims, shapes, foreign=True)
    except OnnxcError as error:  # still list what is readable, else the error's node
        gaps = _node_gaps(proto)
        if gaps:
            return Checked(gaps)
        declared = [i for i in input_shapes(proto) if i[0] not in (shapes or {})]
        bound = dict(dims or {})
        inputs = unsized([(n, tuple(_bind(d, bound) for d in s)) for n, s in declared], {})
        found = Checked([_gap_of(error, proto)], free_names(inputs, {}), inputs)
        failure = str(error)
    else:
        inputs = unsized(input_shapes(prepared.model), {})
        gaps = _node_gaps(prepared.model)
        if progress is not None:
            progress.step("check operators")
        if gaps:
            return Checked(gaps, prepared.free, inputs)
        error = _compile_error(proto, dims, shapes, max_dims, progress)
        if error is None:
            return Checked([], prepared.free, inputs)
        found = Checked([_gap_of(error, prepared.model)], prepared.free, inputs)
        failure = str(error)
    if not (probe and found.inputs):
        return found
    size = _probe(proto, found, dims, shapes, max_dims, failure, progress)
    return Checked(found.gaps, found.free, found.inputs, size)


def _bind(dim: Dim, dims: Mapping[str, int]) -> Dim:
    return dims.get(dim, dim) if isinstance(dim, str) else dim


def _sized(dim: Dim, dims: Mapping[str, int], size: int) -> int:
    """A dimension's size: its own, its name's in `dims`, else `size`."""
    if isinstance(dim, int):
        return dim
    return size if dim is None else dims.get(dim, size)


def find_gaps(
    model: ModelLike,
    *,
    dims: Mapping[str, int] | None = None,
    shapes: Mapping[str, ShapeArgument] | None = None,
    max_dims: Mapping[str, int] | None = None,
    progress: Progress | None = None,
) -> list[Gap]:
    """The nodes of `model` onnxc cannot compile with these sizes (empty when
    it compiles); `progress`, if given, is told the end of each stage."""
    found = check(
        model, dims=dims, shapes=shapes, max_dims=max_dims, probe=False, progress=progress
    )
    return found.gaps


def _compile_error(
    proto: onnx.ModelProto,
    dims: Mapping[str, int] | None,
    shapes: Mapping[str, ShapeArgument] | None,
    max_dims: Mapping[str, int] | None,
    progress: Progress | None,
) -> OnnxcError | None:
    """The error compiling `proto` to C gives, None if it compiles."""
    from onnxc.api import generate_with
    from onnxc.options import CompileOptions

    try:
        generate_with(
            proto,
            CompileOptions.make(dims=dims, shapes=shapes, max_dims=max_dims),
            progress=progress,
        )
    except OnnxcError as error:
        return error
    return None


def _probe(
    proto: onnx.ModelProto,
    found: Checked,
    dims: Mapping[str, int] | None,
    shapes: Mapping[str, ShapeArgument] | None,
    max_dims: Mapping[str, int] | None,
    failure: str,
    progress: Progress | None,
) -> int | None:
    """The size of `PROBE_SIZES` with which `proto` compiles once the free
    dimensions of `found` are bound to it (by name; an input with an unnamed
    one by its whole shape), None if none does. `failure` is the error the
    model gave with them free. Warnings were given by the first compile."""
    bounds = {k: v for k, v in (max_dims or {}).items() if k not in found.free}
    for size in PROBE_SIZES:
        named = {**(dims or {}), **dict.fromkeys(found.free, size)}
        whole: dict[str, ShapeArgument] = {
            name: tuple(_sized(d, named, size) for d in shape)
            for name, shape in found.inputs
            if None in shape
        }
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OnnxcWarning)
            error = _compile_error(proto, named, {**(shapes or {}), **whole}, bounds, progress)
        if error is None:
            return size
        if str(error) == failure:
            return None
        failure = str(error)
    return None


def _gap_of(error: OnnxcError, model: onnx.ModelProto) -> Gap:
    """The gap an error names: its node's (a message `node 'NAME' (OP): why`),
    else the model's as a whole."""
    found = _NODE_ERROR.match(str(error))
    if found is None:
        return Gap("", "(model)", None, "", str(error))
    node = next((n for n in model.graph.node if n.name == found["node"]), None)
    opsets = {o.domain: o.version for o in model.opset_import}
    opset = _opset_of(node, opsets) if node is not None else None
    domain = (node.domain if node is not None else "") or "ai.onnx"
    return Gap(domain, found["op"], opset, found["node"], found["reason"])


def format_gaps(gaps: Sequence[Gap]) -> list[str]:
    """The gaps as an aligned table, a line each (long node names shortened)."""
    rows = [("domain", "operator", "opset", "node", "reason")]
    rows += [
        (g.domain, g.operator, "-" if g.opset is None else str(g.opset), shorten(g.node), g.reason)
        for g in gaps
    ]
    widths = [max(len(r[k]) for r in rows) for k in range(4)]
    return ["  ".join([*(r[k].ljust(widths[k]) for k in range(4)), r[4]]).rstrip() for r in rows]


def _flags(checked: Checked) -> str:
    """The flags that bind every free dimension."""
    flags = size_flags(checked.inputs, {})
    named = {d for _, shape in checked.inputs for d in shape if isinstance(d, str)}
    flags += [dim_flag(d) for d in checked.free if d not in named]  # of sequence inputs
    return " ".join(flags)


def format_check(model: str, checked: Checked) -> list[str]:
    """What `onnxc check` prints: whether `model` compiles; if it does, its
    free dimensions with the inputs that have them and the flags that bind
    them; if it does once they are bound, those flags and the gaps it has
    with them free; else the gaps."""
    if not checked.gaps:
        if not checked.free:
            return [f"{model}: compiles"]
        width = max((len(shorten(name)) for name, _ in checked.inputs), default=0)
        return [
            f"{model}: compiles",
            f"free dimensions (sizes given at run time): {', '.join(checked.free)}",
            *(
                f"  {shorten(name).ljust(width)}  [{', '.join(map(str, shape))}]"
                for name, shape in checked.inputs
            ),
            f"sizes for run --random and bench (or static sizes in the C): {_flags(checked)}",
        ]
    nodes = sum(1 for g in checked.gaps if g.node)
    what = f"{nodes} node{'s' if nodes != 1 else ''}" if nodes else "the model"
    if checked.compiles_with is None:
        return [f"{model}: {what} cannot be compiled yet", *format_gaps(checked.gaps)]
    tried = [f"{name}={checked.compiles_with}" for name in checked.free]
    tried += [
        f"{name}={','.join(str(checked.compiles_with if d is None else d) for d in shape)}"
        for name, shape in checked.inputs
        if None in shape
    ]
    return [
        f"{model}: compiles once its free dimensions are bound "
        f"(it did with {', '.join(tried)}): {_flags(checked)}",
        f"with them free, {what} cannot be compiled:",
        *format_gaps(checked.gaps),
    ]
