"""The runtime's counter-based random numbers: SplitMix64's published
sequence, exact agreement with a Python model of the same formulas, the
ranges of the uniform draws, and their statistics over many counters and
neighbouring keys."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.runtime_c.drivers import build_driver, run_driver

DRIVER = r"""
#include <stdio.h>
#include "onnxc_runtime.h"
int main(void) {
  unsigned long long key, counter;
  while (scanf("%llx %llx", &key, &counter) == 2) {
    printf("%016llx %a %a\n", (unsigned long long)onnxc_random_bits(key, counter),
           onnxc_uniform(key, counter), (double)onnxc_uniformf(key, counter));
  }
  return 0;
}
"""

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def random_bits(key: int, counter: int) -> int:
    return mix64((mix64(key) + (counter + 1) * GOLDEN) & MASK)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_driver(tmp_path_factory.mktemp("random"), DRIVER)


def draws(driver: Path, pairs: list[tuple[int, int]]) -> list[tuple[int, float, float]]:
    words = run_driver(driver, "".join(f"{k & MASK:x} {c & MASK:x}\n" for k, c in pairs))
    return [
        (int(words[i], 16), float.fromhex(words[i + 1]), float.fromhex(words[i + 2]))
        for i in range(0, len(words), 3)
    ]


def test_key_zero_is_splitmix64_seeded_with_zero(driver: Path) -> None:
    """The first outputs of SplitMix64 from state 0 (the reference
    implementation's published sequence)."""
    got = [bits for bits, _, _ in draws(driver, [(0, 0), (0, 1), (0, 2)])]
    assert got == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_draws_match_the_formulas(driver: Path) -> None:
    rng = np.random.default_rng(1)
    pairs = [(0, 0), (MASK, MASK), (1, MASK)] + [
        (int(k), int(c)) for k, c in rng.integers(0, 2**63, (200, 2), dtype=np.uint64)
    ]
    for (key, counter), (bits, uniform, uniformf) in zip(pairs, draws(driver, pairs), strict=True):
        want = random_bits(key, counter)
        assert bits == want
        assert uniform == (want >> 11) * 2.0**-53
        assert uniformf == (want >> 40) * 2.0**-24


def test_uniform_draws_are_in_the_unit_interval_and_balanced(driver: Path) -> None:
    count = 20000
    results = draws(driver, [(k, c) for k in (0, 1, 2) for c in range(count)])
    for k in range(3):
        uniform = np.array([u for _, u, _ in results[k * count : (k + 1) * count]])
        uniformf = np.array([u for _, _, u in results[k * count : (k + 1) * count]])
        for values in (uniform, uniformf):
            assert values.min() >= 0.0 and values.max() < 1.0
            # mean 1/2 and variance 1/12, well within 5 standard errors
            assert abs(values.mean() - 0.5) < 5 * np.sqrt(1 / 12 / count)
            assert abs(values.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / count)
            histogram = np.histogram(values, bins=10, range=(0, 1))[0]
            assert np.all(np.abs(histogram - count / 10) < 5 * np.sqrt(count / 10))
    first, second = (
        np.array([u for _, u, _ in results[k * count : (k + 1) * count]]) for k in (0, 1)
    )
    # neighbouring keys give uncorrelated streams
    assert abs(np.corrcoef(first, second)[0, 1]) < 5 / np.sqrt(count)
    bits = np.array([b for b, _, _ in results], dtype=np.uint64)
    ones = np.unpackbits(bits.view(np.uint8)).reshape(-1, 64).mean(axis=0)
    assert np.all(np.abs(ones - 0.5) < 5 * 0.5 / np.sqrt(len(bits)))
