"""`upgrade-opset`: a model of an older default-domain opset upgraded to the
dialect's (`TARGET_OPSET`) with onnx's version converter; a newer one refused.

The converter is C++ that trusts the model: on some inputs it crashes the
process (a segmentation fault), which no `except` catches. Where the platform
can fork, it runs in a child process that sends the upgraded model back
through a pipe, so that a crash is a one-line error and the compiler lives on
(the `check-model` rewrite refuses the negative dimensions known to crash it
before this runs)."""

from __future__ import annotations

import faulthandler
import os
import sys
import tempfile

import onnx

from onnxc.dialects.onnx import TARGET_OPSET
from onnxc.errors import OnnxcError, first_line
from onnxc.forked import run_forked
from onnxc.frontend.state import ModelState, Rewrite

DEADLINE_SECONDS = 60.0
DEADLINE_BYTES_PER_SECOND = 1e6
"""How long a converting child may take before it is taken for stuck: a
minute, and a second more per MB of model (conversions take well under a
second per MB)."""

_CONVERTED, _FAILED = b"+", b"-"
"""The first byte of the child's answer: the upgraded model's bytes follow,
or the converter's error message."""


def _convert(model: onnx.ModelProto, opset: int) -> onnx.ModelProto:
    """`model` upgraded, or an error naming what the converter said."""
    try:
        return onnx.version_converter.convert_version(model, TARGET_OPSET)
    except Exception as error:
        raise OnnxcError(
            f"cannot upgrade the model from opset {opset} to {TARGET_OPSET}: {first_line(error)}"
        ) from None


def _convert_in_child(model: onnx.ModelProto, opset: int) -> onnx.ModelProto:
    """`_convert` in a forked child (`onnxc.forked`), its result serialized
    through a pipe: a crash of the converter ends the child only, and is
    reported with the last line it printed (a failed C++ assertion says
    what). What it prints otherwise (warnings) is passed on as the converter
    would have printed it. A child that never answers (one forked while
    another thread held a lock it needs) is forked again, and past that the
    conversion runs in this process."""
    with tempfile.TemporaryFile() as printed:

        def child(pipe: int) -> None:  # convert, answer, leave without cleanup
            os.dup2(printed.fileno(), 2)
            faulthandler.disable()  # a crash is the parent's one line, not a dump here
            try:
                answer = _CONVERTED + _convert(model, opset).SerializeToString()
            except BaseException as error:  # noqa: BLE001 - every failure goes to the parent
                answer = _FAILED + str(error).encode()
            with os.fdopen(pipe, "wb") as stream:
                stream.write(answer)
            sys.stderr.flush()
            os._exit(0)

        deadline = DEADLINE_SECONDS + model.ByteSize() / DEADLINE_BYTES_PER_SECOND
        result = run_forked(child, deadline)
        printed.seek(0)
        text = printed.read().decode(errors="replace")
    if not result.answered:
        return _convert(model, opset)
    answer = result.data
    if result.signal is not None or not answer:
        how = (
            f"signal {result.signal}"
            if result.signal is not None
            else f"exit status {result.exit_status}"
        )
        said = text.strip().splitlines()[-1:]
        if said:
            how += ": " + (said[0] if len(said[0]) <= 100 else "..." + said[0][-100:])
        raise OnnxcError(
            f"cannot upgrade the model from opset {opset} to {TARGET_OPSET}: "
            f"the version converter crashed ({how})"
        )
    sys.stderr.write(text)
    if answer[:1] == _FAILED:
        raise OnnxcError(answer[1:].decode(errors="replace"))
    return onnx.ModelProto.FromString(answer[1:])


def upgrade_opset(state: ModelState) -> bool:
    """Nothing to do for a model of ai.onnx.ml only, or at `TARGET_OPSET`."""
    opset = state.opset
    if opset is None or opset == TARGET_OPSET:
        return False
    if opset > TARGET_OPSET:
        raise OnnxcError(f"the model uses opset {opset}; onnxc supports up to {TARGET_OPSET}")
    declared = {value.name: value.type for value in state.model.graph.input}
    convert = _convert_in_child if hasattr(os, "fork") else _convert
    state.model = convert(state.model, opset)
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
