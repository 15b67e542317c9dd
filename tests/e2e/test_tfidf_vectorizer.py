"""TfIdfVectorizer on integer tokens matches onnxruntime (and onnx.reference
in TF mode, see the test) over the combinations its lowering depends on: X
of rank 1 and 2, int32 and int64, each mode with and without weights, gram
lengths (unigrams only, bigrams only, one to three), skip counts (0, 1, 2),
two n-grams sharing a column, a value int32 cannot hold, and run-time sizes.
One model holds a node per combination. Outputs must be equal: counts are
small integers, and weights are added per match in onnxruntime's order.
String tokens (pool_strings) match onnxruntime over every mode, with
non-ASCII n-grams whose byte order differs from their code point order.
Pools onnxc does not compile or that onnxruntime refuses are a one-line
error."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onnxc
from onnxc.errors import UnsupportedError

ort = pytest.importorskip("onnxruntime")

SHAPES = {"rank1": [12], "rank2": [3, 9]}
TYPES = {"int32": (TensorProto.INT32, np.int32), "int64": (TensorProto.INT64, np.int64)}
LENGTHS = [(1, 1), (2, 2), (1, 3), (2, 3)]
SKIPS = (0, 1, 2)

# unigrams, bigrams, trigrams; one bigram with 2**40
POOL = [1, 2, 3, 4, 0, 2, 3, 3, 1, 5, 5, 2**40, 2, 1, 2, 3, 1, 2, 5, 5, 5, 5]
COUNTS = [0, 5, 13]
INDEXES = [0, 1, 2, 3, 6, 4, 5, 7, 8, 7, 9, 10, 11]
COLUMNS = max(INDEXES) + 1
WEIGHTS = [0.5, 1.25, 2.0, 0.1, 3.0, 0.3, 1.0, 0.7, 2.5, 0.9, 1.5, 0.2, 4.0]
"""One per pool n-gram (onnxruntime asks for one per entry of ngram_indexes)."""

WEIGHTINGS = [("TF", False), ("IDF", False), ("IDF", True), ("TFIDF", False), ("TFIDF", True)]
Case = tuple[str, str, tuple[str, bool], tuple[int, int], int]
CASES: list[Case] = sorted(
    {
        *itertools.product(SHAPES, TYPES, WEIGHTINGS, [(1, 3)], [1]),
        *itertools.product(SHAPES, ["int64"], [("TF", False)], LENGTHS, SKIPS),
    }
)
"""(shape, dtype, (mode, weighted), lengths, skip): every weighting on each
input, every gram length and skip count on int64 in TF mode."""


def _inputs() -> dict[str, np.ndarray]:
    """Random tokens in [0, 6), each row starting with a trigram of the pool
    and two bigrams at a skip of one, so that every case finds n-grams."""
    rng = np.random.default_rng(3)
    feeds: dict[str, np.ndarray] = {}
    for (shape, sizes), dtype in itertools.product(SHAPES.items(), TYPES):
        x = rng.integers(0, 6, size=sizes)
        x[..., :5] = [1, 2, 3, 3, 1]
        feeds[f"x_{shape}_{dtype}"] = x.astype(TYPES[dtype][1])
    return feeds


def _node(
    x: str, y: str, mode: str, lengths: tuple[int, int], skip: int, weighted: bool
) -> onnx.NodeProto:
    """A TfIdfVectorizer node on the test pool, from X named x to Y named y."""
    pool: dict[str, Any] = {"ngram_counts": COUNTS, "ngram_indexes": INDEXES, "pool_int64s": POOL}
    pool.update(min_gram_length=lengths[0], max_gram_length=lengths[1], max_skip_count=skip)
    node = helper.make_node("TfIdfVectorizer", [x], [y], mode=mode, **pool)
    if weighted:
        node.attribute.append(helper.make_attribute("weights", WEIGHTS))
    return node


def _model(cases: list[tuple[int, Case]]) -> onnx.ModelProto:
    """A node per (k, case), its output named yk."""
    inputs = [
        helper.make_tensor_value_info(f"x_{shape}_{dtype}", TYPES[dtype][0], sizes)
        for shape, sizes in SHAPES.items()
        for dtype in TYPES
    ]
    nodes: list[onnx.NodeProto] = []
    outputs: list[onnx.ValueInfoProto] = []
    for k, (shape, dtype, (mode, weighted), lengths, skip) in cases:
        nodes.append(_node(f"x_{shape}_{dtype}", f"y{k}", mode, lengths, skip, weighted))
        rows = SHAPES[shape][:-1]
        outputs.append(helper.make_tensor_value_info(f"y{k}", TensorProto.FLOAT, [*rows, COLUMNS]))
    graph = helper.make_graph(nodes, "tfidf", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_tfidf_vectorizer_matches_onnxruntime_and_reference() -> None:
    cases = list(enumerate(CASES))
    model = _model(cases)
    feeds = _inputs()
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    wanted = dict(zip([f"y{k}" for k, _ in cases], session.run(None, feeds), strict=True))
    # onnx.reference fails on IDF and TFIDF without weights and reads weights
    # per output column (the spec and onnxruntime: per pool n-gram): TF only
    known = [(k, case) for k, case in cases if case[2][0] == "TF"]
    reference = ReferenceEvaluator(_model(known)).run(None, feeds)
    got = onnxc.compile(model).run(feeds)
    for (k, case), expected in zip(known, reference, strict=True):
        np.testing.assert_array_equal(expected, wanted[f"y{k}"], err_msg=f"case {case}")
    for k, case in cases:
        np.testing.assert_array_equal(got[f"y{k}"], wanted[f"y{k}"], err_msg=f"case {case}")
    assert all(w.any() for w in wanted.values()), "a case found no n-gram"


def test_run_time_sizes_match_onnxruntime() -> None:
    x = helper.make_tensor_value_info("x", TensorProto.INT64, ["N", "C"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", COLUMNS])
    graph = helper.make_graph([_node("x", "y", "TFIDF", (1, 3), 2, True)], "dynamic", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    compiled = onnxc.compile(model)
    rng = np.random.default_rng(4)
    for sizes in [(2, 7), (1, 3), (4, 16)]:
        x_value = rng.integers(0, 6, size=sizes).astype(np.int64)
        x_value[:, :3] = [1, 2, 3]
        (wanted,) = session.run(None, {"x": x_value})
        np.testing.assert_array_equal(compiled.run({"x": x_value})["y"], wanted, err_msg=f"{sizes}")


def _single(x_type: int, **attributes: Any) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", x_type, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    defaults: dict[str, Any] = {
        "mode": "TF",
        "min_gram_length": 1,
        "max_gram_length": 1,
        "max_skip_count": 0,
        "ngram_counts": [0],
        "ngram_indexes": [0, 1],
    }
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], **{**defaults, **attributes})
    graph = helper.make_graph([node], "single", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (_single(TensorProto.INT64, pool_strings=["a", "b"]), "pool_strings for X of numbers"),
        (_single(TensorProto.STRING, pool_int64s=[1, 2]), "pool_int64s for string X"),
        (_single(TensorProto.INT64, pool_int64s=[3, 3]), "names a 1-gram twice"),
        (_single(TensorProto.INT64, pool_int64s=[3, 4], mode="BM25"), "mode 'BM25'"),
    ],
    ids=["pool_strings", "int_pool", "repeated_gram", "unknown_mode"],
)
def test_unsupported_pools_are_a_clear_error(model: onnx.ModelProto, message: str) -> None:
    with pytest.raises(UnsupportedError, match=message):
        onnxc.compile(model)


STRING_POOL = ["the", "cat", "dög", "é", "z"] + ["the", "cat", "cat", "sat", "dög", "z"]
STRING_POOL += ["the", "cat", "sat"]
"""Five unigrams, three bigrams and a trigram (nine n-grams): non-ASCII
words among ASCII ones, so the byte order of the sorted table matters."""


@pytest.mark.parametrize(("mode", "skip"), [("TF", 0), ("IDF", 1), ("TFIDF", 2)])
def test_string_tokens_match_onnxruntime(mode: str, skip: int) -> None:
    node = helper.make_node(
        "TfIdfVectorizer",
        ["x"],
        ["y"],
        mode=mode,
        min_gram_length=1,
        max_gram_length=3,
        max_skip_count=skip,
        ngram_counts=[0, 5, 11],
        ngram_indexes=[0, 1, 2, 3, 4, 5, 6, 7, 5],
        pool_strings=STRING_POOL,
        weights=[0.5, 2.0, 1.5, 3.0, 0.25, 4.0, 1.25, 0.75, 2.5],
    )
    x = helper.make_tensor_value_info("x", TensorProto.STRING, [2, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])
    graph = helper.make_graph([node], "strings", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    words = ["the", "cat", "sat", "dög", "z", "é", "", "ca"]
    rng = np.random.default_rng(6)
    value = np.array([rng.permutation(words) for _ in range(2)], dtype=object)
    value[0, :3] = ["the", "cat", "sat"]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (wanted,) = session.run(None, {"x": value})
    got = onnxc.compile(model).run({"x": value})["y"]
    np.testing.assert_array_equal(got, wanted)
    assert wanted.any()
