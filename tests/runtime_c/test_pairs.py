"""The runtime's pair arithmetic of the integer kernels (`onnxc_dot2`,
`onnxc_widen_bytes02`/`13`) in its portable C, against a Python model of
Armv7E-M's SMLAD and SXTB16: words at the extremes of each half and byte,
and random ones; sums wrap modulo 2^32 as SMLAD's do. (On the Cortex-M4 the
instructions themselves run: the integer kernels' tests compare its outputs
with onnxruntime's.)"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.runtime_c.drivers import build_driver, run_driver

DRIVER = r"""
#include <stdio.h>
#include "onnxc_runtime.h"
int main(void) {
  unsigned long a, b, acc;
  while (scanf("%lx %lx %lx", &a, &b, &acc) == 3) {
    printf("%08lx %08lx %08lx\n",
           (unsigned long)(uint32_t)onnxc_dot2((int32_t)(uint32_t)a, (int32_t)(uint32_t)b,
                                                (int32_t)(uint32_t)acc),
           (unsigned long)(uint32_t)onnxc_widen_bytes02((int32_t)(uint32_t)a),
           (unsigned long)(uint32_t)onnxc_widen_bytes13((int32_t)(uint32_t)a));
  }
  return 0;
}
"""

MASK = (1 << 32) - 1


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def smlad(a: int, b: int, acc: int) -> int:
    low = _signed(a, 16) * _signed(b, 16)
    high = _signed(a >> 16, 16) * _signed(b >> 16, 16)
    return (acc + low + high) & MASK


def sxtb16(word: int) -> int:
    return (_signed(word, 8) & 0xFFFF) | ((_signed(word >> 16, 8) & 0xFFFF) << 16)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_driver(tmp_path_factory.mktemp("pairs"), DRIVER)


def test_pairs_match_the_instructions(driver: Path) -> None:
    edges = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF7FFF, 0x80008000, MASK]
    rng = np.random.default_rng(0)
    words = [int(w) for w in rng.integers(0, 1 << 32, size=3000, dtype=np.uint64)]
    triples = [(a, b, acc) for a in edges for b in edges for acc in (0, 0x7FFFFFFF, 0x80000000)]
    triples += list(zip(words[0::3], words[1::3], words[2::3], strict=True))
    out = run_driver(driver, "".join(f"{a:x} {b:x} {acc:x}\n" for a, b, acc in triples))
    for k, (a, b, acc) in enumerate(triples):
        got = [int(w, 16) for w in out[3 * k : 3 * k + 3]]
        assert got == [smlad(a, b, acc), sxtb16(a), sxtb16(a >> 8)], (hex(a), hex(b), hex(acc))
