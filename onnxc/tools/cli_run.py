"""`onnxc run`: compile, build and run a model on .npy or random inputs,
print, save and compare its outputs (with stored ones or with onnxruntime's)."""

from __future__ import annotations

import argparse
import importlib.util
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from onnxc import container_io
from onnxc.errors import OnnxcError
from onnxc.tools import exact_integer
from onnxc.tools.cli_args import compile_options, key_value, load_npy, output_folder, progress_of
from onnxc.tools.free_dims import ask_for_sizes, sizes_given
from onnxc.tools.random_inputs import random_input

if TYPE_CHECKING:
    from onnxc.api import CompiledModel


def run_command(args: argparse.Namespace) -> int:
    """`run`: its `--save` folder is made for it and removed again when the
    run fails (see `output_folder`)."""
    with output_folder(args.save, "--save"):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from onnxc.api import compile_with

    if args.rtol < 0 or args.atol < 0:
        raise OnnxcError("--rtol and --atol must not be negative")
    progress = progress_of(args)
    options = compile_options(args)
    files = _input_files(args)
    if args.random:
        ask_for_sizes(args.model, options, {k: array for k, (_, array) in files.items()})
    model = compile_with(args.model, options, progress=progress)
    if len(args.expect) > len(model.output_names):
        raise OnnxcError(
            f"--expect: {len(args.expect)} files for {len(model.output_names)} output(s) "
            f"({', '.join(model.output_names)})"
        )
    containers = model.generated.containers
    inputs = container_io.group_inputs(_run_inputs(args, model, files), containers)
    outputs = model.run(inputs)
    if progress is not None:
        progress.step("run")
        progress.total()
    np.set_printoptions(precision=6, suppress=True, threshold=64)
    for name, value in outputs.items():
        _show(name, value)
    if args.save is not None:
        _save_outputs(args.save, outputs)
    mismatched = 0
    for name, path in zip(model.output_names, args.expect, strict=False):
        if not isinstance(outputs[name], np.ndarray):
            raise OnnxcError(
                f"--expect for '{name}': it is a sequence or an optional, not a tensor "
                "(compare it with --compare onnxruntime)"
            )
        expected = load_npy(path, f"--expect for '{name}'")
        mismatched += not _compare(name, outputs[name], expected, path, args.rtol, args.atol)
    if args.compare == "onnxruntime":
        reference = _run_onnxruntime(args.model, inputs, model.output_names)
        for name in model.output_names:
            mismatched += not _compare_value(
                name, outputs[name], reference[name], args.rtol, args.atol
            )
    return 1 if mismatched else 0


def _show(name: str, value: Any) -> None:
    """Print an output: a tensor (and its argmax), a sequence's tensors, an
    absent optional, ZipMap's maps."""
    if value is None:
        print(f"{name}: none (an empty optional)")
    elif isinstance(value, list) and all(isinstance(v, np.ndarray) for v in value):
        print(f"{name}: a sequence of {len(value)} tensor{'s' if len(value) != 1 else ''}")
        for k, item in enumerate(value):
            print(f"{name}[{k}] {item.dtype}{list(item.shape)}:")
            print(item)
    elif isinstance(value, np.ndarray):
        print(f"{name} {value.dtype}{list(value.shape)}:")
        print(value)
        _print_argmax(name, value)
    else:
        print(f"{name}: {value!r}")


def _compare_value(name: str, got: Any, expected: Any, rtol: float, atol: float) -> bool:
    """`_compare` with onnxruntime's value of an output: a tensor, a
    sequence of them (tensor by tensor), an optional (None when empty) or
    ZipMap's maps (equal or not)."""
    what = "onnxruntime"
    if isinstance(got, list) and got and isinstance(got[0], dict):
        ok = got == expected
        print(f"{name}: {'matches' if ok else 'DOES NOT match'} {what} (maps)")
        return ok
    if isinstance(got, list) or isinstance(expected, list):
        if not (isinstance(got, list) and isinstance(expected, list)) or len(got) != len(expected):
            count = len(expected) if isinstance(expected, list) else "not a sequence"
            print(f"{name}: DOES NOT match {what}: {len(got)} tensors, expected {count}")
            return False
        pairs = zip(got, expected, strict=True)
        return all(
            [
                _compare(f"{name}[{k}]", g, np.asarray(e), what, rtol, atol)
                for k, (g, e) in enumerate(pairs)
            ]
        )
    if got is None or expected is None:
        ok = got is None and expected is None
        print(f"{name}: {'matches' if ok else 'DOES NOT match'} {what} (presence)")
        return ok
    return _compare(name, got, np.asarray(expected), what, rtol, atol)


def _input_files(args: argparse.Namespace) -> dict[str, tuple[str, np.ndarray]]:
    """The files of the `--input NAME=FILE.npy` options and their arrays, by name."""
    files: dict[str, tuple[str, np.ndarray]] = {}
    for item in args.input:
        key, path = key_value(item, "--input")
        files[key] = (path, load_npy(path, f"--input {key}"))
    return files


def _run_inputs(
    args: argparse.Namespace, model: CompiledModel, files: dict[str, tuple[str, np.ndarray]]
) -> dict[str, np.ndarray]:
    """The inputs of `onnxc run`: the --input files, checked against the model's
    inputs (name and element type) and cast to its element types (so that
    onnxruntime, with --compare, gets what onnxc ran), then random values
    (--random) for the others that have no default."""
    from onnxc.api import converts_safely

    specs = {spec.name: spec for spec in model.runner.inputs}
    inputs: dict[str, np.ndarray] = {}
    for key, (path, array) in files.items():
        spec = specs.get(key)
        if spec is None:
            raise OnnxcError(
                f"--input {key}: the model has no input '{key}' "
                f"(its inputs: {', '.join(model.input_names)})"
            )
        wanted = spec.element.numpy_dtype
        if not converts_safely(array.dtype, wanted):
            raise OnnxcError(f"--input {key}: expected {wanted}, got {array.dtype} in '{path}'")
        inputs[key] = array.astype(wanted, copy=False)
    left = [
        spec
        for spec in model.runner.inputs
        if spec.name not in inputs and spec.name not in model.generated.input_defaults
    ]
    if left and not args.random:
        raise OnnxcError(
            "missing input(s): "
            + ", ".join(f"--input {s.name}=FILE.npy" for s in left)
            + " (or --random)"
        )
    known = sizes_given([(s.name, s.shape) for s in model.runner.inputs], inputs)
    rng = np.random.default_rng(args.seed)
    for spec in left:
        inputs[spec.name] = random_input(spec, known, rng)
    return inputs


def _print_argmax(name: str, value: np.ndarray) -> None:
    """The argmax of a float output, per row of its leading (batch) dimension."""
    if value.dtype.kind != "f" or value.ndim == 0 or value.size <= 1:
        return
    if value.ndim == 1:
        print(f"{name} argmax: {int(np.argmax(value))}")
        return
    rows = [int(i) for i in np.argmax(value.reshape(value.shape[0], -1), axis=1)]
    if len(rows) == 1:
        print(f"{name} argmax: {rows[0]}")
    else:
        print(f"{name} argmax per row: {rows}")


def _compare(
    name: str, got: np.ndarray, expected: np.ndarray, what: str, rtol: float, atol: float
) -> bool:
    """Print how `got` compares with `expected` (from `what`); True if they match."""
    if got.shape != expected.shape:
        print(
            f"{name}: DOES NOT match {what}: shape mismatch "
            f"(got {list(got.shape)}, expected {list(expected.shape)})"
        )
        return False
    if got.dtype.kind in "OUS" or expected.dtype.kind in "OUS":  # strings: equal or not
        texts = [
            [v.decode() if isinstance(v, bytes) else str(v) for v in a.reshape(-1)]
            for a in (got, expected)
        ]
        differ = sum(a != b for a, b in zip(*texts, strict=True))
        ok = differ == 0
        print(f"{name}: {'matches' if ok else 'DOES NOT match'} {what} ({differ} strings differ)")
        return ok
    got64 = got.astype(np.float64)
    want64 = expected.astype(np.float64)
    ok = bool(np.allclose(got64, want64, rtol=rtol, atol=atol, equal_nan=True))
    error = np.where(np.isnan(got64) & np.isnan(want64), 0.0, np.abs(got64 - want64))
    nonzero = want64 != 0
    max_abs = float(np.max(error)) if error.size else 0.0
    max_rel = float(np.max(error[nonzero] / np.abs(want64[nonzero]))) if nonzero.any() else 0.0
    print(
        f"{name}: {'matches' if ok else 'DOES NOT match'} {what} "
        f"(max abs error {max_abs:.3g}, max rel error {max_rel:.3g}; "
        f"rtol {rtol:g}, atol {atol:g})"
    )
    return ok


def _run_onnxruntime(
    model_path: str, inputs: dict[str, Any], output_names: list[str]
) -> dict[str, Any]:
    """The outputs onnxruntime computes for the same inputs."""
    if importlib.util.find_spec("onnxruntime") is None:
        raise OnnxcError(
            "--compare onnxruntime: onnxruntime is not installed (pip install onnxruntime)"
        )
    try:
        session = exact_integer.session(model_path)
        wanted = {i.name for i in session.get_inputs()}
        feed = {k: v for k, v in inputs.items() if k in wanted}
        values = session.run(output_names, feed)
    except Exception as error:  # onnxruntime raises its own exception types
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise OnnxcError(
            f"--compare onnxruntime: onnxruntime cannot run the model ({first})"
        ) from None
    return dict(zip(output_names, values, strict=True))


def _save_outputs(path: str, outputs: dict[str, Any]) -> None:
    """Each tensor output as NAME.npy, each tensor of a sequence output as
    NAME.K.npy; an empty optional and ZipMap's maps are not saved."""
    folder = Path(path)
    for name, value in outputs.items():
        stem = name.replace(os.sep, "_")
        if isinstance(value, np.ndarray):
            _save(folder / f"{stem}.npy", name, value)
        elif isinstance(value, list) and all(isinstance(v, np.ndarray) for v in value):
            for k, item in enumerate(value):
                _save(folder / f"{stem}.{k}.npy", f"{name}[{k}]", item)
        else:
            print(f"{name} not saved ({'an empty optional' if value is None else 'maps'})")


def _save(target: Path, name: str, value: np.ndarray) -> None:
    if value.dtype == object:  # strings: saved as a numpy str array (no pickle)
        value = value.astype(str)
    try:
        np.save(target, value, allow_pickle=False)
    except OSError as error:
        raise OnnxcError(f"--save: cannot write '{target}' ({error.strerror})") from None
    print(f"saved {name} to {target}")
