"""The `onnxc` command line.

    onnxc compile MODEL.onnx -o OUTDIR [--name NAME] [--dim SYM=N]... [--shape INPUT=D0,D1,...]...
                  [--target T] [--emit onnx|linalg|loops|c] [--weights-file] [--report]
    onnxc run MODEL.onnx [--input NAME=FILE.npy]... [--random [--seed N]] [--expect FILE.npy]...
              [--compare onnxruntime] [--rtol R] [--atol A] [--save DIR] [--target T]
    onnxc --version
    onnxc check MODEL.onnx [--dim SYM=N]... [--shape INPUT=D0,D1,...]...

`compile` also writes a build recipe for the target (a Makefile and NAME.cmake);
`run --target cortex-m4` runs the model in that target's emulator; `check` lists
every node that cannot be compiled yet (exit status 1 if any).
Problems with the input print one line on stderr and exit with status 1.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from onnxc.errors import OnnxcError
from onnxc.lowering import STAGE_NAMES
from onnxc.options import CompileOptions

if TYPE_CHECKING:
    from onnxc.api import CompiledModel
    from onnxc.emit.runner import TensorSpec


def _key_value(text: str, option: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key or not value:
        raise OnnxcError(f"{option} expects NAME=VALUE, got '{text}'")
    return key, value


def _dims(items: Sequence[str], option: str) -> dict[str, int]:
    dims: dict[str, int] = {}
    for item in items:
        key, value = _key_value(item, option)
        try:
            dims[key] = int(value)
        except ValueError:
            raise OnnxcError(f"{option} {key}: '{value}' is not an integer") from None
        if dims[key] <= 0:
            raise OnnxcError(f"{option} {key}={value}: dims must be positive")
    return dims


def _shapes(items: Sequence[str]) -> dict[str, tuple[int, ...]]:
    shapes: dict[str, tuple[int, ...]] = {}
    for item in items:
        key, value = _key_value(item, "--shape")
        try:
            shapes[key] = tuple(int(v) for v in value.split(",") if v.strip())
        except ValueError:
            raise OnnxcError(
                f"--shape {key}: '{value}' is not a comma-separated list of integers"
            ) from None
    return shapes


def _load_npy(path: str, what: str) -> np.ndarray:
    try:
        return np.load(path, allow_pickle=False)
    except (OSError, ValueError) as error:
        raise OnnxcError(f"{what}: cannot read '{path}' ({str(error).splitlines()[0]})") from None


def _options(args: argparse.Namespace) -> CompileOptions:
    return CompileOptions.make(
        dims=_dims(args.dim, "--dim"),
        shapes=_shapes(args.shape),
        max_dims=_dims(args.max_dim, "--max-dim"),
        name=getattr(args, "name", None),
        target=args.target,
        separate_weights=getattr(args, "weights_file", False),
    )


def _compile_command(args: argparse.Namespace) -> int:
    from onnxc.api import generate_with
    from onnxc.importer import import_model
    from onnxc.pipeline import lower

    options = _options(args)
    if args.output is not None and not args.emit:
        _writable_folder(args.output, "-o")
    if args.emit and args.emit != "c":
        imported = import_model(
            args.model, dims=options.dims, shapes=options.shapes, max_dims=options.max_dims
        )
        module = lower(imported.module, args.emit) if args.emit != "import" else imported.module
        from xdsl.dialects.builtin import Builtin
        from xdsl.printer import Printer

        printer = Printer(stream=sys.stdout)
        printer.print_op(module)
        printer.print_metadata([Builtin])
        print()
        return 0
    from onnxc.report import StageFigures, make_report

    seen = StageFigures()
    generated = generate_with(args.model, options, on_stage=seen if args.report else None)
    if args.emit == "c":
        sys.stdout.write(generated.c_source)
        return 0
    if args.output is None and args.report:
        print(make_report(generated, seen, args.target).format(), end="")
        return 0
    if args.output is None:
        raise OnnxcError("compile needs an output folder: -o OUTDIR (or --report)")
    from onnxc import __version__
    from onnxc.emit.recipe import write_recipe
    from onnxc.targets import get_target

    written = generated.write(args.output)
    written += write_recipe(
        args.output, generated.name, generated.c_files(), get_target(args.target), __version__
    )
    for path in written:
        print(path)
    if args.report:
        print()
        print(make_report(generated, seen, args.target).format(), end="")
    return 0


def _run_command(args: argparse.Namespace) -> int:
    from onnxc.api import compile_with

    if args.rtol < 0 or args.atol < 0:
        raise OnnxcError("--rtol and --atol must not be negative")
    if args.save is not None:
        _writable_folder(args.save, "--save")
    model = compile_with(args.model, _options(args))
    if len(args.expect) > len(model.output_names):
        raise OnnxcError(
            f"--expect: {len(args.expect)} files for {len(model.output_names)} output(s) "
            f"({', '.join(model.output_names)})"
        )
    inputs = _run_inputs(args, model)
    outputs = model.run(inputs)
    np.set_printoptions(precision=6, suppress=True, threshold=64)
    for name, value in outputs.items():
        print(f"{name} {value.dtype}{list(value.shape)}:")
        print(value)
        _print_argmax(name, value)
    if args.save is not None:
        _save_outputs(args.save, outputs)
    mismatched = 0
    for name, path in zip(model.output_names, args.expect, strict=False):
        expected = _load_npy(path, f"--expect for '{name}'")
        mismatched += not _compare(name, outputs[name], expected, path, args.rtol, args.atol)
    if args.compare == "onnxruntime":
        reference = _run_onnxruntime(args.model, inputs, model.output_names)
        for name in model.output_names:
            mismatched += not _compare(
                name, outputs[name], reference[name], "onnxruntime", args.rtol, args.atol
            )
    return 1 if mismatched else 0


def _run_inputs(args: argparse.Namespace, model: CompiledModel) -> dict[str, np.ndarray]:
    """The inputs of `onnxc run`: the --input files, checked against the model's
    inputs (name and element type), then random values (--random) for the others
    that have no default."""
    from onnxc.api import converts_safely

    specs = {spec.name: spec for spec in model.runner.inputs}
    inputs: dict[str, np.ndarray] = {}
    for item in args.input:
        key, path = _key_value(item, "--input")
        spec = specs.get(key)
        if spec is None:
            raise OnnxcError(
                f"--input {key}: the model has no input '{key}' "
                f"(its inputs: {', '.join(model.input_names)})"
            )
        array = _load_npy(path, f"--input {key}")
        wanted = spec.element.numpy_dtype
        if not converts_safely(array.dtype, wanted):
            raise OnnxcError(f"--input {key}: expected {wanted}, got {array.dtype} in '{path}'")
        inputs[key] = array
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
    known: dict[str, int] = {}  # free dims the --input files give sizes to
    for name, array in inputs.items():
        if array.ndim == len(specs[name].shape):
            for dim, size in zip(specs[name].shape, array.shape, strict=True):
                if isinstance(dim, str):
                    known.setdefault(dim, size)
    rng = np.random.default_rng(args.seed)
    for spec in left:
        inputs[spec.name] = _random_input(spec, known, rng)
    return inputs


def _random_input(spec: TensorSpec, known: dict[str, int], rng: np.random.Generator) -> np.ndarray:
    """Random values of the input's shape and element type: standard normal
    floats, integers in [0, 10), booleans. Free dims take their sizes from
    `known`; the others need --dim."""
    shape = spec.shape_for(known)
    if shape is None:
        free = [d for d in spec.shape if not isinstance(d, int) and d not in known]
        named = ", ".join(shlex.quote(str(d)) for d in free if d is not None)
        hint = " ".join(f"--dim {shlex.quote(str(d))}=SIZE" for d in free if d is not None)
        raise OnnxcError(
            f"--random: input '{spec.name}' has free dimension(s) {named}; give their sizes: {hint}"
        )
    dtype = spec.element.numpy_dtype
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 10, size=shape).astype(dtype)
    if dtype.kind in "fc" or dtype.kind == "V":  # ml_dtypes floats have kind "V"
        return rng.standard_normal(size=shape).astype(dtype)
    raise OnnxcError(f"--random: input '{spec.name}' has element type {dtype}, give it --input")


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
    got64 = got.astype(np.float64)
    want64 = expected.astype(np.float64)
    ok = bool(np.allclose(got64, want64, rtol=rtol, atol=atol, equal_nan=True))
    error = np.abs(got64 - want64)
    error[np.isnan(got64) & np.isnan(want64)] = 0.0
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
    model_path: str, inputs: dict[str, np.ndarray], output_names: list[str]
) -> dict[str, np.ndarray]:
    """The outputs onnxruntime computes for the same inputs."""
    try:
        import onnxruntime
    except ImportError:
        raise OnnxcError(
            "--compare onnxruntime: onnxruntime is not installed (pip install onnxruntime)"
        ) from None
    try:
        session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
        wanted = {i.name for i in session.get_inputs()}
        feed = {k: v for k, v in inputs.items() if k in wanted}
        values = session.run(output_names, feed)
    except Exception as error:  # onnxruntime raises its own exception types
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise OnnxcError(
            f"--compare onnxruntime: onnxruntime cannot run the model ({first})"
        ) from None
    return {name: np.asarray(value) for name, value in zip(output_names, values, strict=True)}


def _writable_folder(path: str, option: str) -> Path:
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


def _save_outputs(path: str, outputs: dict[str, np.ndarray]) -> None:
    folder = Path(path)
    for name, value in outputs.items():
        target = folder / f"{name.replace(os.sep, '_')}.npy"
        try:
            np.save(target, value, allow_pickle=False)
        except OSError as error:
            raise OnnxcError(f"--save: cannot write '{target}' ({error.strerror})") from None
        print(f"saved {name} to {target}")


def _check_command(args: argparse.Namespace) -> int:
    from onnxc.check import find_gaps, format_gaps

    options = _options(args)
    gaps = find_gaps(
        args.model, dims=options.dims, shapes=options.shapes, max_dims=options.max_dims
    )
    if not gaps:
        print(f"{args.model}: compiles")
        return 0
    nodes = sum(1 for g in gaps if g.node)
    what = f"{nodes} node{'s' if nodes != 1 else ''}" if nodes else "the model"
    print(f"{args.model}: {what} cannot be compiled yet")
    for line in format_gaps(gaps):
        print(line)
    return 1


def _version() -> str:
    """The installed package's version, else the source tree's."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("onnxc")
    except PackageNotFoundError:
        from onnxc import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="onnxc", description="Compile ONNX models to portable C99."
    )
    parser.add_argument("--version", action="version", version=f"onnxc {_version()}")
    commands = parser.add_subparsers(dest="command", required=True)

    def common(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("model", help="the .onnx file")
        sub.add_argument(
            "--dim",
            action="append",
            default=[],
            metavar="SYM=N",
            help="bind a dim_param",
        )
        sub.add_argument(
            "--max-dim",
            action="append",
            default=[],
            metavar="SYM=N",
            help="bound a dim_param left free (sizes up to N at run time)",
        )
        sub.add_argument(
            "--shape",
            action="append",
            default=[],
            metavar="INPUT=D0,D1,...",
            help="fix an input's shape",
        )
        from onnxc.targets import TARGETS

        sub.add_argument(
            "--target",
            default="host",
            choices=list(TARGETS),
            help="what the C is built for and run on (default host); MCU targets run in "
            "an emulator. " + "; ".join(f"{t.name}: {t.description}" for t in TARGETS.values()),
        )

    compile_parser = commands.add_parser("compile", help="write NAME.c, NAME.h and the runtime")
    common(compile_parser)
    compile_parser.add_argument("-o", "--output", metavar="OUTDIR", help="folder to write into")
    compile_parser.add_argument("--name", help="C prefix (default: the model file's stem)")
    compile_parser.add_argument(
        "--emit",
        choices=["import", *STAGE_NAMES, "c"],
        help="print the IR (or C) after this stage to stdout instead of writing files",
    )
    compile_parser.add_argument(
        "--weights-file",
        action="store_true",
        help="write the weights to NAME_weights.c instead of NAME.c",
    )
    compile_parser.add_argument(
        "--report",
        action="store_true",
        help="print the memory plan, flash use and a per-layer table (MACs, bytes)",
    )
    compile_parser.set_defaults(handler=_compile_command)

    run_parser = commands.add_parser("run", help="compile, build and run on .npy inputs")
    common(run_parser)
    run_parser.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy")
    run_parser.add_argument(
        "--random",
        action="store_true",
        help="random values for the inputs not given by --input (free dims from --dim)",
    )
    run_parser.add_argument(
        "--seed", type=int, default=0, help="seed of the --random values (default 0)"
    )
    run_parser.add_argument(
        "--expect",
        action="append",
        default=[],
        metavar="FILE.npy",
        help="expected value of each output, in order: compared at --rtol, --atol",
    )
    run_parser.add_argument(
        "--compare",
        choices=["onnxruntime"],
        help="run the same inputs in onnxruntime and compare each output at --rtol, --atol",
    )
    run_parser.add_argument(
        "--rtol", type=float, default=1e-4, help="relative tolerance (default 1e-4)"
    )
    run_parser.add_argument(
        "--atol", type=float, default=1e-5, help="absolute tolerance (default 1e-5)"
    )
    run_parser.add_argument(
        "--save", metavar="DIR", help="write each output to DIR/OUTPUT_NAME.npy"
    )
    run_parser.set_defaults(handler=_run_command)

    check_parser = commands.add_parser(
        "check", help="list every node that cannot be compiled yet, and why"
    )
    common(check_parser)
    check_parser.set_defaults(handler=_check_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except OnnxcError as error:
        print(f"onnxc: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `onnxc compile --emit c m.onnx | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
