"""The sanitizer step of the test command: the end-to-end tests that run
generated C with sizes known only at run time, control flow, sequences and
strings, the matrix-product, Conv1d and integer convolution kernels, and the
random-graph slice, with every host build instrumented by AddressSanitizer
and UndefinedBehaviorSanitizer (`ONNXC_SANITIZE`, `emit/build.py`). The
first report stops the test that caused it.

    python -m tests.sanitized [PYTEST ARGS...]

The sanitizer runtimes must be in the process before Python starts (the
models are extensions it loads), so this runs pytest in a child process with
them preloaded. Leak detection is off: the interpreter's own allocations at
exit are not the models'.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

TESTS = [
    "tests/e2e/test_dynamic.py",
    "tests/e2e/test_control_flow.py",
    "tests/e2e/test_branch_shapes.py",
    "tests/e2e/test_run_time_sequences.py",
    "tests/e2e/test_growing_loops.py",
    "tests/e2e/test_strings.py",
    "tests/e2e/test_matmul_kernels.py",
    "tests/e2e/test_conv1d_kernels.py",
    "tests/e2e/test_silu_fusion.py",
    "tests/e2e/test_blocked_layout.py",
    "tests/e2e/test_conv_transpose_kernels.py",
    "tests/e2e/test_quantized_kernels.py",
    "tests/e2e/test_size_limits.py",
    "tests/e2e/test_output_capacity.py",
    "tests/fuzz/test_graphs.py",
]
"""What runs sanitized (paths from the repository's root)."""

SANITIZERS = "address,undefined"


def runtimes(cc: str = "gcc") -> list[str]:
    """The shared sanitizer runtimes of `cc`, to preload."""
    found = []
    for library in ("libasan.so", "libubsan.so"):
        path = subprocess.run(
            [cc, f"-print-file-name={library}"], capture_output=True, text=True, check=True
        ).stdout.strip()
        if not os.path.isabs(path):  # gcc prints the bare name when it has none
            raise SystemExit(f"tests.sanitized: {cc} has no {library} (install libasan/libubsan)")
        found.append(path)
    return found


def main(argv: Sequence[str] = ()) -> int:
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ)
    env["LD_PRELOAD"] = " ".join([*runtimes(), env.get("LD_PRELOAD", "")]).strip()
    env["ONNXC_SANITIZE"] = SANITIZERS
    env["ASAN_OPTIONS"] = "detect_leaks=0:malloc_context_size=5:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1"
    env.setdefault("ONNXC_FUZZ_SEEDS", "0:60")  # half the plain slice: sanitized builds are slower
    # emulated MCU builds are not host builds; host-portable's C is host's
    # (the same kernels but for the register block on AVX-512 hosts), built
    # without -march: its plain run covers it
    selection = ["-k", "not cortex and not host-portable"]
    command = [sys.executable, "-m", "pytest", "-q", "-n", "2", *selection, *TESTS, *argv]
    return subprocess.run(command, cwd=root, env=env, check=False).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
