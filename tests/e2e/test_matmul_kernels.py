"""The matrix-product kernel (`kernel.matmul`, chosen by `select-kernels` on
the host targets) against onnxruntime, rtol 1e-5, atol 1e-6: MatMul by a
constant B (packed) and by a B computed at run time (row-major, batched or
shared), Gemm, row and column counts that fill no whole register block, the
fused epilogues (bias, residual Add, Relu, Clip) and a static transformer
encoder layer. Each case also checks that the kernels were chosen, so that
a silent fallback to the plain loops cannot pass for them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnxc
from onnxc.dialects import kernel
from onnxc.frontend import import_model
from onnxc.pipeline import lower

ort = pytest.importorskip("onnxruntime")


def _model(nodes, weights, inputs, output_shape) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "products",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape)],
        initializer=[numpy_helper.from_array(w, n) for n, w in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    return onnx.shape_inference.infer_shapes(model)


def _weights(rng, shape) -> np.ndarray:
    return (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)


def _dense(a_shape, columns, *, bias=True, residual=False, activation="Relu") -> onnx.ModelProto:
    """MatMul by a constant [K, N], then Add(bias), Add(residual x), and an
    activation, each when asked."""
    rng = np.random.default_rng(sum(a_shape) * 100 + columns)
    weights = {"w": _weights(rng, (a_shape[-1], columns))}
    nodes = [helper.make_node("MatMul", ["x", "w"], ["t0"], name="matmul")]
    last = "t0"
    if bias:
        weights["bias"] = rng.standard_normal(columns).astype(np.float32)
        nodes.append(helper.make_node("Add", [last, "bias"], ["t1"], name="bias"))
        last = "t1"
    if residual:  # x + t (the residual first, as a PyTorch export writes it)
        nodes.append(helper.make_node("Add", ["x", last], ["t2"], name="residual"))
        last = "t2"
    if activation == "Clip":
        weights["lo"], weights["hi"] = np.array(-0.5, np.float32), np.array(0.5, np.float32)
        nodes.append(helper.make_node("Clip", [last, "lo", "hi"], ["y"], name="clip"))
    else:
        nodes.append(helper.make_node(activation, [last], ["y"], name="act"))
    output = [*a_shape[:-1], columns]
    return _model(nodes, weights, {"x": list(a_shape)}, output)


def _gemm(rows, depth, columns, trans_b) -> onnx.ModelProto:
    rng = np.random.default_rng(rows + depth + columns)
    w = _weights(rng, (depth, columns))
    weights = {"w": w.T.copy() if trans_b else w, "c": rng.standard_normal(columns, np.float32)}
    nodes = [helper.make_node("Gemm", ["x", "w", "c"], ["y"], transB=trans_b, name="gemm")]
    return _model(nodes, weights, {"x": [rows, depth]}, [rows, columns])


def _both_inputs(a_shape, b_shape) -> onnx.ModelProto:
    output = [*a_shape[:-1], *b_shape[1:][-1:]]
    nodes = [helper.make_node("MatMul", ["x", "z"], ["y"], name="matmul")]
    return _model(nodes, {}, {"x": list(a_shape), "z": list(b_shape)}, output)


PRODUCTS = {
    # 13 rows: one block of 8 and 5 more; 37 columns: two blocks of 16 and 5
    "remainders_bias_relu": lambda: _dense([13, 40], 37),
    "batched_residual": lambda: _dense([2, 5, 24], 24, residual=True, activation="Identity"),
    "no_bias_clip": lambda: _dense([1, 9, 16], 50, bias=False, activation="Clip"),
    "one_row": lambda: _dense([1, 70], 20, activation="Identity"),
    "gemm": lambda: _gemm(11, 30, 40, 0),
    "gemm_transposed": lambda: _gemm(9, 17, 33, 1),
    "run_time_b_batched": lambda: _both_inputs([2, 3, 9, 20], [2, 3, 20, 19]),
    "run_time_b_shared": lambda: _both_inputs([3, 7, 8], [8, 21]),
}


def _matmuls(model: onnx.ModelProto) -> list[kernel.MatmulOp]:
    module = lower(import_model(model).module, "kernels", target="host")
    return [op for op in module.walk() if isinstance(op, kernel.MatmulOp)]


def _compare(model: onnx.ModelProto, target: str = "host") -> None:
    rng = np.random.default_rng(1)
    feeds = {
        i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(
            np.float32
        )
        for i in model.graph.input
    }
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (want,) = session.run(["y"], feeds)
    got = onnxc.compile(model, target=target).run(feeds)["y"]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", list(PRODUCTS))
def test_product(name: str) -> None:
    model = PRODUCTS[name]()
    assert len(_matmuls(model)) == 1
    _compare(model)


def _attention(seq: int, heads: int, depth: int) -> onnx.ModelProto:
    """Softmax(Q K) V with the heads split from [1, seq, heads, depth] and
    merged back by Transposes (K given as [1, heads, depth, seq])."""
    split = [0, 2, 1, 3]
    nodes = [
        helper.make_node("Transpose", ["x"], ["qt"], perm=split),
        helper.make_node("MatMul", ["qt", "k"], ["s"]),
        helper.make_node("Softmax", ["s"], ["p"], axis=-1),
        helper.make_node("Transpose", ["v"], ["vt"], perm=split),
        helper.make_node("MatMul", ["p", "vt"], ["o"]),
        helper.make_node("Transpose", ["o"], ["y"], perm=split),
    ]
    inputs = {"x": [1, seq, heads, depth], "k": [1, heads, depth, seq], "v": [1, seq, heads, depth]}
    return _model(nodes, {}, inputs, [1, seq, heads, depth])


def test_attention_transposes_are_folded() -> None:
    """The head split of Q and V and the merge of the result are read and
    written through the kernels' indexing: no Transpose is left."""
    model = _attention(11, 3, 20)
    matmuls = _matmuls(model)
    assert [(m.attr("a_perm"), m.attr("b_perm"), m.attr("y_perm")) for m in matmuls] == [
        ([0, 2, 1, 3], None, None),
        (None, [0, 2, 1, 3], [0, 2, 1, 3]),
    ]
    module = lower(import_model(model).module, "kernels", target="host")
    assert "onnx.Transpose" not in [op.name for op in module.walk()]
    _compare(model)


def test_epilogues_are_fused_in_order() -> None:
    """MatMul, Add(bias), Add(residual), Relu: one kernel, the bias added
    after the sum (the plain lowering's order), nothing left of the Adds."""
    model = _dense([2, 5, 24], 24, residual=True)
    module = lower(import_model(model).module, "kernels", target="host")
    (matmul,) = [op for op in module.walk() if isinstance(op, kernel.MatmulOp)]
    assert matmul.attr("packed") == 1 and matmul.attr("bias_first") == 0
    assert matmul.attr("activation") == "Relu"
    names = [op.name for op in module.walk()]
    assert "onnx.Add" not in names and "onnx.Relu" not in names


def test_portable_target_and_plain_leftovers() -> None:
    """host-portable takes the kernel too (4 rows per block); a Gemm with
    alpha != 1 and a product by a vector stay with the plain lowering."""
    model = _dense([13, 40], 37)
    _compare(model, "host-portable")
    gemm = _gemm(11, 30, 40, 0)
    gemm.graph.node[0].attribute.append(helper.make_attribute("alpha", 0.5))
    assert _matmuls(gemm) == []
    _compare(gemm)
    assert _matmuls(_both_inputs([4, 6], [6])) == []


def test_static_encoder_layer(tmp_path: Path) -> None:
    """The encoder layer of the transformer tests at one static size: every
    product is a kernel (four projections, two attention products, two
    feed-forward layers)."""
    pytest.importorskip("torch")
    from tests.models import build, export

    model, example = build("EncoderLayer")
    path = export(model, example, tmp_path / "encoder.onnx", dynamo=False)
    proto = onnx.load(path)
    assert len(_matmuls(proto)) == 8
    x = example.numpy()
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"input": x})
    (got,) = onnxc.compile(path)(x)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def _products_then_transposes(rank: int, constant_b: bool) -> onnx.ModelProto:
    """One MatMul -> Transpose chain per permutation of `rank` axes, each
    chain an output (`y0`, `y1`, ...): the permutations that keep the last
    axis are folded into the kernel's store (`y_perm`), the others stay a
    Transpose after it."""
    import itertools

    rng = np.random.default_rng(rank)
    a_shape = [2, 3, 5, 6][-rank:]
    b_shape = [6, 7] if constant_b else [*a_shape[:-2], 6, 7]
    weights = {"w": rng.standard_normal(b_shape).astype(np.float32)} if constant_b else {}
    b = "w" if constant_b else "z"
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, a_shape)]
    if not constant_b:
        inputs.append(helper.make_tensor_value_info("z", TensorProto.FLOAT, b_shape))
    nodes, outputs = [], []
    product_shape = [*a_shape[:-1], 7]
    for i, perm in enumerate(itertools.permutations(range(rank))):
        nodes.append(helper.make_node("MatMul", ["x", b], [f"p{i}"]))
        nodes.append(helper.make_node("Transpose", [f"p{i}"], [f"y{i}"], perm=list(perm)))
        out_shape = [product_shape[p] for p in perm]
        outputs.append(helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, out_shape))
    graph = helper.make_graph(
        nodes,
        "transposed_products",
        inputs,
        outputs,
        initializer=[numpy_helper.from_array(w, n) for n, w in weights.items()],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def _compare_all(model: onnx.ModelProto, target: str) -> None:
    rng = np.random.default_rng(2)
    feeds = {
        i.name: rng.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(
            np.float32
        )
        for i in model.graph.input
    }
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in model.graph.output]
    got = onnxc.compile(model, target=target).run(feeds)
    for name, want in zip(names, session.run(names, feeds), strict=True):
        np.testing.assert_allclose(got[name], want, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("target", ["host", "host-portable"])
@pytest.mark.parametrize("b", ["run_time_b", "constant_b"])
@pytest.mark.parametrize("rank", [3, 4])
def test_every_transpose_after_a_product(rank: int, b: str, target: str) -> None:
    """Every permutation of the product's axes, those that rotate the batch
    axes with the rows among them (the attention merge of torch's
    MultiheadAttention, `(2, 0, 1, 3)` and `(1, 2, 0, 3)`), written through the
    kernel's store or after it: each equal to onnxruntime's."""
    model = _products_then_transposes(rank, b == "constant_b")
    folded = [m.attr("y_perm") for m in _matmuls(model) if m.attr("y_perm")]
    if b == "run_time_b":  # every permutation keeping the last axis
        assert len(folded) == (2 if rank == 3 else 6)
    _compare_all(model, target)


def _transposes_then_products(rank: int) -> onnx.ModelProto:
    """For every permutation of rank `rank`: a Transpose by it producing A of
    a MatMul with a run-time B, and one producing B (the head split of
    attention, folded into the kernel's reads as `a_perm` and `b_perm`)."""
    import itertools

    a_shape = [2, 3, 5, 6][-rank:]
    b_shape = [*a_shape[:-2], 6, 7]
    nodes, inputs, outputs = [], [], []
    for i, perm in enumerate(itertools.permutations(range(rank))):
        inverse = list(np.argsort(perm))
        for side, shape in (("a", a_shape), ("b", b_shape)):
            source = f"{side}{i}"  # transposed by perm, it is `shape`
            inputs.append(
                helper.make_tensor_value_info(
                    source, TensorProto.FLOAT, [shape[k] for k in inverse]
                )
            )
            nodes.append(helper.make_node("Transpose", [source], [f"t{side}{i}"], perm=list(perm)))
        other = {"a": f"b_plain{i}", "b": f"a_plain{i}"}
        inputs.append(helper.make_tensor_value_info(other["a"], TensorProto.FLOAT, b_shape))
        inputs.append(helper.make_tensor_value_info(other["b"], TensorProto.FLOAT, a_shape))
        nodes.append(helper.make_node("MatMul", [f"ta{i}", other["a"]], [f"ya{i}"]))
        nodes.append(helper.make_node("MatMul", [other["b"], f"tb{i}"], [f"yb{i}"]))
        out_shape = [*a_shape[:-1], 7]
        for side in "ab":
            outputs.append(
                helper.make_tensor_value_info(f"y{side}{i}", TensorProto.FLOAT, out_shape)
            )
    graph = helper.make_graph(nodes, "transposed_operands", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


@pytest.mark.parametrize("target", ["host", "host-portable"])
@pytest.mark.parametrize("rank", [3, 4])
def test_every_transpose_before_a_product(rank: int, target: str) -> None:
    """Every permutation producing A or B, those that keep the last axis last
    read through the kernel's `a_perm` / `b_perm`, the others copied: each
    product equal to onnxruntime's."""
    model = _transposes_then_products(rank)
    matmuls = _matmuls(model)
    folded = [m for m in matmuls if m.attr("a_perm") or m.attr("b_perm")]
    assert len(folded) == 2 * (2 if rank == 3 else 6)
    _compare_all(model, target)


@pytest.mark.parametrize("perm", [[2, 0, 1, 3], [1, 2, 0, 3], [0, 2, 1, 3]])
def test_attention_merge_then_gemm(perm: list[int]) -> None:
    """Attention's output merge as exporters write it: the batched product of
    the probabilities and V, a Transpose of its axes, a Reshape to rows, and
    the output projection's Gemm."""
    rng = np.random.default_rng(3)
    shape = [2, 4, 8, 16]  # batch, heads, seq, depth
    merged = [shape[p] for p in perm]
    rows, width = merged[0] * merged[1], merged[2] * merged[3]
    weights = {
        "rows": np.array([rows, width], np.int64),
        "w": (rng.standard_normal((width, 24)) / 8).astype(np.float32),
        "c": rng.standard_normal(24).astype(np.float32),
    }
    nodes = [
        helper.make_node("MatMul", ["p", "v"], ["o"]),
        helper.make_node("Transpose", ["o"], ["t"], perm=perm),
        helper.make_node("Reshape", ["t", "rows"], ["r"]),
        helper.make_node("Gemm", ["r", "w", "c"], ["y"]),
    ]
    model = _model(nodes, weights, {"p": [*shape[:3], 8], "v": [*shape[:2], 8, 16]}, [rows, 24])
    assert len(_matmuls(model)) == 2
    for target in ("host", "host-portable"):
        _compare(model, target)


# The legacy exporter cannot export a batch-first layer in eval mode (torch
# takes its fused fast path, which has no ONNX form).
@pytest.mark.parametrize(("dynamo", "batch_first"), [(False, False), (True, False), (True, True)])
def test_torch_transformer_encoder_layer_static(
    tmp_path: Path, dynamo: bool, batch_first: bool
) -> None:
    """`torch.nn.TransformerEncoderLayer` exported at static sizes, where every
    product is a kernel: its attention output is MatMul -> Transpose rotating
    the batch and head axes with the rows (batch_first=False) or swapping the
    heads and rows (batch_first=True), then Reshape and the output Gemm."""
    torch = pytest.importorskip("torch")
    from tests.models import export

    class Layer(torch.nn.Module):  # forward(x) only: the exporters trace no mask arguments
        def __init__(self) -> None:
            super().__init__()
            self.layer = torch.nn.TransformerEncoderLayer(
                d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=batch_first
            )

        def forward(self, x):
            return self.layer(x)

    torch.manual_seed(0)
    example = torch.randn(5, 2, 32)
    path = export(Layer(), example, tmp_path / "layer.onnx", dynamo=dynamo)
    assert _matmuls(onnx.load(path))
    x = example.numpy()
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (want,) = session.run(None, {"input": x})
    for target in ("host", "host-portable"):
        (got,) = onnxc.compile(path, target=target)(x)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
