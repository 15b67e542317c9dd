"""Sequence and optional inputs and outputs on the Python side.

The C of a model knows only tensors: a sequence input or output is one tensor
per element, or, when known only at run time, its elements' data and shapes
(`sequences/ragged.py`); an optional is one tensor or none
(`sequences/resolver.py`). `run`
takes and returns them as the containers they are: a list of arrays for a
sequence, an array or None for an optional. This module flattens the inputs
and groups the outputs, and stores `Containers` in the compilation cache.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from onnxc.containers import Container, Containers, Maps, Opt, Ragged, Seq, tensor_names
from onnxc.errors import RunError

__all__ = [
    "flatten_inputs",
    "from_plain",
    "group_inputs",
    "group_outputs",
    "grouped_names",
    "to_plain",
]


def grouped_names(names: list[str], containers: Mapping[str, Container]) -> list[str]:
    """`names` (of the C's tensors) with each container's tensors replaced by
    the container's name, where its first tensor was (or at the end, for a
    container of no tensor)."""
    owner = {t: name for name, c in containers.items() for t in tensor_names(c)}
    grouped: list[str] = []
    for name in names:
        found = owner.get(name, name)
        if found not in grouped:
            grouped.append(found)
    grouped += [name for name in containers if name not in grouped]
    return grouped


def flatten_inputs(model: str, inputs: Mapping[str, Any], containers: Containers) -> dict[str, Any]:
    """`inputs` by tensor name: each container input's value spread over its
    tensors, after checking it has the length and presence compiled in."""
    for name in containers.fixed:
        if name in inputs:
            raise RunError(
                f"{model}: input '{name}' gives a sequence position and was fixed at "
                "compile time to its default; it cannot be given"
            )
    flat = {k: v for k, v in inputs.items() if k not in containers.inputs}
    for name, container in containers.inputs.items():
        if name in inputs:
            _spread(model, name, inputs[name], container, flat)
        elif tensor_names(container):
            raise RunError(f"{model}: missing input '{name}'")
    return flat


def _spread(model: str, name: str, value: Any, container: Container, flat: dict[str, Any]) -> None:
    if isinstance(container, Maps):
        raise RunError(f"{model}: input '{name}' is a sequence of maps, not supported")
    if isinstance(container, Opt):
        if container.value is None:
            if value is not None:
                raise RunError(f"{model}: input '{name}' was compiled absent; give None")
        elif value is None:
            raise RunError(
                f"{model}: input '{name}' was compiled present; compile with "
                f"shapes={{'{name}': None}} to run it absent"
            )
        elif isinstance(container.value, str):
            flat[container.value] = value
        else:
            _spread(model, name, value, container.value, flat)
        return
    assert isinstance(container, Seq), "sequence inputs are given at compile time"
    if not isinstance(value, list | tuple) or len(value) != len(container.items):
        count = len(container.items)
        raise RunError(
            f"{model}: input '{name}' is a sequence compiled for {count} "
            f"tensor{'s' if count != 1 else ''}; give a list of that many arrays"
        )
    for tensor, item in zip(container.items, value, strict=True):
        flat[tensor] = item


def group_outputs(outputs: Mapping[str, Any], containers: Containers) -> dict[str, Any]:
    """`outputs` by tensor name, with each container output's tensors grouped
    back into a list (a sequence) or an array or None (an optional)."""
    return _grouped(outputs, containers.outputs)


def group_inputs(inputs: Mapping[str, Any], containers: Containers) -> dict[str, Any]:
    """`inputs` by tensor name (`s[0]`, `s[1]`, ...), as `run` takes them:
    each container input's tensors grouped into its value (what
    `flatten_inputs` undoes)."""
    given = {
        name: container
        for name, container in containers.inputs.items()
        if all(t in inputs for t in tensor_names(container))
    }
    return _grouped(inputs, given)


def _grouped(values: Mapping[str, Any], containers: Mapping[str, Container]) -> dict[str, Any]:
    grouped: dict[str, Any] = {}
    for name in grouped_names(list(values), dict(containers)):
        container = containers.get(name)
        grouped[name] = values[name] if container is None else _gather(container, values)
    return grouped


def _gather(container: Container | str, outputs: Mapping[str, Any]) -> Any:
    if isinstance(container, str):
        return outputs[container]
    if isinstance(container, Maps):
        values = outputs[container.values]
        rows = values.reshape(1, -1) if values.ndim == 1 else values
        return [dict(zip(container.keys, row.tolist(), strict=True)) for row in rows]
    if isinstance(container, Seq):
        return [outputs[t] for t in container.items]
    if isinstance(container, Ragged):
        return _split(outputs[container.data], outputs[container.shapes])
    if container.present is not None and not bool(outputs[container.present]):
        return None  # empty at run time
    return None if container.value is None else _gather(container.value, outputs)


def _split(data: np.ndarray, shapes: np.ndarray) -> list[np.ndarray]:
    """The tensors of a sequence known only at run time: rows of `shapes`
    (rank, then sizes) cut `data` into them."""
    tensors: list[np.ndarray] = []
    start = 0
    for row in shapes.tolist():
        dims = tuple(int(d) for d in row[1 : 1 + int(row[0])])
        count = int(np.prod(dims, dtype=np.int64))
        tensors.append(data[start : start + count].reshape(dims))
        start += count
    return tensors


def to_plain(containers: Containers) -> dict[str, Any]:
    """`containers` as JSON-able data (for the compilation cache)."""
    return {
        "inputs": {k: _plain(v) for k, v in containers.inputs.items()},
        "outputs": {k: _plain(v) for k, v in containers.outputs.items()},
        "fixed": list(containers.fixed),
    }


def _plain(container: Container | str | None) -> Any:
    if container is None or isinstance(container, str):
        return container
    if isinstance(container, Maps):
        return {"maps": container.values, "keys": list(container.keys)}
    if isinstance(container, Seq):
        return {"sequence": list(container.items)}
    if isinstance(container, Ragged):
        return {"ragged": [container.data, container.shapes, container.width, *container.ranks]}
    return {"optional": _plain(container.value), "present": container.present}


def from_plain(plain: Mapping[str, Any]) -> Containers:
    """The `Containers` that `to_plain` gave."""
    return Containers(
        {str(k): _container(v) for k, v in plain["inputs"].items()},  # type: ignore[misc]
        {str(k): _container(v) for k, v in plain["outputs"].items()},  # type: ignore[misc]
        [str(n) for n in plain["fixed"]],
    )


def _container(plain: Any) -> Container | str | None:
    if plain is None or isinstance(plain, str):
        return plain
    if "maps" in plain:
        return Maps(str(plain["maps"]), tuple(plain["keys"]))
    if "sequence" in plain:
        return Seq(tuple(str(t) for t in plain["sequence"]))
    if "ragged" in plain:
        data, shapes, width, *ranks = plain["ragged"]
        return Ragged(str(data), str(shapes), int(width), tuple(int(r) for r in ranks))
    value = _container(plain["optional"])
    if isinstance(value, Opt | Maps):
        raise TypeError("an optional of an optional or of maps")
    present = plain.get("present")
    return Opt(value, None if present is None else str(present))
