"""`onnxc check`: every node that cannot be compiled, in one run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

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


def _free_model() -> onnx.ModelProto:
    """`y = x + mask[:, 0:4]`-shaped work on free dimensions: `x` is
    [N, 4], `mask` [N, seq], and `ids` has an unnamed dimension."""
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        [
            helper.make_node("ReduceSum", ["mask"], ["m"], keepdims=1),
            helper.make_node("Add", ["x", "m"], ["y"]),
            helper.make_node("Relu", ["ids"], ["r"]),
        ],
        "free",
        [
            helper.make_tensor_value_info("x", f, ["N", 4]),
            helper.make_tensor_value_info("mask", f, ["N", "seq"]),
            helper.make_tensor_value_info("ids", f, [2, None]),
        ],
        [
            helper.make_tensor_value_info("y", f, ["N", 4]),
            helper.make_tensor_value_info("r", f, [2, None]),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_free_dimensions_are_listed_with_their_flags() -> None:
    """A model that compiles with free dimensions: `check` names them (the
    unnamed one as `INPUT_dimK`), the inputs that have them, and `--dim`
    flags that bind them, which make it static."""
    from onnxc.tools.check import Checked, check, format_check

    checked = check(_free_model())
    assert checked.gaps == [] and checked.compiles_with is None
    assert checked.free == ["N", "seq", "ids_dim1"]
    assert checked.inputs == [("x", ("N", 4)), ("mask", ("N", "seq")), ("ids", (2, "ids_dim1"))]
    lines = format_check("m.onnx", checked)
    assert lines[0] == "m.onnx: compiles"
    assert lines[1] == "free dimensions (sizes given at run time): N, seq, ids_dim1"
    assert lines[-1].endswith(": --dim N=SIZE --dim seq=SIZE --dim ids_dim1=SIZE")
    bound = check(_free_model(), dims={"N": 2, "seq": 3, "ids_dim1": 5})
    assert bound == Checked([], [], [])
    assert format_check("m.onnx", bound) == ["m.onnx: compiles"]


def _rank_by_size_model(batch: str | None) -> onnx.ModelProto:
    """An If on `batch > 1` (x's first dimension) whose branches give ranks 2
    (x) and 1 (x summed over its first axis), then a Transpose that needs
    rank 2: onnxc cannot compile it with the batch free (the rank is decided
    at run time), nor with a batch of 1 (the rank-1 branch), and can with 2
    or more."""
    f = TensorProto.FLOAT
    then = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", f, [batch, 4])],
    )
    other = helper.make_graph(
        [helper.make_node("ReduceSum", ["x", "axis0"], ["e"], keepdims=0)],
        "else",
        [],
        [helper.make_tensor_value_info("e", f, [4])],
    )
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Greater", ["n", "one"], ["c"]),
        helper.make_node("If", ["c"], ["y"], name="pick", then_branch=then, else_branch=other),
        helper.make_node("Transpose", ["y"], ["z"], name="turn", perm=[1, 0]),
    ]
    constants = {"zero": np.array(0), "one": np.array(1), "axis0": np.array([0])}
    graph = helper.make_graph(
        nodes,
        "rank_by_size",
        [helper.make_tensor_value_info("x", f, [batch, 4])],
        [helper.make_tensor_value_info("z", f, [4, batch])],
        [numpy_helper.from_array(v, n) for n, v in constants.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize("batch", ["N", None], ids=["named", "unnamed"])
def test_compiles_once_bound_is_told_from_cannot(
    batch: str | None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check` says the model compiles once its batch is bound, with the
    size it compiled with and the flags (exit 1: it does not compile as
    given); with those flags at 3, it compiles and runs as onnxruntime does
    (exactly: a transpose)."""
    pytest.importorskip("onnxruntime")
    from onnxc.tools.check import check
    from onnxc.tools.cli import main

    model = _rank_by_size_model(batch)
    assert check(model).compiles_with == 2
    path = tmp_path / "rank.onnx"
    onnx.save(model, path)
    assert main(["check", str(path), "-q"]) == 1
    lines = capsys.readouterr().out.splitlines()
    said = f"{path}: compiles once its free dimensions are bound (it did with "
    assert lines[0].startswith(said)
    assert lines[1].startswith("with them free, ") and lines[1].endswith(" cannot be compiled:")
    if batch is not None:
        assert lines[0] == said + "N=2): --dim N=SIZE"
    flags = lines[0].split("): ", 1)[1].replace("SIZE", "3").split()
    assert main(["check", str(path), "-q", *flags]) == 0
    assert capsys.readouterr().out.splitlines() == [f"{path}: compiles"]
    np.save(tmp_path / "x.npy", np.arange(12, dtype=np.float32).reshape(3, 4))
    run = ["run", str(path), "-q", *flags, "--input", f"x={tmp_path / 'x.npy'}"]
    assert main([*run, "--compare", "onnxruntime", "--rtol", "0", "--atol", "0"]) == 0
    assert "z: matches onnxruntime" in capsys.readouterr().out


def test_probing_stops_at_an_error_the_sizes_do_not_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An error that binding the sizes does not change is not the sizes':
    one probe, then "cannot"."""
    import onnxc.api
    from onnxc.tools.check import check

    calls: list[dict[str, int]] = []

    def refuse(model: object, options: onnxc.options.CompileOptions, **_: object) -> None:
        calls.append(dict(options.dims))
        raise onnxc.OnnxcError("node 'add' (Add): an attribute value not supported")

    monkeypatch.setattr(onnxc.api, "generate_with", refuse)
    checked = check(_free_model())
    assert checked.compiles_with is None and [g.node for g in checked.gaps] == ["add"]
    assert calls == [{}, {"N": 1, "seq": 1, "ids_dim1": 1}]  # one probe


def test_long_node_names_are_shortened_in_the_table() -> None:
    """A 350-character node name takes `NAME_WIDTH` characters of the text
    table, its start and its end kept."""
    from onnxc.tools.check import Gap, format_gaps
    from onnxc.tools.short_names import NAME_WIDTH

    scopes = "/".join(f"block_{k}" for k in range(40))
    name = f"StatefulPartitionedCall/model/{scopes}"[: 350 - 12] + "/conv/Conv2D"
    assert len(name) == 350
    lines = format_gaps([Gap("ai.onnx", "Conv", 11, name, "why"), Gap("", "(model)", None, "", "")])
    node = lines[1].split()[3]
    assert len(node) == NAME_WIDTH
    assert node == name[:22] + "..." + name[-23:]
    assert max(len(line) for line in lines) < 100
