"""Building generated C with cffi, caching, and running it against numpy.

Tolerances: arithmetic that is exact in float32 (adds of small values, max, copies,
integer ops, int-valued floats) is compared exactly; libm functions (exp, tanh, erf,
sqrt) with rtol 1e-6 / atol 1e-7, since libm and numpy may differ by an ulp."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from test_c_printer import (  # noqa: E402
    AFFINE_DIV,
    CONV,
    ELEMENTWISE,
    F64_SCALAR,
    INTEGER,
    MATH,
    REDUCTION,
    parse,
)

from onnxc.emit.build import CompiledC, build_extension  # noqa: E402
from onnxc.emit.c_interface import print_c  # noqa: E402
from onnxc.errors import BuildError, RunError  # noqa: E402


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    cache = tmp_path_factory.getbasetemp() / "onnxc-cache"
    monkeypatch.setenv("ONNXC_CACHE_DIR", str(cache))


def load(text: str, name: str = "model") -> CompiledC:
    c_source, header = print_c(parse(text), name)
    return CompiledC(build_extension(c_source, header, name), name)


def test_elementwise_with_weight_and_arena() -> None:
    m = load(ELEMENTWISE)
    assert m.workspace_size == 24  # one 2x3 f32 buffer: exact, not rounded up
    assert [(t.name, t.shape) for t in m.inputs] == [("input.1", (2, 3)), ("y", (2, 3))]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    (z,) = m.call([x, y])
    bias = np.array([0.1, -2.5, 3.0e38], np.float32)
    np.testing.assert_array_equal(z, np.maximum(x + y + bias, -1.5).reshape(6))


def test_reduction_iter_args() -> None:
    m = load(REDUCTION)
    x = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    s, mx = m.call([x])
    expected = np.zeros(4, np.float32)
    for j in range(5):  # the C sums in this order
        expected += x[:, j]
    np.testing.assert_array_equal(s, expected)
    np.testing.assert_array_equal(mx, x.max(axis=1))


def test_conv_affine_apply() -> None:
    m = load(CONV)
    x = np.arange(8, dtype=np.float32).reshape(1, 8) - 3
    (y,) = m.call([x])
    w = np.array([0.25, 0.5, -1.0], np.float32)
    padded = np.pad(x[0], 1)
    expected = np.array([padded[i : i + 3] @ w for i in range(8)], np.float32)
    np.testing.assert_allclose(y[0], expected, rtol=1e-6)


def test_affine_floordiv_mod_ceildiv_negative() -> None:
    (o,) = load(AFFINE_DIV).call([])
    d = np.arange(8) - 4
    np.testing.assert_array_equal(o[0], d // 3)
    np.testing.assert_array_equal(o[1], d % 3)
    np.testing.assert_array_equal(o[2], [-((-v) // 3) for v in d])


def test_integer_ops() -> None:
    m = load(INTEGER)
    a = np.array([2147483647, -7, 7, -9], np.int32)
    b = np.array([1, 2, -2, 4], np.int32)
    s, q, fq, lt, f, w = m.call([a, b])
    np.testing.assert_array_equal(s, (a.astype(np.int64) + b).astype(np.int32))
    np.testing.assert_array_equal(q, [int(x / y) for x, y in zip(a, b, strict=True)])
    np.testing.assert_array_equal(fq, a // b)
    np.testing.assert_array_equal(lt, (a < b).astype(np.uint8))
    af = a.astype(np.float32)
    np.testing.assert_array_equal(f, np.where(a < b, af * np.float32(0.5), af))
    k = np.array([-2147483648, -7, 3, 1], np.int64)
    np.testing.assert_array_equal(w, (a.astype(np.int64) * k).astype(np.int32))


def test_math_functions() -> None:
    x = np.array([-2.5, -0.5, 0.0, 0.5, 1.5, 2.5], np.float32)
    (y,) = load(MATH).call([x])
    erf = np.array([math.erf(v) for v in x.tolist()], np.float32)
    np.testing.assert_allclose(y[0], np.exp(x), rtol=1e-6)
    np.testing.assert_allclose(y[1], np.tanh(x), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(y[2], erf, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(y[3], np.sqrt(np.abs(x)), rtol=1e-6)
    np.testing.assert_array_equal(y[4], np.floor(x))
    np.testing.assert_array_equal(y[5], np.round(x))  # half to even
    np.testing.assert_array_equal(y[6], np.abs(x))


def test_f64_weight_and_scalar_output() -> None:
    m = load(F64_SCALAR)
    assert m.workspace_size == 0
    y, s = m.call([])
    np.testing.assert_array_equal(y, [1.5, -2.0, 0.1, 1.0e300])
    assert s.shape == () and s == 42.0


def test_weights_round_trip_exactly() -> None:
    values = np.random.default_rng(2).standard_normal(37).astype(np.float32) * 1e3
    text = (
        '"memref.global"() <{sym_name = "w", sym_visibility = "private", '
        "type = memref<37xf32>, initial_value = dense<0.0> : tensor<37xf32>, "
        "constant}> : () -> ()\n"
        "func.func @main(%y: memref<37xf32>) {\n"
        "  %w = memref.get_global @w : memref<37xf32>\n"
        '  "memref.copy"(%w, %y) : (memref<37xf32>, memref<37xf32>) -> ()\n'
        "  func.return\n}\n"
    )
    from xdsl.dialects import memref
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType, f32

    module = parse(text)
    (g,) = [op for op in module.ops if isinstance(op, memref.GlobalOp)]
    g.properties["initial_value"] = DenseIntOrFPElementsAttr.from_list(
        TensorType(f32, [37]), values.tolist()
    )
    c_source, header = print_c(module, "wrt")
    (y,) = CompiledC(build_extension(c_source, header, "wrt"), "wrt").call([])
    assert y.tobytes() == values.tobytes()


def test_workspace_checks() -> None:
    c_source, header = print_c(parse(ELEMENTWISE), "ws")
    ext = build_extension(c_source, header, "ws")
    ffi, lib = ext.ffi, ext.lib
    x = ffi.new("float[6]")
    z = ffi.new("float[6]")
    arena = ffi.new("double[8]")  # 64 bytes, 8-aligned at least
    base = int(ffi.cast("uintptr_t", arena))
    aligned = ffi.cast("char *", arena) + (-base % 16)
    assert lib.ws_run_with_workspace(aligned, x, x, z) == 0
    assert lib.ws_run_with_workspace(aligned + 4, x, x, z) < 0  # misaligned
    assert lib.ws_run_with_workspace(ffi.NULL, x, x, z) < 0
    assert lib.ws_run(x, ffi.NULL, z) < 0


def test_cache_reuse_and_key() -> None:
    c_source, header = print_c(parse(REDUCTION), "cached")
    first = build_extension(c_source, header, "cached")
    assert build_extension(c_source, header, "cached") is first
    other = build_extension(c_source, header, "cached", extra_cflags=["-O1"])
    assert other is not first
    assert first.__file__ is not None
    cache = Path(first.__file__).parent
    assert [p for p in cache.iterdir() if p.name.startswith(".build-")] == []


def test_call_checks_arguments() -> None:
    m = load(REDUCTION)
    with pytest.raises(RunError, match="float32"):
        m.call([np.zeros((4, 5), np.float64)])
    with pytest.raises(RunError, match="shape"):
        m.call([np.zeros((5, 4), np.float32)])
    with pytest.raises(RunError, match="contiguous"):
        m.call([np.zeros((5, 4), np.float32).T])


def test_compiler_error_is_reported() -> None:
    c_source, header = print_c(parse(REDUCTION), "broken")
    with pytest.raises(BuildError, match="broken.c"):
        build_extension(c_source + "\nint oops = ;\n", header, "broken")
