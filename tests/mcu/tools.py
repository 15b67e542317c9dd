"""What the MCU tests need: the ARM toolchain and qemu, and a test marker for them.

Tests that cross-compile or emulate are marked `needs_arm` and skip, saying what
to install, when arm-none-eabi-gcc, picolibc or qemu-system-arm is missing (CI's
`.ci/run` installs them).
"""

from __future__ import annotations

import shutil
import subprocess

import pytest


def _missing_arm_tools() -> str | None:
    for tool, package in (
        ("arm-none-eabi-gcc", "gcc-arm-none-eabi"),
        ("qemu-system-arm", "qemu-system-arm"),
    ):
        if shutil.which(tool) is None:
            return f"{tool} not installed (apt-get install {package})"
    spec = subprocess.run(
        ["arm-none-eabi-gcc", "-print-file-name=picolibc.specs"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if spec == "picolibc.specs":
        return "picolibc for arm-none-eabi not installed (apt-get install picolibc-arm-none-eabi)"
    return None


MISSING_ARM_TOOLS = _missing_arm_tools()

needs_arm = pytest.mark.skipif(MISSING_ARM_TOOLS is not None, reason=MISSING_ARM_TOOLS or "")
"""Skip unless the ARM cross-compiler, picolibc and qemu-system-arm are installed."""

MCU_TARGETS = ["cortex-m4", "cortex-m0"]
