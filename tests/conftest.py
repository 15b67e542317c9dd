"""What every test shares."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_compilation_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests exercise the compiler, not the compilation cache: an entry keyed by
    the compiler's source would survive a test that patches the compiler at run
    time (`tests/test_check.py` removes lowerings). `test_compile_cache.py`
    turns it back on in a cache of its own; C builds stay cached."""
    monkeypatch.setenv("ONNXC_NO_CACHE", "1")
