"""Generate `runtime_c/onnxc_case.h`, the case changes of ONNX StringNormalizer
in C: the simple (one code point to one code point) Unicode lower- and
upper-case mappings as compact range tables, read from Python's Unicode
database, and the UTF-8 functions that apply them.

    python -m onnxc.unicode_case --write    # rewrite the header
    python -m onnxc.unicode_case --check    # exit 1 if it is out of date

The mappings are those of the C library's towlower/towupper (what onnxruntime
calls): a code point whose full mapping (`str.lower()`, `str.upper()`) is one
code point maps to it. Where the full mapping has several code points, the
simple mapping of the Unicode Character Database is kept, derived as follows:

- lower case: the full mapping without its nonspacing marks, if one code point
  is left (U+0130 LATIN CAPITAL LETTER I WITH DOT ABOVE -> U+0069 'i', not
  'i' + U+0307); otherwise unchanged;
- upper case: the title case, if it is one code point (U+1F80 GREEK SMALL LETTER
  ALPHA WITH PSILI AND YPOGEGRAMMENI -> U+1F88, the letter with prosgegrammeni);
  otherwise unchanged ('ß' stays 'ß', not 'SS'; U+0149 'ŉ' stays).

Title-case letters map to their lower- and upper-case pairs (U+01C5 'ǅ' ->
'ǆ', 'Ǆ'); no locale-specific rule applies (U+0049 'I' lowers to 'i' and 'ı'
uppers to 'I', as in the C locale). Over every code point these mappings equal
glibc 2.36's towlower/towupper in C.UTF-8 (both Unicode 14.0.0).

A mapping is stored as ranges `first..last` of code points that map by adding
one `delta`, either every code point (stride 1) or every second one (stride 2,
the alternating upper/lower blocks such as U+0100..U+017F). `change_case` and
`equal_ignoring_case` are the Python model of the C functions: invalid UTF-8
bytes pass through unchanged, one byte at a time.
"""

from __future__ import annotations

import argparse
import sys
import unicodedata
from collections.abc import Callable, Sequence
from typing import NamedTuple

from onnxc.runtime_c import runtime_dir

__all__ = [
    "HEADER",
    "CaseRange",
    "case_map",
    "case_ranges",
    "change_case",
    "equal_ignoring_case",
    "generate",
    "main",
    "simple_lower",
    "simple_upper",
]

HEADER = runtime_dir() / "onnxc_case.h"

MAX_SPAN = (1 << 10) - 1
"""The largest `last - first` of a range: its 10 bits share a 32-bit word with
the 21 bits of `first` and the stride bit."""

CODE_POINTS = range(0x110000)


def simple_lower(cp: int) -> int:
    """The simple lower-case mapping of code point `cp` (see the module docstring)."""
    full = chr(cp).lower()
    if len(full) == 1:
        return ord(full)
    base = [c for c in full if unicodedata.category(c) != "Mn"]
    return ord(base[0]) if len(base) == 1 else cp


def simple_upper(cp: int) -> int:
    """The simple upper-case mapping of code point `cp` (see the module docstring)."""
    full = chr(cp).upper()
    if len(full) == 1:
        return ord(full)
    title = chr(cp).title()
    return ord(title) if len(title) == 1 else cp


def case_map(upper: bool) -> dict[int, int]:
    """Every code point that the simple mapping changes -> its image."""
    simple = simple_upper if upper else simple_lower
    return {cp: image for cp in CODE_POINTS if (image := simple(cp)) != cp}


class CaseRange(NamedTuple):
    """Code points `first, first + stride, ..., last` map to `cp + delta`; the
    code points between them (stride 2) are unchanged."""

    first: int
    last: int
    stride: int
    delta: int


def case_ranges(mapping: dict[int, int]) -> list[CaseRange]:
    """`mapping` as few ranges, in code point order, greedily: a code point
    joins the last range when it has the same delta and is next in its stride
    (a range of one code point takes the stride of its second)."""
    found: list[CaseRange] = []
    for cp in sorted(mapping):
        delta = mapping[cp] - cp
        if found:
            last = found[-1]
            step = cp - last.last
            joins = (
                last.delta == delta
                and cp - last.first <= MAX_SPAN
                and (step == last.stride or (last.first == last.last and step in (1, 2)))
            )
            if joins:
                found[-1] = CaseRange(last.first, cp, step, delta)
                continue
        found.append(CaseRange(cp, cp, 1, delta))
    return found


def _mapped(data: bytes, simple: Callable[[int], int]) -> bytes:
    # An invalid byte decodes to a lone surrogate U+DC80..U+DCFF, which no case
    # mapping changes and which encodes back to the byte: exactly the C decoder.
    text = data.decode("utf-8", "surrogateescape")
    return "".join(chr(simple(ord(c))) for c in text).encode("utf-8", "surrogateescape")


def change_case(data: bytes, upper: bool) -> bytes:
    """UTF-8 `data` with every code point mapped by the simple mapping; bytes
    that are not valid shortest-form UTF-8 are kept, one at a time."""
    return _mapped(data, simple_upper if upper else simple_lower)


def equal_ignoring_case(a: bytes, b: bytes) -> bool:
    """Whether `a` and `b` are equal once both are lower-cased."""
    return change_case(a, upper=False) == change_case(b, upper=False)


def _table(name: str, ranges: list[CaseRange]) -> list[str]:
    rows = [
        f"    {{0x{r.first:05X}u << 11 | {'1u << 10 | ' if r.stride == 2 else ''}"
        + f"{r.last - r.first}u, "
        + (f"{r.delta}u" if r.delta >= 0 else f"0u - {-r.delta}u")
        + "},"
        for r in ranges
    ]
    return [
        f"static inline uint32_t onnxc_{name}(uint32_t cp) {{",
        f"  static const uint32_t ranges[{len(ranges)}][2] = {{",
        *rows,
        "  };",
        f"  return onnxc_case_lookup(ranges, {len(ranges)}, cp);",
        "}",
        "",
    ]


def generate() -> str:
    """The text of `runtime_c/onnxc_case.h`."""
    lower = case_ranges(case_map(upper=False))
    upper = case_ranges(case_map(upper=True))
    lines = [
        *_PROLOGUE.format(version=unicodedata.unidata_version).splitlines(),
        *_table("lower", lower),
        *_table("upper", upper),
        *_EPILOGUE.splitlines(),
    ]
    return "\n".join(lines) + "\n"


_PROLOGUE = """\
/*
 * onnxc_case.h - Unicode case changes of UTF-8 strings, for ONNX
 * StringNormalizer (case_change_action LOWER / UPPER, case-insensitive stop
 * words).
 *
 * Generated by `python -m onnxc.unicode_case --write` from the Unicode {version}
 * database; do not edit. The mappings are the simple (one code point to one
 * code point) lower- and upper-case mappings of the C library's
 * towlower/towupper, without locale-specific rules: 'ß' stays 'ß' in upper
 * case, U+0130 (capital I with dot above) lowers to 'i'.
 *
 * Strings are byte ranges (data, size), not NUL-terminated. Decoding is total:
 * a byte that does not start a valid shortest-form UTF-8 sequence of a code
 * point (not a surrogate, at most U+10FFFF) decodes to U+DC00 + byte, a lone
 * surrogate that no case mapping changes and that encodes back to the byte,
 * so invalid bytes pass through unchanged, one at a time.
 *
 * C99, freestanding-friendly: needs only <stddef.h> and <stdint.h>; no
 * allocation, no global state; the tables are static inside the functions
 * that read them.
 */
#ifndef ONNXC_CASE_H_
#define ONNXC_CASE_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {{
#endif

/* The image of `cp` under `count` ranges sorted by first code point, each
 * {{first << 11 | stride 2 ? 1 << 10 : 0 | last - first, delta modulo 2^32}};
 * `cp` itself where none covers it. */
static inline uint32_t onnxc_case_lookup(const uint32_t (*ranges)[2], size_t count,
                                         uint32_t cp) {{
  size_t low = 0, high = count; /* the range is below `high` and at or above `low` */
  uint32_t offset;
  while (high - low > 1) {{
    size_t middle = low + (high - low) / 2;
    if (ranges[middle][0] >> 11 <= cp) {{
      low = middle;
    }} else {{
      high = middle;
    }}
  }}
  if (count == 0 || cp < ranges[low][0] >> 11) {{
    return cp;
  }}
  offset = cp - (ranges[low][0] >> 11);
  if (offset > (ranges[low][0] & 0x3FFu) || ((ranges[low][0] & 0x400u) && (offset & 1u))) {{
    return cp;
  }}
  return cp + ranges[low][1];
}}

/* The simple lower-case (onnxc_lower) and upper-case (onnxc_upper) mapping of
 * code point `cp`; `cp` itself when it has none or is not a code point. */
"""

_EPILOGUE = """\
/* The code point at `*at` in the `size` bytes at `data` (`*at < size`);
 * advances `*at` past it. A byte that does not start a valid sequence gives
 * U+DC00 + byte and advances one byte. */
static inline uint32_t onnxc_utf8_next(const char *data, size_t size, size_t *at) {
  const unsigned char *s = (const unsigned char *)data + *at;
  size_t left = size - *at, length, i;
  uint32_t cp, least;
  if (s[0] < 0x80u) {
    *at += 1;
    return s[0];
  }
  if (s[0] >= 0xC2u && s[0] <= 0xDFu) {
    length = 2, cp = s[0] & 0x1Fu, least = 0x80u;
  } else if (s[0] >= 0xE0u && s[0] <= 0xEFu) {
    length = 3, cp = s[0] & 0x0Fu, least = 0x800u;
  } else if (s[0] >= 0xF0u && s[0] <= 0xF4u) {
    length = 4, cp = s[0] & 0x07u, least = 0x10000u;
  } else {
    length = 0, cp = 0, least = 1;
  }
  for (i = 1; i < length && i < left && (s[i] & 0xC0u) == 0x80u; ++i) {
    cp = cp << 6 | (s[i] & 0x3Fu);
  }
  if (length == 0 || i < length || cp < least || cp > 0x10FFFFu ||
      (cp >= 0xD800u && cp <= 0xDFFFu)) {
    *at += 1;
    return 0xDC00u + s[0];
  }
  *at += length;
  return cp;
}

/* The bytes onnxc_utf8_put writes for `cp`. */
static inline size_t onnxc_utf8_size(uint32_t cp) {
  if (cp < 0x80u) {
    return 1;
  }
  if (cp < 0x800u) {
    return 2;
  }
  if (cp >= 0xDC80u && cp <= 0xDCFFu) { /* an invalid byte, kept */
    return 1;
  }
  return cp < 0x10000u ? 3 : 4;
}

/* Writes `cp` (a code point, or U+DC80..U+DCFF for the byte it stands for) at
 * `out`; returns the bytes written, onnxc_utf8_size(cp). */
static inline size_t onnxc_utf8_put(char *out, uint32_t cp) {
  unsigned char *o = (unsigned char *)out;
  size_t size = onnxc_utf8_size(cp), i;
  if (size == 1) {
    o[0] = (unsigned char)(cp & 0xFFu);
    return 1;
  }
  for (i = size - 1; i > 0; --i) {
    o[i] = (unsigned char)(0x80u | (cp & 0x3Fu));
    cp >>= 6;
  }
  o[0] = (unsigned char)(((0xFF00u >> size) & 0xFFu) | cp); /* lead 0xC0, 0xE0 or 0xF0 */
  return size;
}

/* The bytes the case change of the `size` bytes at `data` takes: to upper
 * case if `upper` is nonzero, else to lower case. It can differ from `size`
 * (U+0131 dotless i uppers to 'I'; U+023A lowers to U+2C65). */
static inline size_t onnxc_case_size(const char *data, size_t size, int upper) {
  size_t at = 0, total = 0;
  while (at < size) {
    uint32_t cp = onnxc_utf8_next(data, size, &at);
    total += onnxc_utf8_size(upper ? onnxc_upper(cp) : onnxc_lower(cp));
  }
  return total;
}

/* Writes the case change of the `size` bytes at `data` (to upper case if
 * `upper` is nonzero, else to lower case) at `out`, which has room for
 * onnxc_case_size(data, size, upper) bytes; returns that count. */
static inline size_t onnxc_case_write(char *out, const char *data, size_t size, int upper) {
  size_t at = 0, written = 0;
  while (at < size) {
    uint32_t cp = onnxc_utf8_next(data, size, &at);
    written += onnxc_utf8_put(out + written, upper ? onnxc_upper(cp) : onnxc_lower(cp));
  }
  return written;
}

/* 1 if the strings (`a_size` bytes at `a`, `b_size` at `b`) are equal once
 * both are lower-cased, else 0. */
static inline int onnxc_case_equal(const char *a, size_t a_size, const char *b, size_t b_size) {
  size_t at_a = 0, at_b = 0;
  while (at_a < a_size && at_b < b_size) {
    if (onnxc_lower(onnxc_utf8_next(a, a_size, &at_a)) !=
        onnxc_lower(onnxc_utf8_next(b, b_size, &at_b))) {
      return 0;
    }
  }
  return at_a == a_size && at_b == b_size;
}

#ifdef __cplusplus
}
#endif

#endif /* ONNXC_CASE_H_ */
"""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m onnxc.unicode_case", description=__doc__)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help=f"rewrite {HEADER.name}")
    group.add_argument("--check", action="store_true", help="exit 1 if it is out of date")
    args = parser.parse_args(argv)
    text = generate()
    if args.write:
        HEADER.write_text(text)
        return 0
    if (HEADER.read_text() if HEADER.exists() else "") != text:
        print(f"{HEADER} is out of date: run python -m onnxc.unicode_case --write")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
