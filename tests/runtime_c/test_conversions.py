"""The runtime's float16 / bfloat16 conversions against numpy and ml_dtypes,
and its integer helpers against Python: a small C driver built with the
runtime header reads (kind, bits) pairs and prints the result bits.

float16: every one of the 65536 words widens exactly; narrowing from float and
double rounds to nearest even (numpy's float16 conversion is correctly rounded
for both). bfloat16 from float matches ml_dtypes; from double the runtime rounds
once (ml_dtypes goes through float and may round twice), so the oracle there
is the nearest bfloat16 by exact arithmetic."""

from __future__ import annotations

import subprocess
from fractions import Fraction
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from onnxc import element_types
from onnxc.runtime_c import runtime_dir
from tests.runtime_c.drivers import build_driver, run_driver

DRIVER = r"""
#include <stdio.h>
#include <string.h>
#include "onnxc_runtime.h"
int main(void) {
  char kind[8];
  unsigned long long v;
  while (scanf("%7s %llx", kind, &v) == 2) {
    if (!strcmp(kind, "h2f")) {
      printf("%08x\n", (unsigned)onnxc_bits_f32(onnxc_f16_to_f32((uint16_t)v)));
    } else if (!strcmp(kind, "f2h")) {
      printf("%04x\n", onnxc_f32_to_f16(onnxc_f32_bits((int32_t)(uint32_t)v)));
    } else if (!strcmp(kind, "d2h")) {
      printf("%04x\n", onnxc_f64_to_f16(onnxc_f64_bits((int64_t)v)));
    } else if (!strcmp(kind, "b2f")) {
      printf("%08x\n", (unsigned)onnxc_bits_f32(onnxc_bf16_to_f32((uint16_t)v)));
    } else if (!strcmp(kind, "f2b")) {
      printf("%04x\n", onnxc_f32_to_bf16(onnxc_f32_bits((int32_t)(uint32_t)v)));
    } else if (!strcmp(kind, "d2b")) {
      printf("%04x\n", onnxc_f64_to_bf16(onnxc_f64_bits((int64_t)v)));
    } else if (!strcmp(kind, "i2b")) {
      printf("%04x\n", onnxc_i64_to_bf16((int64_t)v));
    } else if (!strcmp(kind, "div")) {
      printf("%lld\n", (long long)onnxc_divs32((int32_t)(v >> 32), (int32_t)(uint32_t)v));
    } else if (!strcmp(kind, "rem")) {
      printf("%lld\n", (long long)onnxc_rems32((int32_t)(v >> 32), (int32_t)(uint32_t)v));
    } else if (!strcmp(kind, "sat")) {
      printf("%lld\n", (long long)onnxc_fptosi(onnxc_f64_bits((int64_t)v), -128, 127));
    }
  }
  return 0;
}
"""

RNG = np.random.default_rng(0)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_driver(tmp_path_factory.mktemp("conversions"), DRIVER)


def run(driver: Path, kind: str, values: list[int]) -> list[str]:
    return run_driver(driver, "".join(f"{kind} {v & 0xFFFFFFFFFFFFFFFF:x}\n" for v in values))


def is_nan16(word: int, bf16: bool) -> bool:
    exponent, mantissa = (0x7F80, 0x7F) if bf16 else (0x7C00, 0x3FF)
    return (word & exponent) == exponent and (word & mantissa) != 0


def test_float16_widens_exactly(driver: Path) -> None:
    words = np.arange(65536, dtype=np.uint16)
    expected = words.view(np.float16).astype(np.float32).view(np.uint32)
    got = run(driver, "h2f", words.tolist())
    assert got == [f"{v:08x}" for v in expected.tolist()]


def _floats(count: int) -> np.ndarray:
    """Random float32 bit patterns, and every float16 value with its neighbours."""
    pattern = RNG.integers(0, 2**32, count, dtype=np.uint64).astype(np.uint32)
    halves = np.arange(65536, dtype=np.uint16).view(np.float16).astype(np.float32)
    near = halves.view(np.uint32).astype(np.int64)[None, :] + np.array([-1, 0, 1])[:, None]
    return np.concatenate([pattern, near.ravel().astype(np.uint32)])


def _check_narrowing(got: list[str], expected: np.ndarray, values: np.ndarray, bf16: bool):
    for word, want, value in zip(got, expected.tolist(), values.tolist(), strict=True):
        if np.isnan(value):
            assert is_nan16(int(word, 16), bf16)
        else:
            assert word == f"{want:04x}", (value, word, want)


def test_float_to_float16_rounds_to_nearest_even(driver: Path) -> None:
    bits = _floats(50000)
    values = bits.view(np.float32)
    with np.errstate(all="ignore"):
        expected = values.astype(np.float16).view(np.uint16)
    _check_narrowing(run(driver, "f2h", bits.tolist()), expected, values, bf16=False)


def test_double_to_float16_rounds_once(driver: Path) -> None:
    values = np.concatenate(
        [
            RNG.integers(0, 2**64, 20000, dtype=np.uint64).view(np.float64),
            RNG.standard_normal(20000) * 1000,
            RNG.standard_normal(20000) * 1e-6,
            [1 + 2.0**-11 + 2.0**-40],  # rounding through float would tie and go down
        ]
    )
    with np.errstate(all="ignore"):
        expected = values.astype(np.float16).view(np.uint16)
    got = run(driver, "d2h", values.view(np.uint64).tolist())
    _check_narrowing(got, expected, values, bf16=False)


def test_bfloat16_from_float_matches_ml_dtypes(driver: Path) -> None:
    bits = _floats(50000)
    values = bits.view(np.float32)
    with np.errstate(all="ignore"):
        expected = values.astype(ml_dtypes.bfloat16).view(np.uint16)
    _check_narrowing(run(driver, "f2b", bits.tolist()), expected, values, bf16=True)
    words = np.arange(0, 65536, 7, dtype=np.uint16)
    widened = words.view(ml_dtypes.bfloat16).astype(np.float32).view(np.uint32)
    assert run(driver, "b2f", words.tolist()) == [f"{v:08x}" for v in widened.tolist()]


def _nearest_bfloat16(value: Fraction) -> int:
    """The bfloat16 word nearest to `value` (ties to even), by exact arithmetic
    over the words next to the approximate nearest."""
    with np.errstate(invalid="ignore"):
        table = np.arange(65536, dtype=np.uint16).view(ml_dtypes.bfloat16).astype(np.float64)
    finite = np.flatnonzero(np.isfinite(table))
    approx = finite[np.argsort(np.abs(table[finite] - float(value)), kind="stable")[:4]]
    words = [int(w) for w in approx]
    return min(words, key=lambda w: (abs(Fraction(float(table[w])) - value), w & 1))


def test_bfloat16_from_double_and_int64_rounds_once(driver: Path) -> None:
    doubles = [float.fromhex("-0x1.c10000acae039p-21"), 1 + 2.0**-9 + 2.0**-40, -3.75e-30]
    got = run(driver, "d2b", np.array(doubles).view(np.uint64).tolist())
    assert got == [f"{_nearest_bfloat16(Fraction(d)):04x}" for d in doubles]
    ints = [2**31 + 2**23 + 1, 2**60 + 2**52 + 1, -(2**60 + 2**52 + 1), 0, -1, 2**63 - 1]
    got = run(driver, "i2b", ints)
    for value, word in zip(ints, got, strict=True):
        nearest = _nearest_bfloat16(Fraction(value))
        assert int(word, 16) == nearest, (value, word, nearest)


def test_integer_division_is_defined_everywhere(driver: Path) -> None:
    int_min = -(2**31)
    pairs = [(7, 2), (-7, 2), (7, -2), (5, 0), (int_min, -1), (int_min, 1), (0, 0)]
    encoded = [((a & 0xFFFFFFFF) << 32) | (b & 0xFFFFFFFF) for a, b in pairs]
    quotients = [int(q) for q in run(driver, "div", encoded)]
    remainders = [int(r) for r in run(driver, "rem", encoded)]
    assert quotients == [3, -3, -3, 0, int_min, int_min, 0]  # truncation; x / 0 is 0
    assert remainders == [1, -1, 1, 0, 0, 0, 0]  # sign of the dividend; x % 0 is 0


def test_float_to_int_saturates(driver: Path) -> None:
    values = np.array([1.9, -1.9, 127.5, 300.0, -1e30, np.inf, -np.inf, np.nan, -128.0])
    got = [int(v) for v in run(driver, "sat", values.view(np.uint64).tolist())]
    assert got == [1, -1, 127, 127, -128, 127, -128, 0, -128]


SMALL_FLOATS = ["float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz", "float4e2m1"]


@pytest.mark.parametrize("name", SMALL_FLOATS)
def test_small_float_conversions_match_ml_dtypes(name: str, tmp_path: Path) -> None:
    """Every code widens exactly; random floats of every magnitude, the
    boundaries, the ties and the special values narrow as ml_dtypes does
    (round to nearest even; the 8-bit floats do not saturate: overflow is
    infinity or NaN; float4e2m1 saturates, and NaN becomes a zero)."""
    row = element_types.by_name(name)
    assert row is not None and row.runtime_name is not None
    rng = np.random.default_rng(3)
    finite = rng.standard_normal(20000) * np.exp(rng.uniform(-24, 12, 20000))
    largest = float(ml_dtypes.finfo(row.numpy_dtype).max)
    edges = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, largest, largest * 1.03, largest * 1.1]
    ties = np.arange(-32, 33) * 0.125
    floats = np.concatenate([finite, edges, ties]).astype(np.float32)
    codes = np.arange(1 << row.bits, dtype=np.uint8)
    widened, narrowed = _run_small_float(row.runtime_name, codes, floats, tmp_path)
    expected_wide = codes.view(row.numpy_dtype).astype(np.float32)
    both_nan = np.isnan(widened) & np.isnan(expected_wide)
    assert np.all((widened.view(np.uint32) == expected_wide.view(np.uint32)) | both_nan)
    expected = floats.astype(row.numpy_dtype)
    nan = np.isnan(expected.astype(np.float32)) & np.isnan(
        narrowed.view(row.numpy_dtype).astype(np.float32)
    )
    assert np.all((narrowed == expected.view(np.uint8)) | nan)


def _run_small_float(
    runtime: str, codes: np.ndarray, floats: np.ndarray, folder: Path
) -> tuple[np.ndarray, np.ndarray]:
    source = folder / "f8.c"
    source.write_text(
        f"""#include "onnxc_runtime.h"
#include <stdio.h>
int main(void) {{
  uint8_t code;
  float f;
  size_t k;
  for (k = 0; k < {codes.size}u && fread(&code, 1, 1, stdin) == 1; ++k) {{
    f = onnxc_{runtime}_to_f32(code);
    fwrite(&f, 4, 1, stdout);
  }}
  while (fread(&f, 4, 1, stdin) == 1) {{
    code = onnxc_f32_to_{runtime}(f);
    fwrite(&code, 1, 1, stdout);
  }}
  return 0;
}}
"""
    )
    binary = folder / "f8"
    subprocess.run(
        ["cc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", f"-I{runtime_dir()}"]
        + [str(source), "-o", str(binary), "-lm"],
        check=True,
    )
    out = subprocess.run(
        [str(binary)], input=codes.tobytes() + floats.tobytes(), capture_output=True, check=True
    ).stdout
    widened = np.frombuffer(out[: 4 * codes.size], np.float32)
    return widened, np.frombuffer(out[4 * codes.size :], np.uint8)


def test_float8e8m0_conversions_match_onnx(tmp_path: Path) -> None:
    """float8e8m0: every code widens as ml_dtypes does; floats of every
    magnitude (and zeros, subnormals, infinities, NaN, the largest exponent)
    narrow as onnx's `to_float8e8m0` with Cast's defaults (round up,
    saturate)."""
    from onnx.numpy_helper import to_float8e8m0

    rng = np.random.default_rng(4)
    finite = rng.standard_normal(20000) * np.exp(rng.uniform(-90, 88, 20000))
    edges = [0.0, -0.0, 1e-40, 2.0**-127, np.inf, -np.inf, np.nan, 2.0**127, 3.0 * 2.0**126]
    floats = np.concatenate([finite, edges, 2.0 ** np.arange(-126, 128)]).astype(np.float32)
    codes = np.arange(256, dtype=np.uint8)
    widened, narrowed = _run_small_float("f8e8m0", codes, floats, tmp_path)
    expected_wide = codes.view(ml_dtypes.float8_e8m0fnu).astype(np.float32)
    both_nan = np.isnan(widened) & np.isnan(expected_wide)
    assert np.all((widened.view(np.uint32) == expected_wide.view(np.uint32)) | both_nan)
    assert np.array_equal(narrowed, to_float8e8m0(floats).view(np.uint8))
