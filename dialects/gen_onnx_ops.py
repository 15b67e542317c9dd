"""Generate `onnx_ops.py` and `onnx_ml_ops.py`, the operation classes of the
onnx and onnx_ml dialects, from the ONNX operator schemas of the pinned `onnx`
package.

    python -m onnxc.dialects.gen_onnx_ops            # rewrite both modules
    python -m onnxc.dialects.gen_onnx_ops --check    # exit 1 if one is out of date

One class per operator of a domain (`DOMAINS`: the default domain as dialect
`onnx`, `ai.onnx.ml` as `onnx_ml`) at the newest opset the package knows
(deprecated operators left out, except those a domain keeps at an older
version), so that readers and the type checker see every operation with its
named operands, results and properties. How a schema becomes a class:

- every formal input is an operand: a tensor, or `none` for an omitted optional
  input (produced by `onnx.NoValue`, so operand positions always match the
  spec); a variadic input is a variadic operand; outputs likewise as results;
- every attribute is a property spelled as in the spec: INT `i64`, FLOAT `f32`,
  STRING a string, INTS `array<i64: ...>`, FLOATS `array<f32: ...>`, STRINGS an
  array of strings, TENSOR a dense or `dense_resource` elements attribute (or
  `#onnxc.strings` for a string tensor: `onnx_base.TensorValueAttr`); a
  GRAPH attribute is a region;
- `OnnxOp.verify_` checks element types against the schema's type constraints.

A test regenerates the module and compares, so it cannot drift from the schemas.
"""

from __future__ import annotations

import argparse
import keyword
import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import onnx
from onnx.defs import OpSchema
from xdsl.irdl import IRDLOperation

from onnxc.dialects.onnx_base import formal_type_strings


@dataclass(frozen=True)
class Domain:
    """An ONNX operator domain and the dialect module generated for it."""

    name: str
    """The ONNX domain ('' for the default ai.onnx)."""
    dialect: str
    """The IR dialect name, the prefix of its operation names."""
    output: Path
    kept: Mapping[str, int] = field(default_factory=dict[str, int])
    """Deprecated operators kept, at the version given (what exporters still emit)."""

    def newest_opset(self) -> int:
        if self.name == "":
            return onnx.defs.onnx_opset_version()
        return onnx.defs.onnx_ml_opset_version()


DEFAULT = Domain("", "onnx", Path(__file__).with_name("onnx_ops.py"))
ML = Domain(
    "ai.onnx.ml",
    "onnx_ml",
    Path(__file__).with_name("onnx_ml_ops.py"),
    # Deprecated at ml opset 5 in favour of TreeEnsemble, but what skl2onnx emits;
    # version 3 has the `*_as_tensor` attributes.
    {"TreeEnsembleClassifier": 3, "TreeEnsembleRegressor": 3},
)
DOMAINS = (DEFAULT, ML)
OUTPUT = DEFAULT.output

_RESERVED = set(dir(IRDLOperation)) | {"SCHEMA", "attr", "node_label"}

_PROPERTY_TYPES = {
    OpSchema.AttrType.INT: "IntegerAttr",
    OpSchema.AttrType.FLOAT: "FloatAttr",
    OpSchema.AttrType.STRING: "StringAttr",
    OpSchema.AttrType.INTS: "DenseArrayBase",
    OpSchema.AttrType.FLOATS: "DenseArrayBase",
    OpSchema.AttrType.STRINGS: "ArrayAttr",
    OpSchema.AttrType.TENSOR: "TensorValueAttr",
}


def schemas(opset: int, domain: Domain = DEFAULT) -> list[OpSchema]:
    """The non-deprecated schemas of `domain` in force at `opset` (and those
    it keeps, at their version), by name."""
    every = onnx.defs.get_all_schemas_with_history()
    names = sorted({s.name for s in every if s.domain == domain.name})
    found: list[OpSchema] = []
    for name in names:
        try:
            op_schema = onnx.defs.get_schema(name, domain.kept.get(name, opset), domain.name)
        except onnx.defs.SchemaError:
            continue  # removed before `opset`
        if not op_schema.deprecated:
            found.append(op_schema)
    return found


def _python_name(name: str, taken: set[str]) -> str:
    candidate = name if name.isidentifier() else "".join(c if c.isalnum() else "_" for c in name)
    while keyword.iskeyword(candidate) or candidate in _RESERVED or candidate in taken:
        candidate += "_"
    taken.add(candidate)
    return candidate


def _value_constraint(op_schema: OpSchema, formal: OpSchema.FormalParameter) -> str:
    if not all(s.startswith("tensor(") for s in formal_type_strings(op_schema, formal)):
        return "AnyAttr()"  # sequences, optionals, maps: not modelled yet
    if formal.option == OpSchema.FormalParameterOption.Optional:
        return "TensorType | NoneType"
    return "TensorType"


def _docstring(op_schema: OpSchema, domain: Domain) -> list[str]:
    summary = " ".join((op_schema.doc or "").strip().split("\n\n")[0].split())
    summary = summary.replace("\\", "\\\\").replace('"""', "'''")
    if len(summary) > 300:
        summary = summary[:297].rsplit(" ", 1)[0] + " ..."
    head = f"`{domain.dialect}.{op_schema.name}` (since opset {op_schema.since_version})."
    lines = textwrap.wrap(f"{head} {summary}".strip(), width=88)
    lines[0] = '"""' + lines[0]
    lines[-1] += '"""'
    return lines


def _class(op_schema: OpSchema, domain: Domain) -> list[str]:
    taken: set[str] = set()
    version = domain.kept.get(op_schema.name, "TARGET_OPSET")
    arguments = f'"{op_schema.name}", {version}' + (", DOMAIN" if domain.name else "")
    body = [
        *_docstring(op_schema, domain),
        "",
        f'name = "{domain.dialect}.{op_schema.name}"',
        f"SCHEMA: ClassVar[OpSchema] = schema({arguments})",
        "",
    ]
    variadic = OpSchema.FormalParameterOption.Variadic
    for formal in op_schema.inputs:
        define = "var_operand_def" if formal.option == variadic else "operand_def"
        constraint = _value_constraint(op_schema, formal)
        body.append(f"{_python_name(formal.name, taken)} = {define}({constraint})")
    for formal in op_schema.outputs:
        define = "var_result_def" if formal.option == variadic else "result_def"
        constraint = _value_constraint(op_schema, formal)
        body.append(f"{_python_name(formal.name, taken)} = {define}({constraint})")
    for name, attribute in sorted(op_schema.attributes.items()):
        python = _python_name(name, taken)
        if attribute.type == OpSchema.AttrType.GRAPH:
            body.append(f"{python} = {'region_def' if attribute.required else 'opt_region_def'}()")
            continue
        constraint = _PROPERTY_TYPES.get(attribute.type, "AnyAttr()")
        define = "prop_def" if attribute.required else "opt_prop_def"
        rename = f', prop_name="{name}"' if python != name else ""
        body.append(f"{python} = {define}({constraint}{rename})")
    options: list[str] = []
    if sum(f.option == variadic for f in op_schema.inputs) > 1:
        options.append("AttrSizedOperandSegments(as_property=True)")
    if sum(f.option == variadic for f in op_schema.outputs) > 1:
        options.append("AttrSizedResultSegments(as_property=True)")
    if options:
        body += ["", f"irdl_options = ({', '.join(options)},)"]
    return [
        "",
        "",
        "@irdl_op_definition",
        f"class {op_schema.name}Op(OnnxOp):",
        *("    " + line if line else "" for line in body),
    ]


_IRDL_NAMES = (
    "AnyAttr",
    "AttrSizedOperandSegments",
    "AttrSizedResultSegments",
    "irdl_op_definition",
    "operand_def",
    "opt_prop_def",
    "opt_region_def",
    "prop_def",
    "region_def",
    "result_def",
    "var_operand_def",
    "var_result_def",
)


_BUILTIN_NAMES = (
    "ArrayAttr",
    "DenseArrayBase",
    "DenseIntOrFPElementsAttr",
    "DenseResourceAttr",
    "FloatAttr",
    "IntegerAttr",
    "NoneType",
    "StringAttr",
    "TensorType",
)


def _used_names(names: tuple[str, ...], body: list[str]) -> list[str]:
    text = "\n".join(body)
    return [name for name in names if f"{name}(" in text or f"@{name}\n" in text]


def _used_types(body: list[str]) -> list[str]:
    words = set("\n".join(body).replace("(", " ").replace(")", " ").replace(",", " ").split())
    return [name for name in _BUILTIN_NAMES if name in words]


def _header(domain: Domain, opset: int) -> list[str]:
    if not domain.name:
        return [
            '"""The operations of the onnx dialect, one class per default-domain ONNX',
            f"operator at opset {opset}: generated by gen_onnx_ops.py from the schemas of",
        ]
    kept = ", ".join(f"{name} at {version}" for name, version in sorted(domain.kept.items()))
    return [
        f'"""The operations of the {domain.dialect} dialect, one class per {domain.name}',
        f"operator at opset {opset} (and, deprecated but kept: {kept}):",
        "generated by gen_onnx_ops.py from the schemas of",
    ]


def _footer(domain: Domain, opset: int) -> list[str]:
    if not domain.name:
        return [
            "",
            f"TARGET_OPSET = {opset}",
            '"""The default-domain opset the dialect is generated for; older models are',
            'upgraded to it on import."""',
        ]
    return [
        "",
        f'DOMAIN = "{domain.name}"',
        f"TARGET_OPSET = {opset}",
        f'"""The {domain.name} opset the dialect is generated for."""',
    ]


def generate(opset: int | None = None, domain: Domain = DEFAULT) -> str:
    """The text of `domain`'s module for `opset` (default: the newest onnx knows)."""
    opset = opset or domain.newest_opset()
    found = schemas(opset, domain)
    body = [line for op_schema in found for line in _class(op_schema, domain)]
    lines = [
        *_header(domain, opset),
        f"onnx {onnx.__version__}. Do not edit; regenerate with",
        "`python -m onnxc.dialects.gen_onnx_ops`.",
        '"""',
        "",
        "# ruff: noqa: E501, E741",
        "",
        "from __future__ import annotations",
        "",
        "from typing import ClassVar",
        "",
        "from onnx.defs import OpSchema",
        "from xdsl.dialects.builtin import (",
        *(f"    {name}," for name in _used_types(body)),
        ")",
        "from xdsl.irdl import (",
        *(f"    {name}," for name in sorted(_used_names(_IRDL_NAMES, body), key=str.lower)),
        ")",
        "",
        "from onnxc.dialects.onnx_base import "
        + (
            "OnnxOp, TensorValueAttr, schema"
            if "TensorValueAttr" in "\n".join(body)
            else "OnnxOp, schema"
        ),
        *_footer(domain, opset),
    ]
    lines += body
    lines += [
        "",
        "",
        "OPS: dict[str, type[OnnxOp]] = {",
        *(f'    "{s.name}": {s.name}Op,' for s in found),
        "}",
        '"""ONNX op_type -> operation class."""',
        "",
        "__all__ = [",
        *(['    "DOMAIN",'] if domain.name else []),
        '    "OPS",',
        '    "TARGET_OPSET",',
        *(f'    "{s.name}Op",' for s in found),
        "]",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="only check that it is current")
    args = parser.parse_args(argv)
    stale = False
    for domain in DOMAINS:
        text = generate(domain=domain)
        if not args.check:
            domain.output.write_text(text)
        elif (domain.output.read_text() if domain.output.exists() else "") != text:
            print(f"{domain.output} is out of date: run python -m onnxc.dialects.gen_onnx_ops")
            stale = True
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
