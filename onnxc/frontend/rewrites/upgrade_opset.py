"""`upgrade-opset`: a model of an older default-domain opset upgraded to the
dialect's (`TARGET_OPSET`) with onnx's version converter; a newer one refused."""

from __future__ import annotations

import onnx

from onnxc.dialects.onnx import TARGET_OPSET
from onnxc.errors import OnnxcError, first_line
from onnxc.frontend.state import ModelState, Rewrite


def upgrade_opset(state: ModelState) -> bool:
    """Nothing to do for a model of ai.onnx.ml only, or at `TARGET_OPSET`."""
    opset = state.opset
    if opset is None or opset == TARGET_OPSET:
        return False
    if opset > TARGET_OPSET:
        raise OnnxcError(f"the model uses opset {opset}; onnxc supports up to {TARGET_OPSET}")
    declared = {value.name: value.type for value in state.model.graph.input}
    try:
        state.model = onnx.version_converter.convert_version(state.model, TARGET_OPSET)
    except Exception as error:
        raise OnnxcError(
            f"cannot upgrade the model from opset {opset} to {TARGET_OPSET}: {first_line(error)}"
        ) from None
    _keep_input_types(state.model.graph, declared)
    return True


def _keep_input_types(graph: onnx.GraphProto, declared: dict[str, onnx.TypeProto]) -> None:
    """The graph inputs keep the types they were declared with. The converter
    merges value infos by name, so an input that is also a graph output
    declared with unknown sizes came back with those (and static sizes became
    free dimensions)."""
    for value in graph.input:
        if value.name in declared and value.type != declared[value.name]:
            value.type.CopyFrom(declared[value.name])


UPGRADE_OPSET = Rewrite("upgrade-opset", upgrade_opset)
