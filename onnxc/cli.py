"""The `onnxc` command line.

    onnxc compile MODEL.onnx -o OUTDIR [--name NAME] [--dim SYM=N]... [--shape INPUT=D0,D1,...]...
                  [--target T] [--emit onnx|linalg|loops|c] [--weights-file] [--report]
    onnxc run MODEL.onnx [--input NAME=FILE.npy]... [--expect FILE.npy]... [--target T]
    onnxc check MODEL.onnx [--dim SYM=N]... [--shape INPUT=D0,D1,...]...

`compile` also writes a build recipe for the target (a Makefile and NAME.cmake);
`run --target cortex-m4` runs the model in that target's emulator; `check` lists
every node that cannot be compiled yet (exit status 1 if any).
Problems with the input print one line on stderr and exit with status 1.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import numpy as np

from onnxc.errors import OnnxcError
from onnxc.lowering import STAGE_NAMES
from onnxc.options import CompileOptions


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

    model = compile_with(args.model, _options(args))
    inputs: dict[str, np.ndarray] = {}
    for item in args.input:
        key, path = _key_value(item, "--input")
        inputs[key] = _load_npy(path, f"--input {key}")
    missing = [
        n for n in model.input_names if n not in inputs and n not in model.generated.input_defaults
    ]
    if missing:
        raise OnnxcError("missing input(s): " + ", ".join(f"--input {n}=FILE.npy" for n in missing))
    outputs = model.run(inputs)
    np.set_printoptions(precision=6, suppress=True, threshold=64)
    for name, value in outputs.items():
        print(f"{name} {value.dtype}{list(value.shape)}:")
        print(value)
        if value.ndim >= 1 and value.size > 1 and value.dtype.kind == "f":
            print(f"{name} argmax: {int(np.argmax(value.reshape(value.shape[0], -1)[0]))}")
    mismatched = 0
    for name, path in zip(model.output_names, args.expect, strict=False):
        expected = _load_npy(path, f"--expect for '{name}'")
        got = outputs[name]
        ok = got.shape == expected.shape and np.allclose(got, expected, rtol=1e-4, atol=1e-5)
        diff = (
            float(np.max(np.abs(got - expected))) if got.shape == expected.shape else float("inf")
        )
        print(
            f"{name}: {'matches' if ok else 'DOES NOT match'} {path} "
            f"(max abs diff {diff:.3g}; rtol 1e-4, atol 1e-5)"
        )
        mismatched += not ok
    return 1 if mismatched else 0


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="onnxc", description="Compile ONNX models to portable C99."
    )
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
        "--expect",
        action="append",
        default=[],
        metavar="FILE.npy",
        help="expected value of each output, in order: compared at rtol 1e-4, atol 1e-5",
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
