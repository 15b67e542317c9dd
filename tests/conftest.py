"""What every test shares."""

from __future__ import annotations

import re

import pytest


@pytest.fixture(autouse=True)
def _no_compilation_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests exercise the compiler, not the compilation cache: an entry keyed by
    the compiler's source would survive a test that patches the compiler at run
    time (`tests/test_check.py` removes lowerings). `test_compile_cache.py`
    turns it back on in a cache of its own; C builds stay cached."""
    monkeypatch.setenv("ONNXC_NO_CACHE", "1")


PASS_BY_PASS = ("lowering", "fuzz", "frontend", "dialects")
"""The test folders whose compiles verify the IR after every pass, so that a
failure names the pass that broke it: the passes' own tests and the random
graphs. Elsewhere a compile verifies after every stage (`onnxc.pipeline`),
which finds the same invalid IR at a quarter less compile time; set
ONNXC_VERIFY_EACH_PASS=1 to name the pass there too."""


@pytest.fixture(autouse=True)
def _verify_each_pass(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = request.node.path.parent.name
    if folder in PASS_BY_PASS:
        monkeypatch.setenv("ONNXC_VERIFY_EACH_PASS", "1")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests whose name matches their module's `DESELECTED` pattern are
    deselected, not skipped: the backend suite's CUDA variants, half of its
    cases, are not tests of onnxc (which compiles for the CPU) to count."""
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        module = getattr(item, "module", None)
        pattern = getattr(module, "DESELECTED", None)
        matched = isinstance(pattern, str) and re.search(pattern, item.name) is not None
        (dropped if matched else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
