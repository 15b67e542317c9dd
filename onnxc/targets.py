"""Targets onnxc compiles for: the host, and microcontrollers run in an emulator.

A `Target` names the C compiler, its flags (CPU, float ABI, libc), the memory map
of the emulated board and the emulator command. Adding a target is one entry in
`TARGETS`; everything else (build recipe, cross-build, emulator run, size report)
reads this table.
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass
from pathlib import Path

from onnxc.errors import OnnxcError
from onnxc.ir_names import MAX_BUFFER_BYTES, MAX_BUFFER_BYTES_32, MAX_ELEMENTS, MAX_ELEMENTS_32

STRICT_FLAGS = ("-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror")
"""Warnings every build of generated C uses: the code promises to be clean C99."""

SECTION_FLAGS = ("-ffunction-sections", "-fdata-sections")
"""One section per function and object, so that `-Wl,--gc-sections` drops the unused."""


@dataclass(frozen=True)
class Kernels:
    """How a target's convolution kernels are blocked (`select-kernels`).

    `lanes` is the channel block: the output channels of one pixel that one
    constant-trip loop computes, which the C compiler turns into vector
    instructions (16 floats fill an AVX-512 register); `pixels` the output
    pixels of one register block, each with its own accumulator array, so
    that `pixels` vectors of accumulators stay in registers (8 with 32 vector
    registers, 4 with 16). With `unrolled`, the lane loop is written out, one
    statement per lane: the scalar register block of a core without SIMD,
    whose `lanes * pixels` accumulators stay in scalar registers only when
    each is addressed by a constant (gcc -O2 leaves a small constant-trip loop
    rolled, and the accumulator arrays then live on the stack). With `fma`,
    the kernels accumulate with fused multiply-adds (`fmaf`: one rounding
    instead of two, so results differ from the plain loops' in the last
    bits), for CPUs that have them. With `parallel`, each kernel's outer loop
    (output blocks or rows) is marked for a build with threads to split
    (`onnxc.ir_names.PARALLEL`): the host targets'."""

    lanes: int
    pixels: int
    unrolled: bool = False
    fma: bool = False
    parallel: bool = False


@dataclass(frozen=True)
class Target:
    """One compilation target.

    `cc` and `ar` are the C compiler and archiver; `cpu_flags` select the core
    and float ABI (they go on every compile and link line); `libc_flags` select
    the C library and its semihosting start-up code for emulator runs; `memory`
    gives the board's flash and RAM windows as (base, size) for the linker and
    `stack_size` the stack the start-up code reserves; `emulator` is the argv
    prefix that boots an ELF (`-kernel ELF` is appended); `size_tool` reports
    text/data/bss of an ELF; `harness_defines` are macros the emulator harness
    is compiled with. `packages` (compiler and libc) and `emulator_packages` are
    the Debian packages that provide the tools. The host targets have no emulator.
    `clock_hz` is the emulated core's clock, which its SysTick timer counts (for
    instruction counts under qemu's `-icount`, see `onnxc.tools.instruction_count`).
    `cflags` are extra flags for building the model (the host's `-march=native`);
    `kernels` the blocking of its convolution kernels, None for plain loops.
    `double_sums`: long float sums accumulate in double (reduction/blocks.py's
    `sum_type`), for cores that add doubles in hardware; on the others a double
    addition is a library call, and sums stay in float.
    `integer_rows`: dense integer convolutions sum rows of unsigned bytes
    times int8 weights (`kernels/qconv_rows.py`), the loops gcc turns into
    x86's VNNI dot products, instead of Armv7E-M's SMLAD pairs.
    """

    name: str
    description: str
    cc: str
    ar: str = "ar"
    cpu_flags: tuple[str, ...] = ()
    libc_flags: tuple[str, ...] = ()
    memory: tuple[tuple[int, int], tuple[int, int]] | None = None  # (flash, ram)
    stack_size: int = 0
    emulator: tuple[str, ...] = ()
    size_tool: str = "size"
    harness_defines: tuple[str, ...] = ()
    packages: tuple[str, ...] = ()
    emulator_packages: tuple[str, ...] = ()
    clock_hz: int = 0
    cflags: tuple[str, ...] = ()
    kernels: Kernels | None = None
    double_sums: bool = False
    integer_rows: bool = False

    @property
    def is_host(self) -> bool:
        return not self.emulator

    @property
    def size_limits(self) -> tuple[int, int]:
        """The most elements of a tensor sized at run time and the most bytes
        of a buffer (`onnxc.ir_names.MAX_ELEMENTS`): size arithmetic in the
        target's `ptrdiff_t` cannot overflow below them."""
        if self.pointer_bytes >= 8:
            return MAX_ELEMENTS, MAX_BUFFER_BYTES
        return MAX_ELEMENTS_32, MAX_BUFFER_BYTES_32

    @property
    def pointer_bytes(self) -> int:
        """The size of a data pointer (and of size_t): the host's, or 4 on
        the 32-bit microcontrollers."""
        return struct.calcsize("P") if self.is_host else 4

    def link_flags(self) -> tuple[str, ...]:
        """Linker flags placing flash, RAM and the stack where the board has them."""
        if self.memory is None:
            return ()
        (flash, flash_size), (ram, ram_size) = self.memory
        return (
            f"-Wl,--defsym=__flash={flash:#x}",
            f"-Wl,--defsym=__flash_size={flash_size:#x}",
            f"-Wl,--defsym=__ram={ram:#x}",
            f"-Wl,--defsym=__ram_size={ram_size:#x}",
            f"-Wl,--defsym=__stack_size={self.stack_size:#x}",
        )


@functools.cache
def host_cpu_flags() -> frozenset[str]:
    """The instruction-set flags of this machine's CPU (Linux's /proc/cpuinfo;
    empty elsewhere)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith(("flags", "Features")):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


_KERNEL_FLAGS = ("-fpeel-loops", "-fno-tree-loop-distribute-patterns", "-fvect-cost-model=dynamic")
"""gcc -O2 keeps a kernel's accumulator arrays in registers only when it peels
the vector loop it made of their lane loop, and when no accumulator's
initialisation became a memset/memcpy call (which takes the arrays' addresses);
otherwise they round-trip through the stack and ResNet-8 runs 1.8-2.1x slower.
-O3 peels too, but its unroll-and-jam slows the 1x1 convolutions. gcc 12's -O2
vectorises only loops that need no run-time check ("very cheap" cost model):
loops over buffers of the one arena (LayerNorm's normalisation, Softmax's
division, elementwise chains) need one that they do not overlap; with the
"dynamic" model they are vectorised behind it, Softmax's onnxc_expf among
them (scalar, it is slower than libm's expf). The encoder layers ran 5-17%
faster (d 256, seq 128: 1.62 -> 1.48 ms with onnxc_expf), LeNet-5 10%; no
reduction is vectorised either way, so results do not change."""


def _host_vector_flags() -> tuple[str, ...]:
    """gcc tunes many AVX-512 CPUs to prefer 256-bit vectors; the kernels'
    16-lane loops run up to 1.2x faster in 512-bit ones (measured on a Xeon)."""
    return ("-mprefer-vector-width=512",) if "avx512f" in host_cpu_flags() else ()


_SCALAR_KERNEL_FLAGS = ("-fno-predictive-commoning",)
"""gcc -O2's predictive commoning passes an input value of one tap on to the
next pixel's tap (stride 1) through extra registers; with the 16 accumulators
of a 4x4 scalar register block (of the 32 single-precision registers of
Cortex-M4F's FPU) it then spills products to the stack in the innermost loop.
Without it that loop is 8 loads, 16 multiplies and 16 adds, no stack access,
and ResNet-8 runs 10% fewer instructions."""


_ARM_PACKAGES = ("gcc-arm-none-eabi", "picolibc-arm-none-eabi")
_PICOLIBC_SEMIHOST = (
    "--specs=picolibc.specs",
    "--oslib=semihost",
    "--crt0=semihost",
    "-DPICOLIBC_INTEGER_PRINTF_SCANF",  # the harness prints no floats: smaller printf
)
_MPS2_MEMORY = ((0x0, 0x400000), (0x20000000, 0x400000))
_QEMU = ("qemu-system-arm", "-nographic", "-semihosting")
_MPS2_CLOCK_HZ = 25_000_000  # qemu's MPS2 boards: SYSCLK, SysTick's processor clock

TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target(
            "host",
            "this machine's C compiler for this machine's CPU (-march=native), loaded into "
            "Python with cffi",
            cc="cc",
            cflags=("-march=native", *_KERNEL_FLAGS, *_host_vector_flags()),
            kernels=Kernels(
                lanes=16,
                pixels=8 if "avx512f" in host_cpu_flags() else 4,
                fma="fma" in host_cpu_flags(),
                parallel=True,
            ),
            double_sums=True,
            integer_rows=True,
        ),
        Target(
            "host-portable",
            "this machine's C compiler for any CPU of its architecture (no -march), loaded "
            "into Python with cffi",
            cc="cc",
            cflags=_KERNEL_FLAGS,
            kernels=Kernels(lanes=16, pixels=4, parallel=True),
            double_sums=True,
            integer_rows=True,
        ),
        Target(
            "cortex-m4",
            "Arm Cortex-M4F (hard float), emulated as an MPS2 AN386 board",
            cc="arm-none-eabi-gcc",
            ar="arm-none-eabi-ar",
            cpu_flags=("-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"),
            libc_flags=_PICOLIBC_SEMIHOST,
            memory=_MPS2_MEMORY,
            stack_size=0x4000,
            emulator=(*_QEMU, "-M", "mps2-an386"),
            size_tool="arm-none-eabi-size",
            packages=_ARM_PACKAGES,
            emulator_packages=("qemu-system-arm",),
            clock_hz=_MPS2_CLOCK_HZ,
            cflags=_SCALAR_KERNEL_FLAGS,
            kernels=Kernels(lanes=4, pixels=4, unrolled=True),
        ),
        # qemu 7.2's MPS2 boards refuse `-cpu cortex-m0`, and its one Cortex-M0
        # board (microbit) has 16 KB of RAM, too little for most models. Armv6-M
        # is a subset of Armv7-M, so the Armv6-M ELF (code and picolibc both built
        # for it) runs unchanged on the Cortex-M3 of an MPS2 AN385; the harness
        # turns on unaligned-access traps, which Armv6-M always has. M0 timing is
        # not emulated. It has no kernels: with soft float each multiply-add is
        # two library calls (about 150 instructions a MAC on ResNet-8), and 4x4
        # scalar blocks saved only 3-5% of the instructions of DS-CNN, LeNet-5
        # and ResNet-8 for 2.7-3.6x their code.
        Target(
            "cortex-m0",
            "Arm Cortex-M0 (Armv6-M, soft float), run on an MPS2 AN385 board's Cortex-M3 "
            "with unaligned accesses trapping as on an M0",
            cc="arm-none-eabi-gcc",
            ar="arm-none-eabi-ar",
            cpu_flags=("-mcpu=cortex-m0", "-mthumb", "-mfloat-abi=soft"),
            libc_flags=_PICOLIBC_SEMIHOST,
            memory=_MPS2_MEMORY,
            stack_size=0x4000,
            emulator=(*_QEMU, "-M", "mps2-an385"),
            size_tool="arm-none-eabi-size",
            harness_defines=("ONNXC_HARNESS_TRAP_UNALIGNED",),
            packages=_ARM_PACKAGES,
            emulator_packages=("qemu-system-arm",),
            clock_hz=_MPS2_CLOCK_HZ,
        ),
    )
}
"""Every target by name; `host` first."""


def get_target(name: str) -> Target:
    """The target called `name`; raises OnnxcError listing the known ones."""
    try:
        return TARGETS[name]
    except KeyError:
        raise OnnxcError(f"unknown target '{name}' (targets: {', '.join(TARGETS)})") from None
