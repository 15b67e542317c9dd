"""Targets onnxc compiles for: the host, and microcontrollers run in an emulator.

A `Target` names the cross-compiler, its flags (CPU, float ABI, libc), the
memory map of the emulated board and the emulator command. Adding a target is
one entry in `TARGETS`; everything else (build recipe, cross-build, emulator
run, size report) reads this table.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Target:
    """One compilation target.

    `cc` is the C compiler; `cpu_flags` select the core and float ABI (they go
    on every compile and link line); `libc_flags` select the C library and its
    semihosting start-up code for emulator runs; `memory` gives the board's
    flash and RAM windows as (base, size) for the linker; `emulator` is the
    argv prefix that boots an ELF (the ELF path is appended after `-kernel`);
    `size_tool` reports text/data/bss of an ELF. The host target has no emulator.
    """

    name: str
    description: str
    cc: str
    cpu_flags: tuple[str, ...] = ()
    libc_flags: tuple[str, ...] = ()
    memory: tuple[tuple[int, int], tuple[int, int]] | None = None  # (flash, ram)
    emulator: tuple[str, ...] = ()
    size_tool: str = ""

    @property
    def is_host(self) -> bool:
        return not self.emulator

    def link_flags(self) -> tuple[str, ...]:
        """Linker flags placing flash and RAM where the emulated board has them."""
        if self.memory is None:
            return ()
        (flash, flash_size), (ram, ram_size) = self.memory
        return (
            f"-Wl,--defsym=__flash={flash:#x}",
            f"-Wl,--defsym=__flash_size={flash_size:#x}",
            f"-Wl,--defsym=__ram={ram:#x}",
            f"-Wl,--defsym=__ram_size={ram_size:#x}",
        )


_PICOLIBC_SEMIHOST = ("--specs=picolibc.specs", "--oslib=semihost", "--crt0=semihost")
_MPS2_MEMORY = ((0x0, 0x400000), (0x20000000, 0x400000))

TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("host", "this machine's C compiler, loaded into Python with cffi", cc="cc"),
        Target(
            "cortex-m4",
            "Arm Cortex-M4F (hard float), emulated as an MPS2 AN386 board",
            cc="arm-none-eabi-gcc",
            cpu_flags=("-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"),
            libc_flags=_PICOLIBC_SEMIHOST,
            memory=_MPS2_MEMORY,
            emulator=("qemu-system-arm", "-M", "mps2-an386", "-nographic", "-semihosting"),
            size_tool="arm-none-eabi-size",
        ),
        Target(
            "cortex-m0",
            "Arm Cortex-M0 (Armv6-M, soft float), emulated on an MPS2 board with a Cortex-M0 core",
            cc="arm-none-eabi-gcc",
            cpu_flags=("-mcpu=cortex-m0", "-mthumb", "-mfloat-abi=soft"),
            libc_flags=_PICOLIBC_SEMIHOST,
            memory=_MPS2_MEMORY,
            emulator=("qemu-system-arm", "-M", "mps2-an385", "-nographic", "-semihosting"),
            size_tool="arm-none-eabi-size",
        ),
    )
}
"""Every target by name; `host` first."""


def get_target(name: str) -> Target:
    """The target called `name`; raises KeyError listing the known ones."""
    try:
        return TARGETS[name]
    except KeyError:
        raise KeyError(f"unknown target '{name}' (targets: {', '.join(TARGETS)})") from None
