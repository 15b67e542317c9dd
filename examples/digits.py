"""The quickstart's main job: compile the bundled digits CNN to C, build it, run it.

    python examples/digits.py [OUTDIR]

Writes digits_cnn.c, digits_cnn.h and the runtime into OUTDIR (default
`build/digits`), checks that the C compiles warning-free as strict C99, then loads
the model through onnxc's Python API, classifies the bundled test image and
compares the logits with the stored onnxruntime output (rtol 1e-4, atol 1e-5).
Exits non-zero if anything does not match.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

import onnxc

HERE = Path(__file__).resolve().parent


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("build/digits")
    model = HERE / "digits_cnn.onnx"
    image = np.load(HERE / "digit_input.npy")
    expected = np.load(HERE / "digit_expected.npy")

    generated = onnxc.generate_c(model)
    written = generated.write(out)
    print(f"compiled {model.name} to C: {', '.join(str(p) for p in written)}")
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler:
        flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2", "-c"]
        subprocess.run(
            [
                compiler,
                *flags,
                str(out / "digits_cnn.c"),
                "-o",
                str(out / "digits_cnn.o"),
            ],
            check=True,
        )
        print(f"built {out / 'digits_cnn.o'} with {' '.join(flags[:-1])}")

    compiled = onnxc.compile(model)
    logits = compiled.run({"image": image})["logits"]
    prediction = int(np.argmax(logits))
    matches = np.allclose(logits, expected, rtol=1e-4, atol=1e-5)
    print(f"workspace: {compiled.workspace_size} bytes")
    print(f"predicted digit: {prediction} (onnxruntime: {int(np.argmax(expected))})")
    print(
        f"logits match onnxruntime: {'yes' if matches else 'NO'} "
        f"(max abs diff {float(np.max(np.abs(logits - expected))):.2e})"
    )
    return 0 if matches and prediction == int(np.argmax(expected)) else 1


if __name__ == "__main__":
    sys.exit(main())
