"""`runtime_c/onnxc_case.h` is what `onnxc.text.unicode_case` generates, its C
functions agree with the Python model over every code point and over random
valid and invalid UTF-8, and it compiles warning-free included alone or used."""

from __future__ import annotations

import array
import itertools
import locale
import random
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from onnxc.runtime_c import runtime_dir
from onnxc.text import unicode_case
from onnxc.text.unicode_case import change_case, equal_ignoring_case, simple_lower, simple_upper
from tests.runtime_c.drivers import cffi_module

STRICT = ("-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror")

_CDEF = """
uint32_t onnxc_lower(uint32_t cp);
uint32_t onnxc_upper(uint32_t cp);
size_t onnxc_case_size(const char *data, size_t size, int upper);
size_t onnxc_case_write(char *out, const char *data, size_t size, int upper);
int onnxc_case_equal(const char *a, size_t a_size, const char *b, size_t b_size);
void map_all(uint32_t *out, uint32_t count, int upper);
"""

_SOURCE = """
#include "onnxc_case.h"
static void map_all(uint32_t *out, uint32_t count, int upper) {
  uint32_t cp;
  for (cp = 0; cp < count; ++cp) out[cp] = upper ? onnxc_upper(cp) : onnxc_lower(cp);
}
"""

_USES_ALL = """
#include <stdio.h>
#include "onnxc_case.h"
int main(void) {
  static const char text[] = "Stra\\xc3\\x9f\\x65 \\xc4\\xb0 \\xff";
  char out[64];
  size_t size = onnxc_case_size(text, sizeof text - 1, 1);
  size_t written = onnxc_case_write(out, text, sizeof text - 1, 0);
  printf("%u %u %u %d\\n", (unsigned)size, (unsigned)written, (unsigned)onnxc_lower(0x41),
         onnxc_case_equal(text, sizeof text - 1, out, written));
  return 0;
}
"""


@pytest.fixture(scope="module")
def case_c(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The header's functions, built into a cffi extension."""
    return cffi_module(tmp_path_factory.mktemp("case"), "_onnxc_case_test", _CDEF, _SOURCE)


def test_header_is_current() -> None:
    text = unicode_case.HEADER.read_text()
    assert text == unicode_case.generate(text), (
        "runtime_c/onnxc_case.h is out of date: run python -m onnxc.text.unicode_case --write"
    )
    assert unicode_case.main(["--check"]) == 0


def test_check_and_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    header = tmp_path / "onnxc_case.h"
    current = unicode_case.HEADER.read_text()
    header.write_text(current.replace("{0x00041u << 11 | 25u, 32u},", ""))
    monkeypatch.setattr(unicode_case, "HEADER", header)
    assert unicode_case.main(["--check"]) == 1
    assert unicode_case.main(["--write"]) == 0
    assert header.read_text() == current and unicode_case.main(["--check"]) == 0
    header.write_text(current.replace(unicode_case.END, ""))
    with pytest.raises(SystemExit, match="markers"):
        unicode_case.main(["--check"])


def test_simple_mappings() -> None:
    assert chr(simple_upper(ord("ß"))) == "ß"  # full mapping "SS"
    assert chr(simple_lower(0x130)) == "i"  # full mapping "i" + U+0307
    assert simple_upper(0x131) == ord("I") and simple_lower(ord("I")) == ord("i")
    assert simple_upper(0x1F80) == 0x1F88 and simple_lower(0x1F88) == 0x1F80
    assert simple_upper(0x1FB3) == 0x1FBC and simple_upper(0x1FBC) == 0x1FBC
    assert simple_upper(0x149) == 0x149 and simple_upper(0x1F0) == 0x1F0
    assert (simple_lower(0x1C5), simple_upper(0x1C5)) == (0x1C6, 0x1C4)  # title case
    assert simple_lower(0x23A) == 0x2C65 and simple_upper(0x2C65) == 0x23A
    assert simple_lower(0xDC80) == 0xDC80 and simple_upper(0xDCFF) == 0xDCFF


def test_ranges_reproduce_the_mappings() -> None:
    for upper in (False, True):
        mapping = unicode_case.case_map(upper)
        ranges = unicode_case.case_ranges(mapping)
        assert 100 < len(ranges) < 256
        expanded: dict[int, int] = {}
        for r in ranges:
            assert r.stride in (1, 2) and r.last - r.first <= unicode_case.MAX_SPAN
            for cp in range(r.first, r.last + 1, r.stride):
                expanded[cp] = cp + r.delta
        assert expanded == mapping
        assert all(a.last < b.first for a, b in itertools.pairwise(ranges))


def _c_library_case(cp: int, upper: bool) -> int:
    import ctypes
    import ctypes.util

    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    function = libc.towupper if upper else libc.towlower
    function.restype = ctypes.c_uint32
    function.argtypes = [ctypes.c_uint32]
    return function(cp)


def test_several_code_point_mappings_follow_the_c_library() -> None:
    """Where the full mapping has several code points, the derived simple one is
    the C library's (towlower/towupper in C.UTF-8, as onnxruntime calls)."""
    derived = [
        (cp, upper)
        for cp in unicode_case.CODE_POINTS
        for upper in (False, True)
        if len(chr(cp).upper() if upper else chr(cp).lower()) > 1
    ]
    assert len(derived) > 100
    saved = locale.setlocale(locale.LC_CTYPE)
    try:
        locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    except locale.Error:
        pytest.skip("no C.UTF-8 locale")
    try:
        if _c_library_case(0x130, upper=False) == 0x130:
            pytest.skip("the C library's C.UTF-8 has no Unicode case mappings")
        expected = [_c_library_case(cp, upper) for cp, upper in derived]
    finally:
        locale.setlocale(locale.LC_CTYPE, saved)
    got = [simple_upper(cp) if upper else simple_lower(cp) for cp, upper in derived]
    assert got == expected


@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
def test_every_code_point(case_c: Any, upper: bool) -> None:
    count = 0x110000
    out = case_c.ffi.new("uint32_t[]", count)
    case_c.lib.map_all(out, count, int(upper))
    got = array.array("I", bytes(case_c.ffi.buffer(out)))
    simple = simple_upper if upper else simple_lower
    expected = array.array("I", (simple(cp) for cp in range(count)))
    assert got == expected
    function = case_c.lib.onnxc_upper if upper else case_c.lib.onnxc_lower
    for beyond in (0x110000, 0x7FFFFFFF, 0xFFFFFFFF):
        assert function(beyond) == beyond


_INVALID = [
    b"\x80",
    b"\xbf",
    b"\xc0\x80",  # overlong
    b"\xc1\xbf",
    b"\xc3",  # truncated
    b"\xe2\x82",
    b"\xe0\x80\x80",  # overlong
    b"\xe0\x9f\xbf",
    b"\xed\xa0\x80",  # surrogate
    b"\xed\xbf\xbf",
    b"\xed\xb2\x80",  # U+DC80, which stands for an invalid byte
    b"\xed\xb3\xbf",
    b"\xf0\x80\x80\x80",  # overlong
    b"\xf0\x9f\x98",
    b"\xf4\x90\x80\x80",  # beyond U+10FFFF
    b"\xf5\x80\x80\x80",
    b"\xfe",
    b"\xff",
]


def _pieces(rng: random.Random) -> Iterator[bytes]:
    maps = (unicode_case.case_map(False), unicode_case.case_map(True))
    cased = sorted({*maps[0], *maps[1]})
    resized = sorted(
        cp
        for m in maps
        for cp, image in m.items()
        if len(chr(cp).encode()) != len(chr(image).encode())
    )
    while True:
        kind = rng.randrange(6)
        if kind == 5:
            yield chr(rng.choice(resized)).encode()
        elif kind == 0:
            yield rng.choice(b"AZaz09 _-.iIsS").to_bytes(1, "little")
        elif kind == 1:
            yield chr(rng.choice(cased)).encode()
        elif kind == 2:
            cp = rng.randrange(0x110000)
            yield (chr(cp) if not 0xD800 <= cp < 0xE000 else "x").encode()
        elif kind == 3:
            yield rng.choice(_INVALID)
        else:
            yield rng.randrange(256).to_bytes(1, "little")


def _strings(seed: int, count: int) -> list[list[bytes]]:
    rng = random.Random(seed)
    pieces = _pieces(rng)
    return [[next(pieces) for _ in range(rng.randrange(12))] for _ in range(count)]


def _changed(case_c: Any, data: bytes, upper: bool) -> bytes:
    beyond = data + b"\x80\x80\x80"  # would complete a truncated sequence if read
    size = case_c.lib.onnxc_case_size(beyond, len(data), int(upper))
    out = case_c.ffi.new("char[]", size + 8)
    case_c.ffi.memmove(out, b"\xaa" * (size + 8), size + 8)
    assert case_c.lib.onnxc_case_write(out, beyond, len(data), int(upper)) == size
    written = case_c.ffi.buffer(out)[:]
    assert written[size:] == b"\xaa" * 8  # nothing past the size
    return written[:size]


def test_examples(case_c: Any) -> None:
    text = "Straße İ ı Ⱥ ǅ ᾀ".encode()
    assert _changed(case_c, text, upper=True) == "STRAßE İ I Ⱥ Ǆ ᾈ".encode()
    assert _changed(case_c, text, upper=False) == "straße i ı ⱥ ǆ ᾀ".encode()
    assert _changed(case_c, "ı".encode(), upper=True) == b"I"  # shrinks
    assert _changed(case_c, "Ⱥ".encode(), upper=False) == "ⱥ".encode()  # grows
    assert _changed(case_c, b"A\xc3\xff\xed\xa0\x80B", upper=False) == b"a\xc3\xff\xed\xa0\x80b"
    assert _changed(case_c, b"", upper=True) == b""
    equal = case_c.lib.onnxc_case_equal
    assert equal(b"The", 3, b"tHE", 3) == 1
    assert equal("İstanbul".encode(), 9, b"istanbul", 8) == 1
    assert equal(b"the", 3, b"then", 4) == 0 and equal(b"", 0, b"", 0) == 1
    assert equal(b"\xc3", 1, "\u00c3".encode(), 2) == 0
    assert equal(b"A\xff", 2, b"a\xff", 2) == 1


@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
def test_random_strings(case_c: Any, upper: bool) -> None:
    strings = [b"".join(s) for s in _strings(seed=7 + upper, count=3000)]
    resized = 0
    for data in strings:
        expected = change_case(data, upper)
        assert _changed(case_c, data, upper) == expected, data
        resized += len(expected) != len(data)
    assert resized > 500  # the sizes are exercised, not only copies


def test_random_equality(case_c: Any) -> None:
    rng = random.Random(11)
    pairs: list[tuple[bytes, bytes]] = []
    for pieces in _strings(seed=13, count=3000):
        a = b"".join(pieces)
        variant = [change_case(p, rng.random() < 0.5) if rng.random() < 0.7 else p for p in pieces]
        if variant and rng.random() < 0.3:  # one piece different, or one more
            at = rng.randrange(len(variant))
            variant[at] = rng.choice([b"", b"x", b"\xff", variant[at] + b"a"])
        pairs.append((a, b"".join(variant)))
    equal = case_c.lib.onnxc_case_equal
    outcomes = [equal(a, len(a), b, len(b)) for a, b in pairs]
    assert outcomes == [int(equal_ignoring_case(a, b)) for a, b in pairs]
    assert 500 < sum(outcomes) < len(pairs) - 500
    assert all(equal(b, len(b), a, len(a)) == o for (a, b), o in zip(pairs, outcomes, strict=True))


def _compile(compiler: str, folder: Path, source: str, link: bool) -> Path:
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} not found")
    (folder / "unit.c").write_text(source)
    output = folder / ("unit" if link else "unit.o")
    flags = [*STRICT, "-O2", "-I", str(runtime_dir())]
    if compiler.startswith("arm-none-eabi"):
        flags += ["-mcpu=cortex-m4", "-mthumb"]
    command = [compiler, *flags, *([] if link else ["-c"]), str(folder / "unit.c")]
    subprocess.run([*command, "-o", str(output)], check=True, capture_output=True, text=True)
    return output


_ALONE = '#include "onnxc_case.h"\ntypedef int unit_is_not_empty;\n'

_CALLS_ALL = """
#include "onnxc_case.h"
size_t calls_all(char *out, const char *text, size_t size);
size_t calls_all(char *out, const char *text, size_t size) {
  size_t written = onnxc_case_write(out, text, size, onnxc_case_equal(text, size, out, 0));
  return written + onnxc_case_size(text, size, 1) + onnxc_upper(onnxc_lower(0x130u));
}
"""


@pytest.mark.parametrize("source", [_ALONE, _CALLS_ALL], ids=["alone", "calls"])
@pytest.mark.parametrize("compiler", ["gcc", "clang", "arm-none-eabi-gcc"])
def test_header_compiles_without_warnings(tmp_path: Path, compiler: str, source: str) -> None:
    _compile(compiler, tmp_path, source, link=False)


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_header_used_compiles_without_warnings(tmp_path: Path, compiler: str) -> None:
    program = _compile(compiler, tmp_path, _USES_ALL, link=True)
    out = subprocess.run([str(program)], capture_output=True, text=True, check=True).stdout
    text = "Straße İ \udcff".encode("utf-8", "surrogateescape")
    expected = [len(change_case(text, True)), len(change_case(text, False)), 0x61, 1]
    assert out.split() == [str(n) for n in expected]
