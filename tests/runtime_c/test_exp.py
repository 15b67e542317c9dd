"""The runtime's `onnxc_expf`: the float that exp in double rounds to, on a
dense sweep of float bit patterns (every 4099th of the 2^32, zeros,
subnormals, where exp overflows to infinity and underflows to subnormals and
zero, the clamping limits, infinities and NaNs). (An exhaustive run over all
2^32 floats found no difference either; glibc's expf differs from it by an
ulp on 170648 of them.) On x86 the function needs AVX2 (else it is expf)."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from onnxc.targets import host_cpu_flags
from tests.runtime_c.drivers import build_float_sweep, float_sweep_wrong

SPECIAL = [
    0x00000000,  # +0: 1
    0x80000000,  # -0: 1
    0x00000001,  # the smallest subnormal
    0x807FFFFF,  # the largest negative subnormal
    0x33000000,  # 2^-25: rounds to 1
    0xB3000000,  # -2^-25: the midpoint below 1
    0x3F800000,  # 1
    0xBF800000,  # -1
    0x42B17217,  # 88.7228: the last finite result
    0x42B17218,  # 88.7228: inf from here on
    0x42B20000,  # 89: clamped from here on
    0x42B20001,
    0xC2AEAC4F,  # -87.3365: the last normal result
    0xC2AEAC50,  # -87.3365: subnormal results from here on
    0xC2CDBF37,  # -102.874: the smallest subnormal from here on
    0xC2CFF1B4,  # -103.972: the last nonzero result
    0xC2CFF1B5,  # 0 from here on
    0xC2D00000,  # -104: clamped from here on
    0xC2D00001,
    0x7F7FFFFF,  # the largest float
    0xFF7FFFFF,  # the most negative float
    0xFF800000,  # -inf
    0x7F800000,  # +inf
    0x7FC00000,  # NaN
    0xFFC00001,  # a negative NaN
    0x7F800001,  # a signalling NaN
]


def test_expf_is_exp_in_double_rounded(tmp_path: Path) -> None:
    flags: tuple[str, ...] = ()
    if platform.machine() in ("x86_64", "AMD64", "i386", "i686"):  # without AVX2: expf
        if "avx2" not in host_cpu_flags():
            pytest.skip("x86 without AVX2 calls expf")
        flags = ("-mavx2",)
    driver = build_float_sweep(tmp_path, "onnxc_expf(x)", "(float)exp((double)x)", flags)
    assert float_sweep_wrong(driver, 4099, SPECIAL) == 0
