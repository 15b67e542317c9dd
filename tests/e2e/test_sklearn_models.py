"""scikit-learn models exported with skl2onnx (integer or string class
labels, no ZipMap; and with ZipMap's list of dicts, integer or string keys) compile and
match onnxruntime: class labels exactly, probabilities
and scores within 1e-5 absolute (regression values within 1e-5 relative:
they are in the hundreds). The models are small (a few trees of depth 3 or
4, tens of support vectors) so the file runs in seconds.

They cover the ai.onnx.ml lowerings skl2onnx emits: LinearClassifier,
LinearRegressor, TreeEnsembleClassifier/Regressor, SVMClassifier (with
probabilities from prob_a/prob_b) and SVMRegressor, Scaler, Normalizer,
Imputer, ArrayFeatureExtractor (labels of argmax), and default-domain
MatMul/Softmax for the MLP."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sklearn")
skl2onnx = pytest.importorskip("skl2onnx")
ort = pytest.importorskip("onnxruntime")
pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")

from sklearn.datasets import make_classification, make_regression  # noqa: E402
from sklearn.ensemble import (  # noqa: E402
    AdaBoostClassifier,
    ExtraTreesClassifier,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.impute import SimpleImputer  # noqa: E402
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402
from sklearn.neural_network import MLPClassifier  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import MinMaxScaler, Normalizer, StandardScaler  # noqa: E402
from sklearn.svm import SVC, SVR, LinearSVC  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

import onnxc  # noqa: E402

PROBABILITY_TOLERANCE = 1e-5
"""Absolute, on probabilities and classifier scores."""
REGRESSION_TOLERANCE = 1e-5
"""Relative (and absolute), on regression values."""


def _data(make: Callable[..., Any], **arguments: Any) -> tuple[np.ndarray, np.ndarray]:
    found = make(**arguments)
    return np.asarray(found[0], np.float32), np.asarray(found[1])


X_CLASSES, Y_CLASSES = _data(
    make_classification, n_samples=160, n_features=6, n_informative=4, n_classes=3, random_state=0
)
X_BINARY, Y_BINARY = _data(make_classification, n_samples=160, n_features=6, random_state=1)
X_VALUES, Y_VALUES = _data(make_regression, n_samples=160, n_features=6, noise=0.5, random_state=2)
PROBABILITIES: dict[str, Any] = {"probability": True}
"""SVC's probabilities (prob_a/prob_b); scikit-learn 1.9 deprecates the
option, and its stubs type it as the deprecation marker."""

CLASSIFIERS: dict[str, Callable[[], Any]] = {
    "logistic_regression": lambda: LogisticRegression(max_iter=500),
    "mlp": lambda: MLPClassifier(hidden_layer_sizes=(16,), max_iter=300, random_state=0),
    "decision_tree": lambda: DecisionTreeClassifier(max_depth=4, random_state=0),
    "random_forest": lambda: RandomForestClassifier(n_estimators=8, max_depth=4, random_state=0),
    "gradient_boosting": lambda: GradientBoostingClassifier(
        n_estimators=8, max_depth=3, random_state=0
    ),
    "svc": lambda: SVC(random_state=0, **PROBABILITIES),
    "linear_svc": LinearSVC,
    "extra_trees": lambda: ExtraTreesClassifier(n_estimators=5, max_depth=4, random_state=0),
    "adaboost": lambda: AdaBoostClassifier(n_estimators=5, random_state=0),
    "scaler_pipeline": lambda: make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)),
    "normalizer_pipeline": lambda: make_pipeline(
        Normalizer(), RandomForestClassifier(n_estimators=4, max_depth=3, random_state=0)
    ),
}
REGRESSORS: dict[str, Callable[[], Any]] = {
    "linear_regression": LinearRegression,
    "random_forest_regressor": lambda: RandomForestRegressor(
        n_estimators=8, max_depth=4, random_state=0
    ),
    "gradient_boosting_regressor": lambda: GradientBoostingRegressor(
        n_estimators=8, max_depth=3, random_state=0
    ),
    "svr": lambda: SVR(C=10.0),
}


def _export(model: Any, x: np.ndarray) -> Any:
    """The ONNX model of a fitted estimator: float input [N, C], integer
    labels and a probability tensor (ZipMap off, for models that have one)."""
    options = {id(model): {"zipmap": False}} if hasattr(model, "predict_proba") else None
    return skl2onnx.to_onnx(model, x[:1], options=options, target_opset={"": 17, "ai.onnx.ml": 3})


def _compare(model: Any, x: np.ndarray, name: str) -> list[float]:
    """Compile the exported model, run both on `x`, and return the largest
    difference of each non-integer output."""
    proto = _export(model, x)
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: x}
    wanted = session.run(None, feed)
    got = onnxc.compile(proto, name=name).run(feed)
    errors: list[float] = []
    for want, (output, value) in zip(wanted, got.items(), strict=True):
        assert value.shape == want.shape, output
        if want.dtype.kind in "iuO":  # labels: int64 or strings
            assert value.tolist() == want.tolist(), output
            continue
        errors.append(float(np.abs(value.astype(np.float64) - want).max()))
    return errors


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
@pytest.mark.parametrize("classes", [2, 3])
def test_classifier_matches_onnxruntime(name: str, classes: int) -> None:
    x, y = (X_BINARY, Y_BINARY) if classes == 2 else (X_CLASSES, Y_CLASSES)
    model = CLASSIFIERS[name]().fit(x, y)
    errors = _compare(model, x[:40], f"{name}_{classes}")
    assert errors and max(errors) <= PROBABILITY_TOLERANCE, errors


NAMES = np.array(["ant", "bée", "", "日本"], dtype=object)
"""String class labels: non-ASCII and empty among them."""


@pytest.mark.parametrize("name", sorted(CLASSIFIERS))
@pytest.mark.parametrize("classes", [2, 3])
def test_classifier_with_string_labels_matches_onnxruntime(name: str, classes: int) -> None:
    x, y = (X_BINARY, Y_BINARY) if classes == 2 else (X_CLASSES, Y_CLASSES)
    model = CLASSIFIERS[name]().fit(x, NAMES[y + (classes == 2)])
    errors = _compare(model, x[:40], f"{name}_{classes}_strings")
    assert errors and max(errors) <= PROBABILITY_TOLERANCE, errors


@pytest.mark.parametrize("name", sorted(REGRESSORS))
def test_regressor_matches_onnxruntime(name: str) -> None:
    model = REGRESSORS[name]().fit(X_VALUES, Y_VALUES)
    proto = _export(model, X_VALUES)
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: X_VALUES[:40]}
    (want,) = session.run(None, feed)
    (got,) = onnxc.compile(proto, name=name).run(feed).values()
    assert got.shape == want.shape
    tolerance = REGRESSION_TOLERANCE
    np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance)


def test_imputer_pipeline_matches_onnxruntime() -> None:
    """SimpleImputer (onnx_ml.Imputer on NaN), MinMaxScaler (Scaler) and a
    logistic regression, on features with missing values."""
    x = X_CLASSES.copy()
    x[::5, 1] = np.nan
    x[::7, 4] = np.nan
    model = make_pipeline(SimpleImputer(), MinMaxScaler(), LogisticRegression(max_iter=500))
    errors = _compare(model.fit(x, Y_CLASSES), x[:40], "imputer_pipeline")
    assert errors and max(errors) <= PROBABILITY_TOLERANCE, errors


@pytest.mark.parametrize("strings", [False, True], ids=["int_keys", "string_keys"])
@pytest.mark.parametrize("name", ["logistic_regression", "random_forest", "scaler_pipeline"])
def test_zipmap_output_is_a_list_of_dicts(name: str, strings: bool) -> None:
    """skl2onnx's default export ends in ZipMap: `run` returns its sequence of
    maps as onnxruntime does, one dict per sample from class label to
    probability (in C, the probabilities are the output; the keys are the
    model's constant labels)."""
    model = CLASSIFIERS[name]().fit(X_CLASSES, NAMES[Y_CLASSES] if strings else Y_CLASSES)
    proto = skl2onnx.to_onnx(model, X_CLASSES[:1], target_opset={"": 17, "ai.onnx.ml": 3})
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: X_CLASSES[:20]}
    labels, wanted = session.run(None, feed)
    compiled = onnxc.compile(proto, name=f"zipmap_{name}")
    got_labels, got = compiled.run(feed).values()
    assert got_labels.tolist() == labels.tolist()
    assert isinstance(got, list) and len(got) == len(wanted) == 20
    for mine, theirs in zip(got, wanted, strict=True):
        assert list(mine) == list(theirs)  # the same keys, in the same order
        difference = max(abs(mine[k] - theirs[k]) for k in theirs)
        assert difference <= PROBABILITY_TOLERANCE


CATEGORIES = np.stack(
    [
        np.random.default_rng(3).choice(["red", "grün", "blue", ""], 160),
        np.random.default_rng(4).choice(["S", "M", "L"], 160),
    ],
    axis=1,
).astype(object)
"""Two string features: categories of colour (non-ASCII and empty among
them) and of size."""


@pytest.mark.parametrize("encoder", ["one_hot", "ordinal"])
@pytest.mark.parametrize("name", ["logistic_regression", "random_forest"])
def test_pipeline_on_string_features_matches_onnxruntime(encoder: str, name: str) -> None:
    """A pipeline that takes strings: OneHotEncoder (onnx_ml.OneHotEncoder on
    cats_strings) or OrdinalEncoder (LabelEncoder from strings), then a
    classifier with string labels."""
    from skl2onnx.common.data_types import StringTensorType
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    labels = NAMES[((CATEGORIES[:, 0] == "red") ^ (CATEGORIES[:, 1] == "M")).astype(int)]
    first = OneHotEncoder(handle_unknown="ignore") if encoder == "one_hot" else OrdinalEncoder()
    model = make_pipeline(first, CLASSIFIERS[name]()).fit(CATEGORIES, labels)
    proto = skl2onnx.to_onnx(
        model,
        initial_types=[("x", StringTensorType([None, 2]))],
        target_opset={"": 17, "ai.onnx.ml": 3},
        options={id(model.steps[-1][1]): {"zipmap": False}},
    )
    feed = {"x": CATEGORIES[:40]}
    session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    wanted_labels, wanted = session.run(None, feed)
    got_labels, got = onnxc.compile(proto, name=f"strings_{encoder}_{name}").run(feed).values()
    assert got_labels.tolist() == wanted_labels.tolist()
    assert np.abs(got - wanted).max() <= PROBABILITY_TOLERANCE
