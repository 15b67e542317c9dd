"""The free dimensions of a model's inputs, known before the model is
compiled, and the flags that give them sizes.

A free dimension is a size the C takes at run time: a dim_param that no
`--dim` binds, or an unnamed or -1 input dimension (which the front end's
`bind-dimensions` names `INPUT_dimK`). `onnxc check` lists them. `onnxc run
--random` and `onnxc bench` need a size for each to make inputs, and ask for
the missing ones before compiling (`ask_for_sizes`): a compile and a C build
take tens of seconds on real models, reading the inputs' names and sizes
from the model as the front end prepares it a fraction of that, and only a
declared input dimension left without a size makes it read them.
"""

from __future__ import annotations

import shlex
import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import onnx

from onnxc.emit.runner import Dim
from onnxc.errors import OnnxcError, OnnxcWarning
from onnxc.frontend import ModelLike, load_model, prepare_model
from onnxc.frontend.rewrites.check_model import UNNAMED
from onnxc.options import CompileOptions

NamedShape = tuple[str, tuple[Dim, ...]]
"""A tensor input's name and shape: sizes, names of free dimensions, and None
for a size without a name (an unnamed dimension of a model not prepared yet,
or a size the model computes)."""


def input_shapes(model: onnx.ModelProto) -> list[NamedShape]:
    """The declared shapes of `model`'s tensor inputs that have no default
    (an initializer); inputs of other kinds (sequences, optionals) and inputs
    without a shape are left out."""
    defaults = {t.name for t in model.graph.initializer}
    found: list[NamedShape] = []
    for value in model.graph.input:
        tensor = value.type.tensor_type if value.type.HasField("tensor_type") else None
        if value.name in defaults or tensor is None or not tensor.HasField("shape"):
            continue
        shape: list[Dim] = []
        for dim in tensor.shape.dim:
            if dim.HasField("dim_value") and dim.dim_value >= 0:
                shape.append(dim.dim_value)
            else:
                shape.append(None if dim.dim_param in UNNAMED else dim.dim_param)
        found.append((value.name, tuple(shape)))
    return found


def sizes_given(inputs: Sequence[NamedShape], arrays: Mapping[str, np.ndarray]) -> dict[str, int]:
    """The sizes that arrays given for some inputs (`--input` files) give the
    free dimensions of their shapes, when an array has its input's rank."""
    known: dict[str, int] = {}
    for name, shape in inputs:
        array = arrays.get(name)
        if array is None or array.ndim != len(shape):
            continue
        for dim, size in zip(shape, array.shape, strict=True):
            if isinstance(dim, str):
                known.setdefault(dim, size)
    return known


def unsized(inputs: Sequence[NamedShape], known: Mapping[str, int]) -> list[NamedShape]:
    """The inputs with a dimension that has no size: a free one `known` does
    not size, or one without a name."""
    return [
        (name, shape)
        for name, shape in inputs
        if any(d is None or (isinstance(d, str) and d not in known) for d in shape)
    ]


def dim_flag(name: str) -> str:
    """`--dim NAME=SIZE`, the name quoted for the shell (a dim_param may hold
    spaces)."""
    return f"--dim {shlex.quote(name)}=SIZE"


def size_flags(inputs: Sequence[NamedShape], known: Mapping[str, int]) -> list[str]:
    """The flags that give `inputs` the sizes `known` does not: `--dim
    NAME=SIZE` once per free dimension, quoted for the shell, or `--shape
    INPUT=...` for an input with a dimension `--dim` cannot name (no name,
    or one holding `=`)."""
    flags: list[str] = []
    for name, shape in unsized(inputs, known):
        free = [d for d in shape if not isinstance(d, int) and (d is None or d not in known)]
        if all(d and "=" not in d for d in free):
            flags += [dim_flag(str(d)) for d in free]
        else:
            sizes = ",".join(_size_text(d, known) for d in shape)
            flags.append(f"--shape {shlex.quote(f'{name}={sizes}')}")
    return list(dict.fromkeys(flags))


def _size_text(dim: Dim, known: Mapping[str, int]) -> str:
    if isinstance(dim, int):
        return str(dim)
    return str(known[dim]) if dim is not None and dim in known else "SIZE"


def free_names(inputs: Sequence[NamedShape], known: Mapping[str, int]) -> list[str]:
    """The free dimensions of `inputs` that `known` does not size, in order."""
    return list(
        dict.fromkeys(d for _, s in inputs for d in s if isinstance(d, str) and d not in known)
    )


def missing_sizes(inputs: Sequence[NamedShape], known: Mapping[str, int]) -> str | None:
    """The one-line request for the sizes `inputs` lack beside `known`, with
    the flags that give them; None when none lacks a size."""
    left = unsized(inputs, known)
    if not left:
        return None
    if len(left) == 1:
        which = f"input '{left[0][0]}' has"
    else:
        which = "inputs " + ", ".join(f"'{name}'" for name, _ in left) + " have"
    named = ", ".join(map(shlex.quote, free_names(left, known))) or "sizes it cannot know"
    flags = " ".join(size_flags(left, known))
    return f"{which} free dimension(s) {named}; give their sizes: {flags}"


def ask_for_sizes(
    model: ModelLike, options: CompileOptions, given: Mapping[str, np.ndarray]
) -> None:
    """Raise the request for sizes (`missing_sizes`) when the inputs not in
    `given` have free dimensions that neither `options` nor the arrays of
    `given` size, before anything is compiled. The declared inputs tell
    whether one may lack a size; only then is the model prepared, for the
    names the compiled model would give (`INPUT_dimK`). Warnings of the
    front end are left to the compile, which gives them again."""
    proto = load_model(model)
    declared = input_shapes(proto)
    known = {**sizes_given(declared, given), **options.dims}
    left = [i for i in declared if i[0] not in given and i[0] not in options.shapes]
    if not unsized(left, known):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OnnxcWarning)
        prepared = prepare_model(proto, options.dims, options.shapes).model
    inputs = input_shapes(prepared)
    message = missing_sizes(
        [i for i in inputs if i[0] not in given], {**sizes_given(inputs, given), **options.dims}
    )
    if message is not None:
        raise OnnxcError(message)
