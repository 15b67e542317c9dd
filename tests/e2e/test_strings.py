"""String tensors end to end, compared with onnxruntime: string inputs,
outputs and constants through data movement (Transpose, Gather, Concat,
Reshape, Where), Equal, and the ml encoders with string keys or values
(LabelEncoder, CategoryMapper, OneHotEncoder). Strings must be equal;
non-ASCII text, empty strings and embedded NUL bytes included. The C of a
string model compiles warning-free on gcc, clang and arm-none-eabi-gcc."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnxc
from onnxc.errors import OnnxcError, RunError, UnsupportedError

ort = pytest.importorskip("onnxruntime")

S, I64, F = TensorProto.STRING, TensorProto.INT64, TensorProto.FLOAT
WORDS = np.array([["cat", "", "dög"], ["a\0b", "日本語", "cat"]], dtype=object)
STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2", "-c"]


def _model(nodes, inputs, outputs, initializers=(), ml: bool = False) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "strings", inputs, outputs, list(initializers))
    opsets = [helper.make_opsetid("", 21)] + ([helper.make_opsetid("ai.onnx.ml", 4)] if ml else [])
    return helper.make_model(graph, opset_imports=opsets)


def _strings(name: str, values: list[str]) -> onnx.TensorProto:
    """A 1-D string initializer (make_tensor's annotation wants numbers)."""
    return numpy_helper.from_array(np.array(values, dtype=object), name)


def _value(name: str, t: int, shape) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, t, shape)


def _same_as_onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, feeds)
    got = onnxc.compile(model).run(feeds)
    for (name, value), want in zip(got.items(), expected, strict=True):
        want = np.asarray(want)
        assert value.shape == want.shape, name
        if want.dtype == object:
            assert value.dtype == object, name
            assert value.tolist() == want.tolist(), name
        else:
            np.testing.assert_array_equal(value, want, err_msg=name)


def _data_movement() -> onnx.ModelProto:
    labels = _strings("labels", ["zero", "ein\xdf", ""])
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
        helper.make_node("Gather", ["labels", "i"], ["g"], axis=0),
        helper.make_node("Reshape", ["x", "flat"], ["r"]),
        helper.make_node("Concat", ["r", "labels"], ["c"], axis=0),
        helper.make_node("Equal", ["x", "other"], ["eq"]),
        helper.make_node("Where", ["eq", "x", "other"], ["w"]),
        helper.make_node("Identity", ["labels"], ["k"]),
    ]
    flat = helper.make_tensor("flat", I64, [1], [-1])
    return _model(
        nodes,
        [_value("x", S, [2, 3]), _value("other", S, [3]), _value("i", I64, [4])],
        [
            _value("t", S, [3, 2]),
            _value("g", S, [4]),
            _value("c", S, [9]),
            _value("eq", TensorProto.BOOL, [2, 3]),
            _value("w", S, [2, 3]),
            _value("k", S, [3]),
        ],
        [labels, flat],
    )


def test_data_movement_and_equal() -> None:
    feeds = {
        "x": WORDS,
        "other": np.array(["cat", "", "dog"], dtype=object),
        "i": np.array([2, 0, 1, 2], dtype=np.int64),
    }
    _same_as_onnxruntime(_data_movement(), feeds)


def test_unicode_arrays_and_bytes_are_taken_as_strings() -> None:
    model = onnxc.compile(_data_movement())
    feeds = {"other": np.array(["cat", "", "dog"]), "i": np.array([0, 0, 0, 0])}
    as_unicode = model.run({"x": WORDS.astype(str), **feeds})
    as_bytes = model.run({"x": np.array([[w.encode() for w in row] for row in WORDS]), **feeds})
    assert as_unicode["t"].tolist() == as_bytes["t"].tolist() == WORDS.T.tolist()


def test_a_non_string_element_is_refused() -> None:
    model = onnxc.compile(_data_movement())
    x = np.array([["cat", 1, "dog"], ["a", "b", "c"]], dtype=object)
    with pytest.raises(RunError, match="input 'x' holds strings; element 1 is int"):
        model.run({"x": x, "other": np.array(["a", "b", "c"]), "i": np.zeros(4, np.int64)})


def _encoders() -> onnx.ModelProto:
    keys = _strings("keys", ["cat", "dög", ""])
    values = helper.make_tensor("values", I64, [3], [7, 8, 9])
    nodes = [
        helper.make_node(
            "LabelEncoder",
            ["x"],
            ["to_int"],
            domain="ai.onnx.ml",
            keys_strings=["cat", "dög", "a\0b"],
            values_int64s=[1, 2, 3],
            default_int64=-5,
        ),
        helper.make_node(
            "LabelEncoder",
            ["n"],
            ["to_str"],
            domain="ai.onnx.ml",
            keys_int64s=[1, 2, 3],
            values_strings=["one", "twö", ""],
            default_string="?",
        ),
        helper.make_node(
            "LabelEncoder",
            ["x"],
            ["tensors"],
            domain="ai.onnx.ml",
            keys_tensor=keys,
            values_tensor=values,
            default_tensor=helper.make_tensor("d", I64, [1], [-1]),
        ),
        helper.make_node(
            "LabelEncoder",
            ["x"],
            ["strings"],
            domain="ai.onnx.ml",
            keys_strings=["cat", "日本語"],
            values_strings=["Katze", "Japanese"],
        ),
        helper.make_node(
            "CategoryMapper",
            ["x"],
            ["category"],
            domain="ai.onnx.ml",
            cats_strings=["cat", "dög", "日本語"],
            cats_int64s=[10, 20, 30],
            default_int64=-2,
        ),
        helper.make_node(
            "CategoryMapper",
            ["n"],
            ["name"],
            domain="ai.onnx.ml",
            cats_strings=["cat", "dög", "日本語"],
            cats_int64s=[1, 2, 3],
        ),
        helper.make_node(
            "OneHotEncoder",
            ["x"],
            ["onehot"],
            domain="ai.onnx.ml",
            cats_strings=["cat", "", "dög", "a\0b"],
            zeros=1,
        ),
    ]
    return _model(
        nodes,
        [_value("x", S, [2, 3]), _value("n", I64, [5])],
        [
            _value("to_int", I64, [2, 3]),
            _value("to_str", S, [5]),
            _value("tensors", I64, [2, 3]),
            _value("strings", S, [2, 3]),
            _value("category", I64, [2, 3]),
            _value("name", S, [5]),
            _value("onehot", F, [2, 3, 4]),
        ],
        ml=True,
    )


def test_encoders_with_string_keys_and_values() -> None:
    feeds = {"x": WORDS, "n": np.array([3, 1, 0, 2, 3], dtype=np.int64)}
    _same_as_onnxruntime(_encoders(), feeds)


def test_one_hot_encoder_refuses_an_unknown_string_with_zeros_0() -> None:
    node = helper.make_node(
        "OneHotEncoder", ["x"], ["y"], domain="ai.onnx.ml", cats_strings=["a", "b"], zeros=0
    )
    model = onnxc.compile(_model([node], [_value("x", S, [2])], [_value("y", F, [2, 2])], ml=True))
    np.testing.assert_array_equal(model.run({"x": np.array(["b", "a"])})["y"], [[0, 1], [1, 0]])
    with pytest.raises(RunError):
        model.run({"x": np.array(["b", "c"])})


def test_label_encoder_keys_of_the_wrong_type_are_one_line_errors() -> None:
    node = helper.make_node(
        "LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", keys_int64s=[1], values_int64s=[2]
    )
    model = _model([node], [_value("x", S, [2])], [_value("y", I64, [2])], ml=True)
    with pytest.raises(OnnxcError, match="^shape inference failed: .*LabelEncoder.* are different"):
        onnxc.compile(model)


def _text_operators() -> onnx.ModelProto:
    """Every text operator on one input."""
    nodes = [
        helper.make_node("StringConcat", ["x", "x"], ["joined"]),
        helper.make_node("StringSplit", ["x"], ["pieces", "counts"], delimiter=","),
        helper.make_node("StringNormalizer", ["x"], ["upper"], case_change_action="UPPER"),
        helper.make_node("RegexFullMatch", ["x"], ["matches"], pattern=r"\w+@\w+\.com"),
    ]
    outputs = [
        _value("joined", S, [4]),
        _value("pieces", S, [4, None]),
        _value("counts", I64, [4]),
        _value("upper", S, [None]),
        _value("matches", TensorProto.BOOL, [4]),
    ]
    return _model(nodes, [_value("x", S, [4])], outputs)


@pytest.mark.parametrize("compiler", ["gcc", "clang", "arm-none-eabi-gcc"])
def test_string_c_compiles_warning_free(compiler: str, tmp_path: Path) -> None:
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    target = "cortex-m4" if compiler.startswith("arm") else "host"
    onnxc.generate_c(_encoders(), target=target).write(tmp_path / "encoders")
    onnxc.generate_c(_text_operators(), target=target).write(tmp_path / "text")
    flags = ["-mcpu=cortex-m4", "-mthumb"] if target == "cortex-m4" else []
    sources = [p for p in sorted(tmp_path.glob("*/*.c")) if p.name != "onnxc_harness.c"]
    assert len(sources) == 2
    for source in sources:
        folder = str(source.parent)
        command = [compiler, *STRICT, *flags, "-I", folder, str(source), "-o", "/dev/null"]
        result = subprocess.run(command, capture_output=True, text=True, check=False)
        assert result.returncode == 0 and not result.stderr, result.stderr


TEXTS = np.array(
    ["  Monday  tea,, with\tmilk ", "", "straße ǅ İstanbul ıi", "a,b,,c", "日本語,テキスト", ",,"],
    dtype=object,
)
"""Whitespace runs, leading and trailing separators, empty strings, case
changes that change a string's size (ǅ, İ, ı), non-ASCII separators' neighbours."""


def _text_model(nodes, outputs) -> onnx.ModelProto:
    return _model(nodes, [_value("x", S, [6])], outputs)


@pytest.mark.parametrize(
    ("delimiter", "maxsplit"), [(None, None), ("", 1), (",", None), (",", 2), (",,", 0)]
)
def test_string_split_matches_the_reference(delimiter: str | None, maxsplit: int | None) -> None:
    """onnx.reference (Python's str.split), which the backend suite's data
    come from; onnxruntime splits only at spaces and gives an empty string no
    piece (see strings.py)."""
    attributes: dict[str, Any] = {} if delimiter is None else {"delimiter": delimiter}
    if maxsplit is not None:
        attributes["maxsplit"] = maxsplit
    node = helper.make_node("StringSplit", ["x"], ["y", "z"], **attributes)
    model = _text_model([node], [_value("y", S, [6, None]), _value("z", I64, [6])])
    texts = TEXTS.copy()
    texts[0] = str(texts[0]).rstrip()  # see the next test
    y, z = ReferenceEvaluator(model).run(None, {"x": texts})
    got = onnxc.compile(model).run({"x": texts})
    assert got["y"].tolist() == np.asarray(y).tolist()
    np.testing.assert_array_equal(got["z"], z)


def test_the_rest_of_a_whitespace_split_loses_trailing_whitespace() -> None:
    """The spec: "leading or trailing whitespace is removed"; onnxruntime
    agrees, Python's split (onnx.reference) keeps it in the rest."""
    node = helper.make_node("StringSplit", ["x"], ["y", "z"], maxsplit=1)
    model = _text_model([node], [_value("y", S, [6, None]), _value("z", I64, [6])])
    got = onnxc.compile(model).run({"x": TEXTS})
    assert got["y"][0].tolist() == ["Monday", "tea,, with\tmilk"]
    assert got["y"][2].tolist() == ["straße", "ǅ İstanbul ıi"]


def test_string_concat_broadcasts_like_onnxruntime() -> None:
    nodes = [
        helper.make_node("StringConcat", ["x", "suffix"], ["y"]),
        helper.make_node("StringConcat", ["column", "x"], ["grid"]),
        helper.make_node("StringConcat", ["y", "y"], ["twice"]),
    ]
    inputs = [_value("x", S, [6]), _value("suffix", S, []), _value("column", S, [2, 1])]
    outputs = [_value("y", S, [6]), _value("grid", S, [2, 6]), _value("twice", S, [6])]
    feeds = {
        "x": TEXTS,
        "suffix": np.array("-ß", dtype=object),
        "column": np.array([["<"], [""]], dtype=object),
    }
    _same_as_onnxruntime(_model(nodes, inputs, outputs), feeds)


@pytest.mark.parametrize(
    ("action", "sensitive", "stopwords"),
    [
        ("LOWER", 0, ["monday", "STRASSE", "a,b,,c"]),
        ("UPPER", 1, ["", "Straße ǅ İstanbul ıi"]),
        ("NONE", 0, []),
        ("UPPER", 0, [t for t in TEXTS]),
    ],
    ids=["lower_insensitive", "upper_sensitive", "none", "all_removed"],
)
def test_string_normalizer_matches_onnxruntime(
    action: str, sensitive: int, stopwords: list[str]
) -> None:
    # onnxruntime builds its default locale, en_US.UTF-8, which this machine lacks
    attributes: dict[str, Any] = {"case_change_action": action, "locale": "C.UTF-8"}
    attributes["is_case_sensitive"] = sensitive
    if stopwords:
        attributes["stopwords"] = stopwords
    node = helper.make_node("StringNormalizer", ["x"], ["y"], **attributes)
    words = np.array(["Monday", "STRAßE", "ǅemal", "İstanbul", "ıi", "a,b,,c"], dtype=object)
    _same_as_onnxruntime(_text_model([node], [_value("y", S, [None])]), {"x": words})
    rows = _model([node], [_value("x", S, [1, 6])], [_value("y", S, [1, None])])
    _same_as_onnxruntime(rows, {"x": words.reshape(1, 6)})


def test_new_strings_need_the_workspace_they_report() -> None:
    """Concatenations of long strings need more workspace than the first try
    (sizes from data): the runner retries with the size the C reports."""
    node = helper.make_node("StringConcat", ["x", "x"], ["y"])
    model = onnxc.compile(_text_model([node], [_value("y", S, [6])]))
    long = np.array(["ü" * 5000, "x" * 70000, "", "a", "b", "c"], dtype=object)
    got = model.run({"x": long})["y"]
    assert got.tolist() == [s + s for s in long]


def _i64(name: str, values: Any) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def _object(name: str, values: Any) -> onnx.TensorProto:
    return numpy_helper.from_array(np.array(values, dtype=object), name)


X = WORDS.copy()
MOVEMENT: dict[str, tuple[list[onnx.NodeProto], list[onnx.TensorProto]]] = {
    "Concat": ([helper.make_node("Concat", ["x", "x"], ["y"], axis=1)], []),
    "Gather": ([helper.make_node("Gather", ["x", "i"], ["y"], axis=1)], [_i64("i", [2, 0])]),
    "GatherElements": (
        [helper.make_node("GatherElements", ["x", "i"], ["y"], axis=1)],
        [_i64("i", [[2, 0, 1], [0, 0, 1]])],
    ),
    "GatherND": ([helper.make_node("GatherND", ["x", "i"], ["y"])], [_i64("i", [[1, 2], [0, 1]])]),
    "Expand": ([helper.make_node("Expand", ["x", "s"], ["y"])], [_i64("s", [2, 2, 3])]),
    "Flatten": ([helper.make_node("Flatten", ["x"], ["y"], axis=0)], []),
    "Reshape": ([helper.make_node("Reshape", ["x", "s"], ["y"])], [_i64("s", [3, 2])]),
    "Slice": (
        [helper.make_node("Slice", ["x", "a", "b", "c", "d"], ["y"])],
        [_i64("a", [2]), _i64("b", [0]), _i64("c", [1]), _i64("d", [-1])],
    ),
    "Split": ([helper.make_node("Split", ["x"], ["y", "z"], axis=1, num_outputs=2)], []),
    "Squeeze": (
        [
            helper.make_node("Unsqueeze", ["x", "a"], ["u"]),
            helper.make_node("Squeeze", ["u", "a"], ["y"]),
        ],
        [_i64("a", [0])],
    ),
    "Tile": ([helper.make_node("Tile", ["x", "r"], ["y"])], [_i64("r", [2, 1])]),
    "Transpose": ([helper.make_node("Transpose", ["x"], ["y"])], []),
    "ReverseSequence": (
        [helper.make_node("ReverseSequence", ["x", "l"], ["y"], batch_axis=0, time_axis=1)],
        [_i64("l", [2, 3])],
    ),
    "Pad": (
        [helper.make_node("Pad", ["x", "p", "v"], ["y"])],
        [_i64("p", [0, 1, 0, 1]), _object("v", "pad")],
    ),
    "Pad_edge": (
        [helper.make_node("Pad", ["x", "p"], ["y"], mode="edge")],
        [_i64("p", [0, 1, 0, 1])],
    ),
    "ScatterElements": (
        [helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], axis=1)],
        [_i64("i", [[1], [0]]), _object("u", [["Q"], ["R"]])],
    ),
    "ScatterND": (
        [helper.make_node("ScatterND", ["x", "i", "u"], ["y"])],
        [_i64("i", [[1, 1]]), _object("u", ["Z"])],
    ),
    "Compress": (
        [helper.make_node("Compress", ["x", "c"], ["y"], axis=1)],
        [numpy_helper.from_array(np.array([True, False, True]), "c")],
    ),
    "Shape": ([helper.make_node("Shape", ["x"], ["y"])], []),
    "Size": ([helper.make_node("Size", ["x"], ["y"])], []),
    "Unique": ([helper.make_node("Unique", ["x"], ["y"], sorted=1)], []),
    "NonZero": ([helper.make_node("NonZero", ["x"], ["y"])], []),
    "DepthToSpace": (
        [
            helper.make_node("Reshape", ["x", "s"], ["r"]),
            helper.make_node("DepthToSpace", ["r"], ["y"], blocksize=1),
        ],
        [_i64("s", [1, 6, 1, 1])],
    ),
    "CastLike": ([helper.make_node("CastLike", ["x", "x"], ["y"])], []),
    "Where": (
        [helper.make_node("Where", ["c", "x", "x"], ["y"])],
        [numpy_helper.from_array(np.array([True, False, True]), "c")],
    ),
}
"""Operators that move, pick or fill string elements, with what they need."""


def _run_both(
    nodes: list[onnx.NodeProto], initializers: list[onnx.TensorProto]
) -> tuple[list[Any], list[Any]]:
    outputs = sorted({o for n in nodes for o in n.output if o in ("y", "z")})
    graph = helper.make_graph(
        nodes,
        "movement",
        [_value("x", S, [2, 3])],
        [helper.make_tensor_value_info(o, TensorProto.UNDEFINED, None) for o in outputs],
        initializers,
    )
    model = onnx.shape_inference.infer_shapes(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    )
    want = ReferenceEvaluator(model).run(None, {"x": X})
    got = list(onnxc.compile(model).run({"x": X}).values())
    return [np.asarray(g).tolist() for g in got], [np.asarray(w).tolist() for w in want]


@pytest.mark.parametrize("name", sorted(MOVEMENT))
def test_string_elements_move_as_the_reference_moves_them(name: str) -> None:
    got, want = _run_both(*MOVEMENT[name])
    assert got == want


def test_the_zero_of_strings_is_the_empty_string() -> None:
    """Trilu and CenterCropPad fill with the element type's zero: "" for
    strings (onnx.reference writes the integer 0 into its object arrays)."""
    nodes = [
        helper.make_node("Trilu", ["x"], ["y"]),
        helper.make_node("CenterCropPad", ["x", "s"], ["z"]),
    ]
    got, _ = _run_both(nodes, [_i64("s", [3, 2])])
    assert got[0] == [[X[0, 0], X[0, 1], X[0, 2]], ["", X[1, 1], X[1, 2]]]
    assert got[1] == [[X[0, 0], X[0, 1]], [X[1, 0], X[1, 1]], ["", ""]]


def test_unique_keeps_first_occurrences_unsorted() -> None:
    x = np.array(["b", "a", "b", "", "a"], dtype=object)
    node = helper.make_node("Unique", ["x"], ["y", "i", "r", "c"], sorted=0)
    outputs = [_value("y", S, [None]), *(_value(n, I64, [None]) for n in "irc")]
    model = _model([node], [_value("x", S, [5])], outputs)
    _same_as_onnxruntime(model, {"x": x})


def test_casts_to_and_from_strings_are_one_line_errors() -> None:
    for source, target in ((F, S), (S, F)):
        node = helper.make_node("Cast", ["x"], ["y"], to=target)
        model = _model([node], [_value("x", source, [2])], [_value("y", target, [2])])
        with pytest.raises(OnnxcError, match="casts to and from strings"):
            onnxc.compile(model)


REGEX_TEXTS = np.array(
    [
        "john.doe@gmail.com",
        "x@hotmail.com",
        "not an email",
        "é@gmail.com",
        "www.example.com",
        "www.example.community",
        "",
        "a\0b",
        "ΑΒΓ",
    ],
    dtype=object,
)


@pytest.mark.parametrize(
    "pattern",
    [
        r"[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}",
        r"(\W|^)[\w.\-]{0,25}@(yahoo|hotmail|gmail)\.com(\W|$)",
        r"www\.[\w.-]+\.\bcom\b",
        r"(?i)WWW\..*",
        r"\p{Lu}+",
        r"a.b|",
        r"[^@]*",
    ],
)
def test_regex_full_match_matches_onnxruntime(pattern: str) -> None:
    """onnxruntime matches with RE2, the syntax the spec names (\\w is ASCII,
    "é" is not a word character); onnx.reference uses Python's re."""
    node = helper.make_node("RegexFullMatch", ["x"], ["y"], pattern=pattern)
    model = _model([node], [_value("x", S, [9])], [_value("y", TensorProto.BOOL, [9])])
    _same_as_onnxruntime(model, {"x": REGEX_TEXTS})


@pytest.mark.parametrize(
    ("pattern", "error", "message"),
    [
        ("(ab", OnnxcError, r"^node 'RegexFullMatch_0' \(RegexFullMatch\): invalid regex pattern"),
        (r"(a)\1", OnnxcError, "invalid regex pattern"),
        (r"\p{Greek}", UnsupportedError, "not supported"),
    ],
)
def test_bad_patterns_are_one_line_errors(pattern: str, error: type, message: str) -> None:
    node = helper.make_node(
        "RegexFullMatch", ["x"], ["y"], pattern=pattern, name="RegexFullMatch_0"
    )
    model = _model([node], [_value("x", S, [2])], [_value("y", TensorProto.BOOL, [2])])
    with pytest.raises(error, match=message) as raised:
        onnxc.compile(model)
    assert "\n" not in str(raised.value)


def test_long_key_tables_are_bisected_like_a_scan() -> None:
    """More than `SEARCHED` keys are sorted (strings as UTF-8 bytes) and
    bisected: the first of duplicate keys still wins, -0.0 finds 0.0, NaN
    finds nothing, as onnxruntime answers."""
    rng = np.random.default_rng(1)
    words = [f"w{k}{'é' if k % 3 else ''}" for k in range(40)] + ["", "Z", "a", "w3é", "a"]
    floats = [float(v) for v in rng.integers(-20, 20, 30)] + [0.0, -0.0, 2.5]
    nodes = [
        helper.make_node(
            "LabelEncoder",
            ["x"],
            ["y"],
            domain="ai.onnx.ml",
            keys_strings=words,
            values_int64s=list(range(len(words))),
            default_int64=-7,
        ),
        helper.make_node(
            "LabelEncoder",
            ["f"],
            ["g"],
            domain="ai.onnx.ml",
            keys_floats=floats,
            values_strings=[f"v{k}" for k in range(len(floats))],
            default_string="none",
        ),
    ]
    inputs = [_value("x", S, [60]), _value("f", F, [50])]
    model = _model(nodes, inputs, [_value("y", I64, [60]), _value("g", S, [50])], ml=True)
    x = np.array(list(rng.choice([*words, "nope", "W1"], 60)), dtype=object)
    f = np.concatenate([rng.integers(-25, 25, 45), [0.0, -0.0, 2.5, np.nan, 1.5]])
    _same_as_onnxruntime(model, {"x": x, "f": f.astype(np.float32)})


def test_bytes_that_are_not_utf8_come_back_replaced_per_string() -> None:
    """Output strings are copied out together and decoded at once when that
    is exact; a string that is not UTF-8 on its own (half a character, or a
    byte no character starts with) is decoded alone, with replacement."""
    node = helper.make_node("Identity", ["x"], ["y"])
    model = onnxc.compile(_model([node], [_value("x", S, ["N"])], [_value("y", S, ["N"])]))
    cases = [
        ([b"\xc3", b"\xa9"], ["\ufffd", "\ufffd"]),  # together they would read "é"
        ([b"\xff", "ok", ""], ["\ufffd", "ok", ""]),
        (["é", "", "日本", "a\0b"], ["é", "", "日本", "a\0b"]),
    ]
    for given, wanted in cases:
        assert model.run({"x": np.array(given, dtype=object)})["y"].tolist() == wanted


def test_new_strings_inside_a_loop_body_are_a_one_line_error() -> None:
    """Each trip would write its strings over the last trip's bytes."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["c"], ["c_out"]),
            helper.make_node("StringConcat", ["s_in", "x"], ["s_out"], name="concat"),
        ],
        "body",
        [_value("i", I64, []), _value("c", TensorProto.BOOL, []), _value("s_in", S, [2])],
        [_value("c_out", TensorProto.BOOL, []), _value("s_out", S, [2])],
    )
    model = _model(
        [helper.make_node("Loop", ["n", "", "s0"], ["s"], body=body)],
        [_value("n", I64, []), _value("s0", S, [2]), _value("x", S, [2])],
        [_value("s", S, [2])],
    )
    with pytest.raises(UnsupportedError, match=r"^node 'concat' \(StringConcat\): making new"):
        onnxc.compile(model)
