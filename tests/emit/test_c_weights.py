"""Weights as byte strings (emit/c_weights.py): the text decodes to the same
bytes (C's and Python's octal escapes agree, so Python's bytes literals read
it), stays within C99's string-literal limit, and gcc reads the values back
exactly with -pedantic -Werror."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from onnxc.emit.c_weights import (
    LINE_BYTES,
    ROW_BYTES,
    byte_string_definition,
    little_endian_bytes,
    string_lines,
)


def _decode(lines: list[str]) -> bytes:
    return b"".join(ast.literal_eval("b" + line.strip().rstrip(",")) for line in lines)


@pytest.mark.parametrize(
    "data",
    [
        bytes(range(256)) * 3,
        b'??=??/"\\?\0' + b"\x01" + b"7" + b"\x08" + b"8" + b"\x3f" * 5,
        np.random.default_rng(0).integers(0, 256, 10_000, dtype=np.uint8).tobytes(),
        bytes([1, 0x30, 2, 0x37, 3, 0x38, 255, 0x31]),
    ],
    ids=["all-bytes", "specials", "random", "escape-then-digit"],
)
def test_string_lines_decode_to_the_bytes(data: bytes) -> None:
    lines = string_lines(np.frombuffer(data, dtype=np.uint8))
    assert _decode(lines) == data
    assert len(lines) == -(-len(data) // LINE_BYTES)
    assert all("??" not in line for line in lines)  # no trigraph can form


def test_a_weight_is_rows_of_short_literals() -> None:
    values = np.arange(3001, dtype=np.float32)  # 12004 bytes: four rows
    data = little_endian_bytes(values)
    lines = byte_string_definition("static ", "float", "w", data, values.size, False)
    assert lines[:4] == [
        "static const union w_storage {",
        "  unsigned char bytes[4][3001];",
        "  float v[3001];",
        "} w ONNXC_WEIGHT_ATTRIBUTES = {{",
    ]
    assert lines[-1] == "}};"
    rows = "\n".join(lines[4:-1]).split('",\n')
    assert len(rows) == 4 and ROW_BYTES >= 3001
    assert _decode(lines[4:-1]) == data.tobytes()


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_gcc_reads_the_values_back(tmp_path: Path) -> None:
    values = np.random.default_rng(1).standard_normal(5000).astype(np.float32)
    values[:4] = [np.inf, -0.0, np.float32(1e-45), np.nan]
    data = little_endian_bytes(values)
    source = [
        "#include <stdio.h>",
        "#include <string.h>",
        "#define ONNXC_WEIGHT_ATTRIBUTES",
        *byte_string_definition("static ", "float", "w", data, values.size, False),
        "int main(void) {",
        "  size_t i;",
        "  for (i = 0; i < sizeof w.v / sizeof w.v[0]; ++i) {",
        "    unsigned char b[4];",
        "    memcpy(b, &w.v[i], 4);",
        '    printf("%02x%02x%02x%02x", b[0], b[1], b[2], b[3]);',
        "  }",
        "  return 0;",
        "}",
    ]
    (tmp_path / "w.c").write_text("\n".join(source) + "\n")
    flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-O2"]
    subprocess.run(["gcc", *flags, "w.c", "-o", "w"], cwd=tmp_path, check=True)
    out = subprocess.run([str(tmp_path / "w")], capture_output=True, text=True, check=True)
    assert bytes.fromhex(out.stdout) == data.tobytes()
