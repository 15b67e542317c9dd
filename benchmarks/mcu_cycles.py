"""Instructions, code, weights and arena of the test-suite CNNs on an emulated MCU.

    python benchmarks/mcu_cycles.py [--target cortex-m4] [--plain] [MODEL ...]

Each model (tests/models.py, exported with the legacy exporter, BatchNorm
folded) is compiled for the target and run once in qemu on a seeded input;
`onnxc.tools.instruction_count` counts the instructions of the `NAME_invoke` call
(SysTick read around the call, qemu's `-icount shift=0`; the ELF built at
-O2, as `onnxc.compile` builds it). The output is checked against the host
build's (rtol 1e-4, atol 1e-5, as tests/mcu/test_cnns.py). Printed per model:
the instructions, the code bytes and weight bytes of the size report (`onnxc
compile --report`: the model's C compiled at -Os, text less weights), the
arena (NAME_WORKSPACE_SIZE) and the ELF's text at -O2 (model, harness and
libc). `--plain` compiles without the target's convolution kernels (the plain
loop lowering), for a before/after comparison. Needs torch, arm-none-eabi-gcc,
picolibc and qemu-system-arm.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import onnxc  # noqa: E402
from onnxc.emit.cross import EmulatedC  # noqa: E402
from onnxc.targets import TARGETS  # noqa: E402
from onnxc.tools.instruction_count import count_instructions  # noqa: E402
from onnxc.tools.report import CodeSize, build_report  # noqa: E402
from tests.models import MODEL_CLASSES, build, export  # noqa: E402

RTOL, ATOL = 1e-4, 1e-5


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("models", nargs="*", default=sorted(MODEL_CLASSES))
    parser.add_argument("--target", default="cortex-m4")
    parser.add_argument("--plain", action="store_true", help="without convolution kernels")
    args = parser.parse_args()
    if args.plain:
        TARGETS[args.target] = dataclasses.replace(TARGETS[args.target], kernels=None)
    print(f"target {args.target}, kernels {TARGETS[args.target].kernels}")
    print(
        f"{'model':18} {'instructions':>13} {'code B (-Os)':>13} {'weights B':>10} "
        f"{'arena B':>9} {'ELF text B (-O2)':>17}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            model, example = build(name)
            path = export(model, example, Path(tmp) / f"{name}.onnx", dynamo=False)
            x = np.random.default_rng(0).standard_normal(example.shape).astype(np.float32)
            expected = onnxc.compile(path).run({"input": x})["output"]
            on_mcu = onnxc.compile(path, target=args.target)
            counted = count_instructions(on_mcu, [x])
            np.testing.assert_allclose(counted.outputs[0], expected, rtol=RTOL, atol=ATOL)
            report = build_report(path, target=args.target)
            code = report.code_size.code if isinstance(report.code_size, CodeSize) else -1
            assert isinstance(on_mcu.runner, EmulatedC)
            print(
                f"{name:18} {counted.instructions:13,} {code:13,} {report.weight_bytes:10,} "
                f"{report.workspace_size:9,} {on_mcu.runner.size()['text']:17,}",
                flush=True,
            )


if __name__ == "__main__":
    main()
