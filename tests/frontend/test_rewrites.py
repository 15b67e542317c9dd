"""Each front-end rewrite of `REWRITES`, alone: a small model that needs it,
the proto right after it (`prepare_model(on_rewrite=...)`), what it changed;
and the runner's `skip` and the command line's `--emit REWRITE`."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

from onnxc.dialects.onnx import TARGET_OPSET
from onnxc.errors import OnnxcError
from onnxc.frontend import REWRITE_NAMES, prepare_model
from onnxc.frontend.rewrites.weights import DETACHED_BYTES

value = h.make_tensor_value_info


def _model(
    nodes, inputs, outputs, initializers=(), opset=TARGET_OPSET, **kwargs
) -> onnx.ModelProto:
    graph = h.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    return h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], **kwargs)


def after(
    rewrite: str, model: onnx.ModelProto, **options
) -> tuple[onnx.ModelProto, onnx.ModelProto]:
    """The proto just before `rewrite` first changed something, and just after."""
    seen: list[onnx.ModelProto] = []
    found: list[tuple[onnx.ModelProto, onnx.ModelProto]] = []

    def hook(name: str, proto: onnx.ModelProto) -> None:
        copy = onnx.ModelProto.FromString(proto.SerializeToString())
        if name == rewrite and not found:
            before = seen[-1] if seen else model
            if before.SerializeToString() != copy.SerializeToString():
                found.append((before, copy))
        seen.append(copy)

    prepare_model(model, on_rewrite=hook, **options)
    assert found, f"{rewrite} changed nothing"
    return found[0]


def _ops(model: onnx.ModelProto) -> list[str]:
    return [n.op_type for n in model.graph.node]


def _dims(model: onnx.ModelProto, name: str) -> list[int | str]:
    graph = model.graph
    (found,) = [v for v in [*graph.input, *graph.value_info, *graph.output] if v.name == name]
    return [d.dim_param or d.dim_value for d in found.type.tensor_type.shape.dim]


RELU = _model(
    [h.make_node("Relu", ["x"], ["y"])], [value("x", T.FLOAT, [2])], [value("y", T.FLOAT, [2])]
)


def test_claim_onnxruntime_names() -> None:
    rms = _model(
        [h.make_node("SimplifiedLayerNormalization", ["x", "s"], ["y"])],
        [value("x", T.FLOAT, [2, 4])],
        [value("y", T.FLOAT, [2, 4])],
        [numpy_helper.from_array(np.ones(4, np.float32), "s")],
        opset=17,
    )
    before, claimed = after("claim-onnxruntime-names", rms)
    assert before.graph.node[0].domain == ""
    assert claimed.graph.node[0].domain == "ai.onnxc.onnxruntime"
    assert _ops(prepare_model(rms).model) == ["RMSNormalization"]


def test_check_model() -> None:
    broken = onnx.ModelProto.FromString(RELU.SerializeToString())
    broken.graph.node[0].input[0] = "nowhere"
    with pytest.raises(OnnxcError, match="invalid model"):
        prepare_model(broken)
    foreign = onnx.ModelProto.FromString(RELU.SerializeToString())
    foreign.graph.node[0].domain = "com.example"
    foreign.opset_import.append(h.make_opsetid("com.example", 1))
    with pytest.raises(OnnxcError, match="domain 'com.example' is not supported"):
        prepare_model(foreign)
    assert prepare_model(foreign, foreign=True).model.graph.node[0].domain == "com.example"


def test_inline_functions() -> None:
    square = onnx.helper.make_function(
        "local",
        "Square",
        ["a"],
        ["b"],
        [h.make_node("Mul", ["a", "a"], ["b"])],
        [h.make_opsetid("", TARGET_OPSET)],
    )
    model = _model(
        [h.make_node("Square", ["x"], ["y"], domain="local")],
        [value("x", T.FLOAT, [2])],
        [value("y", T.FLOAT, [2])],
        functions=[square],
    )
    model.opset_import.append(h.make_opsetid("local", 1))
    before, inlined = after("inline-functions", model)
    assert _ops(before) == ["Square"] and _ops(inlined) == ["Mul"] and not inlined.functions


def test_detach_and_attach_weights() -> None:
    w = np.arange(512, dtype=np.float32).reshape(2, 256)  # 2 KiB: detached
    model = _model(
        [h.make_node("MatMul", ["x", "w"], ["y"])],
        [value("x", T.FLOAT, [1, 2])],
        [value("y", T.FLOAT, [1, 256])],
        [numpy_helper.from_array(w, "w")],
    )
    assert w.nbytes > DETACHED_BYTES
    _, detached = after("detach-weights", model)
    assert detached.graph.initializer[0].raw_data == b""
    _, attached = after("attach-weights", model)
    np.testing.assert_array_equal(numpy_helper.to_array(attached.graph.initializer[0]), w)


def test_prelu_channel_slopes() -> None:
    model = _model(
        [h.make_node("PRelu", ["x", "slope"], ["y"])],
        [value("x", T.FLOAT, [1, 3, 4, 4])],
        [value("y", T.FLOAT, [1, 3, 4, 4])],
        [numpy_helper.from_array(np.array([0.1, 0.2, 0.3], np.float32), "slope")],
        opset=6,
    )
    _, rewritten = after("prelu-channel-slopes", model)
    assert _ops(rewritten) == ["Unsqueeze", "PRelu"]


def _scan8() -> onnx.ModelProto:
    body = h.make_graph(
        [h.make_node("Add", ["s", "row"], ["s_out"]), h.make_node("Identity", ["s_out"], ["o"])],
        "body",
        [value("s", T.FLOAT, [2]), value("row", T.FLOAT, [2])],
        [value("s_out", T.FLOAT, [2]), value("o", T.FLOAT, [2])],
    )
    scan = h.make_node("Scan", ["", "s0", "x"], ["s", "o"], body=body, num_scan_inputs=1)
    return _model(
        [scan],
        [value("s0", T.FLOAT, [1, 2]), value("x", T.FLOAT, [1, 3, 2])],
        [value("s", T.FLOAT, [1, 2]), value("o", T.FLOAT, [1, 3, 2])],
        opset=8,
    )


def test_unbatch_and_restore_scans() -> None:
    _, unbatched = after("unbatch-scans", _scan8())
    assert _ops(unbatched).count("Scan") == 1 and len(_ops(unbatched)) > 1  # per batch element
    _, restored = after("restore-scans", _scan8())
    assert "Scan" in _ops(restored)


def test_upgrade_opset() -> None:
    old = _model(
        [h.make_node("Relu", ["x"], ["y"])],
        [value("x", T.FLOAT, [2])],
        [value("y", T.FLOAT, [2])],
        opset=11,
    )
    before, upgraded = after("upgrade-opset", old)
    assert before.opset_import[0].version == 11
    assert upgraded.opset_import[0].version == onnx.defs.onnx_opset_version() or (
        upgraded.opset_import[0].version > 11
    )
    newer = _model([], [value("x", T.FLOAT, [2])], [value("x", T.FLOAT, [2])], opset=99)
    newer.ir_version = onnx.IR_VERSION
    with pytest.raises(OnnxcError, match="opset 99"):
        prepare_model(newer)


def test_expand_operators() -> None:
    gelu = h.make_node("Gelu", ["x"], ["g"], domain="com.microsoft")
    body = h.make_graph(
        [h.make_node("Gelu", ["g"], ["b"], domain="com.microsoft")],
        "body",
        [],
        [value("b", T.FLOAT, [2])],
    )
    branch = h.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)
    model = _model(
        [gelu, branch],
        [value("x", T.FLOAT, [2]), value("c", T.BOOL, [])],
        [value("y", T.FLOAT, [2])],
    )
    model.opset_import.append(h.make_opsetid("com.microsoft", 1))
    before, expanded = after("expand-operators", model)
    assert _ops(before) == ["Gelu", "If"] and before.graph.node[0].domain == "com.microsoft"
    assert [(n.domain, n.op_type) for n in expanded.graph.node] == [("", "Gelu"), ("", "If")]
    (inner,) = expanded.graph.node[1].attribute[0].g.node
    assert (inner.domain, inner.op_type, list(inner.output)) == ("", "Gelu", ["b"])
    unknown = onnx.ModelProto.FromString(model.SerializeToString())
    unknown.graph.node[0].op_type = "NoSuchOp"
    with pytest.raises(OnnxcError, match=r"operator com\.microsoft\.NoSuchOp is not supported"):
        prepare_model(unknown)


def test_bind_dimensions() -> None:
    model = _model(
        [h.make_node("Relu", ["x"], ["y"])],
        [value("x", T.FLOAT, ["N", None])],
        [value("y", T.FLOAT, ["N", None])],
    )
    _, bound = after("bind-dimensions", model, dims={"N": 3})
    assert _dims(bound, "x") == [3, "x_dim1"]
    assert prepare_model(model).free == ["N", "x_dim1"]


def test_resolve_containers() -> None:
    model = _model(
        [
            h.make_node("SequenceConstruct", ["a", "b"], ["s"]),
            h.make_node("SequenceAt", ["s", "one"], ["y"]),
        ],
        [value("a", T.FLOAT, [2]), value("b", T.FLOAT, [3])],
        [value("y", T.FLOAT, [3])],
        [numpy_helper.from_array(np.array(1, np.int64), "one")],
    )
    _, resolved = after("resolve-containers", model)
    assert not {"SequenceConstruct", "SequenceAt"} & set(_ops(resolved))


def test_infer_shapes() -> None:
    model = _model(
        [h.make_node("Relu", ["x"], ["t"]), h.make_node("Neg", ["t"], ["y"])],
        [value("x", T.FLOAT, [2, 5])],
        [value("y", T.FLOAT, [None, None])],
    )
    _, inferred = after("infer-shapes", model)
    assert _dims(inferred, "t") == [2, 5] and _dims(inferred, "y") == [2, 5]


def test_ml_output_types() -> None:
    graph = h.make_graph(
        [h.make_node("Binarizer", ["x"], ["y"], domain="ai.onnx.ml", threshold=0.5)],
        "g",
        [value("x", T.FLOAT, [3, 4])],
        [value("y", T.FLOAT, [None, None])],
    )
    model = h.make_model(
        graph, opset_imports=[h.make_opsetid("", 18), h.make_opsetid("ai.onnx.ml", 3)]
    )
    prepared = prepare_model(model).model
    assert _dims(prepared, "y") == [3, 4]


def _shape_arithmetic() -> onnx.ModelProto:
    """Squeeze by axes cast from a float constant, which inference does not
    read: its result's rank is known only once the Cast is folded."""
    return _model(
        [
            h.make_node("Cast", ["axes_f"], ["axes"], to=T.INT64),
            h.make_node("Squeeze", ["x", "axes"], ["r"]),
            h.make_node("Relu", ["r"], ["y"]),
        ],
        [value("x", T.FLOAT, [1, 6])],
        [value("y", T.FLOAT, [None])],
        [numpy_helper.from_array(np.array([0], np.float32), "axes_f")],
    )


def test_fold_constant_nodes() -> None:
    before, folded = after("fold-constant-nodes", _shape_arithmetic())
    assert _ops(before) == ["Cast", "Squeeze", "Relu"] and _ops(folded) == ["Squeeze", "Relu"]
    assert "axes" in {t.name for t in folded.graph.initializer}


def test_inline_constant_branches() -> None:
    branch = lambda name, op: h.make_graph(  # noqa: E731
        [h.make_node(op, ["x"], [name])], name, [], [value(name, T.FLOAT, [2])]
    )
    model = _model(
        [
            h.make_node(
                "If", ["yes"], ["y"], then_branch=branch("t", "Neg"), else_branch=branch("e", "Abs")
            )
        ],
        [value("x", T.FLOAT, [2])],
        [value("y", T.FLOAT, [2])],
        [numpy_helper.from_array(np.array(True), "yes")],
    )
    _, inlined = after("inline-constant-branches", model)
    assert _ops(inlined) == ["Neg", "Identity"]


def test_reduction_ranks() -> None:
    model = _model(
        [
            h.make_node("ReduceSum", ["x", "axes"], ["r"], keepdims=0),
            h.make_node("Relu", ["r"], ["y"]),
        ],
        [value("x", T.FLOAT, [2, 3, 4]), value("axes", T.INT64, [1])],
        [value("y", T.FLOAT, [None, None])],
    )
    _, ranked = after("reduction-ranks", model)
    assert len(_dims(ranked, "r")) == 2


def test_reduction_ranks_of_a_squeeze_its_consumer_decides() -> None:
    """A Squeeze without axes of [N, 1, 3] keeps N when a Split along axis 1
    reads it (N = 1 could not run the model); along axis 0 it stays unknown."""
    split = h.make_node("Split", ["s"], ["a", "b", "c"], axis=1, num_outputs=3)
    model = _model(
        [h.make_node("Squeeze", ["x"], ["s"]), split],
        [value("x", T.FLOAT, ["N", 1, 3])],
        [value(name, T.FLOAT, ["N", 1]) for name in "abc"],
    )
    _, ranked = after("reduction-ranks", model)
    assert _dims(ranked, "s") == ["N", 3]
    model.graph.node[1].attribute[0].i = 0  # along axis 0, which any rank has
    inferred = prepare_model(model).model.graph
    (squeezed,) = [v.type.tensor_type for v in inferred.value_info if v.name == "s"]
    assert not squeezed.HasField("shape")


def _loop(body_nodes, body_outputs, initial) -> onnx.ModelProto:
    body = h.make_graph(
        body_nodes,
        "body",
        [value("i", T.INT64, None), value("c", T.BOOL, None), value("v", T.FLOAT, None)],
        [value("c_out", T.BOOL, None), *body_outputs],
    )
    return _model(
        [h.make_node("Loop", ["n", "", "v0"], ["y"], body=body)],
        [value("n", T.INT64, []), value("v0", T.FLOAT, initial)],
        [value("y", T.FLOAT, [None] * len(initial))],
        [numpy_helper.from_array(np.array([0], np.int64), "axes")],
    )


def test_sink_into_branches() -> None:
    flat = h.make_tensor("flat", T.INT64, [1], [6])
    branches = {
        "then_branch": h.make_graph(
            [h.make_node("Identity", ["x"], ["a"])], "t", [], [value("a", T.FLOAT, [2, 3])]
        ),
        "else_branch": h.make_graph(
            [h.make_node("Reshape", ["x", "flat"], ["b"])], "e", [], [value("b", T.FLOAT, [6])]
        ),
    }
    model = _model(
        [
            h.make_node("If", ["c"], ["y"], **branches),  # type: ignore[arg-type]
            h.make_node("ReduceSum", ["y"], ["z"], keepdims=0),
        ],
        [value("x", T.FLOAT, [2, 3]), value("c", T.BOOL, [])],
        [value("z", T.FLOAT, [])],
        [flat],
    )
    before, moved = after("sink-into-branches", model)
    assert _ops(before) == ["If", "ReduceSum"] and _ops(moved) == ["If"]
    assert list(moved.graph.node[0].output) == ["z"]
    for attribute in moved.graph.node[0].attribute:
        assert [n.op_type for n in attribute.g.node][-1] == "ReduceSum"
    shared = onnx.ModelProto.FromString(model.SerializeToString())
    shared.graph.node.append(h.make_node("Size", ["y"], ["r"]))
    shared.graph.output.append(value("r", T.INT64, []))
    with pytest.raises(
        OnnxcError, match="'y' has rank 2 in then_branch and 1 in else_branch; its consumers"
    ):
        prepare_model(shared)


def test_sink_into_branches_lifts_a_rank_only_broadcast() -> None:
    """A result of rank 0 and 1 read only by a Mul with a vector and a
    CastLike's type: the scalar branch gains a leading axis, nothing moves."""
    branches = {
        "then_branch": h.make_graph(
            [h.make_node("Identity", ["s"], ["a"])], "t", [], [value("a", T.FLOAT, [])]
        ),
        "else_branch": h.make_graph(
            [h.make_node("Identity", ["v"], ["b"])], "e", [], [value("b", T.FLOAT, [1])]
        ),
    }
    model = _model(
        [
            h.make_node("If", ["c"], ["y"], **branches),  # type: ignore[arg-type]
            h.make_node("CastLike", ["x", "y"], ["xf"]),
            h.make_node("Mul", ["xf", "y"], ["z"]),
        ],
        [value("x", T.INT64, [4]), value("c", T.BOOL, []), value("s", T.FLOAT, [])]
        + [value("v", T.FLOAT, [1])],
        [value("z", T.FLOAT, [4])],
    )
    _, lifted = after("sink-into-branches", model)
    assert _ops(lifted) == ["If", "CastLike", "Mul"]
    branch = {a.name: [n.op_type for n in a.g.node] for a in lifted.graph.node[0].attribute}
    assert branch == {
        "then_branch": ["Identity", "Constant", "Unsqueeze"],
        "else_branch": ["Identity"],
    }


def test_body_input_types() -> None:
    model = _loop(
        [h.make_node("Identity", ["c"], ["c_out"]), h.make_node("Neg", ["v"], ["v_out"])],
        [value("v_out", T.FLOAT, None)],
        [1, 4],
    )
    _, typed = after("body-input-types", model)
    body = typed.graph.node[0].attribute[0].g
    (v,) = [i for i in body.input if i.name == "v"]
    assert [d.dim_value for d in v.type.tensor_type.shape.dim] == [1, 4]


def test_outer_constants() -> None:
    model = _loop(
        [
            h.make_node("Identity", ["c"], ["c_out"]),
            h.make_node("Squeeze", ["v", "axes"], ["s"]),
            h.make_node("Unsqueeze", ["s", "axes"], ["v_out"]),
        ],
        [value("v_out", T.FLOAT, None)],
        [1, 4],
    )
    _, copied = after("outer-constants", model)
    body = copied.graph.node[0].attribute[0].g
    assert "Constant" in [n.op_type for n in body.node] or any(
        t.name.startswith("axes") for t in body.initializer
    )


def test_every_rewrite_has_a_test_here() -> None:
    tested = {name.removeprefix("test_").replace("_", "-") for name in globals()}
    pairs = {
        "detach-and-attach-weights": ("detach-weights", "attach-weights"),
        "unbatch-and-restore-scans": ("unbatch-scans", "restore-scans"),
    }
    for name, covered in pairs.items():
        if name in tested:
            tested |= set(covered)
    assert set(REWRITE_NAMES) - tested == set()


def test_skip() -> None:
    with pytest.raises(OnnxcError, match="no front-end rewrite named 'nope'"):
        prepare_model(RELU, skip=["nope"])
    kept = prepare_model(_shape_arithmetic(), skip=["fold-constant-nodes"]).model
    assert "Cast" in _ops(kept)


def test_emit_a_rewrite(tmp_path) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_shape_arithmetic(), path)
    run: Callable[..., subprocess.CompletedProcess[str]] = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "onnxc", "compile", str(path), *args],
        capture_output=True,
        text=True,
    )
    shown = run("--emit", "fold-constant-nodes")
    assert shown.returncode == 0, shown.stderr
    assert "Squeeze" in shown.stdout and "Cast" not in shown.stdout
    skipped = run("--emit", "infer-shapes", "--skip-rewrite", "fold-constant-nodes")
    assert skipped.returncode == 0 and "Cast" in skipped.stdout
    assert (
        "needs --emit" in run("-o", str(tmp_path / "out"), "--skip-rewrite", "infer-shapes").stderr
    )


def test_an_input_that_is_an_output_keeps_its_type() -> None:
    """A graph input that is also an output, the output declared with unknown
    sizes: the version converter gave the input the output's type, and the
    importer typed the value from the output (found by the random-graph
    tests as an internal error)."""
    import onnxc

    for opset in (18, TARGET_OPSET):
        model = _model(
            [h.make_node("Relu", ["x"], ["y"])],
            [value("x", T.FLOAT, [2, 3])],
            [value("y", T.FLOAT, [None, None]), value("x", T.FLOAT, [None, None])],
            opset=opset,
        )
        assert prepare_model(model).free == []
        x = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
        got = onnxc.compile(model).run({"x": x})
        np.testing.assert_array_equal(got["x"], x)
        np.testing.assert_array_equal(got["y"], np.maximum(x, 0))
