"""`onnxc check`: every node that cannot be compiled, in one run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

import onnxc
from onnxc.tools.check import find_gaps

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "digits_cnn.onnx"


@pytest.fixture(autouse=True)
def _without_det_and_einsum(monkeypatch: pytest.MonkeyPatch) -> None:
    """Det and Einsum play operators without a lowering (so these tests do not
    depend on which operators are still missing): the lowering table, which
    `find_gaps` and the compiler both read, leaves them out."""
    from onnxc.lowering import convert_onnx_to_linalg

    table = convert_onnx_to_linalg.lowerings()
    kept = {name: cls for name, cls in table.items() if name not in ("Det", "Einsum")}
    monkeypatch.setattr(convert_onnx_to_linalg, "lowerings", lambda: kept)


def _custom_model() -> onnx.ModelProto:
    """Two nodes of a custom domain, which onnxc cannot compile (the command
    line runs in another process, where Det and Einsum cannot be taken out)."""
    nodes = [
        helper.make_node("Decode", ["png"], ["rgb"], name="dec1", domain="com.example"),
        helper.make_node("Decode", ["jpeg"], ["bgr"], name="dec2", domain="com.example"),
    ]
    stream = [helper.make_tensor_value_info(n, TensorProto.UINT8, [64]) for n in ("png", "jpeg")]
    images = [
        helper.make_tensor_value_info(n, TensorProto.UINT8, ["h", "w", 3]) for n in ("rgb", "bgr")
    ]
    graph = helper.make_graph(nodes, "decoders", stream, images)
    opsets = [helper.make_opsetid("", 20), helper.make_opsetid("com.example", 1)]
    return helper.make_model(graph, opset_imports=opsets)


def _gappy_model() -> onnx.ModelProto:
    """Det and Einsum (twice) have no lowering here; Relu has."""
    nodes = [
        helper.make_node("Det", ["x"], ["a"], name="det"),
        helper.make_node("Einsum", ["a"], ["b"], name="sum1", equation="i->i"),
        helper.make_node("Relu", ["b"], ["c"], name="relu"),
        helper.make_node("Einsum", ["c"], ["d"], name="sum2", equation="i->i"),
    ]
    graph = helper.make_graph(
        nodes,
        "gaps",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 3])],
        [helper.make_tensor_value_info("d", TensorProto.FLOAT, [2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_lists_every_node_at_once() -> None:
    gaps = find_gaps(_gappy_model())
    assert [(g.operator, g.node) for g in gaps] == [
        ("Det", "det"),
        ("Einsum", "sum1"),
        ("Einsum", "sum2"),
    ]
    assert all(g.domain == "ai.onnx" and g.opset and "no lowering" in g.reason for g in gaps)


def test_foreign_domain_is_listed() -> None:
    model = _gappy_model()
    model.graph.node[2].domain = "com.example"
    model.opset_import.append(helper.make_opsetid("com.example", 1))
    gaps = find_gaps(model)
    assert ("com.example", "Relu", "relu") in [(g.domain, g.operator, g.node) for g in gaps]


def test_a_model_that_compiles_has_no_gaps() -> None:
    assert find_gaps(EXAMPLE) == []


def test_compile_error_names_the_first_and_counts_the_rest() -> None:
    with pytest.raises(onnxc.OnnxcError) as error:
        onnxc.compile(_gappy_model())
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("node 'det' (Det): operator Det is not supported yet")
    assert "Einsum (2 nodes)" in message


def test_cli(tmp_path: Path) -> None:
    path = tmp_path / "gaps.onnx"
    onnx.save(_custom_model(), path)
    command = [sys.executable, "-m", "onnxc", "check"]
    result = subprocess.run([*command, str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].endswith("2 nodes cannot be compiled yet")
    assert lines[1].split()[:4] == ["domain", "operator", "opset", "node"]
    assert [line.split()[3] for line in lines[2:]] == ["dec1", "dec2"]
    ok = subprocess.run([*command, str(EXAMPLE)], capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and ok.stdout.strip().endswith("compiles")


def test_an_error_while_resolving_sequences_names_its_node() -> None:
    """SequenceAt at a run-time position of a sequence whose tensors have
    different ranks cannot be compiled: the gap is that node's, with the
    reason."""
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [
            helper.make_node("SequenceConstruct", ["a", "b"], ["s"]),
            helper.make_node("SequenceAt", ["s", "at"], ["y"], name="pick"),
        ],
        "g",
        [
            helper.make_tensor_value_info("a", f, [2]),
            helper.make_tensor_value_info("b", f, [2, 2]),
            helper.make_tensor_value_info("at", TensorProto.INT64, []),
        ],
        [helper.make_tensor_value_info("y", f, [None])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    (gap,) = find_gaps(model)
    assert (gap.domain, gap.operator, gap.node) == ("ai.onnx", "SequenceAt", "pick")
    assert "different ranks" in gap.reason
