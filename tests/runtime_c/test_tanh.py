"""The runtime's `onnxc_tanhf`: the float that tanh in double rounds to, on
a dense sweep of float bit patterns (every 4099th of the 2^32, the ends of
the range, zeros, subnormals, infinities and NaNs), with the sign of zero
kept. (An exhaustive run over all 2^32 floats found no difference either.)"""

from __future__ import annotations

from pathlib import Path

from tests.runtime_c.drivers import build_float_sweep, float_sweep_wrong

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


def test_tanhf_is_tanh_in_double_rounded(tmp_path: Path) -> None:
    driver = build_float_sweep(tmp_path, "onnxc_tanhf(x)", "(float)tanh((double)x)")
    assert float_sweep_wrong(driver, 4099, SPECIAL) == 0
