"""`inline-functions`: the model's local functions inlined into its graph."""

from __future__ import annotations

from onnx import inliner

from onnxc.frontend.state import ModelState, Rewrite


def inline_functions(state: ModelState) -> bool:
    """Every call of a model-local function replaced by the function's nodes."""
    if not state.model.functions:
        return False
    state.model = inliner.inline_local_functions(state.model)
    return True


INLINE_FUNCTIONS = Rewrite("inline-functions", inline_functions)
