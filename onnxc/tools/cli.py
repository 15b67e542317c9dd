"""The `onnxc` command line.

    onnxc compile MODEL.onnx -o OUTDIR [--name NAME] [--dim SYM=N]... [--shape INPUT=D0,D1,...]...
                  [--target T] [--emit STAGE] [--weights-file] [--report]
                  [--report-html FILE]
    onnxc run MODEL.onnx [--input NAME=FILE.npy]... [--random [--seed N]] [--expect FILE.npy]...
              [--compare onnxruntime] [--rtol R] [--atol A] [--save DIR] [--target T]
    onnxc --version
    onnxc check MODEL.onnx [--dim SYM=N]... [--shape INPUT=D0,D1,...]...
    onnxc bench MODEL.onnx [--dim SYM=N]... [--shape INPUT=D0,D1,...]... [--rounds N] [--seed N]
                [--per-layer]
    onnxc cache info|clear

`compile` also writes a build recipe for the target (a Makefile and NAME.cmake);
`run --target cortex-m4` runs the model in that target's emulator; `check` lists
every node that cannot be compiled yet (exit status 1 if any), and the free
dimensions with the `--dim` flags that bind them (saying so when the model
compiles only once they are bound); `run --random` and `bench` ask for the
sizes of free dimensions before compiling; `cache info` counts the cached
compilations and C builds and `cache clear` removes them. A command that
fails removes the output folder it created (`-o`, `--save`).
`compile`, `run` and `check` report their stages and seconds on stderr when it
is a terminal or with `--verbose` (never with `--quiet`; see `onnxc.progress`).
Problems with the input print one line on stderr and exit with status 1;
what onnxc works around in a model (`OnnxcWarning`) prints one line
`onnxc: warning: ...` (not with `--quiet`).
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from onnxc.errors import OnnxcError, OnnxcWarning
from onnxc.frontend.prepare import REWRITE_NAMES
from onnxc.lowering import STAGE_NAMES
from onnxc.tools.cli_args import compile_options, output_folder, progress_of
from onnxc.tools.cli_run import run_command

if TYPE_CHECKING:
    from onnxc.options import CompileOptions
    from onnxc.tools.report import Report


def _print_rewritten(args: argparse.Namespace, options: CompileOptions) -> int:
    """`--emit NAME` of a front-end rewrite: the model after its last
    application, in ONNX's text form."""
    import onnx

    from onnxc.frontend import load_model, prepare_model

    shown: list[onnx.ModelProto] = []

    def seen(name: str, model: onnx.ModelProto) -> None:
        if name == args.emit:
            shown[:] = [onnx.ModelProto.FromString(model.SerializeToString())]

    model = load_model(args.model)
    prepare_model(model, options.dims, options.shapes, on_rewrite=seen, skip=args.skip_rewrite)
    if not shown:
        raise OnnxcError(f"the front-end rewrite '{args.emit}' did not run on this model")
    print(onnx.printer.to_text(shown[0]))
    return 0


def _compile_command(args: argparse.Namespace) -> int:
    """`compile`: into the folder of `-o`, which is made for it and removed
    again when the compile fails (see `output_folder`)."""
    with output_folder(None if args.emit else args.output, "-o"):
        return _compile(args)


def _compile(args: argparse.Namespace) -> int:
    from onnxc.api import generate_with
    from onnxc.frontend import import_model
    from onnxc.pipeline import lower

    options = compile_options(args)
    progress = progress_of(args)
    if args.skip_rewrite and not args.emit:
        raise OnnxcError("--skip-rewrite is for debugging: it needs --emit")
    if args.emit in REWRITE_NAMES:
        return _print_rewritten(args, options)
    if args.emit and args.emit != "c":
        imported = import_model(
            args.model,
            dims=options.dims,
            shapes=options.shapes,
            max_dims=options.max_dims,
            skip_rewrites=args.skip_rewrite,
        )
        if progress is not None:
            progress.step("import")
        module = imported.module
        if args.emit != "import":
            module = lower(
                module,
                args.emit,
                on_stage=None if progress is None else lambda s, _: progress.step(f"lower: {s}"),
                target=options.target,
                requantize=options.requantize,
            )
        if progress is not None:
            progress.total()
        from xdsl.dialects.builtin import Builtin
        from xdsl.printer import Printer

        printer = Printer(stream=sys.stdout)
        printer.print_op(module)
        printer.print_metadata([Builtin])
        print()
        return 0
    from onnxc.targets import get_target
    from onnxc.tools.report import StageFigures, make_report

    seen = StageFigures(pointer_bytes=get_target(options.target).pointer_bytes)
    wants_report = args.report or args.report_html is not None
    generated = generate_with(
        args.model, options, on_stage=seen if wants_report else None, progress=progress
    )
    if args.emit == "c":
        if progress is not None:
            progress.total()
        sys.stdout.write(generated.c_source)
        return 0
    report = make_report(generated, seen, args.target) if wants_report else None
    if args.report_html is not None and report is not None:
        _write_html(args.report_html, report)
    if args.output is None and report is not None:
        if args.report:
            print(report.format(), end="")
        return 0
    if args.output is None:
        raise OnnxcError("compile needs an output folder: -o OUTDIR (or --report, --report-html)")
    from onnxc import __version__
    from onnxc.emit.recipe import write_recipe
    from onnxc.targets import get_target

    written = generated.write(args.output)
    written += write_recipe(
        args.output,
        generated.name,
        generated.c_files(),
        get_target(args.target),
        __version__,
        generated.weights_file(),
        threads=options.threads,
    )
    if progress is not None:
        progress.step("write files")
        progress.total()
    for path in written:
        print(path)
    if args.report and report is not None:
        print()
        print(report.format(), end="")
    return 0


def _write_html(path: Path, report: Report) -> None:
    from onnxc.tools.report_html import format_html

    try:
        path.write_text(format_html(report))
    except OSError as error:
        raise OnnxcError(f"--report-html: cannot write '{path}' ({error.strerror})") from None


def _bench_command(args: argparse.Namespace) -> int:
    from onnxc.targets import get_target
    from onnxc.tools.bench import bench, format_result

    path = Path(args.model)
    if not get_target(args.target).is_host:
        from onnxc.tools.bench_mcu import bench_mcu, format_mcu_result

        counted = bench_mcu(path, compile_options(args), seed=args.seed, per_layer=args.per_layer)
        print(format_mcu_result(path.stem, counted))
        return 0
    result = bench(
        path, compile_options(args), rounds=args.rounds, seed=args.seed, per_layer=args.per_layer
    )
    print(format_result(path.stem, result))
    return 0


def _check_command(args: argparse.Namespace) -> int:
    from onnxc.tools.check import check, format_check

    options = compile_options(args)
    progress = progress_of(args)
    checked = check(
        args.model,
        dims=options.dims,
        shapes=options.shapes,
        max_dims=options.max_dims,
        progress=progress,
    )
    if progress is not None:
        progress.total()
    for line in format_check(args.model, checked):
        print(line)
    return 1 if checked.gaps else 0


def _sized(paths: list[Path]) -> tuple[int, int]:
    """How many of `paths` exist, and their bytes (a concurrent clear may remove some)."""
    count = size = 0
    for path in paths:
        try:
            size += path.stat().st_size
        except FileNotFoundError:
            continue
        count += 1
    return count, size


def _cache_command(args: argparse.Namespace) -> int:
    from onnxc import compile_cache
    from onnxc.emit.build import built_extensions, cache_dir
    from onnxc.emit.cache_limit import compilation_entries, forget_total
    from onnxc.emit.cross import built_elfs

    kinds = {
        "compilations": compilation_entries(),
        "C builds": built_extensions(),
        "MCU builds": built_elfs(),
    }
    if args.action == "info":
        print(f"cache directory: {cache_dir()}")
        for kind, paths in kinds.items():
            count, size = _sized(paths)
            print(f"{kind}: {count} entries, {size} bytes")
        return 0
    kinds["unfinished writes"] = compile_cache.leftovers()
    removed: list[str] = []
    for kind, paths in kinds.items():
        count, size = _sized(paths)
        for path in paths:
            try:
                path.unlink(missing_ok=True)
            except OSError as error:
                raise OnnxcError(f"cannot remove '{path}': {error.strerror}") from None
        if count or kind != "unfinished writes":
            removed.append(f"{count} {kind} ({size} bytes)")
    forget_total()
    print(f"removed from {cache_dir()}: {', '.join(removed)}")
    return 0


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
            help="fix an input's shape (a sequence input's: (D0,D1),(D0,D1),...; an absent "
            "optional input: none)",
        )
        from onnxc.targets import TARGETS

        sub.add_argument(
            "--target",
            default="host",
            choices=list(TARGETS),
            help="what the C is built for and run on (default host); MCU targets run in "
            "an emulator. " + "; ".join(f"{t.name}: {t.description}" for t in TARGETS.values()),
        )
        from onnxc.options import REQUANTIZE

        sub.add_argument(
            "--requantize",
            default="exact",
            choices=list(REQUANTIZE),
            help="how the Cortex-M targets' integer convolutions requantize their sums "
            "(default exact). " + "; ".join(f"{k}: {v}" for k, v in REQUANTIZE.items()),
        )
        sub.add_argument(
            "--threads",
            type=int,
            default=1,
            metavar="N",
            help="host targets: build the C with OpenMP, the kernels' outer loops split over "
            "N threads, results identical to one thread's (default 1: no threads; "
            "bench gives onnxruntime N threads too)",
        )
        chatter = sub.add_mutually_exclusive_group()
        chatter.add_argument(
            "-v",
            "--verbose",
            action="store_true",
            help="report each stage and its seconds on stderr (the default on a terminal)",
        )
        chatter.add_argument(
            "-q", "--quiet", action="store_true", help="print nothing on stderr but errors"
        )

    compile_parser = commands.add_parser("compile", help="write NAME.c, NAME.h and the runtime")
    common(compile_parser)
    compile_parser.add_argument("-o", "--output", metavar="OUTDIR", help="folder to write into")
    compile_parser.add_argument("--name", help="C prefix (default: the model file's stem)")
    compile_parser.add_argument(
        "--emit",
        choices=[*REWRITE_NAMES, "import", *STAGE_NAMES, "c"],
        metavar="STAGE",
        help="print the IR (or C) after this stage to stdout instead of writing files; "
        "a front-end rewrite prints the ONNX model after it ("
        + ", ".join(REWRITE_NAMES)
        + "), a pipeline stage its IR (import, "
        + ", ".join(STAGE_NAMES)
        + ", c)",
    )
    compile_parser.add_argument(
        "--skip-rewrite",
        action="append",
        default=[],
        choices=REWRITE_NAMES,
        metavar="REWRITE",
        help="debugging: leave this front-end rewrite out (with --emit; repeatable)",
    )
    compile_parser.add_argument(
        "--weights-file",
        action="store_true",
        help="write the weights to NAME_weights.c instead of NAME.c",
    )
    compile_parser.add_argument(
        "--weights-binary",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="write the weights to the binary file NAME.weights, which the program "
        "gives to NAME_set_weights (default: when they exceed 64 MiB, host targets only)",
    )
    compile_parser.add_argument(
        "--report",
        action="store_true",
        help="print the memory plan, flash use and a per-layer table (MACs, bytes)",
    )
    compile_parser.add_argument(
        "--report-html",
        type=Path,
        metavar="FILE",
        help="write the report as one HTML page: the arena as a timeline, per-layer bars",
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
    run_parser.set_defaults(handler=run_command)

    check_parser = commands.add_parser(
        "check", help="list every node that cannot be compiled yet, and why"
    )
    common(check_parser)
    check_parser.set_defaults(handler=_check_command)

    bench_parser = commands.add_parser(
        "bench", help="time the model against onnxruntime, one thread each, in one process"
    )
    common(bench_parser)
    bench_parser.add_argument(
        "--rounds", type=int, default=7, help="alternating rounds (default 7); medians compared"
    )
    bench_parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    bench_parser.add_argument(
        "--per-layer",
        action="store_true",
        help="also time each node (a profiling build) beside onnxruntime's own profile",
    )
    bench_parser.set_defaults(handler=_bench_command)

    cache_parser = commands.add_parser(
        "cache",
        help="show or clear the cache of compilations and C builds "
        "($ONNXC_CACHE_DIR, default ~/.cache/onnxc)",
    )
    cache_parser.add_argument(
        "action",
        choices=["info", "clear"],
        help="info: the directory, entries and bytes; clear: remove them",
    )
    cache_parser.set_defaults(handler=_cache_command)
    return parser


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """An `OnnxcWarning` as one line, as errors are; others as Python shows them."""
    if issubclass(category, OnnxcWarning):
        print(f"onnxc: warning: {message}", file=sys.stderr)
    else:
        print(
            warnings.formatwarning(message, category, filename, lineno, line),
            file=sys.stderr,
            end="",
        )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            if getattr(args, "quiet", False):
                warnings.simplefilter("ignore", OnnxcWarning)
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
