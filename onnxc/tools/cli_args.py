"""Argument parsing the `onnxc` commands share: NAME=VALUE options, dims and
shapes, .npy files, the compile options, and output folders (each problem a
one-line `OnnxcError`; a folder made for a command that fails is removed)."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from onnxc.containers import InputShape
from onnxc.errors import OnnxcError
from onnxc.options import CompileOptions
from onnxc.progress import Progress


def key_value(text: str, option: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key or not value:
        raise OnnxcError(f"{option} expects NAME=VALUE, got '{text}'")
    return key, value


def _dims(items: Sequence[str], option: str) -> dict[str, int]:
    dims: dict[str, int] = {}
    for item in items:
        key, value = key_value(item, option)
        try:
            dims[key] = int(value)
        except ValueError:
            raise OnnxcError(f"{option} {key}: '{value}' is not an integer") from None
        if dims[key] <= 0:
            raise OnnxcError(f"{option} {key}={value}: dims must be positive")
    return dims


def _shapes(items: Sequence[str]) -> dict[str, InputShape]:
    """`--shape INPUT=D0,D1,...`; for a sequence input its tensors' shapes,
    `INPUT=(D0,D1),(D0,D1)`; for an absent optional input, `INPUT=none`."""
    shapes: dict[str, InputShape] = {}
    for item in items:
        key, value = key_value(item, "--shape")
        try:
            if value.strip().lower() == "none":
                shapes[key] = None
            elif "(" in value:
                found = re.fullmatch(r"\s*\(([^()]*)\)(\s*,\s*\(([^()]*)\))*\s*", value)
                if found is None:
                    raise ValueError(value)
                shapes[key] = tuple(_sizes(s) for s in re.findall(r"\(([^()]*)\)", value))
            else:
                shapes[key] = _sizes(value)
        except ValueError:
            raise OnnxcError(
                f"--shape {key}: '{value}' is not a comma-separated list of integers "
                "(for a sequence input: (D0,D1),(D0,D1),...; for an absent optional: none)"
            ) from None
    return shapes


def _sizes(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.split(",") if v.strip())


def load_npy(path: str, what: str) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise OnnxcError(f"{what}: cannot read '{path}' ({str(error).splitlines()[0]})") from None


def compile_options(args: argparse.Namespace) -> CompileOptions:
    return CompileOptions.make(
        dims=_dims(args.dim, "--dim"),
        shapes=_shapes(args.shape),
        max_dims=_dims(args.max_dim, "--max-dim"),
        name=getattr(args, "name", None),
        target=args.target,
        separate_weights=getattr(args, "weights_file", False),
        binary_weights=getattr(args, "weights_binary", None),
        requantize=getattr(args, "requantize", "exact"),
        threads=getattr(args, "threads", 1),
    )


def writable_folder(path: str, option: str) -> Path:
    """`path` as a folder that exists (created if needed) and can be written."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise OnnxcError(f"{option} {path}: is a file, not a folder")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OnnxcError(f"{option} {path}: cannot create the folder ({error.strerror})") from None
    if not os.access(folder, os.W_OK | os.X_OK):
        raise OnnxcError(f"{option} {path}: the folder is not writable")
    return folder


@contextmanager
def output_folder(path: str | None, option: str) -> Iterator[Path | None]:
    """`writable_folder(path)` for the length of a command (None: no folder).
    When the command fails, the folders created for it are removed again,
    innermost first and each only while it is empty, so that an error leaves
    no empty folder behind and never touches a folder that was there."""
    if path is None:
        yield None
        return
    folder = Path(path)
    created = [p for p in (folder, *folder.parents) if not p.exists()]
    try:
        yield writable_folder(path, option)
    except BaseException:
        for made in created:
            try:
                made.rmdir()
            except OSError:  # not empty, or gone: what is left stays
                break
        raise


def progress_of(args: argparse.Namespace) -> Progress | None:
    """The reporter of a command's stages on stderr: with --verbose, or by
    default when stderr is a terminal; never with --quiet."""
    if args.quiet or not (args.verbose or sys.stderr.isatty()):
        return None
    return Progress(sys.stderr)
