"""The CI slice of the random-graph differential tests (`graphs.py`): a fixed
set of seeds on host and host-portable (every 25th also on cortex-m4), and
every minimised reproducer in `regressions/`, each against onnxruntime
(rtol 1e-4, atol 1e-4 times the output's largest magnitude; float16 1e-2).

`ONNXC_FUZZ_SEEDS=START:END` runs other seeds (the default is 0:120)."""

from __future__ import annotations

import os

import numpy as np
import onnx
import pytest

from tests.fuzz.graphs import REGRESSIONS, SKIPPED, check, generate
from tests.mcu.tools import MISSING_ARM_TOOLS

pytest.importorskip("onnxruntime")

START, END = (int(x) for x in os.environ.get("ONNXC_FUZZ_SEEDS", "0:120").split(":"))
CASES = [(seed, "host") for seed in range(START, END)]
CASES += [(seed, "host-portable") for seed in range(START, END)]
CASES += [(seed, "cortex-m4") for seed in range(START, END, 25)]


def _has_free_dims(model: onnx.ModelProto) -> bool:
    return any(d.dim_param for i in model.graph.input for d in i.type.tensor_type.shape.dim)


@pytest.mark.parametrize(("seed", "target"), CASES)
def test_random_graph(seed: int, target: str) -> None:
    case = generate(seed)
    if target == "cortex-m4":
        if MISSING_ARM_TOOLS is not None:
            pytest.skip(MISSING_ARM_TOOLS)
        if _has_free_dims(case.model):
            pytest.skip("free dimensions: an MCU build needs them bound")
    outcome = check(case.model, case.feeds, target)
    assert outcome is None or outcome.kind in SKIPPED, f"seed {seed}: {outcome}"


@pytest.mark.parametrize("path", sorted(REGRESSIONS.glob("*.onnx")), ids=lambda p: p.stem)
def test_regression(path) -> None:
    model = onnx.load(path)
    target = dict(kv.split("=") for kv in model.doc_string.split())["target"]
    feeds = dict(np.load(path.with_suffix(".npz")))
    outcome = check(model, feeds, target)
    assert outcome is None, f"{path.name}: {outcome}"


def _pool_at_a_tie(y_zero_point: int) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A QDQ AveragePool whose averages are halves of the output scale:
    onnxruntime (QLinearAveragePool) rounds them after adding the zero
    point, QuantizeLinear and onnx.reference before."""
    from onnx import TensorProto, helper, numpy_helper

    parameters = {"s": np.array(1.0, np.float32), "z": np.array(0, np.uint8)}
    parameters["yz"] = np.array(y_zero_point, np.uint8)
    nodes = [
        helper.make_node("DequantizeLinear", ["x", "s", "z"], ["d"]),
        helper.make_node("AveragePool", ["d"], ["p"], kernel_shape=[1, 2]),
        helper.make_node("QuantizeLinear", ["p", "s", "yz"], ["q"]),
    ]
    graph = helper.make_graph(
        nodes,
        "tie",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 1, 1, 8])],
        [helper.make_tensor_value_info("q", TensorProto.UINT8, [1, 1, 1, 7])],
        [numpy_helper.from_array(v, n) for n, v in parameters.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = 10
    return model, {"x": np.array([[[[0, 1, 2, 3, 4, 5, 6, 7]]]], np.uint8)}


def test_the_spec_decides_where_onnxruntime_differs() -> None:
    """With an odd zero point the ties land apart: onnxc follows
    QuantizeLinear (as onnx.reference does), which the check counts as
    "spec", not as a failure; with an even one all three agree."""
    odd = check(*_pool_at_a_tie(11), "host")
    assert odd is not None and odd.kind == "spec", odd
    assert check(*_pool_at_a_tie(12), "host") is None
