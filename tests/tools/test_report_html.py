"""The HTML memory report (`onnxc compile --report-html`): the page is
well-formed and self-contained, and its rectangles are the memory plan: the
same offsets and sizes as the arena views the planner wrote, within the
workspace, and no two buffers live at the same step share bytes, except a
buffer written in place over one that dies at that step."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from onnx import helper
from xdsl.dialects import arith, func, memref
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp

from onnxc.api import generate_with
from onnxc.frontend import ModelLike
from onnxc.ir_names import ARENA
from onnxc.lowering.plan_memory import storage_bytes
from onnxc.options import CompileOptions
from onnxc.tools.report import StageFigures, make_report
from onnxc.tools.report_html import format_html
from tests.tools.test_report import EXAMPLE, make_model

SVG = "{http://www.w3.org/2000/svg}"
XHTML = "{http://www.w3.org/1999/xhtml}"


def _planned_views(module: ModuleOp) -> Counter[tuple[int, int]]:
    """(offset, bytes) of every view of the arena, read straight off the IR."""
    found: Counter[tuple[int, int]] = Counter()
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    for op in fn.body.block.ops:
        source = op.source.owner if isinstance(op, memref.ViewOp) else None
        if isinstance(op, memref.ViewOp) and isinstance(source, memref.AllocOp):
            assert ARENA in source.attributes
            shift = op.byte_shift.owner
            assert isinstance(shift, arith.ConstantOp) and isinstance(shift.value, IntegerAttr)
            t = op.result.type
            assert isinstance(t, MemRefType)
            count = int(np.prod(t.get_shape()))
            found[(shift.value.value.data, storage_bytes(t.element_type, count))] += 1
    return found


def _page(model: ModelLike) -> tuple[ET.Element, Counter[tuple[int, int]], int]:
    """The report page of `model` parsed as XML, the planner's views, the arena size."""
    views: Counter[tuple[int, int]] = Counter()
    seen = StageFigures()

    def on_stage(stage: str, module: ModuleOp) -> None:
        seen(stage, module)
        if stage == "memory":
            views.update(_planned_views(module))

    generated = generate_with(model, CompileOptions.make(), on_stage=on_stage, cache=False)
    report = make_report(generated, seen, "host", measure_code=False)
    text = format_html(report)
    assert text.startswith("<!DOCTYPE html>\n")
    root = ET.fromstring(text.split("\n", 1)[1])  # well-formed, or this raises
    assert generated.workspace_size is not None
    return root, views, generated.workspace_size


def _rects(root: ET.Element) -> list[dict[str, int]]:
    rects = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "buffer"]
    keys = ("data-offset", "data-size", "data-first", "data-last")
    return [{k.removeprefix("data-"): int(r.get(k, "-1")) for k in keys} for r in rects]


def _check_against_plan(root: ET.Element, views: Counter[tuple[int, int]], arena: int) -> None:
    rects = _rects(root)
    assert Counter((r["offset"], r["size"]) for r in rects) == views
    for r in rects:
        assert 0 <= r["offset"] and r["offset"] + r["size"] <= arena
        assert 0 <= r["first"] <= r["last"]
    for i, a in enumerate(rects):
        for b in rects[i + 1 :]:
            live_together = a["first"] <= b["last"] and b["first"] <= a["last"]
            share_bytes = (
                a["offset"] < b["offset"] + b["size"] and b["offset"] < a["offset"] + a["size"]
            )
            if live_together and share_bytes:  # only in place: one ends where the other starts
                assert a["offset"] == b["offset"], (a, b)
                assert a["last"] == b["first"] or b["last"] == a["first"], (a, b)


def test_example_page_is_the_plan() -> None:
    root, views, arena = _page(str(EXAMPLE))
    assert len(views) > 0
    _check_against_plan(root, views, arena)
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    assert any(
        "Conv /conv1/Conv+/Relu: float 1x1x8x8x8, 2,048 bytes at offset" in t for t in titles
    )
    # self-contained: nothing to fetch
    for element in root.iter():
        for attribute in ("src", "href"):
            assert element.get(attribute) is None, (element.tag, attribute)
    assert not list(root.iter("{http://www.w3.org/1999/xhtml}script"))


def test_branching_model_page_is_the_plan() -> None:
    """Buffers of parallel branches and a long-lived skip: many overlapping lifetimes."""
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Sigmoid", ["x"], ["b"]),
        helper.make_node("Tanh", ["a"], ["c"]),
        helper.make_node("Mul", ["b", "c"], ["d"]),
        helper.make_node("Exp", ["d"], ["e"]),
        helper.make_node("Add", ["e", "a"], ["y"]),
    ]
    model = make_model(nodes, {"x": (4, 64)}, ["y"])
    root, views, arena = _page(model)
    assert sum(views.values()) >= 3
    _check_against_plan(root, views, arena)


def test_cli_writes_the_page_and_reports_a_bad_path(tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    command = [sys.executable, "-m", "onnxc", "compile", str(EXAMPLE), "--quiet"]
    done = subprocess.run([*command, "--report-html", str(page)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ET.fromstring(page.read_text().split("\n", 1)[1])
    bad = tmp_path / "missing" / "report.html"
    done = subprocess.run([*command, "--report-html", str(bad)], capture_output=True, text=True)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"onnxc: error: --report-html: cannot write '{bad}' (No such file or directory)"
    ]


@pytest.mark.parametrize("steps", [3, 60])
def test_step_labels_thin_out_on_long_models(steps: int) -> None:
    nodes = [helper.make_node("Relu", [f"t{k}"], [f"t{k + 1}"]) for k in range(steps)]
    root, views, arena = _page(make_model(nodes, {"t0": (8,)}, [f"t{steps}"]))
    _check_against_plan(root, views, arena)
    labels = [t for t in root.iter(f"{SVG}text") if t.get("transform")]
    assert 0 < len(labels) <= 40


def test_if_branches_are_in_the_layer_table() -> None:
    """The nodes of an If's branches are rows of the page's layer table, under
    the If, with their MACs; the arena is still the plan."""
    from tests.tools.test_report import _branch_model

    root, views, arena = _page(_branch_model())
    _check_against_plan(root, views, arena)
    rows = [
        ["".join(td.itertext()) for td in tr.iter(f"{XHTML}td")] for tr in root.iter(f"{XHTML}tr")
    ]
    cells = [row[:8] for row in rows if row]
    assert ["2.1", "then: mm", "MatMul", "4x8", "float", "128", "256", "256"] in [
        [c.strip() for c in row] for row in cells
    ]
    assert ["2", "branch", "If", "4x8", "float", "128", "256", "256"] in cells
