"""Every operator onnxc lowers, over every element type its schema allows (of
the element-type table, strings included), compared with onnxruntime on
random data.

One model per operator holds one node per element type, so each operator costs
one C build. The expected values come from onnxruntime run on a one-node model
of the same node; where onnxruntime has no kernel for that type (it implements
fewer types than the schemas allow), from `onnx.reference`, the spec's own
implementation. Tolerances: integers and bool exact; the operations that are
exactly rounded in IEEE arithmetic (add, sub, mul, div, sqrt, min, max,
comparisons, copies, casts) exact in every float type; others float32 rtol 1e-5,
float64 rtol 1e-12 (1e-6 against onnx.reference, which computes some double
operators in float), float16 rtol 2e-3 and bfloat16 rtol 1.6e-2 (a unit or two
in their last place: libm and onnxruntime's own approximations differ).
Where the two oracles would disagree with the spec, the spec decides:
LayerNormalization computes 16-bit floats in float (stash_type 1), which
onnx.reference does not, so those are compared with the reference run in
float on the same values.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnxc
from onnxc import element_types
from onnxc.dialects.onnx import OPS
from onnxc.dialects.onnx_base import formal_type_strings
from onnxc.dialects.onnx_ml import DOMAIN as ML_DOMAIN
from onnxc.dialects.onnx_ml import OPS as ML_OPS
from onnxc.element_types import ElementType, Kind
from onnxc.errors import UnsupportedError
from onnxc.frontend.rewrites.infer_shapes import SAME_TYPE_AS_INPUT
from onnxc.lowering.convert_onnx_to_linalg import lowerings
from onnxc.tools import exact_integer
from tests.e2e.statistics import (
    Statistics,
    bernoulli_statistics,
    multinomial_statistics,
    normal_statistics,
    uniform_statistics,
)

ort = pytest.importorskip("onnxruntime")

OPSET = 21
RNG = np.random.default_rng(7)

Domain = str
"""How to draw test values: "any", "positive", "nonzero", "small" (|x| <= 3),
"bits" (any value of the type), "unit" (0 < x < 1) or "special" (floats:
"any" with NaN, infinities and zeros of both signs among them)."""


@dataclass(frozen=True)
class In:
    """One input of a case: its shape, how to draw it, and, for inputs that are
    not of the swept type, their fixed element type name; `value` makes it an
    initializer with that value."""

    shape: tuple[int, ...]
    domain: Domain = "any"
    dtype: str | None = None
    value: Any = None


@dataclass(frozen=True)
class Case:
    """One operator: its inputs, attributes, which type variable is swept,
    and whether its float results are exactly rounded (compared exactly)."""

    inputs: tuple[In, ...]
    attributes: dict[str, Any] = field(default_factory=dict[str, Any])
    type_variable: str | None = None
    """The schema's type variable of the swept inputs (default: the first
    input's, or the first output's)."""
    exact: bool = False
    outputs: int = 1
    opset: int = OPSET
    """The model's opset (newer than OPSET for operators or types added since)."""
    output_dtypes: tuple[str | None, ...] = ()
    """Output k's fixed element type name (None or absent: the swept type)."""
    formula: Callable[..., np.ndarray] | None = None
    """The expected output from the inputs, in numpy (float64), for the types
    onnxruntime cannot run, where onnx.reference is missing or wrong."""
    refused: tuple[str, ...] = ()
    """Element types the schema allows and onnxc refuses with a one-line
    error (arithmetic on strings: Col2Im's sums, ScatterND's max, Resize's
    interpolation), checked by `test_refused_types_are_one_line_errors`."""
    unchecked: tuple[str, ...] = ()
    """Element types no oracle runs (onnxruntime has no kernel, onnx.reference
    fails): compiled and run with the others, not compared."""
    reference: bool = False
    """Compared with onnx.reference even where onnxruntime runs, which departs
    from the spec (Attention: it writes masked qk_matmul_output elements as
    the lowest float instead of -inf, and computes double partly in float,
    1e-7 off)."""
    type_attribute: tuple[str, Callable[[ElementType], ElementType]] | None = None
    """For operators with an attribute naming an element type (BitCast's `to`,
    the random generators' `dtype`): the attribute, and the output's element
    type for the swept type, which the attribute names."""
    output_type: Callable[[ElementType], ElementType] | None = None
    """The output's element type for the swept type, where it is another
    that no attribute names (CategoryMapper: strings to int64 and back)."""
    statistics: Statistics | None = None
    """For the random operators, whose values no oracle gives (ONNX leaves
    the generator open): checks the distribution of the output given the
    node's input values (in input order) instead."""
    ml_opset: int | None = None
    """For ai.onnx.ml operators: the ml opset the model imports."""
    output_shapes: tuple[tuple[int | None, ...], ...] = ()
    """Output k's shape, where onnx's shape inference gives none (ml operators)."""
    typed_attributes: Callable[[ElementType], dict[str, Any]] | None = None
    """Attributes that depend on the swept type (an ml encoder's keys)."""


WORDS = ("", "a", "ab", "a b", "dög", "日本", "AB", "x,y")
"""The strings string tensors are drawn from: empty, spaces, commas, upper
case and non-ASCII among them."""


def _pool(row: ElementType) -> dict[str, Any]:
    """TfIdfVectorizer's pool: three unigrams and two bigrams of the swept type."""
    if row.kind is Kind.STRING:
        return {"pool_strings": ["", "a", "ab", "a", "ab", "ab", "dög"]}
    return {"pool_int64s": [-1, 1, 2, 1, 2, 2, 3]}


def _values(row: ElementType, shape: tuple[int, ...], domain: Domain) -> np.ndarray:
    if row.kind is Kind.STRING:
        values = np.empty(shape, dtype=object)
        values.reshape(-1)[:] = [WORDS[k] for k in RNG.integers(0, len(WORDS), values.size)]
        return values
    if row.kind is Kind.BOOL:
        return RNG.integers(0, 2, shape).astype(np.bool_)
    if row.kind is Kind.FLOAT:
        values = RNG.standard_normal(shape) * 3
        if domain == "positive":
            values = np.abs(values) + 0.25
        elif domain == "nonzero":
            values = np.where(np.abs(values) < 0.25, 1.5, values)
        elif domain == "small":
            values = np.clip(values, -3, 3)
        elif domain == "unit":
            values = RNG.uniform(0.05, 0.95, shape)
        elif domain == "special":
            flat = values.reshape(-1)
            flat[: min(5, flat.size)] = [np.nan, np.inf, -np.inf, 0.0, -0.0][: flat.size]
            values = RNG.permutation(flat).reshape(shape)
        return values.astype(np.float32).astype(row.numpy_dtype)
    info = ml_dtypes.iinfo(row.numpy_dtype)
    if domain == "bits" and row.packing > 1:
        return RNG.integers(info.min, info.max, shape, endpoint=True).astype(row.numpy_dtype)
    if domain == "bits":
        return RNG.integers(info.min, info.max, shape, endpoint=True, dtype=row.numpy_dtype)
    low = 1 if domain in ("positive", "nonzero") else max(info.min, -20)
    high = 3 if domain == "small" else min(info.max, 20)
    values = RNG.integers(low, high, shape, endpoint=True)
    if domain == "nonzero" and row.kind is Kind.SIGNED:
        values = values * RNG.choice([-1, 1], shape)
    return values.astype(row.numpy_dtype)


def _lrn(x: np.ndarray) -> np.ndarray:
    """LRN with size 3, alpha 0.01, beta 0.75, bias 1.5 (float attributes, so
    alpha is float32's 0.01), as the spec defines it."""
    squares = np.zeros_like(x)
    for c in range(x.shape[1]):
        squares[:, c] = np.sum(x[:, max(0, c - 1) : c + 2] ** 2, axis=1)
    return x / (1.5 + float(np.float32(0.01)) / 3 * squares) ** 0.75


SWEPT = "swept"
"""An `output_datatype` attribute given as SWEPT is the swept type's code."""


def in_double(
    op_type: str, constants: tuple[np.ndarray, ...] = (), **attributes: Any
) -> Callable[..., np.ndarray]:
    """A formula: `op_type` run by onnx.reference on the inputs as doubles,
    followed by `constants` (the case's initializers, as they are), for
    operators whose reference accumulates in the input's type (so its 16-bit
    results are further off than a rounding)."""

    def run(*inputs: np.ndarray) -> np.ndarray:
        names = [f"in{k}" for k in range(len(inputs) + len(constants))]
        feeds = dict(zip(names, inputs, strict=False))
        double = onnx.TensorProto.DOUBLE
        graph = helper.make_graph(
            [helper.make_node(op_type, names, ["out"], **attributes)],
            "double",
            [helper.make_tensor_value_info(n, double, x.shape) for n, x in feeds.items()],
            [helper.make_tensor_value_info("out", double, None)],
            [
                numpy_helper.from_array(c, n)
                for n, c in zip(names[len(inputs) :], constants, strict=True)
            ],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        outputs = ReferenceEvaluator(model).run(None, feeds)
        assert isinstance(outputs, list)
        return np.asarray(outputs[0])

    return run


ROIS = np.array([[0.0, 0.0, 3.0, 3.0], [1.0, 0.5, 4.5, 2.0], [2.5, 1.0, 3.0, 4.5]])
ROI_BATCHES = np.array([0, 1, 1], dtype=np.int64)
ROI_ALIGN = {"output_height": 2, "output_width": 3, "sampling_ratio": 0, "mode": "avg"}


ROI_POOL = np.array(
    [
        [0, 0, 0, 13, 11],  # past X's right and bottom edges
        [1, 2.5, 1, 9, 7],  # corners rounded half away from zero
        [1.5, -3, 5, 4, 20],  # batch index truncated; past the top and left edges
        [0, 12, 3, 2, 3],  # x2 < x1: one element wide
        [0.5, 20, 20, 30, 30],  # outside X: every bin empty, 0
    ]
)
"""MaxRoiPool's rois (batch index, x1, y1, x2, y2), exact in every float type."""


def _max_roi_pool(x: np.ndarray) -> np.ndarray:
    """MaxRoiPool of ROI_POOL with pooled_shape [2, 3], spatial_scale 0.5, as
    onnxruntime's float kernel computes it."""
    pooled = (2, 3)
    out = np.zeros((len(ROI_POOL), x.shape[1], *pooled))
    for r, (batch, *corners) in enumerate(ROI_POOL):
        scaled = np.asarray(corners) * 0.5
        x1, y1, x2, y2 = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
        for axis_bins in np.ndindex(*pooled):
            ranges = []
            for p, bins, start, end, extent in zip(
                axis_bins, pooled, (y1, x1), (y2, x2), x.shape[2:], strict=True
            ):
                size = max(end - start + 1, 1) / bins
                low = np.clip(np.floor(p * size) + start, 0, extent)
                high = np.clip(np.ceil((p + 1) * size) + start, 0, extent)
                ranges.append(slice(int(low), int(high)))
            window = x[int(batch), :, ranges[0], ranges[1]]
            if window.size:
                out[(r, slice(None), *axis_bins)] = window.max(axis=(1, 2))
    return out


def same_width_partner(row: ElementType) -> ElementType:
    """Another element type of `row`'s storage width (the next one in the
    table, cyclically), so that every type is both a BitCast source and a
    target."""
    peers = [
        t for t in element_types.ELEMENT_TYPES if (t.size, t.packing) == (row.size, row.packing)
    ]
    return peers[(peers.index(row) + 1) % len(peers)]


def _dequantized(x: np.ndarray, scale: np.ndarray, zero_point: np.ndarray) -> np.ndarray:
    """DequantizeLinear along axis 1 of (2, 3, 4), subtracting the zero point
    for every type (onnx.reference refuses a non-zero one for float8)."""
    return (x - zero_point.reshape(1, 3, 1)) * scale.reshape(1, 3, 1)


FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")

QLINEAR_SCALES = (0.05, [0.1, 0.05, 0.2, 0.3, 0.02], 0.25)
"""QLinearMatMul's a_scale, b_scale (per column) and y_scale."""


def _qlinear_matmul(
    a: np.ndarray, a_zp: np.ndarray, b: np.ndarray, b_zp: np.ndarray, y_zp: np.ndarray
) -> np.ndarray:
    """QLinearMatMul to uint8 of float8 a (which onnx.reference truncates to
    integers): (a - a_zp) @ (b - b_zp) requantized."""
    a_scale, b_scale, y_scale = (np.asarray(s, np.float32) for s in QLINEAR_SCALES)
    product = (a - a_zp) @ (b - b_zp) * (a_scale * b_scale / y_scale)
    return np.clip(np.rint(product) + y_zp, 0, 255)


def unary(
    domain: Domain = "any", exact: bool = False, opset: int = OPSET, **attributes: Any
) -> Case:
    return Case((In((2, 3, 4), domain),), attributes, exact=exact, opset=opset)


def binary(domain: Domain = "any", exact: bool = False) -> Case:
    return Case((In((2, 3, 4)), In((3, 1), domain)), exact=exact)


def comparison() -> Case:
    """Small values, so that equal pairs are common."""
    return Case((In((2, 3, 4), "small"), In((3, 1), "small")), exact=True, output_dtypes=("bool",))


def reduce(
    domain: Domain = "any", exact: bool = False, axes: tuple[int, ...] = (1,), **attributes: Any
) -> Case:
    """A Reduce* case over `axes` (an empty tuple: every axis), keepdims 0
    unless given."""
    attributes.setdefault("keepdims", 0)
    axes_input = In((len(axes),), dtype="int64", value=list(axes))
    return Case((In((2, 3, 4), domain), axes_input), attributes, exact=exact)


def _body(row: ElementType, name: str, inputs, nodes, outputs) -> onnx.GraphProto:
    """A subgraph of `nodes`; inputs and outputs as (name, element code or
    None for the swept type, shape)."""

    def info(value: tuple[str, int | None, tuple[int, ...]]) -> onnx.ValueInfoProto:
        code = row.onnx_code if value[1] is None else value[1]
        return helper.make_tensor_value_info(value[0], code, value[2])

    return helper.make_graph(nodes, name, [info(v) for v in inputs], [info(v) for v in outputs])


def _if_branches(row: ElementType) -> dict[str, Any]:
    """Each branch yields a constant of the swept type (a branch cannot read
    an input the If node lists: its only input is the condition)."""
    tag = row.name
    branches = {}
    for branch in ("then", "else"):
        value = numpy_helper.from_array(_values(row, (3, 3), "small"), f"{branch}_c_{tag}")
        node = helper.make_node("Constant", [], [f"{branch}_{tag}"], value=value)
        branches[f"{branch}_branch"] = _body(
            row, f"{branch}_{tag}", [], [node], [(f"{branch}_{tag}", None, (3, 3))]
        )
    return branches


def _loop_body(row: ElementType) -> dict[str, Any]:
    """Each trip transposes the carried value (3 trips: transposed)."""
    tag = row.name
    body = _body(
        row,
        f"loop_{tag}",
        [
            (f"i_{tag}", onnx.TensorProto.INT64, ()),
            (f"c_{tag}", onnx.TensorProto.BOOL, ()),
            (f"v_{tag}", None, (3, 3)),
        ],
        [
            helper.make_node("Identity", [f"c_{tag}"], [f"co_{tag}"]),
            helper.make_node("Transpose", [f"v_{tag}"], [f"vo_{tag}"], perm=[1, 0]),
        ],
        [(f"co_{tag}", onnx.TensorProto.BOOL, ()), (f"vo_{tag}", None, (3, 3))],
    )
    return {"body": body}


def _scan_body(row: ElementType) -> dict[str, Any]:
    """The state becomes each slice in turn; the scan output is the state
    before it, transposed."""
    tag = row.name
    body = _body(
        row,
        f"scan_{tag}",
        [(f"s_{tag}", None, (3, 3)), (f"x_{tag}", None, (3, 3))],
        [
            helper.make_node("Identity", [f"x_{tag}"], [f"so_{tag}"]),
            helper.make_node("Transpose", [f"s_{tag}"], [f"y_{tag}"], perm=[1, 0]),
        ],
        [(f"so_{tag}", None, (3, 3)), (f"y_{tag}", None, (3, 3))],
    )
    return {"body": body, "num_scan_inputs": 1}


CASES: dict[str, Case] = {
    "Abs": unary(exact=True),
    "Acos": unary("unit"),
    "Acosh": Case((In((2, 3, 4), "positive"),)),
    "Add": binary(exact=True),
    "AffineGrid": Case(
        (In((2, 2, 3)), In((4,), dtype="int64", value=[2, 1, 3, 4])), {"align_corners": 1}
    ),
    "And": binary(exact=True),
    "ArgMax": Case((In((2, 3, 4)),), {"axis": 1}, exact=True, output_dtypes=("int64",)),
    "ArgMin": Case(
        (In((2, 3, 4)),),
        {"axis": -1, "keepdims": 0, "select_last_index": 1},
        exact=True,
        output_dtypes=("int64",),
    ),
    "Asin": unary("unit"),
    "Asinh": unary(),
    "Atan": unary(),
    "Attention": Case(
        (
            In((1, 4, 3, 4)),
            In((1, 2, 2, 4)),
            In((1, 2, 2, 3)),
            In((3, 4), dtype="bool", value=[[1, 1, 0, 1], [0, 0, 0, 0], [1, 0, 1, 1]]),
            In((1, 2, 2, 4)),
            In((1, 2, 2, 3)),
        ),
        {"is_causal": 1, "softcap": 4.0, "qk_matmul_output_mode": 2},
        outputs=4,
        opset=23,
        reference=True,
    ),
    "Atanh": unary("unit"),
    "AveragePool": Case((In((1, 2, 5, 5)),), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    "BatchNormalization": Case(
        (
            In((2, 3, 4, 4)),
            In((3,), value="scale"),
            In((3,), value="bias"),
            In((3,), value="mean"),
            In((3,), "positive", value="var"),
        )
    ),
    "Bernoulli": Case((In((32, 32), "unit"),), statistics=bernoulli_statistics),
    "BitCast": Case(
        (In((2, 3, 4), "bits"),),
        exact=True,
        opset=26,
        type_attribute=("to", same_width_partner),
    ),
    "BitShift": Case(
        (In((2, 3, 4), "bits"), In((3, 1), "positive")),
        {"direction": "RIGHT"},
        exact=True,
        opset=28,
    ),
    "BitwiseAnd": binary("bits", exact=True),
    "BitwiseNot": unary("bits", exact=True),
    "BitwiseOr": binary("bits", exact=True),
    "BitwiseXor": binary("bits", exact=True),
    "BlackmanWindow": Case(
        (In((), dtype="int64", value=10),),
        {"output_datatype": SWEPT, "periodic": 1},
        type_variable="T2",
    ),
    "Cast": Case((In((2, 3), "small"),), exact=True, type_variable="T1"),
    "CastLike": Case((In((2, 3), "small"), In((1,))), exact=True, type_variable="T1"),
    "CausalConvWithState": Case(
        (In((1, 2, 5)), In((2, 1, 3), value="w"), In((2,), value="b"), In((1, 2, 2))),
        {"activation": "silu"},
        outputs=2,
        opset=27,
    ),
    "Ceil": unary(exact=True),
    "CenterCropPad": Case(
        (In((5, 3)), In((2,), dtype="int64", value=[2, 6])), exact=True, type_variable="T"
    ),
    "Celu": unary(alpha=2.0),
    "Clip": Case((In((2, 3, 4)), In((), value=-1), In((), value=2)), exact=True, type_variable="T"),
    "Col2Im": Case(
        (
            In((1, 8, 6)),
            In((2,), dtype="int64", value=[3, 3]),
            In((2,), dtype="int64", value=[2, 2]),
        ),
        {"pads": [1, 0, 0, 1], "strides": [1, 2]},
        refused=("string",),
    ),
    "Compress": Case(
        (In((3, 4)), In((3,), dtype="bool", value=[True, False, True])),
        {"axis": 0},
        exact=True,
    ),
    "Concat": Case((In((2, 3)), In((2, 2))), {"axis": 1}, exact=True),
    "Constant": Case((), exact=True),
    "ConvInteger": Case(
        (
            In((1, 2, 5, 5)),
            In((3, 2, 3, 3), dtype="uint8"),
            In((), "small"),
            In((3,), "small", dtype="uint8"),
        ),
        {"pads": [1, 1, 1, 1], "strides": [2, 1]},
        exact=True,
        output_dtypes=("int32",),
    ),
    "ConstantOfShape": Case(
        (In((2,), dtype="int64", value=[2, 3]),), exact=True, type_variable="T2"
    ),
    "Conv": Case(
        (In((1, 2, 5, 5)), In((3, 2, 3, 3), value="w"), In((3,), value="b")), {"pads": [1, 1, 1, 1]}
    ),
    "ConvTranspose": Case(
        (In((1, 2, 3, 3)), In((2, 3, 2, 2), value="w"), In((3,), value="b")),
        {"strides": [2, 1], "pads": [0, 1, 1, 0], "output_padding": [1, 0]},
    ),
    "Cos": unary(),
    "Cosh": unary("small"),
    "CumProd": Case(
        (In((2, 3, 4), "small"), In((), dtype="int64", value=1)), {"exclusive": 1}, opset=26
    ),
    "CumSum": Case((In((2, 3, 4)), In((), dtype="int32", value=-1)), {"reverse": 1}),
    "DFT": Case(
        (In((2, 6, 2)), In((), dtype="int64", value=8), In((), dtype="int64", value=1)),
        {"inverse": 1},
    ),
    "DeformConv": Case(
        (In((1, 2, 4, 4)), In((2, 2, 2, 2)), In((1, 8, 3, 3), "small")),
        {"kernel_shape": [2, 2]},
        formula=in_double("DeformConv", kernel_shape=[2, 2]),  # bfloat16
    ),
    "DepthToSpace": Case((In((1, 8, 2, 3)),), {"blocksize": 2, "mode": "CRD"}, exact=True),
    "DequantizeLinear": Case(
        (In((2, 3, 4)), In((3,), "positive", dtype="float"), In((3,), "small")),
        {"axis": 1},
        exact=True,
        output_dtypes=("float",),
        formula=_dequantized,
    ),
    "Det": Case((In((2, 3, 3)),)),
    "Div": binary("nonzero", exact=True),
    "DynamicQuantizeLinear": Case(
        (In((2, 3, 4)),), exact=True, outputs=3, output_dtypes=("uint8", None, "uint8")
    ),
    "Einsum": Case((In((2, 3), "small"), In((2, 3, 4), "small")), {"equation": "ij,ijk->kj"}),
    "Elu": unary(alpha=0.5),
    "Equal": comparison(),
    "Erf": unary(),
    "Exp": unary("small"),
    "Expand": Case((In((3, 1)), In((3,), dtype="int64", value=[2, 3, 4])), exact=True),
    "EyeLike": Case((In((3, 4)),), {"k": 1}, exact=True),
    "Flatten": Case((In((2, 3, 4)),), {"axis": 1}, exact=True),
    "Floor": unary(exact=True),
    "GRU": Case(
        (In((3, 2, 4), "small"), In((1, 9, 4), "small"), In((1, 9, 3), "small")),
        {"hidden_size": 3},
        outputs=2,
    ),
    "Gather": Case((In((4, 3)), In((2, 2), dtype="int64", value=[[0, 3], [-1, 1]])), exact=True),
    "GatherElements": Case(
        (In((3, 4)), In((3, 2), dtype="int64", value=[[0, 3], [-1, 1], [2, -4]])),
        {"axis": 1},
        exact=True,
    ),
    "GatherND": Case(
        (In((2, 3, 4)), In((2, 2), dtype="int64", value=[[0, 1], [1, -1]])), exact=True
    ),
    "Gelu": unary(approximate="tanh"),
    "GridSample": Case(
        (In((1, 2, 3, 4)), In((1, 2, 3, 2), dtype="float")),
        {"mode": "nearest", "padding_mode": "zeros"},
        exact=True,
        type_variable="T1",
    ),
    "Gemm": Case((In((3, 4), "small"), In((5, 4), "small"), In((5,), "small")), {"transB": 1}),
    "Dropout": unary(exact=True),
    "GlobalAveragePool": unary(),
    "GlobalLpPool": Case(
        (In((1, 2, 3, 3)),),
        {"p": 3},
        formula=lambda x: np.power(np.sum(np.abs(x) ** 3, axis=(2, 3), keepdims=True), 1 / 3),
    ),
    "GlobalMaxPool": Case(
        (In((2, 3, 4)),),
        exact=True,
        formula=lambda x: np.max(x, axis=2, keepdims=True),  # the reference reduces axis 1
    ),
    "HammingWindow": Case(
        (In((), dtype="int64", value=10),),
        {"output_datatype": SWEPT, "periodic": 0},
        type_variable="T2",
    ),
    "HannWindow": Case(
        (In((), dtype="int64", value=10),),
        {"output_datatype": SWEPT, "periodic": 1},
        type_variable="T2",
    ),
    "Hardmax": unary(exact=True, axis=1),
    "HardSigmoid": unary(),
    "HardSwish": unary(),
    "Identity": unary(exact=True),
    # control flow over every type: the bodies move values, never compute
    "If": Case(
        (In((), dtype="bool"),),
        type_variable="V",
        exact=True,
        typed_attributes=_if_branches,
    ),
    "Loop": Case(
        (In((), dtype="int64", value=3), In((), dtype="bool", value=True), In((3, 3))),
        type_variable="V",
        exact=True,
        typed_attributes=_loop_body,
        output_shapes=((3, 3),),
    ),
    "Scan": Case(
        (In((3, 3)), In((4, 3, 3))),
        type_variable="V",
        exact=True,
        outputs=2,
        typed_attributes=_scan_body,
        output_shapes=((3, 3), (4, 3, 3)),
    ),
    "GroupNormalization": Case(
        (In((2, 4, 3)), In((4,), value="scale"), In((4,), value="bias")), {"num_groups": 2}
    ),
    # uint8 only; onnxruntime has no kernel and onnx.reference needs Pillow. Random
    # bytes are no image: the spec's empty [0, 0, 3]. The decoding itself is
    # tested in test_image_decoder.py.
    "ImageDecoder": Case(
        (In((64,), "bits"),), opset=20, exact=True, formula=lambda x: np.zeros((0, 0, 3))
    ),
    "InstanceNormalization": Case((In((2, 3, 4)), In((3,), value="scale"), In((3,), value="bias"))),
    "Greater": comparison(),
    "GreaterOrEqual": comparison(),
    "IsInf": Case(
        (In((2, 3, 4), "special"),), {"detect_negative": 0}, exact=True, output_dtypes=("bool",)
    ),
    "IsNaN": Case((In((2, 3, 4), "special"),), exact=True, output_dtypes=("bool",)),
    "LSTM": Case(
        (In((3, 2, 4), "small"), In((1, 12, 4), "small"), In((1, 12, 3), "small")),
        {"hidden_size": 3},
        outputs=3,
    ),
    "LayerNormalization": Case(
        (In((2, 3, 4)), In((3, 4), value="scale"), In((4,), value="bias")), {"axis": 1}
    ),
    "LeakyRelu": unary(alpha=0.25),
    "LinearAttention": Case(
        (
            In((1, 3, 8)),
            In((1, 3, 4)),
            In((1, 3, 6)),
            In((1, 1, 4, 6)),
            In((1, 3, 4), "unit"),
            In((1, 3, 1), "unit"),
        ),
        {"q_num_heads": 2, "kv_num_heads": 1},
        outputs=2,
        opset=27,
    ),
    "LpNormalization": Case((In((2, 3, 4)),), {"axis": 1, "p": 2}),
    "LpPool": Case((In((1, 2, 5, 5)),), {"kernel_shape": [2, 2], "p": 2, "pads": [1, 1, 0, 0]}),
    "LRN": Case(
        (In((1, 5, 2, 2)),),
        {"size": 3, "alpha": 0.01, "beta": 0.75, "bias": 1.5},
        formula=_lrn,  # the reference loops over the batch, not the channels
    ),
    "Less": comparison(),
    "LessOrEqual": comparison(),
    "Log": unary("positive"),
    "LogSoftmax": unary(axis=1),
    "MatMul": Case((In((2, 3, 4), "small"), In((4, 5), "small"))),
    "MatMulInteger": Case(
        (
            In((2, 3, 4)),
            In((4, 5), dtype="uint8"),
            In((), "small"),
            In((5,), "small", dtype="uint8"),
        ),
        exact=True,
        output_dtypes=("int32",),
    ),
    "Max": binary(exact=True),
    "MeanVarianceNormalization": Case((In((2, 3, 2, 2)),)),
    "MaxPool": Case(
        (In((1, 2, 5, 5)),),
        {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [0, 0, 1, 1], "storage_order": 1},
        exact=True,
        outputs=2,
        output_dtypes=(None, "int64"),
    ),
    "MaxRoiPool": Case(
        (In((2, 3, 6, 7)), In(ROI_POOL.shape, value=ROI_POOL)),
        {"pooled_shape": [2, 3], "spatial_scale": 0.5},
        exact=True,
        formula=_max_roi_pool,  # no onnx.reference; onnxruntime: float (float16 cast to it)
    ),
    "MaxUnpool": Case(
        (
            In((1, 2, 2, 2)),
            In((1, 2, 2, 2), dtype="int64", value=[[[[0, 3], [9, 14]], [[16, 19], [25, 31]]]]),
        ),
        {"kernel_shape": [2, 2], "strides": [2, 2]},
        exact=True,
    ),
    "Mean": Case((In((2, 3, 4)), In((3, 1)), In((4,)))),
    "MelWeightMatrix": Case(
        (
            In((), dtype="int64", value=6),
            In((), dtype="int64", value=32),
            In((), dtype="int64", value=16000),
            In((), dtype="float", value=100.0),
            In((), dtype="float", value=7000.0),
        ),
        {"output_datatype": SWEPT},
        type_variable="T3",
    ),
    "Min": binary(exact=True),
    "Mish": unary(),
    "Mod": Case((In((2, 3, 4)), In((3, 1), "nonzero")), exact=True, opset=28),
    "Mul": binary(exact=True),
    "Multinomial": Case(
        (In((3, 4), "small"),),
        {"sample_size": 2000},
        output_dtypes=("int32",),
        statistics=multinomial_statistics,
    ),
    "Neg": unary(exact=True),
    "NegativeLogLikelihoodLoss": Case(
        (
            In((3, 4, 2)),
            In((3, 2), dtype="int64", value=[[0, 3], [1, 2], [2, 1]]),
            In((4,), "positive", value="weight"),
        ),
        {"reduction": "mean", "ignore_index": 1},
    ),
    "NonMaxSuppression": Case(
        (
            In((2, 6, 4), "small"),
            In((2, 2, 6), "unit"),
            In((1,), dtype="int64", value=[3]),
            In((1,), dtype="float", value=[0.2]),
            In((1,), dtype="float", value=[0.3]),
        ),
        {"center_point_box": 0},
        exact=True,
        output_dtypes=("int64",),
    ),
    "NonZero": Case((In((3, 4), "small"),), exact=True, output_dtypes=("int64",)),
    "Not": unary(exact=True),
    "Or": binary(exact=True),
    "PRelu": Case((In((2, 3, 4)), In((3, 1))), exact=True),
    "OneHot": Case(
        (
            In((2, 3), value=[[0, 2, -1], [5, 1, 3]]),
            In((), dtype="int64", value=4),
            In((2,), dtype="float"),
        ),
        {"axis": 1},
        type_variable="T1",
        output_dtypes=("float",),
    ),
    "Pad": Case(
        (In((2, 3)), In((4,), dtype="int64", value=[1, 0, 0, 2]), In((), value=3)),
        exact=True,
    ),
    "Pow": Case((In((2, 3), "positive"), In((3,), "small")), type_variable="T"),
    "RNN": Case(
        (In((3, 2, 4), "small"), In((1, 3, 4), "small"), In((1, 3, 3), "small")),
        {"hidden_size": 3},
        outputs=2,
    ),
    "RandomNormal": Case(
        (),
        {"shape": [32, 32], "mean": 1.0, "scale": 2.0},
        type_attribute=("dtype", lambda row: row),
        statistics=normal_statistics(1.0, 2.0),
    ),
    "RandomNormalLike": Case(
        (In((32, 32), dtype="int8"),),
        {"mean": -1.0, "scale": 0.5},
        type_variable="T2",
        type_attribute=("dtype", lambda row: row),
        statistics=normal_statistics(-1.0, 0.5),
    ),
    "RandomUniform": Case(
        (),
        {"shape": [32, 32], "low": -1.0, "high": 3.0},
        type_attribute=("dtype", lambda row: row),
        statistics=uniform_statistics(-1.0, 3.0),
    ),
    "RandomUniformLike": Case(
        (In((32, 32), dtype="bool"),),
        {"low": 2.0, "high": 2.5},
        type_variable="T2",
        type_attribute=("dtype", lambda row: row),
        statistics=uniform_statistics(2.0, 2.5),
    ),
    "QLinearConv": Case(
        (
            In((1, 2, 5, 5)),
            In((), dtype="float", value=0.05),
            In((), "small"),
            In((3, 2, 3, 3), dtype="int8"),
            In((3,), dtype="float", value=[0.1, 0.05, 0.2]),
            In((3,), dtype="int8", value=[0, 0, 0]),
            In((), dtype="float", value=0.25),
            In((), "small", dtype="uint8"),
            In((3,), dtype="int32"),
        ),
        {"pads": [1, 1, 1, 1]},
        exact=True,
        output_dtypes=("uint8",),
    ),
    "QLinearMatMul": Case(
        (
            In((2, 3, 4)),
            In((), dtype="float", value=QLINEAR_SCALES[0]),
            In((), "small"),
            In((4, 5), dtype="uint8"),
            In((5,), dtype="float", value=QLINEAR_SCALES[1]),
            In((5,), "small", dtype="uint8"),
            In((), dtype="float", value=QLINEAR_SCALES[2]),
            In((), "small", dtype="uint8"),
        ),
        exact=True,
        output_dtypes=("uint8",),
        formula=_qlinear_matmul,
    ),
    "QuantizeLinear": Case(
        (In((2, 3, 4), dtype="float"), In((3,), "positive", dtype="float"), In((3,), "small")),
        {"axis": 1},
        type_variable="T3",
        exact=True,
        # onnxruntime and onnx.reference ignore a float8 zero point, which the
        # spec's formula adds: tests/e2e/test_quantization.py checks those.
        unchecked=FLOAT8,
    ),
    "Range": Case((In((), "small"), In((), "any"), In((), "positive")), exact=True),
    "RMSNormalization": Case((In((2, 3, 4)), In((4,), value="scale")), {"axis": -1}, opset=23),
    "Reciprocal": unary("nonzero", exact=True),
    "ReduceL1": reduce(),
    "ReduceL2": reduce(),
    "ReduceLogSum": reduce("positive"),
    "ReduceLogSumExp": reduce(),
    "ReduceMax": reduce(exact=True, keepdims=1),
    "ReduceMean": reduce(),
    "ReduceMin": reduce(exact=True, axes=(-1, 0)),
    "ReduceProd": reduce("small"),
    "ReduceSum": reduce(axes=()),
    "ReduceSumSquare": reduce(),
    "Relu": unary(exact=True),
    "Reshape": Case((In((2, 3, 4)), In((2,), dtype="int64", value=[4, -1])), exact=True),
    "Resize": Case(
        (
            In((1, 1, 3, 4), "small"),
            In((0,), dtype="float", value=[]),
            In((4,), dtype="float", value=[1, 1, 2, 2]),
        ),
        {"mode": "linear"},
        type_variable="T1",
        unchecked=("bool",),
        refused=("string",),
    ),
    "ReverseSequence": Case(
        (In((4, 3)), In((3,), dtype="int64", value=[4, 2, 1])),
        {"time_axis": 0, "batch_axis": 1},
        exact=True,
    ),
    "STFT": Case(
        (
            In((2, 16, 1)),
            In((), dtype="int64", value=4),
            In((8,), "unit"),
            In((), dtype="int64", value=8),
        ),
        {"onesided": 1},  # onnx's shape inference takes 0 for the default (1)
    ),
    "ScatterElements": Case(
        (In((3, 3)), In((2, 3), dtype="int64", value=[[1, 0, 2], [0, -1, 1]]), In((2, 3))),
        exact=True,
    ),
    "ScatterND": Case(
        (In((4, 3)), In((3, 1), dtype="int64", value=[[1], [-1], [1]]), In((3, 3))),
        {"reduction": "max"},
        exact=True,
        refused=("string",),
    ),
    "RotaryEmbedding": Case(
        (
            In((1, 2, 3, 8)),
            In((6, 4), value="cos"),
            In((6, 4), value="sin"),
            In((1, 3), dtype="int64", value=[[0, 5, 2]]),
        ),
        {"interleaved": 1},
        opset=23,
    ),
    "RoiAlign": Case(
        (In((2, 2, 5, 5)), In((3, 4), value=ROIS), In((3,), dtype="int64", value=ROI_BATCHES)),
        ROI_ALIGN,
        formula=in_double("RoiAlign", (ROIS, ROI_BATCHES), **ROI_ALIGN),  # 16-bit floats
    ),
    "Round": unary(exact=True),
    "Selu": unary(),
    "OptionalGetElement": unary(exact=True),  # of a tensor: the tensor
    "OptionalHasElement": Case((In((2, 3)),), exact=True, output_dtypes=("bool",)),
    "Shape": Case((In((2, 3, 4)),), {"start": 1}, exact=True, output_dtypes=("int64",)),
    "Shrink": unary("small", exact=True, lambd=1.0, bias=1.5),
    "Sigmoid": unary(),
    "Sign": unary(exact=True),
    "Sin": unary(),
    "Sinh": unary("small"),
    "Size": Case((In((2, 3, 4)),), exact=True, output_dtypes=("int64",)),
    "StringConcat": Case((In((2, 3)), In((3,))), exact=True),
    "StringNormalizer": Case(
        (In((6,)),),
        # onnxruntime's default locale, en_US.UTF-8, is not on every machine
        {"case_change_action": "UPPER", "stopwords": ["ab", "x,y"], "locale": "C.UTF-8"},
        exact=True,
        output_shapes=((None,),),
    ),
    "StringSplit": Case(
        (In((2, 3)),), {"delimiter": " "}, outputs=2, exact=True, output_dtypes=("string", "int64")
    ),
    "RegexFullMatch": Case(
        (In((2, 3)),), {"pattern": "[a-z]+( [a-z])?"}, exact=True, output_dtypes=("bool",)
    ),
    "Slice": Case(
        (
            In((4, 5)),
            In((2,), dtype="int64", value=[1, 0]),
            In((2,), dtype="int64", value=[4, 5]),
            In((2,), dtype="int64", value=[0, 1]),
            In((2,), dtype="int64", value=[2, 2]),
        ),
        exact=True,
    ),
    "Softmax": unary(axis=1),
    "SoftmaxCrossEntropyLoss": Case(
        (In((3, 4, 2)), In((3, 2), dtype="int32", value=[[0, 3], [1, 2], [-2, 1]])),
        {"reduction": "sum", "ignore_index": -2},
        outputs=2,
    ),
    "Softplus": unary(),
    "Softsign": unary(),
    "SpaceToDepth": Case((In((1, 2, 4, 6)),), {"blocksize": 2}, exact=True),
    "Split": Case(
        (In((4, 6)), In((2,), dtype="int64", value=[2, 4])), {"axis": 1}, exact=True, outputs=2
    ),
    "Sqrt": unary("positive", exact=True),
    "Squeeze": Case((In((2, 1, 3)), In((1,), dtype="int64", value=[1])), exact=True),
    "Sub": binary(exact=True),
    "Sum": Case((In((2, 3, 4)), In((3, 1)), In((4,)))),
    "Swish": unary(alpha=0.5, opset=24),
    "SwiGLU": Case((In((2, 3, 4)), In((2, 3, 4))), {"alpha": 0.5}, opset=28),
    "Tan": unary(),
    "Tanh": unary(),
    "TensorScatter": Case(
        (In((2, 3, 4)), In((2, 2, 4)), In((2,), dtype="int64", value=[1, 2])),
        {"axis": 1, "mode": "circular"},
        exact=True,
        opset=24,
    ),
    "TfIdfVectorizer": Case(
        (In((2, 8), "small"),),
        {
            "mode": "TFIDF",
            "min_gram_length": 1,
            "max_gram_length": 2,
            "max_skip_count": 1,
            "ngram_counts": [0, 3],
            "ngram_indexes": [0, 1, 2, 3, 1],
            "weights": [0.5, 1.5, 2.0, 0.25, 3.0],
        },
        exact=True,
        output_dtypes=("float",),
        typed_attributes=_pool,
    ),
    "ThresholdedRelu": unary(alpha=0.5, exact=True),
    "Tile": Case((In((2, 3)), In((2,), dtype="int64", value=[2, 3])), exact=True),
    "TopK": Case(
        (In((3, 5)), In((1,), dtype="int64", value=[2])),
        exact=True,
        outputs=2,
        output_dtypes=(None, "int64"),
    ),
    "Transpose": Case((In((2, 3, 4)),), {"perm": [2, 0, 1]}, exact=True),
    "Trilu": Case((In((3, 4)), In((), dtype="int64", value=1)), {"upper": 0}, exact=True),
    "Unique": Case(
        (In((4, 3), "small"),),
        {"axis": 1},
        exact=True,
        outputs=4,
        output_dtypes=(None, "int64", "int64", "int64"),
    ),
    "Unsqueeze": Case((In((2, 3)), In((1,), dtype="int64", value=[1])), exact=True),
    "Where": Case(
        (In((2, 3, 4), dtype="bool"), In((3, 1)), In((4,))), exact=True, type_variable="T"
    ),
    "Xor": binary(exact=True),
}


def _ml(inputs: tuple[In, ...], attributes: dict[str, Any], **kw: Any) -> Case:
    """An ai.onnx.ml case (ml opset 3 unless given)."""
    kw.setdefault("ml_opset", 3)
    return Case(inputs, attributes, **kw)


def _tensor(values: list[Any], dtype: Any, name: str) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(values, dtype=dtype), name)


_TREES = {
    "nodes_treeids": [0, 0, 0, 0, 0, 1, 1, 1],
    "nodes_nodeids": [0, 1, 2, 3, 4, 0, 1, 2],
    "nodes_featureids": [0, 2, 0, 0, 0, 1, 0, 0],
    "nodes_modes": ["BRANCH_LEQ", "BRANCH_LT", "LEAF", "LEAF", "LEAF", "BRANCH_GT", "LEAF", "LEAF"],
    "nodes_values": [0.0, 0.5, 0, 0, 0, -0.3, 0, 0],
    "nodes_truenodeids": [1, 3, 0, 0, 0, 1, 0, 0],
    "nodes_falsenodeids": [2, 4, 0, 0, 0, 2, 0, 0],
}
"""Two small trees (depths 2 and 1) for the tree-ensemble cases."""

_LEAVES = {"treeids": [0, 0, 0, 0, 1, 1, 1], "nodeids": [2, 3, 4, 4, 1, 2, 2]}


def _tree_ensemble_5(row: ElementType) -> dict[str, Any]:
    dtype = row.numpy_dtype
    return {
        "nodes_splits": _tensor([0.0, 0.0, -0.3], dtype, "splits"),
        "nodes_modes": _tensor([0, 6, 3], np.uint8, "modes"),
        "membership_values": _tensor([1.0, -2.0, 5.0, np.nan], dtype, "members"),
        "leaf_weights": _tensor([0.5, -1.25, 2.0, 0.75], dtype, "weights"),
    }


def _category(row: ElementType) -> ElementType:
    """CategoryMapper's output type: int64 for strings, strings for int64."""
    return element_types.by_name("int64" if row.kind is Kind.STRING else "string") or row


def _label_encoder(row: ElementType) -> dict[str, Any]:
    if row.kind is Kind.STRING:
        return {"keys_tensor": _tensor(["a", "", "dög", "AB"], object, "keys")}
    return {"keys_tensor": _tensor([1, -2, 5, 0], row.numpy_dtype, "keys")}


def _one_hot(row: ElementType) -> dict[str, Any]:
    if row.kind is Kind.STRING:
        return {"cats_strings": ["a", "dög", "x,y"]}
    return {"cats_int64s": [0, 1, 3]}


def _imputer(row: ElementType) -> dict[str, Any]:
    if row.kind is Kind.FLOAT:
        return {"imputed_value_floats": [1.5, -2.0, 3.0, 0.25], "replaced_value_float": 0.0}
    return {"imputed_value_int64s": [7, -3, 2, 9], "replaced_value_int64": 0}


def _svm_regression(x: np.ndarray) -> np.ndarray:
    """The SVMRegressor case by its formula (onnx.reference truncates
    integer inputs' results): POLY kernel (0.5 x.v + 1)^2."""
    vectors = np.array([[0.0, 1.0], [1.0, -1.0]])
    kernels = (0.5 * x @ vectors.T + 1.0) ** 2
    return kernels @ np.array([[1.0], [-0.5]]) + 0.1


_TARGETS = {
    "target_treeids": _LEAVES["treeids"],
    "target_nodeids": _LEAVES["nodeids"],
    "target_ids": [0, 1, 0, 1, 0, 1, 1],
    "target_weights": [0.5, 1.0, 0.25, 0.75, -0.5, 1.5, 0.125],
    "n_targets": 2,
    "base_values": [0.5, -0.5],
}


def _tree_regression(x: np.ndarray) -> np.ndarray:
    """The TreeEnsembleRegressor case by walking its trees in numpy (onnx.reference
    fails on integer X, onnxruntime has no int32 kernel); a target no leaf
    scored is 0, as onnxruntime writes it."""
    t = _TREES
    keys = zip(t["nodes_treeids"], t["nodes_nodeids"], strict=True)
    nodes = {key: k for k, key in enumerate(keys)}
    tests = {"BRANCH_LEQ": np.less_equal, "BRANCH_LT": np.less, "BRANCH_GT": np.greater}
    out = np.zeros((len(x), 2))
    scored = np.zeros((len(x), 2), bool)
    for r, sample in enumerate(x):
        for tree in sorted(set(t["nodes_treeids"])):
            k = nodes[(tree, 0)]
            while t["nodes_modes"][k] != "LEAF":
                go = tests[t["nodes_modes"][k]](
                    sample[t["nodes_featureids"][k]], t["nodes_values"][k]
                )
                k = nodes[(tree, t["nodes_truenodeids" if go else "nodes_falsenodeids"][k])]
            leaf = (tree, t["nodes_nodeids"][k])
            for at, target, weight in zip(
                zip(_TARGETS["target_treeids"], _TARGETS["target_nodeids"], strict=True),
                _TARGETS["target_ids"],
                _TARGETS["target_weights"],
                strict=True,
            ):
                if at == leaf:
                    out[r, target] += weight
                    scored[r, target] = True
    return np.where(scored, out + np.asarray(_TARGETS["base_values"]), 0.0)


_COEFFICIENTS = [0.5, -1.0, 0.25, 2.0, -0.5, 1.0, 0.75, -0.25]
_FLOAT = ("float",)
_LABELS = ("int64", "float")
ML_CASES: dict[str, Case] = {
    "ArrayFeatureExtractor": _ml(
        (In((3, 4)), In((2,), dtype="int64", value=[3, 1])), {}, exact=True, ml_opset=1
    ),
    "Binarizer": _ml((In((3, 4)),), {"threshold": 0.5}, exact=True, ml_opset=1),
    "FeatureVectorizer": _ml(
        (In((3, 2)), In((3, 3))),
        {"inputdimensions": [2, 4]},
        ml_opset=1,
        output_dtypes=_FLOAT,
        output_shapes=((3, 6),),
    ),
    "Imputer": _ml(
        (In((3, 4), "small"),),
        {},
        exact=True,
        ml_opset=1,
        typed_attributes=_imputer,
        output_shapes=((3, 4),),
    ),
    "CategoryMapper": _ml(
        (In((2, 3)),),
        {"cats_strings": ["a", "dög", "AB"], "cats_int64s": [1, 2, 3]},
        ml_opset=1,
        output_type=_category,
        output_shapes=((2, 3),),
    ),
    "LabelEncoder": _ml(
        (In((3, 4), "small"),),
        {
            "values_tensor": _tensor([0.5, 1.5, -2.5, 4.0], np.float32, "values"),
            "default_tensor": _tensor([-1.0], np.float32, "default"),
        },
        ml_opset=4,
        output_dtypes=_FLOAT,
        typed_attributes=_label_encoder,
    ),
    "LinearClassifier": _ml(
        (In((3, 4)),),
        {
            "coefficients": [0.5, -1.0, 0.25, 2.0, -0.5, 1.0, 0.75, -0.25, 1.5, 0.0, -1.0, 0.5],
            "intercepts": [0.1, -0.2, 0.3],
            "classlabels_ints": [3, 5, 7],
            "post_transform": "SOFTMAX",
        },
        outputs=2,
        ml_opset=1,
        output_dtypes=_LABELS,
    ),
    "LinearRegressor": _ml(
        (In((3, 4)),),
        {"coefficients": _COEFFICIENTS, "targets": 2},
        ml_opset=1,
        formula=lambda x: x @ np.reshape(_COEFFICIENTS, (2, 4)).T,
        output_dtypes=_FLOAT,
        output_shapes=((3, 2),),
    ),
    "Normalizer": _ml(
        (In((3, 4)),), {"norm": "L2"}, ml_opset=1, output_dtypes=_FLOAT, output_shapes=((3, 4),)
    ),
    "OneHotEncoder": _ml(
        (In((3, 2), "small"),),
        {"zeros": 1},
        ml_opset=1,
        output_dtypes=_FLOAT,
        typed_attributes=_one_hot,
    ),
    "Scaler": _ml(
        (In((3, 4)),),
        {"offset": [0.5, -1.0, 0.0, 2.0], "scale": [2.0, 0.5, -1.0, 0.25]},
        ml_opset=1,
        output_dtypes=_FLOAT,
        output_shapes=((3, 4),),
    ),
    "SVMClassifier": _ml(
        (In((3, 2)),),
        {
            "kernel_type": "RBF",
            "kernel_params": [0.5, 0.0, 3.0],
            "vectors_per_class": [1, 1, 1],
            "support_vectors": [0.0, 1.0, 1.0, -1.0, -2.0, 0.5],
            "coefficients": [1.0, -0.5, 0.25, 0.75, -1.0, 0.5],
            "rho": [0.1, -0.2, 0.3],
            "prob_a": [-1.5, -1.0, -2.0],
            "prob_b": [0.1, -0.1, 0.2],
            "classlabels_ints": [0, 1, 2],
        },
        outputs=2,
        ml_opset=1,
        output_dtypes=_LABELS,
        output_shapes=((3,), (3, 3)),
    ),
    "SVMRegressor": _ml(
        (In((3, 2)),),
        {
            "kernel_type": "POLY",
            "kernel_params": [0.5, 1.0, 2.0],
            "n_supports": 2,
            "support_vectors": [0.0, 1.0, 1.0, -1.0],
            "coefficients": [1.0, -0.5],
            "rho": [0.1],
        },
        ml_opset=1,
        formula=_svm_regression,
        output_dtypes=_FLOAT,
        output_shapes=((3, 1),),
    ),
    "TreeEnsemble": _ml(
        (In((3, 3), "small"),),
        {
            "nodes_featureids": [0, 2, 1],
            "nodes_truenodeids": [1, 0, 2],
            "nodes_trueleafs": [0, 1, 1],
            "nodes_falsenodeids": [2, 1, 3],
            "nodes_falseleafs": [0, 1, 1],
            "leaf_targetids": [0, 1, 0, 1],
            "tree_roots": [0],
            "n_targets": 2,
            "aggregate_function": 1,
        },
        ml_opset=5,
        typed_attributes=_tree_ensemble_5,
        # onnxruntime tests membership in sets of integers on x truncated
        # (-2.97 is in {-2, 1, 5}); the spec and onnx.reference on x itself.
        reference=True,
        output_shapes=((3, 2),),
    ),
    "TreeEnsembleClassifier": _ml(
        (In((3, 3)),),
        {
            **_TREES,
            "class_treeids": _LEAVES["treeids"],
            "class_nodeids": _LEAVES["nodeids"],
            "class_ids": [0, 1, 2, 0, 1, 2, 0],
            "class_weights": [0.5, 1.0, 0.25, 0.75, -0.5, 1.5, 0.125],
            "classlabels_int64s": [10, 20, 30],
            "post_transform": "LOGISTIC",
        },
        outputs=2,
        output_dtypes=_LABELS,
        output_shapes=((3,), (3, 3)),
    ),
    "TreeEnsembleRegressor": _ml(
        (In((3, 3)),),
        {
            **_TREES,
            **_TARGETS,
            "aggregate_function": "SUM",
        },
        formula=_tree_regression,
        output_dtypes=_FLOAT,
        output_shapes=((3, 2),),
    ),
}
"""The ai.onnx.ml operators (numeric forms)."""
CASES.update(ML_CASES)


def swept_types(op_type: str, case: Case) -> list[ElementType]:
    """The table's element types that the schema allows for the swept variable."""
    schema = {**OPS, **ML_OPS}[op_type].SCHEMA
    formals = [*schema.inputs, *schema.outputs]
    variable = case.type_variable or formals[0].type_str
    formal = next(f for f in formals if f.type_str == variable)
    allowed = formal_type_strings(schema, formal)
    found = [t for t in element_types.ALL_ELEMENT_TYPES if f"tensor({t.name})" in allowed]
    if op_type in ("Cast", "CastLike"):  # number formatting and parsing: not compiled
        found = [t for t in found if t.kind is not Kind.STRING]
    return found


@dataclass
class Node:
    """One node of the per-operator model, for one element type."""

    row: ElementType
    node: onnx.NodeProto
    inputs: list[onnx.ValueInfoProto]
    initializers: list[onnx.TensorProto]
    outputs: list[onnx.ValueInfoProto]
    feeds: dict[str, np.ndarray]
    opset: int = OPSET
    ml_opset: int | None = None


def _initializer(spec: In, row: ElementType, name: str) -> onnx.TensorProto:
    if isinstance(spec.value, str):
        dtype_row = row
        array = _values(dtype_row, spec.shape, spec.domain)
    else:
        dtype_row = element_types.by_name(spec.dtype) if spec.dtype else row
        assert dtype_row is not None
        array = np.asarray(spec.value).astype(dtype_row.numpy_dtype)
        if dtype_row.kind is Kind.STRING:  # a number given for a swept string: its text
            array = np.vectorize(str, otypes=[object])(array)
    return numpy_helper.from_array(np.asarray(array).reshape(spec.shape), name)


def make_node(op_type: str, case: Case, row: ElementType, target: ElementType | None) -> Node:
    """The node of `op_type` for element type `row` (and Cast target)."""
    tag = row.name if target is None else f"{row.name}_to_{target.name}"
    names: list[str] = []
    inputs: list[onnx.ValueInfoProto] = []
    initializers: list[onnx.TensorProto] = []
    feeds: dict[str, np.ndarray] = {}
    for k, spec in enumerate(case.inputs):
        name = f"in{k}_{tag}"
        names.append(name)
        spec_row = element_types.by_name(spec.dtype) if spec.dtype else row
        if op_type == "CastLike" and k == 1:
            spec_row = target
        assert spec_row is not None
        if spec.value is not None:
            initializers.append(_initializer(spec, spec_row, name))
            continue
        feeds[name] = _values(spec_row, spec.shape, spec.domain)
        inputs.append(helper.make_tensor_value_info(name, spec_row.onnx_code, spec.shape))
    attributes = dict(case.attributes)
    if case.typed_attributes is not None:
        attributes.update(case.typed_attributes(row))
    if attributes.get("output_datatype") == SWEPT:
        attributes["output_datatype"] = row.onnx_code
    out_row = row
    if op_type == "Cast":
        assert target is not None
        attributes["to"], out_row = target.onnx_code, target
    elif op_type == "CastLike":
        assert target is not None
        out_row = target
    elif op_type == "Constant":
        value = _values(row, (2, 3), "small")
        attributes["value"] = numpy_helper.from_array(value, f"c_{tag}")
    elif case.type_attribute is not None:
        attribute, output_type = case.type_attribute
        out_row = output_type(row)
        attributes[attribute] = out_row.onnx_code
    elif case.output_type is not None:
        out_row = case.output_type(row)
    elif op_type == "ConstantOfShape":
        value = _values(row, (1,), "small")
        attributes["value"] = numpy_helper.from_array(value, f"c_{tag}")
    outputs = [f"out{k}_{tag}" for k in range(case.outputs)]
    domain = ML_DOMAIN if case.ml_opset is not None else ""
    node = helper.make_node(
        op_type, names, outputs, name=f"{op_type}_{tag}", domain=domain, **attributes
    )
    fixed = [*case.output_dtypes, *[None] * len(outputs)]
    shape = case.inputs[0].shape if op_type in SAME_TYPE_AS_INPUT else None
    shapes = [*case.output_shapes, *[shape] * len(outputs)]
    out_rows = [element_types.by_name(f) if f else out_row for f in fixed[: len(outputs)]]
    out_infos = [
        helper.make_tensor_value_info(o, r.onnx_code, s)
        for o, r, s in zip(outputs, out_rows, shapes[: len(outputs)], strict=True)
        if r is not None
    ]
    return Node(row, node, inputs, initializers, out_infos, feeds, case.opset, case.ml_opset)


def model_of(nodes: list[Node]) -> onnx.ModelProto:
    graph = helper.make_graph(
        [n.node for n in nodes],
        "matrix",
        [i for n in nodes for i in n.inputs],
        [o for n in nodes for o in n.outputs],
        [t for n in nodes for t in n.initializers],
    )
    opset = max(n.opset for n in nodes) if nodes else OPSET
    imports = [helper.make_opsetid("", opset)]
    ml_opsets = [n.ml_opset for n in nodes if n.ml_opset is not None]
    if ml_opsets:
        imports.append(helper.make_opsetid(ML_DOMAIN, max(ml_opsets)))
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 10
    if any(n.node.op_type in SAME_TYPE_AS_INPUT for n in nodes):
        return model  # onnx cannot infer them; their outputs are typed in make_node
    return onnx.shape_inference.infer_shapes(model, strict_mode=True)


STRING_BUGS = {"Gather": "onnxruntime 1.23 copies only the first string of each gathered slice"}
"""Operators whose onnxruntime string kernel is wrong: onnx.reference answers."""


def _string_zero(values: np.ndarray) -> np.ndarray:
    """onnx.reference fills string tensors with the integer 0 (Trilu, Pad,
    GridSample's padding) where the zero of strings is the empty string."""
    return np.vectorize(lambda v: "" if isinstance(v, int) and v == 0 else v, otypes=[object])(
        values
    )


def expected(node: Node) -> tuple[list[np.ndarray], str]:
    """The node's outputs from onnxruntime, or from onnx.reference where
    onnxruntime cannot run it (or rounds otherwise, ROUNDED; or, for STASHED
    operators, from the reference in float); and which one answered."""
    if node.node.op_type in STASHED and node.row.name in ("float16", "bfloat16", "double"):
        return _in_float(node), IN_FLOAT
    model = model_of([node])
    case = CASES[node.node.op_type]
    rounded = node.node.op_type in ROUNDED and node.row.kind is not Kind.FLOAT
    imprecise = node.row.name in IMPRECISE.get(node.node.op_type, ())
    wrong = node.row.kind is Kind.STRING and node.node.op_type in STRING_BUGS
    if not (rounded or case.reference or imprecise or wrong):
        try:
            session = exact_integer.session(model)
            outputs = session.run(None, node.feeds)
            typed = [_typed(o, info) for o, info in zip(outputs, node.outputs, strict=True)]
            return typed, "onnxruntime"
        except Exception:  # no kernel for this type (NOT_IMPLEMENTED and kin)
            pass
    formula = case.formula
    if formula is not None:
        inputs = [node.feeds[i.name].astype(np.float64) for i in node.inputs]
        out_row = element_types.by_onnx_code(node.outputs[0].type.tensor_type.elem_type)
        assert out_row is not None
        return [formula(*inputs).astype(out_row.numpy_dtype)], "the spec's formula"
    try:
        outputs = ReferenceEvaluator(model).run(None, node.feeds)
    except TypeError:  # ml_dtypes converts neither int4 <-> uint4 nor int2 <-> uint2
        if node.node.op_type not in ("Cast", "CastLike"):
            raise
        return [_cast_through_wide(node)], "Cast through int64 or double"
    assert isinstance(outputs, list)  # the final outputs (not intermediate=True's dict)
    return outputs, "onnx.reference"


def _cast_through_wide(node: Node) -> np.ndarray:
    """Cast's result by the spec's rules where they compose: integers through
    int64 (high bits dropped), floats through double."""
    source = node.feeds[node.inputs[0].name]
    target = element_types.by_onnx_code(node.outputs[0].type.tensor_type.elem_type)
    assert target is not None
    row = element_types.of_numpy(source.dtype)
    wide = np.float64 if row is not None and row.kind is Kind.FLOAT else np.int64
    return source.astype(wide).astype(target.numpy_dtype)


ROUNDED = {"Resize"}
"""Operators whose integer results onnxruntime truncates toward zero where
onnx.reference rounds half to even (the spec leaves it open; onnxc follows
the reference): their integer rows are compared with onnx.reference."""

IMPRECISE = {"BlackmanWindow": ("double",), "HammingWindow": ("double",)}
"""Operators and element types onnxruntime computes less precisely than the
spec asks (its double windows are computed with float coefficients, 1e-8
off): compared with onnx.reference."""

IN_FLOAT = "onnx.reference in float"

STASHED = {
    "GroupNormalization",
    "InstanceNormalization",
    "LayerNormalization",
    "MeanVarianceNormalization",
    "RMSNormalization",
}
"""Operators whose spec computes their statistics in float (stash_type 1),
which onnx.reference does in the input's type and onnxruntime in float or
double depending on the operator: their 16-bit expected values come from the
reference run in float on the same values, rounded once; their double values
too, compared at float's tolerance (onnxc computes double statistics in
double, more precisely than stash_type 1 asks)."""


def _in_float(node: Node) -> list[np.ndarray]:
    def widened(tensor: onnx.TensorProto) -> onnx.TensorProto:
        array = numpy_helper.to_array(tensor).astype(np.float32)
        return numpy_helper.from_array(array, tensor.name)

    wide = Node(
        node.row,
        node.node,
        [
            helper.make_tensor_value_info(i.name, onnx.TensorProto.FLOAT, spec_shape(i))
            for i in node.inputs
        ],
        [widened(t) for t in node.initializers],
        [helper.make_tensor_value_info(o.name, onnx.TensorProto.FLOAT, None) for o in node.outputs],
        {k: v.astype(np.float32) for k, v in node.feeds.items()},
        node.opset,
    )
    outputs = ReferenceEvaluator(model_of([wide])).run(None, wide.feeds)
    assert isinstance(outputs, list)
    return [np.asarray(o).astype(node.row.numpy_dtype) for o in outputs]


def spec_shape(info: onnx.ValueInfoProto) -> list[int]:
    return [d.dim_value for d in info.type.tensor_type.shape.dim]


TOLERANCE = {"float": 1e-5, "double": 1e-12, "float16": 2e-3, "bfloat16": 1.6e-2}


def _typed(value: np.ndarray, info: onnx.ValueInfoProto) -> np.ndarray:
    """An onnxruntime output as its ONNX type: onnxruntime hands 8-bit float
    tensors back as their uint8 codes, and float4e2m1 tensors as their packed
    bytes at the start of a uint8 array of the tensor's shape."""
    row = element_types.by_onnx_code(info.type.tensor_type.elem_type)
    value = np.asarray(value)
    if row is not None and value.dtype == np.uint8 and row.packing > 1:
        packed = value.reshape(-1)[: row.storage_count(value.size)]
        return row.unpack(packed, value.size).reshape(value.shape)
    if row is not None and value.dtype == np.uint8 and row.numpy_dtype != np.uint8:
        return value.view(row.numpy_dtype)
    return value


def saturated_cast(node: Node, got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """A float-to-integer Cast of values out of the target's range is undefined
    in ONNX (onnxruntime wraps on x86); onnxc saturates and maps NaN to 0.
    Those elements get onnxc's definition; the others keep onnxruntime's."""
    source = next(iter(node.feeds.values()))
    row = element_types.of_numpy(source.dtype)
    if row is None or row.kind is not Kind.FLOAT:
        return want
    if got.dtype.kind not in "iu":
        return want
    info = np.iinfo(got.dtype)
    truncated = np.trunc(source.astype(np.float64))
    saturated = np.clip(np.nan_to_num(truncated, nan=0.0), info.min, info.max)
    outside = (truncated < info.min) | (truncated > info.max)
    return np.where(outside, saturated.astype(got.dtype), want)


def check(op_type: str, case: Case, node: Node, got: list[np.ndarray]) -> None:
    want, oracle = expected(node)
    reference = oracle == "onnx.reference"
    if op_type in ("Cast", "CastLike"):
        want = [saturated_cast(node, got[0], np.asarray(want[0]))]
    for g, w in zip(got, want, strict=True):
        w = np.asarray(w)
        label = f"{node.node.name} vs {oracle}"
        assert g.shape == w.shape, label
        row = element_types.of_numpy(g.dtype)
        if row is not None and row.kind is Kind.STRING and w.size:
            w = _string_zero(w)
        if row is None or row.kind is not Kind.FLOAT:
            np.testing.assert_array_equal(g, w.astype(g.dtype), err_msg=label)
            continue
        g64, w64 = g.astype(np.float64), w.astype(np.float64)
        if case.exact:
            np.testing.assert_array_equal(g64, w64, err_msg=label)
        else:
            rtol = TOLERANCE[str(g.dtype) if str(g.dtype) in TOLERANCE else "float"]
            if g.dtype == np.float32:
                rtol = TOLERANCE["float"]
            elif g.dtype == np.float64 and oracle == IN_FLOAT:
                rtol = TOLERANCE["float"]
            elif g.dtype == np.float64:
                # onnx.reference computes some double ops (Erf, HardSwish) in float.
                rtol = 1e-6 if reference else TOLERANCE["double"]
            np.testing.assert_allclose(g64, w64, rtol=rtol, atol=rtol, err_msg=label)


def nodes_of(op_type: str, case: Case) -> list[Node]:
    global RNG  # noqa: PLW0603 - each operator draws its own values, whatever ran before
    RNG = np.random.default_rng(zlib.crc32(op_type.encode()))
    types = [t for t in swept_types(op_type, case) if t.name not in case.refused]
    if op_type in ("Cast", "CastLike"):
        targets = [t for t in element_types.ELEMENT_TYPES]
        return [make_node(op_type, case, row, t) for row in types for t in targets]
    return [make_node(op_type, case, row, None) for row in types]


def test_every_lowered_operator_is_in_the_matrix() -> None:
    assert sorted(lowerings()) == sorted(CASES)


REFUSED = sorted((op, name) for op, case in CASES.items() for name in case.refused)


@pytest.mark.parametrize(("op_type", "type_name"), REFUSED)
def test_refused_types_are_one_line_errors(op_type: str, type_name: str) -> None:
    row = element_types.by_name(type_name)
    assert row is not None and row in swept_types(op_type, CASES[op_type])
    model = model_of([make_node(op_type, CASES[op_type], row, None)])
    with pytest.raises(UnsupportedError, match=f"^node '{op_type}_{type_name}'") as raised:
        onnxc.compile(model)
    assert "\n" not in str(raised.value).split('\n"builtin.module')[0]


@pytest.mark.parametrize("op_type", sorted(CASES))
def test_type_matrix(op_type: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    case = CASES[op_type]
    nodes = nodes_of(op_type, case)
    assert nodes, f"no element type of the table is allowed for {op_type}"
    compiled = onnxc.compile(model_of(nodes), name=f"matrix_{op_type}")
    feeds = {k: v for n in nodes for k, v in n.feeds.items()}
    results = compiled.run(feeds)
    for node in nodes:
        outputs = [results[o.name] for o in node.outputs]
        if case.statistics is not None:
            feeds = [node.feeds[name] for name in node.node.input]
            case.statistics(dict(zip(node.node.input, feeds, strict=True)), outputs[0])
        elif node.row.name not in case.unchecked:
            check(op_type, case, node, outputs)
