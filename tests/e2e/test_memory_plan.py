"""The planned arena of the PyTorch CNNs: sound (checked independently of the
planner), exact (NAME_WORKSPACE_SIZE is the plan), at most 1.10x the max-live
bound of the model's ONNX tensors in node order, and never above TFLite Micro's
greedy-by-size strategy. Numerical agreement with onnxruntime is asserted by
test_pytorch_cnns.py, which runs the same planned code."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("torch")

from xdsl.dialects.builtin import ModuleOp  # noqa: E402

from onnxc.api import generate_c  # noqa: E402
from onnxc.tools.report import max_live_bound, memory_plan  # noqa: E402
from tests.lowering.memory_check import check_plan  # noqa: E402
from tests.models import MODEL_CLASSES, build, export  # noqa: E402

BOUND_FACTOR = 1.10


@pytest.mark.parametrize("dynamo", [False, True], ids=["legacy", "dynamo"])
@pytest.mark.parametrize("name", sorted(MODEL_CLASSES))
def test_arena_within_bound(tmp_path, name: str, dynamo: bool) -> None:
    model, example = build(name)
    path = export(model, example, tmp_path / f"{name}.onnx", dynamo=dynamo)
    seen: dict[str, int] = {}

    def on_stage(stage: str, module: ModuleOp) -> None:
        if stage == "onnx":
            seen["bound"] = max_live_bound(module)
        elif stage == "loops":
            seen["checked"] = check_plan(module)
            seen.update(memory_plan(module))

    generated = generate_c(path, on_stage=on_stage)
    match = re.search(rf"#define {generated.name}_WORKSPACE_SIZE (\d+)", generated.header_source)
    assert match is not None
    workspace = int(match.group(1))
    assert workspace == seen["arena"] == seen["checked"]
    assert workspace <= BOUND_FACTOR * seen["bound"], (workspace, seen)
    assert workspace <= seen["greedy_by_size"], seen
    assert seen["max_live"] <= workspace
