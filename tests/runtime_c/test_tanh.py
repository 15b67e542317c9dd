"""The runtime's `onnxc_tanhf`: the float that tanh in double rounds to, on
a dense sweep of float bit patterns (every 4099th of the 2^32, the ends of
the range, zeros, subnormals, infinities and NaNs), with the sign of zero
kept. (An exhaustive run over all 2^32 floats found no difference either.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.runtime_c.drivers import build_driver, run_driver

DRIVER = r"""
#include <stdio.h>
#include <string.h>
#include "onnxc_runtime.h"
static int same(float got, float want) {
  if (isnan(want)) return isnan(got);
  return memcmp(&got, &want, sizeof got) == 0;  /* the sign of zero too */
}
int main(void) {
  unsigned long stride, checked = 0, wrong = 0;
  unsigned long long u;
  if (scanf("%lu", &stride) != 1) return 1;
  for (u = 0; u <= 0xFFFFFFFFull; u += stride) {
    const uint32_t bits = (uint32_t)u;
    float x;
    memcpy(&x, &bits, sizeof x);
    ++checked;
    if (!same(onnxc_tanhf(x), (float)tanh((double)x))) ++wrong;
  }
  while (scanf("%llx", &u) == 1) {  /* special values, by bit pattern */
    const uint32_t bits = (uint32_t)u;
    float x;
    memcpy(&x, &bits, sizeof x);
    ++checked;
    if (!same(onnxc_tanhf(x), (float)tanh((double)x))) ++wrong;
  }
  printf("%lu %lu\n", checked, wrong);
  return 0;
}
"""

SPECIAL = [
    0x00000000,  # +0
    0x80000000,  # -0
    0x00000001,  # the smallest subnormal
    0x807FFFFF,  # the largest negative subnormal
    0x3F800000,  # 1
    0x41A00000,  # 20: clamped from here on
    0x41A00001,
    0x41100000,  # 9, where tanh approaches 1 in float
    0x7F7FFFFF,  # the largest float
    0xFF800000,  # -inf
    0x7F800000,  # +inf
    0x7FC00000,  # NaN
    0xFFC00001,  # a negative NaN
    0x7F800001,  # a signalling NaN
]


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_driver(tmp_path_factory.mktemp("tanh"), DRIVER)


def test_tanhf_is_tanh_in_double_rounded(driver: Path) -> None:
    words = run_driver(driver, "4099\n" + "".join(f"{s:x}\n" for s in SPECIAL))
    checked, wrong = int(words[0]), int(words[1])
    assert checked == 2**32 // 4099 + 1 + len(SPECIAL)
    assert wrong == 0
