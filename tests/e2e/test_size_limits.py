"""Sizes taken from data at their limits: every operator that takes its output
sizes from a tensor (ConstantOfShape, Tile, Expand, Reshape, Range), and free
dimensions, at 0, -1, 2^31, 2^62 and the int64 extremes. A size that fits
gives the spec's result; one that does not (negative, more than 2^40
elements, invalid per the spec) stops the model with ONNXC_ERR_SHAPE before
anything is written. The outputs are the runner's buffers, each with guard
bytes checked after the call (`onnxc.emit.runner`); `python -m tests.sanitized`
runs this file under AddressSanitizer and UndefinedBehaviorSanitizer too, where
any size arithmetic that overflowed would be reported."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h

import onnxc
from onnxc.emit.build import CompiledC
from onnxc.errors import RunError

I64 = np.iinfo(np.int64)
BIG = [2**31, 2**40, 2**62, 2**62 + 3, I64.max]
SHAPE_STATUS = "status -5"


def _model(nodes, inputs, output_rank: int, out_type: int = T.FLOAT) -> onnx.ModelProto:
    graph = h.make_graph(
        nodes, "sizes", inputs, [h.make_tensor_value_info("y", out_type, [None] * output_rank)]
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 18)], ir_version=9)


def _refused(compiled: onnxc.CompiledModel, feeds: dict[str, np.ndarray]) -> None:
    with pytest.raises(RunError, match=SHAPE_STATUS):
        compiled.run(feeds)


@pytest.fixture(scope="module")
def constant_of_shape() -> onnxc.CompiledModel:
    value = h.make_tensor("v", T.FLOAT, [1], [7.0])
    node = h.make_node("ConstantOfShape", ["s"], ["y"], value=value)
    return onnxc.compile(_model([node], [h.make_tensor_value_info("s", T.INT64, [2])], 2))


@pytest.mark.parametrize("shape", [(2, 3), (0, 5), (5, 0), (0, 2**40)])
def test_constant_of_shape_that_fits(constant_of_shape, shape) -> None:
    y = constant_of_shape.run({"s": np.array(shape, np.int64)})["y"]
    assert y.shape == shape and (y == 7).all()


def test_an_empty_shape_numpy_cannot_hold(constant_of_shape) -> None:
    """(0, 2^63 - 1) holds no element: the model runs, numpy refuses the shape."""
    with pytest.raises(RunError, match="which a numpy array cannot have"):
        constant_of_shape.run({"s": np.array([0, I64.max], np.int64)})


@pytest.mark.parametrize(
    "shape",
    [(-1, 3), (I64.min, 1), (2**40, 2**40), (2**62 + 3, 8), (I64.max, 2), (2**32, 2**32)],
)
def test_constant_of_shape_too_large(constant_of_shape, shape) -> None:
    _refused(constant_of_shape, {"s": np.array(shape, np.int64)})


@pytest.fixture(scope="module")
def tile() -> onnxc.CompiledModel:
    inputs = [
        h.make_tensor_value_info("x", T.FLOAT, [2, 3]),
        h.make_tensor_value_info("r", T.INT64, [2]),
    ]
    return onnxc.compile(_model([h.make_node("Tile", ["x", "r"], ["y"])], inputs, 2))


def test_tile_that_fits(tile) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(
        tile.run({"x": x, "r": np.array([2, 0])})["y"], np.tile(x, (2, 0))
    )
    np.testing.assert_array_equal(
        tile.run({"x": x, "r": np.array([3, 2])})["y"], np.tile(x, (3, 2))
    )


@pytest.mark.parametrize(
    "repeats", [(-1, 1), (2**40, 2**40), (2**62 + 1, 4), (I64.max, 1), (2**31, 2**31), (I64.min, 1)]
)
def test_tile_too_large(tile, repeats) -> None:
    x = np.ones((2, 3), np.float32)
    _refused(tile, {"x": x, "r": np.array(repeats, np.int64)})


@pytest.fixture(scope="module")
def expand() -> onnxc.CompiledModel:
    inputs = [
        h.make_tensor_value_info("x", T.FLOAT, [3, 1]),
        h.make_tensor_value_info("s", T.INT64, [3]),
    ]
    return onnxc.compile(_model([h.make_node("Expand", ["x", "s"], ["y"])], inputs, 3))


def test_expand_that_fits(expand) -> None:
    x = np.arange(3, dtype=np.float32).reshape(3, 1)
    got = expand.run({"x": x, "s": np.array([2, 3, 4], np.int64)})["y"]
    np.testing.assert_array_equal(got, np.broadcast_to(x, (2, 3, 4)))
    assert expand.run({"x": x, "s": np.array([0, 3, 4], np.int64)})["y"].shape == (0, 3, 4)


@pytest.mark.parametrize(
    "shape", [(2**62 + 3, 3, 8), (2**40, 3, 2**40), (I64.max, 3, 1), (-1, 3, 1)]
)
def test_expand_too_large(expand, shape) -> None:
    _refused(expand, {"x": np.ones((3, 1), np.float32), "s": np.array(shape, np.int64)})


@pytest.fixture(scope="module")
def reshape() -> onnxc.CompiledModel:
    inputs = [
        h.make_tensor_value_info("x", T.FLOAT, [2, 3, 4]),
        h.make_tensor_value_info("s", T.INT64, [3]),
    ]
    return onnxc.compile(_model([h.make_node("Reshape", ["x", "s"], ["y"])], inputs, 3))


@pytest.mark.parametrize("shape", [(4, 3, 2), (-1, 3, 2), (0, 12, -1), (24, 1, 1)])
def test_reshape_that_fits(reshape, shape) -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = reshape.run({"x": x, "s": np.array(shape, np.int64)})["y"]
    want_shape = [x.shape[k] if v == 0 else v for k, v in enumerate(shape)]
    np.testing.assert_array_equal(got, x.reshape(want_shape))


@pytest.mark.parametrize(
    "shape",
    [
        (-1, -1, 24),  # two -1
        (-2, -12, 1),  # a negative size other than -1
        (2**62 + 3, 8, 1),  # wraps to 24 elements in 64 bits
        (2**40, 2**40, 0),
        (I64.max, I64.max, I64.max),
        (I64.min, -1, 1),
        (5, 5, 1),  # a count that is not the input's
    ],
)
def test_reshape_refused(reshape, shape) -> None:
    _refused(reshape, {"x": np.ones((2, 3, 4), np.float32), "s": np.array(shape, np.int64)})


@pytest.fixture(scope="module")
def int_range() -> onnxc.CompiledModel:
    inputs = [h.make_tensor_value_info(n, T.INT64, []) for n in ("a", "b", "c")]
    return onnxc.compile(_model([h.make_node("Range", ["a", "b", "c"], ["y"])], inputs, 1, T.INT64))


@pytest.mark.parametrize(
    ("start", "limit", "delta"),
    [
        (0, 10, 3),
        (10, 0, -3),
        (0, 0, 1),
        (5, 1, 1),
        (I64.min, I64.max, I64.max),  # 3 elements, the distance 2^64 - 1
        (I64.max, I64.min, I64.min),
        (2**62, 2**62 + 10, 3),
        (-5, 5, I64.min),
    ],
)
def test_range_at_extremes(int_range, start, limit, delta) -> None:
    feeds = {k: np.array(v, np.int64) for k, v in zip("abc", (start, limit, delta), strict=True)}
    got = int_range.run(feeds)["y"]
    count = max(-(-(limit - start) // delta), 0)  # Python integers: exact
    want = [start + k * delta for k in range(count)]
    assert got.tolist() == want


@pytest.mark.parametrize(
    ("start", "limit", "delta"), [(I64.min, I64.max, 1), (I64.max, I64.min, -1)]
)
def test_range_too_long(int_range, start, limit, delta) -> None:
    feeds = {k: np.array(v, np.int64) for k, v in zip("abc", (start, limit, delta), strict=True)}
    _refused(int_range, feeds)


def test_range_of_zero_delta(int_range) -> None:
    _refused(int_range, {k: np.array(v, np.int64) for k, v in zip("abc", (0, 5, 0), strict=True)})


def test_free_dimensions_too_large() -> None:
    """A product of free dimensions that overflows: the workspace it needs is
    computed without overflow and refused (the model's C is called with the
    sizes, not the Python runner, which would allocate the inputs)."""
    graph = h.make_graph(
        [h.make_node("MatMul", ["x", "w"], ["p"]), h.make_node("Relu", ["p"], ["y"])],
        "mm",
        [
            h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", 8]),
            h.make_tensor_value_info("w", T.FLOAT, [8, "seq"]),
        ],
        [h.make_tensor_value_info("y", T.FLOAT, ["batch", "seq", "seq"])],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 18)], ir_version=9)
    compiled = onnxc.compile(model)
    runner = compiled.runner
    assert isinstance(runner, CompiledC)
    ffi, lib, name = runner.ffi, runner.lib, runner.name
    size = getattr(lib, f"{name}_workspace_size")
    assert 0 < size(2, 3) < 1024
    for batch, seq in [(2**32, 2**32), (1, 2**61), (I64.max, 1)]:
        assert size(batch, seq) >= 2**44  # saturated, never wrapped
    run = getattr(lib, f"{name}_run_with_workspace")
    workspace = ffi.new("char[]", 64)
    available = ffi.new("size_t *", 0)
    x, w = ffi.new("float[]", 8), ffi.new("float[]", 8)
    y = ffi.new("onnxc_tensor *")
    shape = ffi.new("int64_t[]", 3)
    y.shape = shape
    for batch, seq in [(2**32, 2**32), (1, 2**61), (2**20, 2**20)]:
        available[0] = 0
        status = run(workspace, available, batch, seq, x, w, y)
        assert status == -5, (batch, seq, status)  # ONNXC_ERR_SHAPE
    feeds = {"x": np.ones((2, 3, 8), np.float32), "w": np.ones((8, 3), np.float32)}
    assert compiled.run(feeds)["y"].shape == (2, 3, 3)


def test_32_bit_limits_on_cortex_m4() -> None:
    """On a 32-bit target the limits are 2^20 elements and 16 MiB a buffer:
    the checks of sizes given at run time fit its ptrdiff_t (the C builds
    warning-free with arm-none-eabi-gcc, which rejects a comparison with a
    constant past the type's range) and refuse what exceeds the bounds."""
    repeats = h.make_tensor("r", T.INT64, [2], [2, 3])
    graph = h.make_graph(
        [
            h.make_node("Constant", [], ["r"], value=repeats),
            h.make_node("Tile", ["x", "r"], ["t"]),
            h.make_node("Relu", ["t"], ["y"]),
        ],
        "tile32",
        [h.make_tensor_value_info("x", T.FLOAT, ["n", 4])],
        [h.make_tensor_value_info("y", T.FLOAT, [None, None])],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 18)], ir_version=9)
    compiled = onnxc.compile(model, target="cortex-m4", name="limits32", max_dims={"n": 64})
    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    y = compiled.run({"x": x})["y"]
    np.testing.assert_array_equal(y, np.maximum(np.tile(x, (2, 3)), 0))
    with pytest.raises(RunError, match="status -5|above its bound|at most 64"):
        compiled.run({"x": np.zeros((65, 4), np.float32)})


def test_64_bit_c_refuses_a_32_bit_compiler(tmp_path) -> None:
    """The C of a 64-bit target checks sizes against limits a 32-bit
    ptrdiff_t cannot hold: a 32-bit compiler stops with an #error that says
    to generate the C for a 32-bit target, instead of building checks that
    do not hold."""
    import shutil
    import subprocess

    if shutil.which("arm-none-eabi-gcc") is None:
        pytest.skip("arm-none-eabi-gcc not installed")
    graph = h.make_graph(
        [h.make_node("Relu", ["x"], ["y"])],
        "wide",
        [h.make_tensor_value_info("x", T.FLOAT, ["n", 4])],
        [h.make_tensor_value_info("y", T.FLOAT, ["n", 4])],
    )
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 18)], ir_version=9)
    for target, fails in (("host", True), ("cortex-m4", False)):
        onnxc.generate_c(model, name="wide", target=target).write(tmp_path / target)
        built = subprocess.run(
            ["arm-none-eabi-gcc", "-std=c99", "-mcpu=cortex-m4", "-mthumb", "-c"]
            + [str(tmp_path / target / "wide.c"), "-o", str(tmp_path / f"{target}.o")],
            capture_output=True,
            text=True,
        )
        assert (built.returncode != 0) == fails, built.stderr
        assert ("generated for a 64-bit target" in built.stderr) == fails
