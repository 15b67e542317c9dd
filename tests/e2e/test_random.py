"""The random operators end to end. ONNX leaves the generator open, so the
values cannot match onnxruntime's or numpy's: these tests check the
distributions over large tensors (each estimate within 5 standard errors,
or a tighter bound where the draw has no spread) and the determinism of the
counter-based generator (same seed, same numbers; another seed or another
unseeded node, other numbers), and training-mode Dropout's mask against its
output."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnxc
from tests.e2e.statistics import (
    multinomial_statistics,
    normal_statistics,
    uniform_statistics,
    within,
)

SIZE = (256, 256)
N = SIZE[0] * SIZE[1]


def model(
    nodes: list[onnx.NodeProto],
    inputs: Sequence[tuple[str, int, Sequence[int]]],
    outputs: Sequence[tuple[str, int, Sequence[int]]],
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "random",
        [helper.make_tensor_value_info(*i) for i in inputs],
        [helper.make_tensor_value_info(*o) for o in outputs],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])
    proto.ir_version = 10
    return proto


def generator(op_type: str, name: str, dtype: int = TensorProto.FLOAT, **attributes: Any):
    return helper.make_node(op_type, [], [name], shape=list(SIZE), dtype=dtype, **attributes)


@pytest.mark.parametrize("dtype", [TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.FLOAT16])
def test_random_uniform_distribution(dtype: int) -> None:
    node = generator("RandomUniform", "u", dtype, low=-2.0, high=6.0, seed=1.0)
    values = onnxc.compile(model([node], [], [("u", dtype, list(SIZE))])).run({})["u"]
    uniform_statistics(-2.0, 6.0)({}, values)
    values = values.astype(np.float64).ravel()
    if dtype != TensorProto.FLOAT16:  # float16 may round up to high
        assert values.max() < 6.0
    histogram = np.histogram(values, bins=16, range=(-2, 6))[0]
    assert np.all(np.abs(histogram - N / 16) < 5 * np.sqrt(N / 16))


@pytest.mark.parametrize("dtype", [TensorProto.FLOAT, TensorProto.DOUBLE])
def test_random_normal_distribution(dtype: int) -> None:
    node = generator("RandomNormal", "z", dtype, mean=3.0, scale=0.5)
    values = onnxc.compile(model([node], [], [("z", dtype, list(SIZE))])).run({})["z"]
    normal_statistics(3.0, 0.5)({}, values)
    z = (values.astype(np.float64).ravel() - 3.0) / 0.5
    within(np.mean(z**3), 0.0, np.sqrt(15 / N), "skewness")
    within(np.mean(z**4), 3.0, np.sqrt(96 / N), "kurtosis")
    within(np.mean(np.abs(z) < 2), 0.9545, np.sqrt(0.9545 * 0.0455 / N), "within two deviations")


def test_same_seed_same_numbers_other_seed_other_numbers() -> None:
    dtype = TensorProto.FLOAT
    nodes = [
        generator("RandomNormal", "a", seed=7.0),
        generator("RandomNormal", "b", seed=7.0),
        generator("RandomNormal", "c", seed=8.0),
        generator("RandomNormal", "d"),
        generator("RandomNormal", "e"),
    ]
    proto = model(nodes, [], [(n, dtype, list(SIZE)) for n in "abcde"])
    first = onnxc.compile(proto).run({})
    again = onnxc.compile(proto).run({})
    for name in "abcde":
        np.testing.assert_array_equal(first[name], again[name])
    np.testing.assert_array_equal(first["a"], first["b"])
    for x, y in (("a", "c"), ("a", "d"), ("d", "e")):
        assert np.mean(first[x] == first[y]) < 0.001, (x, y)
        within(np.corrcoef(first[x].ravel(), first[y].ravel())[0, 1], 0.0, 1 / np.sqrt(N), x + y)


def test_random_like_takes_the_input_shape() -> None:
    node = helper.make_node("RandomUniformLike", ["x"], ["y"], dtype=TensorProto.DOUBLE)
    proto = model([node], [("x", TensorProto.INT32, [3, 5])], [("y", TensorProto.DOUBLE, [3, 5])])
    y = onnxc.compile(proto).run({"x": np.zeros((3, 5), np.int32)})["y"]
    assert y.shape == (3, 5) and y.dtype == np.float64
    assert np.all((y >= 0) & (y < 1)) and len(np.unique(y)) == 15


def test_bernoulli_frequencies() -> None:
    p = np.tile(np.array([0.0, 0.1, 0.5, 0.9, 1.0], np.float32), (N // 4, 1)).T.copy()
    node = helper.make_node("Bernoulli", ["p"], ["y"], dtype=TensorProto.INT64, seed=2.0)
    proto = model(
        [node], [("p", TensorProto.FLOAT, list(p.shape))], [("y", TensorProto.INT64, list(p.shape))]
    )
    y = onnxc.compile(proto).run({"p": p})["y"]
    assert y.dtype == np.int64 and set(np.unique(y)) <= {0, 1}
    assert np.all(y[0] == 0) and np.all(y[4] == 1)
    for row, q in ((1, 0.1), (2, 0.5), (3, 0.9)):
        within(y[row].mean(), q, np.sqrt(q * (1 - q) / y.shape[1]), f"p = {q}")


def test_multinomial_frequencies() -> None:
    with np.errstate(divide="ignore"):
        logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.5, 0.5, 0.0], [1, 1, 1, 1]]))
    samples = 40000
    node = helper.make_node("Multinomial", ["x"], ["y"], sample_size=samples, dtype=7, seed=3.0)
    proto = model(
        [node], [("x", TensorProto.DOUBLE, [3, 4])], [("y", TensorProto.INT64, [3, samples])]
    )
    y = onnxc.compile(proto).run({"x": logits})["y"]
    assert y.shape == (3, samples) and y.dtype == np.int64
    multinomial_statistics({"x": logits}, y)
    never = np.isinf(logits)  # classes of log probability -inf are never drawn
    assert not np.any(never[np.arange(3)[:, None], y])


def dropout_model(
    ratio: float | None, training: bool | None, mask: bool = True, dtype: int = TensorProto.FLOAT
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """Dropout of x [256, 256] with `ratio` and `training_mode` given at run
    time (None: omitted)."""
    inputs = [("x", dtype, list(SIZE))]
    feeds: dict[str, np.ndarray] = {
        "x": np.random.default_rng(0)
        .standard_normal(SIZE)
        .astype(helper.tensor_dtype_to_np_dtype(dtype))
    }
    names = ["x", "", ""]
    if ratio is not None:
        names[1] = "r"
        inputs.append(("r", TensorProto.FLOAT, []))
        feeds["r"] = np.array(ratio, np.float32)
    if training is not None:
        names[2] = "t"
        inputs.append(("t", TensorProto.BOOL, []))
        feeds["t"] = np.array(training)
    outputs = ["y", "m"] if mask else ["y"]
    node = helper.make_node("Dropout", names, outputs, seed=5)
    types = [("y", dtype, list(SIZE)), ("m", TensorProto.BOOL, list(SIZE))][: len(outputs)]
    return model([node], inputs, types), feeds


@pytest.mark.parametrize("ratio", [0.3, 0.75, None])
def test_training_dropout_scales_the_kept_elements(ratio: float | None) -> None:
    proto, feeds = dropout_model(ratio, True)
    out = onnxc.compile(proto).run(feeds)
    y, mask, x = out["y"], out["m"], feeds["x"]
    dropped = 0.5 if ratio is None else ratio
    within(1 - mask.mean(), dropped, np.sqrt(dropped * (1 - dropped) / N), "dropped")
    np.testing.assert_allclose(y, np.where(mask, x / np.float32(1 - dropped), 0), rtol=1e-6)
    assert np.all(y[~mask] == 0)


def test_training_dropout_without_mask_drops_the_same_elements() -> None:
    with_mask = dropout_model(0.4, True)
    without = dropout_model(0.4, True, mask=False)
    masked = onnxc.compile(with_mask[0]).run(with_mask[1])
    plain = onnxc.compile(without[0]).run(without[1])
    np.testing.assert_array_equal(masked["y"], plain["y"])


def test_training_dropout_double() -> None:
    proto, feeds = dropout_model(0.2, True, dtype=TensorProto.DOUBLE)
    out = onnxc.compile(proto).run(feeds)
    np.testing.assert_allclose(out["y"], np.where(out["m"], feeds["x"] / 0.8, 0), rtol=1e-7)
    within(1 - out["m"].mean(), 0.2, np.sqrt(0.16 / N), "dropped")


@pytest.mark.parametrize(("ratio", "training"), [(0.0, True), (0.5, False), (None, None)])
def test_dropout_that_keeps_everything(ratio: float | None, training: bool | None) -> None:
    """A zero ratio in training, or training_mode false at run time (or
    absent): the output is the input and the mask all true."""
    proto, feeds = dropout_model(ratio, training)
    out = onnxc.compile(proto).run(feeds)
    np.testing.assert_array_equal(out["y"], feeds["x"])
    assert np.all(out["m"])
