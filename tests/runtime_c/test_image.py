"""The image decoder (onnxc_image.c) under AddressSanitizer and
UndefinedBehaviorSanitizer, on thousands of truncated and mutated streams of
every format it decodes: it must decode them or refuse them, never read or
write out of bounds and never overflow. (Its pixels are tested through
ImageDecoder models in tests/e2e/test_image_decoder.py.)"""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from onnx.backend.test.case.node import _image_decoder_data as frozen

from onnxc.runtime_c import runtime_dir
from tests.e2e.test_image_decoder import jpeg, pixels, png, tiff

# Reads streams framed as a 4-byte little-endian length and the bytes, from
# stdin; prints "ok height width" for each, decoding into exactly the scratch
# bytes asked for (a heap block of that size: ASan sees any overrun).
DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "onnxc_runtime.h"

int main(void) {
  unsigned char size[4];
  while (fread(size, 1, 4, stdin) == 4) {
    size_t n = size[0] | (size_t)size[1] << 8 | (size_t)size[2] << 16 | (size_t)size[3] << 24;
    uint8_t *data = malloc(n ? n : 1);
    ptrdiff_t height, width, bytes;
    uint8_t *scratch;
    int ok, format;
    if (data == NULL || fread(data, 1, n, stdin) != n) return 2;
    bytes = onnxc_image_size(data, (ptrdiff_t)n, &height, &width);
    scratch = malloc(bytes ? (size_t)bytes : 1);
    if (scratch == NULL) return 2;
    for (format = 0; format < 3; ++format) {
      ok = onnxc_image_decode(data, (ptrdiff_t)n, scratch, bytes, format);
    }
    printf("%d %ld %ld\n", ok, (long)height, (long)width);
    free(scratch);
    free(data);
  }
  return 0;
}
"""

SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]


def build(folder: Path) -> Path:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    (folder / "driver.c").write_text(DRIVER)
    program = folder / "driver"
    command = [
        "cc", "-std=c99", "-O1", "-g", *SANITIZE, "-I", str(runtime_dir()),
        str(folder / "driver.c"), str(runtime_dir() / "onnxc_image.c"), "-o", str(program),
    ]  # fmt: skip
    if subprocess.run(command, capture_output=True, check=False).returncode != 0:
        pytest.skip("no sanitizer runtime for cc")
    return program


def frozen_stream(name: str) -> bytes:
    case: Any = getattr(frozen, f"image_decoder_decode_{name}")
    return np.asarray(case.data, np.uint8).tobytes()


def test_hostile_streams_under_sanitizers(tmp_path: Path) -> None:
    program = build(tmp_path)
    rng = np.random.default_rng(3)
    streams: list[bytes] = []
    names = ("jpeg_rgb", "png_rgb", "tiff_rgb", "bmp_rgb", "pnm_rgb", "webp_rgb")
    encoded = [  # interlaced 16-bit PNG, Deflate TIFF with the predictor, 4:4:0 JPEG
        png(rng.integers(0, 65536, (9, 7, 4)).astype(np.uint16), 6, [4, 1], interlace=True),
        tiff(pixels(9, 7, 3), 4, deflate=True),
        jpeg([pixels(9, 7, 1)[..., 0], pixels(5, 7, 1)[..., 0], pixels(5, 7, 1)[..., 0]],
             [(1, 2), (1, 1), (1, 1)], 9, 7),
    ]  # fmt: skip
    for data in [*(frozen_stream(name) for name in names), *encoded]:
        streams += [data, b""] + [data[:cut] for cut in range(0, len(data), 7)]
        for at in range(min(len(data), 64)):  # every header byte set to extreme values
            for value in (0, 1, 0x7F, 0x80, 0xFF):
                streams.append(data[:at] + bytes([value]) + data[at + 1 :])
        for _ in range(400):
            mutated = bytearray(data)
            for _ in range(int(rng.integers(1, 6))):
                # mostly in the header, where sizes and offsets are
                at = int(rng.integers(0, min(len(data), 160) if rng.random() < 0.6 else len(data)))
                mutated[at] = int(rng.choice([0, 1, 0x7F, 0x80, 0xFF, int(rng.integers(0, 256))]))
            streams.append(bytes(mutated))
    framed = b"".join(struct.pack("<I", len(s)) + s for s in streams)
    run = subprocess.run([str(program)], input=framed, capture_output=True, check=False)
    assert run.returncode == 0, run.stderr.decode(errors="replace")[-2000:]
    lines = run.stdout.decode().splitlines()
    assert len(lines) == len(streams)
    assert lines[0] == "1 32 32"  # the JPEG as frozen decodes
