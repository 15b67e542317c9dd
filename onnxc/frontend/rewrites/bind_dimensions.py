"""`bind-dimensions`: the sizes and symbols of the graph inputs' dimensions.

The graph outputs' dim_params are cleared first: as in onnxruntime, which
reads a declared output shape as a hint, an output's dim_param names a size
but does not hold it to the input dimension of the same name.
onnxruntime-genai's decoders declare their presents' length as the
attention mask's (`total_sequence_length`), but with a shared cache buffer
the present is the buffer's length; bound, the run would stop. Shape
inference still gives an output every size the graph determines."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import onnx

from onnxc.errors import OnnxcError
from onnxc.frontend.graphs import fix_shape, fresh_name, tensor_shapes
from onnxc.frontend.state import ModelState, Rewrite


def bind_dimensions(
    model: onnx.ModelProto, dims: dict[str, int], shapes: Mapping[str, Sequence[int]]
) -> list[str]:
    """Give each input dimension its size or symbol, in place: `shapes` fixes
    whole input shapes, `dims` binds dim_params (everywhere they appear); an
    unnamed or -1 input dimension gets the dim_param `INPUT_dimK`, so shape
    inference carries it; the outputs' dim_params are cleared. Returns the
    free dimensions (dim_params left unbound), in order of first appearance
    in the graph inputs."""
    graph = model.graph
    initializers = {t.name for t in graph.initializer}
    inputs = {i.name: i for i in graph.input}
    for name in shapes:
        if name not in inputs:
            raise OnnxcError(
                f"shapes names '{name}', which is not a graph input "
                f"(inputs: {', '.join(inputs) or 'none'})"
            )
    for name, size in dims.items():
        if size < 0:
            raise OnnxcError(f"dims['{name}'] is {size}; a dimension is 0 or more")
    taken = _all_dim_params(graph)
    free: list[str] = []
    used: set[str] = set()
    for value in graph.input:
        if not value.type.HasField("tensor_type") or value.name in initializers:
            continue
        tensor_type = value.type.tensor_type
        if value.name in shapes:
            fix_shape(value, shapes[value.name])
            continue
        if not tensor_type.HasField("shape"):
            raise OnnxcError(
                f"input '{value.name}' has no shape (not even a rank): pass "
                f"shapes={{'{value.name}': (...)}} or --shape {value.name}=..."
            )
        for axis, dim in enumerate(tensor_type.shape.dim):
            if dim.HasField("dim_value") and dim.dim_value >= 0:
                continue
            if not (dim.HasField("dim_param") and dim.dim_param):
                name = fresh_name(f"{value.name}_dim{axis}", taken)
                dim.Clear()
                dim.dim_param = name
            if dim.dim_param in dims:
                used.add(dim.dim_param)
            elif dim.dim_param not in free:
                free.append(dim.dim_param)
    unused = sorted(set(dims) - used - taken)
    if unused:
        raise OnnxcError(f"dims names {', '.join(map(repr, unused))}, which no tensor uses")
    for value in graph.output:
        _unnamed(value)
    for value in [*graph.input, *graph.output, *graph.value_info]:
        if not value.type.HasField("tensor_type"):
            continue
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_param") and dim.dim_param in dims:
                size = int(dims[dim.dim_param])
                dim.Clear()
                dim.dim_value = size
    return free


def _unnamed(value: onnx.ValueInfoProto) -> None:
    """`value` (a graph output) with its dim_params cleared (the module
    docstring)."""
    if value.type.HasField("tensor_type"):
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_param"):
                dim.Clear()


def _all_dim_params(graph: onnx.GraphProto) -> set[str]:
    return {
        dim.dim_param
        for value in [*graph.input, *graph.output, *graph.value_info]
        for dim in value.type.tensor_type.shape.dim
        if dim.HasField("dim_param")
    }


def _bind(state: ModelState) -> bool:
    shapes = tensor_shapes(state.model, state.shapes)
    state.free = bind_dimensions(state.model, dict(state.dims), shapes)
    return True


BIND_DIMENSIONS = Rewrite("bind-dimensions", _bind)
