"""onnxruntime's com.microsoft QOperator operators (QLinearAdd, QLinearMul,
QLinearSigmoid, QLinearLeakyRelu, QLinearGlobalAveragePool,
QLinearAveragePool, QLinearConcat, QLinearSoftmax, QLinearWhere,
QLinearReduceMean, QGemm) compiled through their DequantizeLinear -> float
operator -> QuantizeLinear expansions (`microsoft_qoperator.py`).

Each operator alone, uint8 and int8, odd shapes, every attribute, against
onnxruntime 1.32's CPU kernel, run with int8 weights stored as uint8 where
the activations are uint8 (`onnxc.tools.exact_integer`: its uint8 x int8 products
saturate on x86 CPUs without VNNI). Results are compared in steps of the output
scale (integers apart). The tolerance is 0 steps, except where onnxruntime's
kernel computes the value differently from the definition (the module
docstring says how for each): there a result may be 1 step off, and only
where the exact value, computed here in float64 from the definition, lies
within 1e-3 of a half step (`HALF_STEP`), so a real error still fails:

- QLinearAdd, QLinearMul, QLinearAveragePool: they round y / y_scale +
  y_zero_point, so an exact half rounds to even after the zero point is
  added: with an odd zero point every tie lands 1 step from
  QuantizeLinear's (the `_ties` cases and the 2-D pools make ties common;
  a mean of 2 or 4 values often is one). MLAS also groups Add's and Mul's
  float arithmetic its own way.
- QLinearSigmoid: its table comes from MLAS's approximate logistic.
- QLinearGlobalAveragePool: an integer sum times x_scale / (y_scale * size).
- QLinearSoftmax: a float table of exponentials and a float sum, with the
  output scale taken as floor(1 / y_scale) (tested at the 1/256 the
  quantizer writes, where that is exact).
- QGemm: an exact integer product times alpha * a_scale * b_scale / y_scale.

QLinearLeakyRelu, QLinearConcat and QLinearWhere dequantize and requantize
each value through the same float steps as the expansion: 0 steps.
onnxruntime has no CPU kernel for QLinearReduceMean: it is compared with
its definition.

Then a small CNN (Conv, ReLU, residual Add, LeakyReLU, Sigmoid gate, Mul,
AveragePool, Concat, GlobalAveragePool, Flatten, Gemm, Softmax) exported by
PyTorch and quantized by onnxruntime's `quantize_static` in the QOperator
format (per tensor and per channel, uint8 and int8 activations): every
quantized tensor the contrib operators and QLinearConv produce, and the
output, compared with onnxruntime running the same model, within 1 step of
each tensor's scale (`MODEL_STEPS`; 0 seen on 20 inputs of each variant).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")
quantization = pytest.importorskip("onnxruntime.quantization")

import torch  # noqa: E402
from torch import nn  # noqa: E402

import onnxc  # noqa: E402
from onnxc.tools import exact_integer  # noqa: E402
from tests.e2e.contrib_ops import F, Value, assert_refused_in_one_line, contrib_model  # noqa: E402
from tests.models import export  # noqa: E402

RNG = np.random.default_rng(23)
ELEMENT = {np.uint8: TensorProto.UINT8, np.int8: TensorProto.INT8}
TYPES = {"uint8": np.uint8, "int8": np.int8}
MICROSOFT = "com.microsoft"
ODD_ZERO = {np.uint8: np.array(127, np.uint8), np.int8: np.array(-1, np.int8)}
"""Odd output zero points, where onnxruntime's kernels that round after
adding the zero point put every exact tie one step from QuantizeLinear."""
HALF_STEP = 1e-3
"""How close to a half step (in steps) an exact value must be for a 1-step
difference to be put down to rounding."""


def _session(model: onnx.ModelProto) -> Any:
    """An onnxruntime CPU session of `model`, its integer products exact
    (`onnxc.tools.exact_integer`)."""
    return exact_integer.session(model)


@dataclass
class Quantized:
    """A quantized operand as a node reads it: values, scale (a scalar, or
    1-D per column) and zero point (None: the optional input left out)."""

    values: np.ndarray
    scale: np.ndarray
    zero: np.ndarray | None

    def real(self) -> np.ndarray:
        """(values - zero) * scale in float64."""
        zero = 0.0 if self.zero is None else self.zero.astype(np.float64)
        return (self.values.astype(np.float64) - zero) * self.scale.astype(np.float64)


def _scale(low: float = 0.01, high: float = 0.1) -> np.ndarray:
    return np.array(RNG.uniform(low, high), np.float32)


def _zero(dtype: type) -> np.ndarray:
    info = np.iinfo(dtype)
    return np.array(RNG.integers(info.min, info.max + 1), dtype)


def quantized(dtype: type, shape: Sequence[int], zero: bool = True) -> Quantized:
    """Random values of the whole range, a random scale and zero point
    (absent when not `zero`)."""
    info = np.iinfo(dtype)
    values = RNG.integers(info.min, info.max + 1, tuple(shape)).astype(dtype)
    return Quantized(values, _scale(), _zero(dtype) if zero else None)


def every_value(dtype: type, shape: Sequence[int]) -> Quantized:
    """All 256 values of `dtype` (then random ones) filling `shape`."""
    info = np.iinfo(dtype)
    count = int(np.prod(shape))
    values = np.arange(info.min, info.max + 1)
    extra = RNG.integers(info.min, info.max + 1, max(count - values.size, 0))
    flat = np.concatenate([values, extra])[:count].astype(dtype)
    return Quantized(flat.reshape(shape), _scale(0.02, 0.08), _zero(dtype))


def operand(name: str, q: Quantized) -> list[Value]:
    """The node's (data, scale, zero point) inputs for `q`."""
    element = ELEMENT[q.values.dtype.type]
    return [(name, element, q.values.shape), *parameters(name, q.scale, q.zero, element)[1:]]


def parameters(name: str, scale: np.ndarray, zero: np.ndarray | None, element: int) -> list[Value]:
    """The (name, scale, zero point) values of a quantized tensor; the zero
    point absent when None."""
    zero_value: Value = (f"{name}_zero", element, ()) if zero is not None else ("", element, ())
    return [(name, element, ()), (f"{name}_scale", F, scale.shape), zero_value]


def constants(name: str, scale: np.ndarray, zero: np.ndarray | None) -> dict[str, np.ndarray]:
    """The initializers holding a tensor's scale and zero point."""
    return {f"{name}_scale": scale, **({f"{name}_zero": zero} if zero is not None else {})}


@dataclass
class Case:
    """A one-node model, its feeds, and the exact result of its definition
    in steps of the output scale, before the zero point (float64)."""

    model: onnx.ModelProto
    feeds: dict[str, np.ndarray]
    exact: np.ndarray
    rounds_differently: bool
    """Whether onnxruntime's kernel may round a value near a half step the
    other way (the module docstring says why, operator by operator)."""


def single(
    op: str,
    inputs: Sequence[Quantized | tuple[str, np.ndarray]],
    output: tuple[np.ndarray, np.ndarray | None],
    exact: np.ndarray,
    rounds_differently: bool,
    attributes: dict[str, Any] | None = None,
    output_first: bool = False,
    untrimmed: bool = False,
) -> Case:
    """A model of `op` over quantized `inputs` (named x0, x1, ...; a
    (name, array) pair is a plain input) with output scale and zero point
    `output`, its parameters initializers (the output's first when
    `output_first`, as QLinearConcat takes them, else last).

    `untrimmed` writes the absent trailing inputs as "": onnxruntime's
    lookup-table kernels (QLinearSigmoid, QLinearLeakyRelu) read input 4
    without checking that there is one. Otherwise they are left off, as
    QLinearAdd and QLinearMul need: their type inference refuses an ""
    input, and any absent input zero point."""
    values: list[Value] = []
    initializers: dict[str, np.ndarray] = {}
    feeds: dict[str, np.ndarray] = {}
    element = TensorProto.UINT8
    for index, item in enumerate(inputs):
        if isinstance(item, Quantized):
            name = f"x{index}"
            values += operand(name, item)
            initializers |= constants(name, item.scale, item.zero)
            feeds[name] = item.values
            element = ELEMENT[item.values.dtype.type]
        else:
            name, array = item
            values.append((name, helper.np_dtype_to_tensor_dtype(array.dtype), array.shape))
            feeds[name] = array
    scale, zero = output
    out = parameters("y", scale, zero, element)[1:]
    initializers |= constants("y", scale, zero)
    values = [*out, *values] if output_first else [*values, *out]
    shape = ["d" + str(i) for i in range(exact.ndim)]
    model = contrib_model(op, values, [("y", element, shape)], attributes, initializers)
    if untrimmed:
        (node,) = model.graph.node
        node.input.extend([""] * (len(values) - len(node.input)))
    return Case(model, feeds, exact / float(scale), rounds_differently)


def output_of(dtype: type, zero: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    return _scale(0.02, 0.2), _zero(dtype) if zero else None


# --- the cases ---------------------------------------------------------------


def binary(op: str, dtype: type, b_shape: Sequence[int], zero: bool, ties: bool = False) -> Case:
    """A (3, 5, 7) and B with zero points (see `single`), C's absent unless
    `zero`. With `ties`, scales that make half steps common (A and B's
    0.25, C's 0.5) and an odd C zero point."""
    a, b = quantized(dtype, (3, 5, 7)), quantized(dtype, b_shape)
    if ties:
        a.scale = b.scale = np.array(0.25, np.float32)
    exact = a.real() + b.real() if op == "QLinearAdd" else a.real() * b.real()
    out = output_of(dtype, zero)
    if ties:
        out = (np.array(0.5, np.float32), ODD_ZERO[dtype])
    elif op == "QLinearMul":
        out = (np.array(np.float32(np.abs(exact).max() / 100)), out[1])
    return single(op, [a, b], out, exact, True)


def unary(op: str, dtype: type, zero: bool, **attributes: Any) -> Case:
    """X (3, 7, 13) holding every value; without zero points unless `zero`
    (Sigmoid's output is 1/256 with zero point 0 or -128, the quantizer's)."""
    x = every_value(dtype, (3, 7, 13))
    if not zero:
        x.zero = None
    real = x.real()
    if op == "QLinearSigmoid":
        exact, out = 1 / (1 + np.exp(-real)), (np.array(1 / 256, np.float32), None)
        if dtype == np.int8:
            out = (out[0], np.array(-128, np.int8))
    else:
        alpha = float(np.float32(attributes.get("alpha", 0.01)))
        exact, out = np.where(real >= 0, real, alpha * real), output_of(dtype, zero)
    return single(op, [x], out, exact, op == "QLinearSigmoid", attributes, untrimmed=True)


def global_pool(dtype: type, shape: Sequence[int], channels_last: int) -> Case:
    x = quantized(dtype, shape)
    axes = tuple(range(1, len(shape) - 1)) if channels_last else tuple(range(2, len(shape)))
    exact = x.real().mean(axis=axes, keepdims=True)
    attributes = {"channels_last": channels_last}
    return single("QLinearGlobalAveragePool", [x], output_of(dtype), exact, True, attributes)


def float_average_pool(real: np.ndarray, channels_last: int, **attributes: Any) -> np.ndarray:
    """AveragePool of `real` by onnxruntime's float32 kernel (moved to
    channels first and back when `channels_last`): within 1e-6 steps."""
    data = np.moveaxis(real, -1, 1) if channels_last else real
    node = helper.make_node("AveragePool", ["x"], ["y"], **attributes)
    graph = helper.make_graph(
        [node],
        "pool",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, data.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])
    session = _session(model)
    (pooled,) = session.run(None, {"x": data.astype(np.float32)})
    pooled = pooled.astype(np.float64)
    return np.moveaxis(pooled, 1, -1) if channels_last else pooled


def average_pool(dtype: type, shape: Sequence[int], channels_last: int, **attributes: Any) -> Case:
    """A 2-D pool's output has X's scale and an odd zero point, so that
    ties are common and onnxruntime's rounding shows; a 1-D one random."""
    x = quantized(dtype, shape)
    out = output_of(dtype)
    if len(shape) == 4:
        out = (x.scale, ODD_ZERO[dtype])
    exact = float_average_pool(x.real(), channels_last, **attributes)
    attributes = {**attributes, "channels_last": channels_last}
    return single("QLinearAveragePool", [x], out, exact, True, attributes)


def concat(dtype: type, axis: int) -> Case:
    """Three inputs: two of their own scales and zero points, one of the
    output's (which onnxruntime copies)."""
    parts = [quantized(dtype, (2, 3, 5)), quantized(dtype, (2, 3, 4 if axis else 5))]
    out = output_of(dtype)
    same = quantized(dtype, (2, 3, 5))
    same.scale, same.zero = out  # onnxruntime copies these values
    parts.append(same)
    exact = np.concatenate([p.real() for p in parts], axis=axis)
    return single("QLinearConcat", parts, out, exact, False, {"axis": axis}, output_first=True)


def _softmax(values: np.ndarray, axis: int) -> np.ndarray:
    shifted = np.exp(values - values.max(axis=axis, keepdims=True))
    return shifted / shifted.sum(axis=axis, keepdims=True)


def softmax(dtype: type, opset: int, axis: int | None) -> Case:
    """X (2, 6, 5), the output at the quantizer's 1/256 (see the module
    docstring); `axis` None leaves the attribute out."""
    x = quantized(dtype, (2, 6, 5))
    x.scale = _scale(0.02, 0.3)
    real = x.real()
    if opset >= 13:
        exact = _softmax(real, -1 if axis is None else axis)
    else:
        start = -1 if axis is None else axis
        exact = _softmax(real.reshape(*real.shape[:start], -1), -1).reshape(real.shape)
    out = (np.array(1 / 256, np.float32), np.array(0 if dtype == np.uint8 else -128, dtype))
    attributes = {"opset": opset, **({} if axis is None else {"axis": axis})}
    return single("QLinearSoftmax", [x], out, exact, True, attributes)


def where(dtype: type) -> Case:
    """condition (3, 1), X (3, 5) and Y (5,) broadcast together."""
    condition = RNG.integers(0, 2, (3, 1)).astype(bool)
    x, y = quantized(dtype, (3, 5)), quantized(dtype, (5,))
    exact = np.where(condition, x.real(), y.real())
    return single("QLinearWhere", [("condition", condition), x, y], output_of(dtype), exact, False)


def reduce_mean(dtype: type, axes: list[int] | None, keepdims: int | None) -> Case:
    """X (3, 4, 5); None leaves `axes` or `keepdims` out."""
    x = quantized(dtype, (3, 4, 5))
    axis = None if axes is None else tuple(axes)
    exact = x.real().mean(axis=axis, keepdims=keepdims != 0)
    attributes = {
        **({} if axes is None else {"axes": axes}),
        **({} if keepdims is None else {"keepdims": keepdims}),
    }
    return single("QLinearReduceMean", [x], output_of(dtype), exact, True, attributes)


@dataclass
class Gemm:
    """A QGemm node's operands and attributes, and its exact product."""

    a: Quantized
    b: Quantized
    bias: np.ndarray | None
    attributes: dict[str, Any]

    @staticmethod
    def make(
        dtype: type, trans_a: int, trans_b: int, per_column: bool, bias: bool, alpha: float
    ) -> Gemm:
        m, k, n = 5, 37, 6
        a = quantized(dtype, (k, m) if trans_a else (m, k))
        weights = RNG.integers(-128, 128, (n, k) if trans_b else (k, n)).astype(np.int8)
        scales = RNG.uniform(0.01, 0.1, n if per_column else ()).astype(np.float32)
        zeros = RNG.integers(-3, 4, n if per_column else ()).astype(np.int8)
        b = Quantized(weights, np.asarray(scales), np.asarray(zeros))
        c = RNG.integers(-3000, 3000, (n,)).astype(np.int32) if bias else None
        attributes = {"transA": trans_a, "transB": trans_b, "alpha": alpha}
        return Gemm(a, b, c, attributes)

    def exact(self) -> np.ndarray:
        """alpha * (A' @ B' + C * a_scale * b_scale) in float64."""
        a = self.a.real().T if self.attributes["transA"] else self.a.real()
        columns = self.b.values.T if self.attributes["transB"] else self.b.values
        b = Quantized(columns, self.b.scale, self.b.zero).real()
        product = a @ b
        if self.bias is not None:
            scale = float(self.a.scale) * self.b.scale.astype(np.float64)
            product = product + self.bias * scale
        return float(np.float32(self.attributes["alpha"])) * product

    def model(
        self, output: Sequence[Value], initializers: dict[str, np.ndarray]
    ) -> onnx.ModelProto:
        """The QGemm model with graph input A and the rest initializers,
        outputs `output` (the y_scale and y_zero_point inputs) added."""
        bias: list[Value] = [("c", TensorProto.INT32, (6,))] if self.bias is not None else [NONE_C]
        inputs = [*operand("a", self.a), *operand("b", self.b), *bias, *output]
        constant = {**constants("a", self.a.scale, self.a.zero), "b": self.b.values}
        constant |= constants("b", self.b.scale, self.b.zero) | initializers
        if self.bias is not None:
            constant["c"] = self.bias
        element = ELEMENT[self.a.values.dtype.type]
        quantized_out = any(name == "y_zero" for name, _, _ in output)
        result: Value = ("y", element if quantized_out else F, ("m", "n"))
        return contrib_model("QGemm", inputs, [result], self.attributes, constant)


NONE_C: Value = ("", TensorProto.INT32, ())


def qgemm(dtype: type, trans_a: int, trans_b: int, per_column: bool, bias: bool) -> Case:
    """M 5, K 37, N 6, alpha 0.75, a quantized output of about 100 steps."""
    gemm = Gemm.make(dtype, trans_a, trans_b, per_column, bias, alpha=0.75)
    exact = gemm.exact()
    scale = np.array(np.float32(np.abs(exact).max() / 100))
    zero = _zero(dtype)
    output = parameters("y", scale, zero, ELEMENT[dtype])[1:]
    model = gemm.model(output, constants("y", scale, zero))
    return Case(model, {"a": gemm.a.values}, exact / float(scale), True)


CASES: dict[str, Callable[[type], Case]] = {
    "add": lambda t: binary("QLinearAdd", t, (3, 5, 7), True),
    "add_broadcast": lambda t: binary("QLinearAdd", t, (5, 1), True),
    "add_scalar_b": lambda t: binary("QLinearAdd", t, (), True),
    "add_no_output_zero_point": lambda t: binary("QLinearAdd", t, (7,), False),
    "add_ties": lambda t: binary("QLinearAdd", t, (3, 5, 7), True, ties=True),
    "mul": lambda t: binary("QLinearMul", t, (3, 5, 7), True),
    "mul_ties": lambda t: binary("QLinearMul", t, (5, 1), True, ties=True),
    "mul_broadcast_no_output_zero_point": lambda t: binary("QLinearMul", t, (3, 1, 7), False),
    "sigmoid": lambda t: unary("QLinearSigmoid", t, True),
    "sigmoid_no_input_zero_point": lambda t: unary("QLinearSigmoid", t, False),
    "leaky_relu": lambda t: unary("QLinearLeakyRelu", t, True, alpha=0.13),
    "leaky_relu_default_alpha": lambda t: unary("QLinearLeakyRelu", t, True),
    "leaky_relu_no_zero_points": lambda t: unary("QLinearLeakyRelu", t, False, alpha=0.2),
    "global_average_pool": lambda t: global_pool(t, (2, 3, 5, 7), 0),
    "global_average_pool_1d": lambda t: global_pool(t, (1, 4, 9), 0),
    "global_average_pool_channels_last": lambda t: global_pool(t, (2, 5, 7, 3), 1),
    "average_pool_pads": lambda t: average_pool(
        t, (2, 3, 7, 6), 0, kernel_shape=[2, 3], pads=[1, 0, 1, 1], strides=[2, 1]
    ),
    "average_pool_channels_last": lambda t: average_pool(
        t, (2, 7, 6, 3), 1, kernel_shape=[2, 3], pads=[1, 0, 1, 1], strides=[2, 1]
    ),
    "average_pool_include_pad_ceil": lambda t: average_pool(
        t,
        (1, 2, 7, 7),
        0,
        kernel_shape=[3, 3],
        pads=[1, 1, 1, 1],
        strides=[2, 2],
        count_include_pad=1,
        ceil_mode=1,
    ),
    "average_pool_same_upper": lambda t: average_pool(
        t, (1, 2, 5, 6), 0, kernel_shape=[3, 2], strides=[2, 2], auto_pad="SAME_UPPER"
    ),
    "average_pool_1d": lambda t: average_pool(t, (2, 3, 11), 0, kernel_shape=[3], strides=[2]),
    "concat": lambda t: concat(t, 2),
    "concat_axis_0": lambda t: concat(t, 0),
    "softmax": lambda t: softmax(t, 13, None),
    "softmax_axis_1": lambda t: softmax(t, 13, 1),
    "softmax_opset_12": lambda t: softmax(t, 12, 1),
    "softmax_opset_12_default_axis": lambda t: softmax(t, 12, None),
    "where": where,
    "qgemm": lambda t: qgemm(t, 0, 0, False, True),
    "qgemm_per_column": lambda t: qgemm(t, 0, 0, True, True),
    "qgemm_trans_a_b_per_column": lambda t: qgemm(t, 1, 1, True, True),
    "qgemm_trans_b_no_bias": lambda t: qgemm(t, 0, 1, True, False),
}


def assert_steps(got: np.ndarray, want: np.ndarray, case: Case) -> None:
    """`got` equals `want`, or where onnxruntime rounds differently, is 1
    step off where the exact value is within HALF_STEP of a half step."""
    assert (got.shape, got.dtype) == (want.shape, want.dtype)
    steps = np.abs(got.astype(np.int64) - want.astype(np.int64))
    if not case.rounds_differently:
        np.testing.assert_array_equal(got, want)
        return
    fraction = np.abs(case.exact - np.floor(case.exact) - 0.5)
    near_tie = np.broadcast_to(fraction < HALF_STEP, steps.shape)
    assert steps.max() <= 1, f"{steps.max()} steps apart"
    assert not np.any(steps[~near_tie]), f"{int((steps[~near_tie] > 0).sum())} away from ties"


@pytest.mark.parametrize("type_name", sorted(TYPES))
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_onnxruntime(name: str, type_name: str) -> None:
    case = CASES[name](TYPES[type_name])
    (want,) = _session(case.model).run(None, case.feeds)
    got = onnxc.compile(case.model, cache=False).run(case.feeds)["y"]
    assert_steps(got, want, case)


@pytest.mark.parametrize("type_name", sorted(TYPES))
@pytest.mark.parametrize(
    ("axes", "keepdims"), [([1], 1), (None, 0), ([-1, 0], None)], ids=["1", "all", "last_first"]
)
def test_reduce_mean_is_its_definition(
    axes: list[int] | None, keepdims: int | None, type_name: str
) -> None:
    """onnxruntime has no CPU kernel: QuantizeLinear of the float64 mean
    (ties to even), 1 step off only within HALF_STEP of a tie."""
    dtype = TYPES[type_name]
    case = reduce_mean(dtype, axes, keepdims)
    zero = [t for t in case.model.graph.initializer if t.name == "y_zero"][0]
    info = np.iinfo(dtype)
    level = np.rint(case.exact) + onnx.numpy_helper.to_array(zero)
    want = np.clip(level, info.min, info.max).astype(dtype)
    got = onnxc.compile(case.model, cache=False).run(case.feeds)["y"]
    assert_steps(got, want, case)


@pytest.mark.parametrize("type_name", sorted(TYPES))
@pytest.mark.parametrize("y_scale", [False, True], ids=["float", "float_over_y_scale"])
def test_qgemm_float_output(y_scale: bool, type_name: str) -> None:
    """Without y_zero_point QGemm's output is float32: alpha * a_scale *
    b_scale * (the integer product + C), divided by y_scale when that is
    given, as onnxruntime's kernel does. Its integer product is exact, the
    expansion's float Gemm accumulates in float32: within 1e-5 of the
    largest output."""
    gemm = Gemm.make(TYPES[type_name], 1, 1, True, True, alpha=1.5)
    scale = np.array(0.37, np.float32)
    output = [("y_scale", F, ())] if y_scale else []
    model = gemm.model(output, {"y_scale": scale} if y_scale else {})
    session = _session(model)
    (want,) = session.run(None, {"a": gemm.a.values})
    got = onnxc.compile(model, cache=False).run({"a": gemm.a.values})["y"]
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-5 * float(np.abs(want).max()))


def test_computed_scales() -> None:
    """Scales and zero points fed at run time, not initializers: the same
    expansion (onnxruntime builds its lookup table then)."""
    x = every_value(np.uint8, (16, 16))
    values = [*operand("x", x), ("y_scale", F, ()), ("y_zero", TensorProto.UINT8, ())]
    model = contrib_model(
        "QLinearLeakyRelu", values, [("y", TensorProto.UINT8, (16, 16))], {"alpha": 0.2}
    )
    compiled = onnxc.compile(model, cache=False)
    session = _session(model)
    assert x.zero is not None
    for scale, zero in [(0.05, 100), (0.011, 3)]:
        feeds = {
            "x": x.values,
            "x_scale": x.scale,
            "x_zero": x.zero,
            "y_scale": np.array(scale, np.float32),
            "y_zero": np.array(zero, np.uint8),
        }
        np.testing.assert_array_equal(compiled.run(feeds)["y"], session.run(None, feeds)[0])


def test_malformed_nodes_are_refused_in_one_line() -> None:
    """A missing required input, one input too many, QLinearConcat inputs
    that are not triples, QLinearSoftmax without `opset` and QGemm's
    y_zero_point without y_scale name the node and what is wrong."""
    u8 = TensorProto.UINT8
    x: list[Value] = [("x", u8, (2, 3)), ("s", F, ()), ("z", u8, ())]
    y: list[Value] = [("y", u8, (2, 3))]
    assert_refused_in_one_line(
        contrib_model("QLinearAdd", [*x, ("b", u8, (2, 3))], y),
        r"node 'QLinearAdd' \(QLinearAdd\): its input 4 \(B scale\) is required",
    )
    assert_refused_in_one_line(
        contrib_model("QLinearSigmoid", [*x, ("s2", F, ()), ("z2", u8, ()), ("w", F, ())], y),
        r"node 'QLinearSigmoid' \(QLinearSigmoid\): it has 6 inputs, QLinearSigmoid takes at",
    )
    assert_refused_in_one_line(
        contrib_model("QLinearConcat", [("s", F, ()), ("z", u8, ()), x[0]], y, {"axis": 0}),
        r"node 'QLinearConcat' \(QLinearConcat\): it has 3 inputs, not Y_scale, Y_zero_point",
    )
    assert_refused_in_one_line(
        contrib_model("QLinearSoftmax", [*x, ("s2", F, ()), ("z2", u8, ())], y),
        r"node 'QLinearSoftmax' \(QLinearSoftmax\): it needs an integer attribute 'opset'",
    )
    gemm = [*x, ("w", u8, (3, 2)), ("ws", F, ()), ("wz", u8, ())]
    no_scale: list[Value] = [NONE_C, ("", F, ()), ("yz", u8, ())]
    assert_refused_in_one_line(
        contrib_model("QGemm", [*gemm, *no_scale], [("y", u8, (2, 2))]),
        r"node 'QGemm' \(QGemm\): its input 7 \(y_scale\) is required",
    )


# --- a quantized CNN ----------------------------------------------------------

MODEL_STEPS = 1
"""The tolerance of the CNN, in steps of each quantized tensor's scale
(steps of 1/256 at the Softmax output): the operators above round a near
tie differently now and then, and a step can carry through the layers."""


class QOperatorCNN(nn.Module):
    """1x3x9x9 -> 10 probabilities through every operator the quantizer
    writes as a com.microsoft QOperator node."""

    input_shape = (1, 3, 9, 9)

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.inner = nn.Conv2d(8, 8, 3, padding=1)
        self.project = nn.Conv2d(8, 8, 1)
        self.side = nn.Conv2d(8, 4, 3, stride=2, padding=1)
        self.pool = nn.AvgPool2d(2)
        self.squeeze = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(12 + 16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem(x))
        x = nn.functional.leaky_relu(x + self.project(torch.relu(self.inner(x))), 0.1)
        gated = torch.sigmoid(x) * x
        side = self.pool(torch.relu(self.side(gated)))
        joined = torch.cat([gated, x[:, :4] * 2], 1)
        features = torch.cat([self.squeeze(joined).flatten(1), side.flatten(1)], 1)
        return torch.softmax(self.head(features), -1)


class _Calibration(quantization.CalibrationDataReader):
    def __init__(self, count: int = 8) -> None:
        rng = np.random.default_rng(3)
        shape = QOperatorCNN.input_shape
        self.batches = iter(
            [{"input": rng.standard_normal(shape).astype(np.float32)} for _ in range(count)]
        )

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.batches, None)


def _quantized_cnn(tmp_path: Path, per_channel: bool, activation: str) -> onnx.ModelProto:
    """The CNN quantized in the QOperator format, every quantized tensor a
    node of com.microsoft or QLinearConv writes made a graph output too
    (onnxc wants their shapes declared: onnxruntime gives them)."""
    torch.manual_seed(0)
    float_path = export(
        QOperatorCNN().eval(),
        torch.randn(*QOperatorCNN.input_shape),
        tmp_path / "cnn.onnx",
        dynamo=False,
        opset=17,
    )
    path = tmp_path / "cnn_qoperator.onnx"
    quantization.quantize_static(
        str(float_path),
        str(path),
        _Calibration(),
        quant_format=quantization.QuantFormat.QOperator,
        activation_type=getattr(quantization.QuantType, activation),
        weight_type=quantization.QuantType.QInt8,
        per_channel=per_channel,
    )
    model = onnx.load(path)
    element = TensorProto.UINT8 if activation == "QUInt8" else TensorProto.INT8
    watched = [
        n.output[0] for n in model.graph.node if n.domain == MICROSOFT or n.op_type == "QLinearConv"
    ]
    model.graph.output.extend(
        helper.make_tensor_value_info(name, element, None) for name in watched
    )
    session = _session(model)
    x = np.zeros(QOperatorCNN.input_shape, np.float32)
    shapes = dict(zip(watched, session.run(watched, {"input": x}), strict=True))
    del model.graph.output[1:]
    model.graph.output.extend(
        helper.make_tensor_value_info(name, element, shapes[name].shape) for name in watched
    )
    return model


@pytest.mark.parametrize("activation", ["QUInt8", "QInt8"])
@pytest.mark.parametrize("per_channel", [False, True], ids=["per_tensor", "per_channel"])
def test_quantized_cnn_matches_onnxruntime(
    tmp_path: Path, per_channel: bool, activation: str
) -> None:
    model = _quantized_cnn(tmp_path, per_channel, activation)
    contrib = {n.op_type for n in model.graph.node if n.domain == MICROSOFT}
    assert contrib == {
        "QGemm",
        "QLinearAdd",
        "QLinearAveragePool",
        "QLinearConcat",
        "QLinearGlobalAveragePool",
        "QLinearLeakyRelu",
        "QLinearMul",
        "QLinearSigmoid",
        "QLinearSoftmax",
    }, contrib
    (last,) = [n for n in model.graph.node if n.output[0] == "output"]
    assert last.op_type == "DequantizeLinear"
    weights = {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}
    scale = float(weights[last.input[1]])
    session = _session(model)
    names = [o.name for o in session.get_outputs()]
    compiled = onnxc.compile(model, cache=False)
    rng = np.random.default_rng(4)
    for _ in range(4):
        x = rng.standard_normal(QOperatorCNN.input_shape).astype(np.float32)
        want = dict(zip(names, session.run(None, {"input": x}), strict=True))
        got = compiled.run({"input": x})
        steps = np.abs(got["output"].astype(np.float64) - want["output"]) / scale
        assert steps.max() <= MODEL_STEPS + 1e-3, f"output {steps.max():.3f} steps apart"
        for name in names[1:]:
            apart = np.abs(got[name].astype(np.int64) - want[name].astype(np.int64))
            assert apart.max() <= MODEL_STEPS, f"{name}: {apart.max()} steps apart"
