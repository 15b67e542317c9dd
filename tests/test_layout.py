"""The layout rules of the package, as tests (README "Layout"):

- imports go one way: tools -> driver -> front end / lowering -> dialects ->
  shared facts; `emit` imports only dialects and shared facts; the text
  engines only shared facts; nothing in the library imports the tools;
- the lowering's categories are the FileCheck folders' categories, and each
  operator's FileCheck file sits in its lowering's category;
- every module of `onnxc/frontend/rewrites/` gives `REWRITES` a step, and
  every step of `REWRITES` comes from the front end's rewrites or sequences;
- no folder of Python code holds more than 20 modules, and no two sibling
  modules differ only by a suffix (`loop`/`loops`, `recurrence`/`recurrent`).

A new file that breaks a rule fails here, naming the file and the rule.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {
    "onnxc": "onnxc",
    "dialects": "onnxc.dialects",
    "lowering": "onnxc.lowering",
    "emit": "onnxc.emit",
    "runtime_c": "onnxc.runtime_c",
}
"""The package's top-level folders and the names they install as."""

DRIVER = {"api", "backend", "pipeline", "progress", "compile_cache", "universe", "universe_target"}
FACTS = {
    "errors",
    "ir_names",
    "element_types",
    "targets",
    "options",
    "intervals",
    "containers",
    "container_io",
    "folding",
    "forked",
}
"""The top-level modules of `onnxc/` by role: the driver, and the facts every
layer may import (`onnxc/__init__.py` is the driver too, `__main__` a tool)."""

MAY_IMPORT = {
    "tools": {"tools", "driver", "frontend", "lowering", "emit", "dialects", "text", "facts"},
    "driver": {"driver", "frontend", "lowering", "emit", "dialects", "text", "facts"},
    "frontend": {"frontend", "dialects", "facts"},
    "lowering": {"lowering", "dialects", "text", "facts"},
    "emit": {"emit", "dialects", "facts"},
    "dialects": {"dialects", "facts"},
    "text": {"text", "facts"},
    "facts": {"facts", "dialects"},
}
"""Layer -> the layers its modules may import. The facts may name a dialect's
types (`element_types` knows the string type), never a pass or the driver."""


def _modules() -> Iterator[tuple[str, Path]]:
    for folder, package in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join((package, *parts)), path


def layer(module: str) -> str:
    parts = module.split(".")
    if parts[1:2] in (["tools"], ["frontend"], ["text"]):
        return parts[1]
    if parts[1:2] in (["lowering"], ["emit"], ["dialects"]):
        return parts[1]
    if parts[1:2] == ["runtime_c"]:
        return "facts"
    if parts[1:2] == ["__main__"]:  # `python -m onnxc`: the command line
        return "tools"
    if len(parts) == 1 or parts[1] in DRIVER:
        return "driver"
    if parts[1] in FACTS:
        return "facts"
    raise AssertionError(f"{module}: no layer; add it to DRIVER or FACTS in tests/test_layout.py")


def _imports(path: Path, module: str) -> Iterator[tuple[int, str]]:
    """Every onnxc module `path` imports (at any depth, TYPE_CHECKING too)."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        for name in names:
            if name == "onnxc" or name.startswith("onnxc."):
                yield node.lineno, name


KNOWN = {module for module, _ in _modules()}


def _resolved(name: str) -> str | None:
    """The module `name` is, or is in (`onnxc.errors.OnnxcError` is in
    `onnxc.errors`); None for a bare `onnxc` package import."""
    while name not in KNOWN and "." in name:
        name = name.rsplit(".", 1)[0]
    return name if name in KNOWN and name != "onnxc" else None


def layering_violations() -> list[str]:
    found = []
    for module, path in _modules():
        mine = layer(module)
        for line, name in _imports(path, module):
            target = _resolved(name)
            if target is None:
                continue
            theirs = layer(target)
            if theirs not in MAY_IMPORT[mine]:
                where = path.relative_to(ROOT)
                found.append(f"{where}:{line}: {mine} imports {target} ({theirs})")
    return sorted(set(found))


def test_imports_go_one_way() -> None:
    assert layering_violations() == []


def _folders(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("__")}


LOWERINGS = ROOT / "lowering" / "convert_onnx_to_linalg"
FILECHECKS = ROOT / "filecheck" / "convert-onnx-to-linalg"


def test_lowering_categories_are_the_filecheck_categories() -> None:
    lowering = {name.replace("_", "-") for name in _folders(LOWERINGS)}
    assert lowering == _folders(FILECHECKS) - {"Output"}


def _kebab(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "-", name).lower()


def test_each_operator_is_checked_in_its_category() -> None:
    """An operator's FileCheck file (named after it) is in the folder of the
    category its lowering is in."""
    from onnxc.lowering.convert_onnx_to_linalg import _lowering_classes

    files: dict[str, list[str]] = {}
    for path in FILECHECKS.rglob("*.mlir"):
        files.setdefault(path.stem, []).append(path.parent.name)
    misplaced = []
    for lowering in _lowering_classes():
        category = lowering.__module__.split(".")[3].replace("_", "-")
        folders = files.get(_kebab(lowering.source.SCHEMA.name), [])
        if folders and category not in folders:
            misplaced.append(f"{lowering.source.SCHEMA.name}: {folders} (lowered in {category})")
    assert misplaced == []


def test_every_rewrite_module_is_in_the_list() -> None:
    from onnxc.frontend.prepare import rewrites

    listed = {rewrite.apply.__module__ for rewrite in rewrites()}
    modules = {
        f"onnxc.frontend.rewrites.{p.stem}"
        for p in (ROOT / "onnxc" / "frontend" / "rewrites").glob("*.py")
        if p.stem != "__init__"
    }
    assert modules - listed == set(), "rewrite modules that REWRITES never runs"
    outside = {
        m
        for m in listed
        if not m.startswith(("onnxc.frontend.rewrites.", "onnxc.frontend.sequences."))
    }
    assert outside == set(), "REWRITES steps defined outside rewrites/ and sequences/"


def _python_folders() -> Iterator[Path]:
    for folder in FOLDERS:
        for init in (ROOT / folder).rglob("__init__.py"):
            yield init.parent
    yield ROOT / "onnxc"


@pytest.mark.parametrize("folder", sorted({str(p.relative_to(ROOT)) for p in _python_folders()}))
def test_folder_size(folder: str) -> None:
    modules = [p for p in (ROOT / folder).glob("*.py") if p.name != "__init__.py"]
    assert len(modules) <= 20, f"{folder} holds {len(modules)} modules: split it by category"


SUFFIXES = ("s", "es", "ion", "ions", "ence", "ent", "al", "e", "ing")


def _stem(name: str) -> str:
    for suffix in sorted(SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix) and len(name) - len(suffix) >= 3:
            return name[: -len(suffix)]
    return name


def look_alikes(names: list[str]) -> list[tuple[str, str]]:
    """Pairs of names that differ only by a suffix."""
    pairs = []
    for i, a in enumerate(sorted(names)):
        for b in sorted(names)[i + 1 :]:
            if _stem(a) == _stem(b) or _stem(a) == b or _stem(b) == a:
                pairs.append((a, b))
    return pairs


def test_look_alike_names() -> None:
    assert look_alikes(["loop", "loops", "recurrence", "recurrent", "scan"]) == [
        ("loop", "loops"),
        ("recurrence", "recurrent"),
    ]


@pytest.mark.parametrize("folder", sorted({str(p.relative_to(ROOT)) for p in _python_folders()}))
def test_no_look_alike_siblings(folder: str) -> None:
    path = ROOT / folder
    names = [p.stem for p in path.glob("*.py") if p.name != "__init__.py"]
    names += [p.name for p in path.iterdir() if (p / "__init__.py").exists()]
    assert look_alikes(names) == []
