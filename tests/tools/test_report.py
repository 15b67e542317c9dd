"""The size report: MACs, the onnx-level max-live bound, the formatted report and
code size measurement, on small hand-built models and the bundled example."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import Builtin, ModuleOp

from onnxc.frontend import import_model
from onnxc.pipeline import lower
from onnxc.tools.report import (
    CodeSize,
    Report,
    build_report,
    greedy_by_size_bytes,
    intermediates_bytes,
    layer_rows,
    max_live_bound,
    measure_code_size,
    node_macs,
    onnx_weight_bytes,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "digits_cnn.onnx"


def make_model(
    nodes: list[onnx.NodeProto],
    inputs: dict[str, tuple[int, ...]],
    outputs: list[str],
    constants: dict[str, np.ndarray] | None = None,
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs.items()],
        [
            helper.make_value_info(n, helper.make_tensor_type_proto(TensorProto.FLOAT, None))
            for n in outputs
        ],
        initializer=[numpy_helper.from_array(v, n) for n, v in (constants or {}).items()],
    )
    model = helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])
    return onnx.shape_inference.infer_shapes(model)  # the outputs' shapes, which the checker needs


def onnx_level(model: onnx.ModelProto) -> ModuleOp:
    return lower(import_model(model).module, "onnx")


def one_node(op_type: str, inputs: dict[str, tuple[int, ...]], **attributes: Any) -> ModuleOp:
    node = helper.make_node(op_type, list(inputs), ["y"], **attributes)
    return onnx_level(make_model([node], inputs, ["y"]))


def zeros(*shape: int) -> np.ndarray:
    return np.zeros(shape, np.float32)


# --- MACs -------------------------------------------------------------------------


MAC_CASES = [
    # N*M*prod(out spatial)*(C/group)*prod(kernel): 1*4*(8*8)*3*(3*3)
    ("conv-padded", "Conv", {"x": (1, 3, 8, 8), "w": (4, 3, 3, 3)}, {"pads": [1, 1, 1, 1]}, 6912),
    # grouped and strided: out 1x4x2x2 -> 1*4*(2*2)*(4/2)*(3*3)
    (
        "conv-grouped",
        "Conv",
        {"x": (1, 4, 6, 6), "w": (4, 2, 3, 3)},
        {"group": 2, "strides": [2, 2]},
        288,
    ),
    # batch 2, 1-D: out 2x5x6 -> 2*5*6*3*3
    ("conv-1d", "Conv", {"x": (2, 3, 8), "w": (5, 3, 3)}, {}, 540),
    # every input element meets (M/group)*prod(kernel) weights: (1*2*3*3)*(4*2*2)
    ("conv-transpose", "ConvTranspose", {"x": (1, 2, 3, 3), "w": (2, 4, 2, 2)}, {}, 288),
    # M=2, K=5, N=3 with A transposed
    ("gemm-transA", "Gemm", {"a": (5, 2), "b": (5, 3)}, {"transA": 1}, 30),
    ("gemm-transB", "Gemm", {"a": (4, 6), "b": (7, 6)}, {"transB": 1}, 4 * 7 * 6),
    # batch dims 2x3, M=4, K=5, N=6
    ("matmul-batched", "MatMul", {"a": (2, 3, 4, 5), "b": (5, 6)}, {}, 720),
    # broadcast batch: out 2x3x4x6, K=5
    ("matmul-broadcast", "MatMul", {"a": (2, 1, 4, 5), "b": (3, 5, 6)}, {}, 720),
    ("matmul-vector", "MatMul", {"a": (5,), "b": (5, 6)}, {}, 30),
    ("relu", "Relu", {"x": (2, 3)}, {}, 0),
]


@pytest.mark.parametrize(
    "op_type,inputs,attributes,expected", [c[1:] for c in MAC_CASES], ids=[c[0] for c in MAC_CASES]
)
def test_macs(
    op_type: str, inputs: dict[str, tuple[int, ...]], attributes: dict[str, Any], expected: int
) -> None:
    (row,) = layer_rows(one_node(op_type, inputs, **attributes))
    assert (row.op_type, row.macs) == (op_type, expected)


def test_row_fields_and_weight_bytes() -> None:
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", pads=[1, 1, 1, 1])
    model = make_model([node], {"x": (1, 3, 8, 8)}, ["y"], {"w": zeros(4, 3, 3, 3), "b": zeros(4)})
    (row,) = layer_rows(onnx_level(model))
    assert row.name == "conv"
    assert row.outputs == (((1, 4, 8, 8), "float"),)
    assert row.output_bytes == 4 * 8 * 8 * 4
    assert row.weight_bytes == (4 * 3 * 3 * 3 + 4) * 4
    assert row.macs == 6912


# --- max-live bound ------------------------------------------------------------------


def test_chain() -> None:
    # r1 (32 B) -> c (64 B) -> r2 (64 B) -> y (graph output, not counted)
    model = make_model(
        [
            helper.make_node("Relu", ["x"], ["r1"]),
            helper.make_node("Concat", ["r1", "r1"], ["c"], axis=1),
            helper.make_node("Relu", ["c"], ["r2"]),
            helper.make_node("Relu", ["r2"], ["y"]),
        ],
        {"x": (1, 8)},
        ["y"],
    )
    module = onnx_level(model)
    assert intermediates_bytes(module) == 32 + 64 + 64
    # live at node 2: c (consumed there) and r2
    assert max_live_bound(module) == 64 + 64


def test_skip_connection_and_unused_output() -> None:
    # a [0,4] 64 B, b [1,2] 192 B, c [2,3] 256 B, d1 [3,4] 64 B, d2 [3,3] 192 B (unused)
    model = make_model(
        [
            helper.make_node("Relu", ["x"], ["a"]),
            helper.make_node("Concat", ["a", "a", "a"], ["b"], axis=1),
            helper.make_node("Concat", ["b", "a"], ["c"], axis=1),
            helper.make_node("Split", ["c", "split"], ["d1", "d2"], axis=1),
            helper.make_node("Add", ["a", "d1"], ["y"]),
        ],
        {"x": (1, 16)},
        ["y"],
        {"split": np.array([16, 48], np.int64)},
    )
    module = onnx_level(model)
    assert intermediates_bytes(module) == 64 + 192 + 256 + 64 + 192
    # at the Split: a (still needed by Add), c, d1 and the unused d2
    assert max_live_bound(module) == 64 + 256 + 64 + 192
    # largest first, lowest fitting offset: c 0, b 256, d2 256, a 448, d1 512
    assert greedy_by_size_bytes(module) == 576


def test_graph_output_consumed_later_is_not_an_intermediate() -> None:
    model = make_model(
        [
            helper.make_node("Relu", ["x"], ["y1"]),
            helper.make_node("Relu", ["y1"], ["t"]),
            helper.make_node("Relu", ["t"], ["y2"]),
        ],
        {"x": (1, 4)},
        ["y1", "y2"],
    )
    module = onnx_level(model)
    assert intermediates_bytes(module) == max_live_bound(module) == 16


# --- If, Loop and Scan bodies ---------------------------------------------------------


F = TensorProto.FLOAT
W8 = numpy_helper.from_array(np.arange(64, dtype=np.float32).reshape(8, 8) / 64, "w")


def _branch_model(name: str = "branch") -> onnx.ModelProto:
    """`p = Relu(x)`, then an If whose then-branch does the work (MatMul of p
    by w, Relu) and whose else-branch negates p."""
    then = helper.make_graph(
        [
            helper.make_node("MatMul", ["p", "w"], ["a"], name="mm"),
            helper.make_node("Relu", ["a"], ["t"], name="relu"),
        ],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, [4, 8])],
    )
    other = helper.make_graph(
        [helper.make_node("Neg", ["p"], ["e"], name="neg")],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, [4, 8])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["p"], name="first"),
            helper.make_node("If", ["c"], ["y"], name=name, then_branch=then, else_branch=other),
        ],
        "g",
        [
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("x", F, [4, 8]),
        ],
        [helper.make_tensor_value_info("y", F, [4, 8])],
        [W8],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def test_if_branches_are_counted() -> None:
    """The branches' nodes are rows under the If, whose MACs are the larger
    branch's; their tensors count in the memory figures: at the If, p (128 B)
    and the MatMul's result in the then-branch (128 B; the values a branch
    yields are the If's result)."""
    module = onnx_level(_branch_model())
    rows = layer_rows(module)
    assert [(r.name, r.depth, r.body, r.macs, r.weight_bytes) for r in rows] == [
        ("first", 0, "", 0, 0),
        ("branch", 0, "", 4 * 8 * 8, 256),
        ("mm", 1, "then", 4 * 8 * 8, 256),
        ("relu", 1, "then", 0, 0),
        ("neg", 1, "else", 0, 0),
    ]
    assert intermediates_bytes(module) == 128 + 128
    assert max_live_bound(module) == 128 + 128
    assert onnx_weight_bytes(module) == 256


def _loop_model() -> onnx.ModelProto:
    """A Loop of 3 iterations whose body multiplies the carried [4, 8] by w."""
    body = helper.make_graph(
        [
            helper.make_node("MatMul", ["v_in", "w"], ["a"], name="mm"),
            helper.make_node("Tanh", ["a"], ["v_out"], name="tanh"),
            helper.make_node("Identity", ["c_in"], ["c_out"], name="keep"),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_in", F, [4, 8]),
        ],
        [
            helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_out", F, [4, 8]),
        ],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "cond", "v0"], ["v"], name="loop", body=body)],
        "g",
        [helper.make_tensor_value_info("v0", F, [4, 8])],
        [helper.make_tensor_value_info("v", F, [4, 8])],
        [
            W8,
            numpy_helper.from_array(np.array(3, np.int64), "trips"),
            numpy_helper.from_array(np.array(True), "cond"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def _scan_model() -> onnx.ModelProto:
    """A Scan over 5 rows of x adding each row times w to the state."""
    body = helper.make_graph(
        [
            helper.make_node("MatMul", ["x_t", "w"], ["m"], name="mm"),
            helper.make_node("Add", ["h_in", "m"], ["h_out"], name="add"),
        ],
        "body",
        [
            helper.make_tensor_value_info("h_in", F, [1, 8]),
            helper.make_tensor_value_info("x_t", F, [1, 8]),
        ],
        [helper.make_tensor_value_info("h_out", F, [1, 8])],
    )
    graph = helper.make_graph(
        [helper.make_node("Scan", ["h0", "x"], ["h"], name="scan", body=body, num_scan_inputs=1)],
        "g",
        [
            helper.make_tensor_value_info("h0", F, [1, 8]),
            helper.make_tensor_value_info("x", F, [5, 1, 8]),
        ],
        [helper.make_tensor_value_info("h", F, [1, 8])],
        [W8],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize(
    "model,expected",
    [(_loop_model, [("loop", 3 * 4 * 8 * 8)]), (_scan_model, [("scan", 5 * 8 * 8)])],
    ids=["loop", "scan"],
)
def test_bodies_count_per_iteration(model: Any, expected: list[tuple[str, int]]) -> None:
    """A Loop's body counts once per iteration of its constant trip count,
    a Scan's once per element of its scan axis (the MACs `bench` counts)."""
    assert node_macs(onnx_level(model())) == expected


def test_long_node_names_are_shortened_in_text_not_in_html() -> None:
    """A 350-character node name (as TensorFlow exports write) takes a fixed
    width in the text table, its start and end kept; the HTML page has it whole."""
    from onnxc.tools.report_html import format_html
    from onnxc.tools.short_names import NAME_WIDTH

    scopes = "/".join(f"block_{k}" for k in range(40))
    name = f"StatefulPartitionedCall/model/{scopes}"[: 350 - 7] + "/Switch"
    report = build_report(_branch_model(name), measure_code=False)
    assert report.layers[1].name == name and report.layers[1].macs == 256
    lines = report.format().splitlines()
    row = next(line for line in lines if line.split()[:1] == ["2"])
    assert row.split()[1] == name[:22] + "..." + name[-23:]
    assert len(row.split()[1]) == NAME_WIDTH
    assert max(len(line) for line in lines if "..." in line) < 120
    assert name in format_html(report)


# --- the report ---------------------------------------------------------------------


def _blob_count() -> int:
    storage = Builtin.get_interface(OpAsmDialectInterface)
    assert storage is not None
    return len(storage._blob_storage)  # pyright: ignore[reportPrivateUsage]


@pytest.fixture(scope="module")
def digits_report() -> Report:
    return build_report(EXAMPLE, measure_code=False)


def test_digits_figures(digits_report: Report) -> None:
    report = digits_report
    assert [(r.name, r.op_type, r.macs) for r in report.layers] == [
        ("/conv1/Conv", "Conv", 8 * 64 * 9),
        ("/Relu", "Relu", 0),
        ("/conv2/Conv", "Conv", 16 * 64 * 8 * 9),
        ("/Relu_1", "Relu", 0),
        ("/pool/MaxPool", "MaxPool", 0),
        ("/Flatten", "Flatten", 0),
        ("/fc/Gemm", "Gemm", 10 * 256),
    ]
    assert report.intermediates_bytes == 4 * (2 * 512 + 2 * 1024 + 2 * 256)
    assert report.max_live_bound == 4 * 2 * 1024  # conv2's output and its Relu
    weights = 4 * (8 * 9 + 8 + 16 * 8 * 9 + 16 + 10 * 256 + 10)
    assert report.onnx_weight_bytes == weights
    # the host's kernel for the 10-output Gemm has accumulators of 16 lanes:
    # its packed weights and bias are padded with zeros to 16 outputs
    assert report.weight_bytes == weights + 4 * 6 * (256 + 1)
    assert report.workspace_size > 0


def test_digits_format(digits_report: Report) -> None:
    text = digits_report.format()
    assert "onnxc size report: digits_cnn (target host)" in text
    lines = text.splitlines()
    conv2 = next(line for line in lines if "/conv2/Conv" in line).split()
    assert conv2 == ["3", "/conv2/Conv", "Conv", "1x16x8x8", "float", "4,096", "4,672", "73,728"]
    total = next(line for line in lines if line.split()[:1] == ["total"]).split()
    assert total == ["total", "14,376", "15,272", "80,896"]
    assert "intermediates total 14,336 B, max-live bound 8,192 B" in text
    ratio = digits_report.workspace_size / 8192
    assert f"arena {digits_report.workspace_size:,} B" in text
    assert f"(arena/bound = {ratio:.2f})" in text
    assert "weights 21,440 B" in text  # with the padding of the Gemm's kernel
    assert "code size: not measured" in text


def test_report_releases_resources() -> None:
    before = _blob_count()
    build_report(EXAMPLE, measure_code=False)
    assert _blob_count() == before


def test_plan_missing_is_said(digits_report: Report) -> None:
    report = Report(**{**vars(digits_report), "memory_plan": {}})
    text = report.format()
    assert f"TFLite Micro greedy-by-size {digits_report.greedy_by_size:,} B" in text
    assert "planner figures: none (onnxc.memory is not on the function)" in text


def test_plan_figures_are_shown(digits_report: Report) -> None:
    plan = {"arena": 100, "intermediates": 2000, "max_live": 90, "greedy_by_size": 1234}
    text = Report(**{**vars(digits_report), "memory_plan": plan}).format()
    assert "greedy-by-size 1,234 B" in text
    assert "planned buffers: intermediates 2,000 B, max-live after in-place merging 90 B" in text


# --- code size -----------------------------------------------------------------------


def test_missing_cross_compiler(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    report = build_report(EXAMPLE, target="cortex-m4")
    assert report.code_size == "not measured (arm-none-eabi-gcc not found)"
    assert "code size: not measured (arm-none-eabi-gcc not found)" in report.format()


@pytest.mark.parametrize("target", ["host", "cortex-m4"])
def test_code_size(digits_report: Report, target: str) -> None:
    from onnxc.api import generate_c
    from onnxc.targets import get_target

    spec = get_target(target)
    if shutil.which(spec.cc) is None or shutil.which(spec.size_tool or "size") is None:
        pytest.skip(f"{spec.cc} or its size tool is not installed")
    size = measure_code_size(generate_c(EXAMPLE), target, digits_report.weight_bytes)
    assert isinstance(size, CodeSize), size
    assert size.weights == digits_report.weight_bytes
    assert 0 < size.code == size.text - size.weights
    assert size.bss >= digits_report.workspace_size  # the default arena
    assert size.command.startswith(f"{spec.cc} -std=c99 -Os")


def test_memory_plan_reads_the_planner_attribute() -> None:
    from xdsl.dialects import func
    from xdsl.dialects.builtin import DictionaryAttr, IntegerAttr, StringAttr

    from onnxc.tools.report import MEMORY_ATTR, memory_plan

    module = lower(import_model(EXAMPLE).module, "loops")
    fn = next(op for op in module.ops if isinstance(op, func.FuncOp))
    fn.attributes[MEMORY_ATTR] = DictionaryAttr(
        {"arena": IntegerAttr(64, 64), "greedy_by_size": IntegerAttr(96, 64), "x": StringAttr("")}
    )
    assert memory_plan(module) == {"arena": 64, "greedy_by_size": 96}
    del fn.attributes[MEMORY_ATTR]
    assert memory_plan(module) == {}


def test_compile_error_is_reported() -> None:
    from onnxc.api import GeneratedC

    if shutil.which("cc") is None or shutil.which("size") is None:
        pytest.skip("no host compiler or size tool")
    broken = GeneratedC("broken", {"broken.c": "int x = ;\n", "broken.h": ""}, [], [])
    result = measure_code_size(broken, "host", 0)
    assert isinstance(result, str)
    assert result.startswith("not measured (cc failed: ") and "error" in result


def test_cli_report(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "onnxc", "compile", str(EXAMPLE), "-o", str(tmp_path), "--report"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "digits_cnn.c").exists()
    workspace = (tmp_path / "digits_cnn.h").read_text().split("digits_cnn_WORKSPACE_SIZE ")[1]
    arena = int(workspace.split()[0])
    assert f"arena {arena:,} B" in result.stdout
    assert "/conv2/Conv" in result.stdout and "73,728" in result.stdout  # MACs of conv2
