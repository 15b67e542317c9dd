"""Sequences, optionals and ZipMap's maps as the compiler follows them at
compile time (see `sequences/resolver.py`): each is the names of the tensors it
holds. The Python side (`container_io.py`) groups those tensors back."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from onnxc.errors import OnnxcError

__all__ = [
    "Container",
    "Containers",
    "InputShape",
    "Maps",
    "Opt",
    "Ragged",
    "Seq",
    "ShapeArgument",
    "Value",
    "input_shape",
    "presence_flags",
    "rebuilt",
    "structure",
    "tensor_names",
]

Shape = tuple[int, ...]
InputShape = Shape | tuple[Shape, ...] | None
"""What `shapes=` gives for one input, normalised: a tensor's shape, a
sequence's list of shapes, or None for an absent optional."""
ShapeArgument = Sequence[int] | Sequence[Sequence[int]] | None
"""What a caller may give for one input in `shapes=` (see `input_shape`)."""


def input_shape(key: str, value: Any) -> InputShape:
    """A `shapes=` entry as tuples of ints: a shape, a list of shapes (a
    sequence input's tensors) or None (an absent optional input)."""
    if value is None:
        return None
    try:
        items: list[Any] = list(value)
        if items and all(isinstance(v, Sequence) for v in items):
            return tuple(tuple(int(x) for x in v) for v in items)
        return tuple(int(v) for v in items)
    except (TypeError, ValueError):
        raise OnnxcError(
            f"shapes['{key}'] must be a sequence of integers (a list of them for a "
            f"sequence input, None for an absent optional input), got {value!r}"
        ) from None


@dataclass(frozen=True)
class Seq:
    """A sequence known at compile time: the names of its tensors, in order."""

    items: tuple[str, ...]


@dataclass(frozen=True)
class Ragged:
    """A sequence whose length or tensors' shapes are known only at run time
    (see `sequences/ragged.py`): `data`, a 1-D tensor, holds its tensors'
    elements one tensor after the other (each in row-major order), and
    `shapes`, an int64 [length, 1 + width] tensor, each tensor's rank and
    then its sizes (padded with 1s to `width`). `ranks` are the ranks its
    tensors may have, known at compile time."""

    data: str
    shapes: str
    width: int
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class Opt:
    """An optional: its value, or None when empty. Where only the run
    decides (an If whose branches differ in presence), `present` names a
    bool scalar tensor telling whether it holds its value (the tensors of
    `value` then hold zeros when it does not)."""

    value: str | Seq | Ragged | None
    present: str | None = None


@dataclass(frozen=True)
class Maps:
    """A sequence of maps that ZipMap makes: one map per row of the tensor
    `values` ([N, C], or [C] for one map), from the constant `keys` (the C
    class labels, integers or strings) to that row's values."""

    values: str
    keys: tuple[int, ...] | tuple[str, ...]


Container = Seq | Ragged | Opt | Maps
"""A sequence, an optional or ZipMap's sequence of maps."""
Value = str | Container
"""A tensor's name or a container."""


@dataclass
class Containers:
    """How the graph's sequence and optional inputs and outputs became
    tensors: `inputs[name]`/`outputs[name]` is the container, whose tensors
    are graph inputs/outputs; `fixed` lists the inputs with a default that
    were frozen to it because a sequence position reads them."""

    inputs: dict[str, Container] = field(default_factory=dict[str, Container])
    outputs: dict[str, Container] = field(default_factory=dict[str, Container])
    fixed: list[str] = field(default_factory=list[str])

    def __bool__(self) -> bool:
        return bool(self.inputs or self.outputs or self.fixed)


def structure(values: tuple[Value, ...]) -> object:
    """What the If branches' `values` for one output share (a tensor, a
    sequence of N tensors, an optional of ...), or None if they differ."""
    shapes = {_shape_of_value(v) for v in values}
    return shapes.pop() if len(shapes) == 1 else None


def _shape_of_value(value: Value | None) -> object:
    if value is None or isinstance(value, str):
        return value if value is None else "tensor"
    if isinstance(value, Seq):
        return ("sequence", len(value.items))
    if isinstance(value, Ragged):
        return ("ragged", value.width, value.ranks)
    if isinstance(value, Maps):
        return ("maps", value.keys)
    return ("optional", _shape_of_value(value.value))


def tensor_names(value: Value | None) -> list[str]:
    """The names of the tensors `value` holds, in order."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Seq):
        return list(value.items)
    if isinstance(value, Ragged):
        return [value.data, value.shapes]
    if isinstance(value, Maps):
        return [value.values]
    return [*tensor_names(value.value), *([value.present] if value.present else [])]


def presence_flags(value: Value | None) -> set[str]:
    """The run-time presence flags among `value`'s tensors (bool scalars)."""
    if isinstance(value, Opt):
        return {value.present} if value.present else set()
    return set()


def rebuilt(shape: Value, names: Iterator[str]) -> Value:
    """A container of the structure of `shape` holding the next of `names`."""
    if isinstance(shape, str):
        return next(names)
    if isinstance(shape, Seq):
        return Seq(tuple(next(names) for _ in shape.items))
    if isinstance(shape, Ragged):
        return Ragged(next(names), next(names), shape.width, shape.ranks)
    if isinstance(shape, Maps):
        return Maps(next(names), shape.keys)
    inner = None if shape.value is None else rebuilt(shape.value, names)
    assert not isinstance(inner, Opt | Maps)  # an optional holds a tensor or a sequence
    return Opt(inner, next(names) if shape.present else None)
