"""A random forest and a gradient-boosting classifier (scikit-learn, exported
with skl2onnx) run on a Cortex-M4F in qemu and give the host build's labels
and probabilities exactly: the tree walk is comparisons of float32 features
with float32 thresholds and float sums in the same order on both sides
(-ffp-contract=off), and the gradient-boosting softmax's exp is picolibc's
expf on the MCU and exp in double rounded to float on the host, which may
be an ulp apart (rtol 1e-6). The node tables are
constant weights: they sit in flash (the ELF's text), not in RAM."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("sklearn")
skl2onnx = pytest.importorskip("skl2onnx")

from sklearn.datasets import make_classification  # noqa: E402
from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier  # noqa: E402

import onnxc  # noqa: E402
from onnxc.emit.cross import EmulatedC  # noqa: E402
from tests.mcu.tools import needs_arm  # noqa: E402

SAMPLES = 8

MODELS: dict[str, Any] = {
    "random_forest": lambda: RandomForestClassifier(n_estimators=10, max_depth=5, random_state=0),
    "gradient_boosting": lambda: GradientBoostingClassifier(
        n_estimators=10, max_depth=3, random_state=0
    ),
}


@needs_arm
@pytest.mark.parametrize("name", sorted(MODELS))
def test_cortex_m4_matches_host(name: str) -> None:
    found = make_classification(
        n_samples=200, n_features=8, n_informative=5, n_classes=3, random_state=0
    )
    x, y = np.asarray(found[0], np.float32), np.asarray(found[1])
    model = MODELS[name]().fit(x, y)
    proto = skl2onnx.to_onnx(
        model, x[:1], options={id(model): {"zipmap": False}}, target_opset={"": 17, "ai.onnx.ml": 3}
    )
    shapes = {"X": (SAMPLES, x.shape[1])}
    feed = {"X": x[:SAMPLES]}
    expected = onnxc.compile(proto, shapes=shapes, name=name).run(feed)
    on_mcu = onnxc.compile(proto, shapes=shapes, name=name, target="cortex-m4")
    got = on_mcu.run(feed)
    np.testing.assert_array_equal(got["label"], expected["label"])
    np.testing.assert_allclose(got["probabilities"], expected["probabilities"], rtol=1e-6, atol=0)
    np.testing.assert_array_equal(got["label"], model.predict(x[:SAMPLES]))
    assert isinstance(on_mcu.runner, EmulatedC)
    sizes = on_mcu.runner.size()
    assert on_mcu.workspace_size is not None
    assert sizes["data"] + sizes["bss"] >= on_mcu.workspace_size
