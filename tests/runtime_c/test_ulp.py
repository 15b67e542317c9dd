"""Every float function the generated C computes, against float64: the error
of each in ulps of float32, on dense and edge inputs, checked against the
bound stated for it (README's "Accuracy" table).

A function here is an ONNX operator on a float tensor, compiled by onnxc as a
model would use it (Sigmoid is the lowering's formula, Exp is `onnxc_expf` or
libm's `expf` as the target takes it, Sin is libm's `sinf`), run on

- dense inputs: every 4099th of the 2^32 float bit patterns (every binade,
  subnormals, infinities and NaNs), and grids of 2^18 points on [-20, 20]
  and 2^16 on [-1, 1], where the functions change most;
- edge inputs: +-0, the smallest and largest subnormals, the smallest
  normal, +-1 and its neighbours, where exp overflows and underflows, where
  sinh and cosh overflow, tan's pole, large arguments of sin, cos and tan,
  +-FLT_MAX, +-inf and NaN.

The reference is the function in float64 (numpy's, math's erf and erfc, or
the formula of the operator's spec evaluated in double, in a form that does
not cancel), rounded once to float32. The error of a result is how many
floats lie between it and that reference: 0 is the float64 result rounded
to float, an infinity or NaN must be matched exactly (a result rounding to
FLT_MAX where the reference overflows is 1). Each function's largest error
over the results of magnitude at least 2^-100 must stay within its bound;
results below that (where an intermediate such as exp(x) in x * sigmoid(x)
is subnormal and has lost digits, or where 1 / (1 + exp(-x)) is 0 below
x = -88.7) must be within 2^-120 absolutely. GELU's 1 + erf(x / sqrt 2) and
1 + tanh(u) cancel for negative x, as in onnxruntime and torch, which compute
the same formulas: their ulp bounds hold for x >= -1, and below, the error
is at most 2^-23 |x|.

The bounds are the largest errors measured on this project's machine kind
(glibc 2.36 for what the host C takes from libm; picolibc 1.8 on the
emulated Cortex-M4, on every 5th of the dense inputs and all the edge
ones; the Cortex-M0 target calls the same picolibc functions, in software
floating point, and is not measured). float16 and bfloat16 are
computed in float and rounded once: within 1 ulp of their own precision
everywhere (`test_narrow_floats_round_once`, on all 65536 inputs).

`python -m tests.runtime_c.test_ulp [TARGET ...]` prints the measured table.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxc
from tests.mcu.tools import needs_arm

Reference = Callable[[np.ndarray], np.ndarray]

TINY = 2.0**-100
"""Results below this magnitude are checked absolutely (`TINY_ERROR`)."""
TINY_ERROR = 2.0**-120


def _elementwise(function: Callable[[float], float]) -> Reference:
    vectorised = np.frompyfunc(function, 1, 1)

    def reference(x: np.ndarray) -> np.ndarray:
        return np.asarray(vectorised(x), dtype=np.float64)

    return reference


_erf = _elementwise(math.erf)
_erfc = _elementwise(math.erfc)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    e = np.exp(-np.abs(x))  # never overflows
    return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def _softplus(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


SELU_ALPHA = 1.67326319217681884765625  # the spec's defaults, float32 values
SELU_GAMMA = 1.05070102214813232421875
GELU_CUBIC = float(np.float32(0.044715))  # the lowering's constants
GELU_SQRT_2_OVER_PI = math.sqrt(float(np.float32(2.0 / math.pi)))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    """0.5 x (1 + tanh(u)) as x sigmoid(2u), the same function, which does
    not cancel."""
    return x * _sigmoid(2.0 * GELU_SQRT_2_OVER_PI * (x + GELU_CUBIC * x**3))


@dataclass(frozen=True)
class Function:
    """One function: the ONNX operator (and attributes) computing it, its
    float64 reference, and its bound in ulps on each target (`portable`
    None: as on host; `cortex_m4` None: not measured there). `domain` is
    where the ulp bound holds (x at least that), if not everywhere."""

    op: str
    reference: Reference
    host: int
    portable: int | None = None
    cortex_m4: int | None = None
    attributes: tuple[tuple[str, float | str], ...] = ()
    domain: float | None = None

    def bound(self, target: str) -> int | None:
        if target == "host":
            return self.host
        if target == "host-portable":
            return self.host if self.portable is None else self.portable
        return self.cortex_m4


FUNCTIONS: dict[str, Function] = {
    "exp": Function("Exp", np.exp, 0, 1, 1),
    "log": Function("Log", np.log, 1, 1, 1),
    "tanh": Function("Tanh", np.tanh, 0, 0, 2),
    "erf": Function("Erf", _erf, 1, 1, 1),
    "sqrt": Function("Sqrt", np.sqrt, 0, 0, 0),
    "reciprocal": Function("Reciprocal", lambda x: 1.0 / x, 0, 0, 0),
    "sin": Function("Sin", np.sin, 1, 1, 1),
    "cos": Function("Cos", np.cos, 1, 1, 1),
    "tan": Function("Tan", np.tan, 1, 1, 1),
    "asin": Function("Asin", np.arcsin, 1, 1, 1),
    "acos": Function("Acos", np.arccos, 1, 1, 1),
    "atan": Function("Atan", np.arctan, 1, 1, 1),
    "sinh": Function("Sinh", np.sinh, 2, 2, 2),
    "cosh": Function("Cosh", np.cosh, 1, 1, 1),
    "asinh": Function("Asinh", np.arcsinh, 2, 2, 1),
    "acosh": Function("Acosh", np.arccosh, 2, 2, 2),
    "atanh": Function("Atanh", np.arctanh, 2, 2, 2),
    "sigmoid": Function("Sigmoid", _sigmoid, 2, 2, 2),
    "softplus": Function("Softplus", _softplus, 1, 1, 1),
    "softsign": Function("Softsign", lambda x: x / (1.0 + np.abs(x)), 1, 1, 1),
    "elu": Function("Elu", lambda x: np.where(x < 0, np.expm1(x), x), 1, 1, 1),
    "selu": Function(
        "Selu", lambda x: SELU_GAMMA * np.where(x > 0, x, SELU_ALPHA * np.expm1(x)), 2, 2, 2
    ),
    "celu": Function(
        "Celu",
        lambda x: np.maximum(x, 0.0) + np.minimum(0.0, 2.0 * np.expm1(x / 2.0)),
        1,
        1,
        1,
        attributes=(("alpha", 2.0),),
    ),
    "mish": Function("Mish", lambda x: x * np.tanh(_softplus(x)), 3, 3, 3),
    "swish": Function("Swish", lambda x: x * _sigmoid(x), 3, 3, 3),
    "gelu": Function("Gelu", lambda x: 0.5 * x * _erfc(-x / math.sqrt(2.0)), 2, 2, 2, domain=-1.0),
    "gelu_tanh": Function(
        "Gelu", _gelu_tanh, 3, 3, 4, attributes=(("approximate", "tanh"),), domain=-1.0
    ),
}

POW_BOUND = {"host": 1, "host-portable": 1, "cortex-m4": 4}
POW_EXPONENTS = (2.0, 3.0, 0.5, -1.0, -2.0, 1.5, -0.5, 0.37, 7.0, -3.25, 10.0, 0.0)
"""Pow: each input raised to these, and to exponents drawn from [-12, 12]."""

SPECIAL = [
    0x00000000,  # +0
    0x80000000,  # -0
    0x00000001,  # the smallest subnormal
    0x807FFFFF,  # the largest negative subnormal
    0x00800000,  # the smallest normal
    0x3F800000,  # 1
    0xBF800000,  # -1
    0x3F7FFFFF,  # below 1
    0x3F800001,  # above 1
    0x42B17217,  # 88.7228: exp's last finite result
    0x42B17218,  # exp overflows from here
    0xC2AEAC50,  # -87.3365: exp's results subnormal from here
    0xC2CFF1B5,  # -103.97: exp underflows to 0 from here
    0x42B2D4FC,  # 89.4159: sinh and cosh overflow from here
    0x41A00000,  # 20
    0xC1A00000,  # -20
    0x3FC90FDB,  # pi / 2: tan's pole
    0x40490FDB,  # pi
    0x4B000000,  # 2^23: large arguments of sin, cos and tan
    0x7F7FFFFF,  # the largest float
    0xFF7FFFFF,  # the most negative float
    0x7F800000,  # +inf
    0xFF800000,  # -inf
    0x7FC00000,  # NaN
]

MCU_STRIDE = 5
"""The emulator takes every 5th of the dense inputs (and every edge one)."""


@cache
def inputs() -> np.ndarray:
    """The dense and edge inputs, as float32."""
    sweep = np.arange(0, 2**32, 4099, dtype=np.uint64).astype(np.uint32).view(np.float32)
    grids = [
        np.linspace(-20, 20, 2**18, dtype=np.float32),
        np.linspace(-1, 1, 2**16, dtype=np.float32),
    ]
    return np.concatenate([sweep, *grids, _special()])


def _special() -> np.ndarray:
    return np.array(SPECIAL, np.uint32).view(np.float32)


def inputs_for(target: str) -> np.ndarray:
    x = inputs()
    return x if target.startswith("host") else np.concatenate([x[::MCU_STRIDE], _special()])


def ordinal(bits: np.ndarray, width: int) -> np.ndarray:
    """Float bit patterns (unsigned, of `width` bits) as integers in the
    floats' order (+-0 both 0)."""
    magnitude = bits.astype(np.int64) & ((1 << (width - 1)) - 1)
    return np.where(bits.astype(np.int64) >> (width - 1) == 1, -magnitude, magnitude)


def ulps(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """How many floats lie between `got` (float32) and `exact` (float64)
    rounded to float32; NaN against NaN is 0, NaN against a number 2^32."""
    with np.errstate(over="ignore", invalid="ignore"):
        reference = exact.astype(np.float32)
    distance = np.abs(
        ordinal(got.astype(np.float32).view(np.uint32), 32) - ordinal(reference.view(np.uint32), 32)
    )
    nan = np.isnan(got), np.isnan(reference)
    return np.where(nan[0] | nan[1], np.where(nan[0] & nan[1], 0, 2**32), distance)


def unary_model(names: list[str], element: int = TensorProto.FLOAT) -> onnx.ModelProto:
    """One input `x` of free size `n`, an output per function."""
    x = helper.make_tensor_value_info("x", element, ["n"])
    outputs = [helper.make_tensor_value_info(n, element, ["n"]) for n in names]
    nodes: list[onnx.NodeProto] = []
    for name in names:
        node = helper.make_node(FUNCTIONS[name].op, ["x"], [name])
        node.attribute.extend(helper.make_attribute(k, v) for k, v in FUNCTIONS[name].attributes)
        nodes.append(node)
    graph = helper.make_graph(nodes, "functions", [x], outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)])


def pow_model() -> onnx.ModelProto:
    x, y = (helper.make_tensor_value_info(n, TensorProto.FLOAT, ["n"]) for n in ("x", "y"))
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n"])
    graph = helper.make_graph([helper.make_node("Pow", ["x", "y"], ["z"])], "pow", [x, y], [z])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)])


def pow_inputs(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Bases and exponents: each of `x` (signalling NaNs made quiet: libm's
    pow(sNaN, 0) is NaN, IEEE 754's rule, where the reference has 1) raised
    to each of POW_EXPONENTS and to drawn ones."""
    x = np.where(np.isnan(x), np.float32(np.nan), x)
    drawn = np.random.default_rng(0).uniform(-12, 12, x.size).astype(np.float32)
    exponents = [np.full(x.size, e, np.float32) for e in POW_EXPONENTS]
    return np.concatenate([x] * (len(exponents) + 1)), np.concatenate([*exponents, drawn])


CHUNK = 20000
"""Elements per emulator run: the input and 28 outputs fit its 4 MB of RAM."""


def run(
    model: onnx.ModelProto, target: str, feeds: dict[str, np.ndarray], name: str
) -> dict[str, np.ndarray]:
    """`model` compiled for `target` and run on `feeds` (in pieces on an MCU)."""
    if target.startswith("host"):
        return onnxc.compile(model, name=name, target=target).run(feeds)
    compiled = onnxc.compile(model, name=name, target=target, max_dims={"n": CHUNK})
    parts: dict[str, list[np.ndarray]] = {}
    size = next(iter(feeds.values())).size
    for start in range(0, size, CHUNK):
        piece = {k: v[start : start + CHUNK] for k, v in feeds.items()}
        for k, v in compiled.run(piece).items():
            parts.setdefault(k, []).append(v)
    return {k: np.concatenate(v) for k, v in parts.items()}


@dataclass(frozen=True)
class Measured:
    """A function's largest error: in ulps where the result's magnitude is
    at least TINY (and x in its domain), absolutely below TINY, and outside
    its domain relative to |x|."""

    ulps: int
    tiny: float
    tail: float = 0.0


def _measured(x: np.ndarray, got: np.ndarray, exact: np.ndarray, domain: float | None) -> Measured:
    errors = ulps(got, exact)
    inside = np.ones(x.size, bool) if domain is None else ~(x < domain)  # NaN is inside
    regular = ~(np.abs(exact) < TINY)
    difference = np.abs(got.astype(np.float64) - exact)
    tiny = float(np.max(difference[inside & ~regular], initial=0.0))
    outside = ~inside & np.isfinite(x)
    tail = float(np.max(difference[outside] / -x[outside], initial=0.0))
    return Measured(int(np.max(errors[inside & regular])), tiny, tail)


def measure(target: str) -> dict[str, Measured]:
    """The errors of each function (and "pow") on `target`."""
    x = inputs_for(target)
    names = list(FUNCTIONS)
    got = run(unary_model(names), target, {"x": x}, "functions")
    bases, exponents = pow_inputs(x)
    z = run(pow_model(), target, {"x": bases, "y": exponents}, "power")["z"]
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)  # (signalling NaNs become quiet)
        found = {
            n: _measured(x64, got[n], FUNCTIONS[n].reference(x64), FUNCTIONS[n].domain)
            for n in names
        }
        exact = np.power(bases.astype(np.float64), exponents.astype(np.float64))
        found["pow"] = _measured(bases.astype(np.float64), z, exact, None)
    return found


@cache
def _measured_on(target: str) -> dict[str, Measured]:
    return measure(target)


def _check(target: str) -> None:
    found = _measured_on(target)
    for name, function in FUNCTIONS.items():
        assert found[name].ulps <= (function.bound(target) or 0), (name, found[name])
    assert found["pow"].ulps <= POW_BOUND[target], found["pow"]
    assert max(m.tiny for m in found.values()) <= TINY_ERROR
    assert max(m.tail for m in found.values()) <= 2.0**-23


@pytest.mark.parametrize("target", ["host", "host-portable"])
def test_each_function_within_its_bound(target: str) -> None:
    _check(target)


@needs_arm
def test_each_function_within_its_bound_on_cortex_m4() -> None:
    _check("cortex-m4")


def test_exact_results_are_exact() -> None:
    """Where the function is exact in float (sqrt, 1 / x) or passes the
    edge value through, the result is that float, sign of zero included."""
    found = _measured_on("host")
    assert found["sqrt"].ulps == found["reciprocal"].ulps == 0
    names = ["sqrt", "reciprocal", "tanh", "sin", "atan", "exp", "sigmoid"]
    zeros = np.array([0.0, -0.0, np.inf, -np.inf], np.float32)
    got = run(unary_model(names), "host", {"x": zeros}, "edges")
    assert [np.signbit(v) for v in got["sqrt"][:2]] == [False, True]
    assert got["reciprocal"].tolist() == [np.inf, -np.inf, 0.0, -0.0]
    assert [np.signbit(v) for v in got["tanh"][:2]] == [False, True]
    assert got["tanh"][2:].tolist() == [1.0, -1.0]
    assert got["exp"].tolist() == [1.0, 1.0, np.inf, 0.0]
    assert got["sigmoid"].tolist() == [0.5, 0.5, 1.0, 0.0]
    assert np.isnan(got["sin"][2:]).all() and got["atan"][2:].tolist() == [
        np.float32(np.pi / 2),
        -np.float32(np.pi / 2),
    ]


# --- float16 and bfloat16 ----------------------------------------------------------

NARROW = {
    "float16": (TensorProto.FLOAT16, 11, -13, 65504.0),
    "bfloat16": (TensorProto.BFLOAT16, 8, -125, 3.3895313892515355e38),
}
"""Element type, precision in bits, smallest exponent e of a normal m 2^e
(m in [0.5, 1)), largest finite value."""


def round_to(exact: np.ndarray, precision: int, lowest: int, largest: float) -> np.ndarray:
    """`exact` rounded once, to nearest even, to a float format with
    `precision` bits and normals from 0.5 * 2^`lowest` (subnormals below)."""
    with np.errstate(all="ignore"):
        _, exponent = np.frexp(exact)
        quantum = np.ldexp(1.0, np.maximum(exponent, lowest) - precision)
        rounded = np.rint(exact / quantum) * quantum
        overflow = np.abs(rounded) > largest
        return np.where(
            overflow, np.copysign(np.inf, exact), np.where(np.isfinite(exact), rounded, exact)
        )


NARROW_EXCEPTIONS = {("bfloat16", "selu"): 2}
"""Selu's alpha and gamma are constants of the element type's body:
rounded to bfloat16's 8 bits, they are 0.1% off."""


@pytest.mark.parametrize("narrow", list(NARROW))
def test_narrow_floats_round_once(narrow: str) -> None:
    """float16 and bfloat16 are computed in float and rounded once: on every
    one of the 65536 inputs each function is within 1 ulp of its float64
    result rounded to the type (the rounding of a float result within an ulp
    or two of float's to the narrow type may land on the other side of a
    midpoint), but for NARROW_EXCEPTIONS; as for float, GELU inside its
    domain, or a result below TINY (bfloat16 has float's range) within
    TINY_ERROR."""
    import ml_dtypes

    element, precision, lowest, largest = NARROW[narrow]
    dtype = np.float16 if narrow == "float16" else ml_dtypes.bfloat16
    bits = np.arange(2**16, dtype=np.uint16)
    x = bits.view(dtype)
    got = onnxc.compile(unary_model(list(FUNCTIONS), element), name=f"functions_{narrow}").run(
        {"x": x}
    )
    with np.errstate(all="ignore"):
        x64 = x.astype(np.float64)
        for name, function in FUNCTIONS.items():
            reference = round_to(function.reference(x64), precision, lowest, largest)
            result = got[name].astype(np.float64)
            ours = ordinal(result.astype(dtype).view(np.uint16), 16)
            theirs = ordinal(reference.astype(dtype).view(np.uint16), 16)
            nan = np.isnan(result), np.isnan(reference)
            errors = np.where(
                nan[0] | nan[1], np.where(nan[0] & nan[1], 0, 2**16), abs(ours - theirs)
            )
            exact = function.reference(x64)
            inside = np.ones(x.size, bool) if function.domain is None else ~(x64 < function.domain)
            tiny = (np.abs(exact) < TINY) & (np.abs(result - exact) <= TINY_ERROR)
            within = (errors <= NARROW_EXCEPTIONS.get((narrow, name), 1)) | tiny
            assert within[inside].all(), name


if __name__ == "__main__":
    for target in sys.argv[1:] or ["host", "host-portable"]:
        for name, m in measure(target).items():
            print(f"{target:14} {name:12} {m.ulps:4d} ulps  tiny {m.tiny:.3g}  tail {m.tail:.3g}")
