"""Sets of Unicode code points for the regex compiler (`onnxc.text.regex_parse`,
`onnxc.text.regex_dfa`).

A set is a tuple of sorted, disjoint, non-adjacent inclusive ranges
(`Ranges`). This module holds what RE2 means by its named classes (`\\d \\s
\\w` and the POSIX `[:alpha:]` family, all ASCII), the Unicode general
categories of `\\p{Lu}`, simple case folding, and the UTF-8 byte sequences
that spell every code point of a range.

Unicode data is Python's (`unicodedata`, Unicode 14.0 on Python 3.11); RE2
may know a later version, which differs only on code points assigned since.

Case folding: two code points are the same letter when they fold to the same
code point; a code point folds to its one-character `str.casefold()`, or else
to its one-character `str.lower()` (where full folding gives several
characters). This is Unicode's simple case folding (statuses C and S of
CaseFolding.txt, the data RE2 uses) as far as Python's Unicode database
spells it: `k`, `K` and the Kelvin sign are one letter, so are `s`, `S` and
the long s; the Turkic dotless `ı` is its own letter, as in RE2.
"""

from __future__ import annotations

import bisect
import functools
import unicodedata
from collections.abc import Iterable, Iterator

Ranges = tuple[tuple[int, int], ...]
"""Sorted, disjoint, non-adjacent inclusive ranges of code points."""

MAX_CODE_POINT = 0x10FFFF
SURROGATES = (0xD800, 0xDFFF)
"""Code points UTF-8 cannot spell: no valid string holds them."""

CASED_LIMIT = 0x20000
"""Above this no code point has a case partner (Python's Unicode database
ends its cased letters at U+1E943), so folding scans only below it."""

ALL: Ranges = ((0, MAX_CODE_POINT),)

PERL_CLASSES: dict[str, Ranges] = {
    "d": ((0x30, 0x39),),
    "s": ((0x09, 0x0A), (0x0C, 0x0D), (0x20, 0x20)),  # RE2's \s has no \v
    "w": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
}
"""RE2's `\\d \\s \\w` (ASCII only); the upper-case letter is the complement."""

POSIX_CLASSES: dict[str, Ranges] = {
    "alnum": ((0x30, 0x39), (0x41, 0x5A), (0x61, 0x7A)),
    "alpha": ((0x41, 0x5A), (0x61, 0x7A)),
    "ascii": ((0x00, 0x7F),),
    "blank": ((0x09, 0x09), (0x20, 0x20)),
    "cntrl": ((0x00, 0x1F), (0x7F, 0x7F)),
    "digit": ((0x30, 0x39),),
    "graph": ((0x21, 0x7E),),
    "lower": ((0x61, 0x7A),),
    "print": ((0x20, 0x7E),),
    "punct": ((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    "space": ((0x09, 0x0D), (0x20, 0x20)),
    "upper": ((0x41, 0x5A),),
    "word": PERL_CLASSES["w"],
    "xdigit": ((0x30, 0x39), (0x41, 0x46), (0x61, 0x66)),
}
"""The `[[:name:]]` classes RE2 knows, ASCII as in RE2."""


def unicode_category(name: str) -> Ranges | None:
    """The code points of Unicode general category `name` (`Lu`, or `L` for
    all of `Lu Ll Lt Lm Lo`; unassigned code points are in none), or all for
    `Any`, as Python's Unicode database (`unicodedata.unidata_version`) has
    them; None for any other name."""
    if name == "Any":
        return ALL
    categories = _categories()
    found = [
        r
        for category, ranges in categories.items()
        if name in (category, category[0])
        for r in ranges
    ]
    return normalise(found) if found else None


@functools.cache
def _categories() -> dict[str, Ranges]:
    runs: dict[str, list[tuple[int, int]]] = {}
    start, current = 0, unicodedata.category(chr(0))
    for cp in range(1, MAX_CODE_POINT + 2):
        category = unicodedata.category(chr(cp)) if cp <= MAX_CODE_POINT else ""
        if category != current:
            runs.setdefault(current, []).append((start, cp - 1))
            start, current = cp, category
    runs.pop("Cn", None)  # unassigned: RE2's categories come from UnicodeData.txt, which lists none
    return {category: tuple(ranges) for category, ranges in runs.items()}


def normalise(ranges: Iterable[tuple[int, int]]) -> Ranges:
    """Sort `ranges` and merge the ones that overlap or touch."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
        else:
            merged.append((lo, hi))
    return tuple(merged)


def negate(ranges: Ranges) -> Ranges:
    """The code points (up to U+10FFFF) not in the normalised `ranges`."""
    out: list[tuple[int, int]] = []
    next_lo = 0
    for lo, hi in ranges:
        if lo > next_lo:
            out.append((next_lo, lo - 1))
        next_lo = hi + 1
    if next_lo <= MAX_CODE_POINT:
        out.append((next_lo, MAX_CODE_POINT))
    return tuple(out)


def fold(ranges: Ranges) -> Ranges:
    """`ranges` with every case partner of its members added."""
    cased, letters = _case_letters()
    added = list(ranges)
    for lo, hi in ranges:
        for index in range(bisect.bisect_left(cased, lo), bisect.bisect_right(cased, hi)):
            added.extend((c, c) for c in letters[cased[index]])
    return normalise(added)


@functools.cache
def _case_letters() -> tuple[list[int], dict[int, tuple[int, ...]]]:
    """The sorted code points that have case partners, and for each the
    code points of its letter (itself included)."""
    letters: dict[int, list[int]] = {}
    for cp in range(CASED_LIMIT):
        if not SURROGATES[0] <= cp <= SURROGATES[1]:
            letters.setdefault(_simple_fold(cp), []).append(cp)
    members = {cp: tuple(group) for group in letters.values() if len(group) > 1 for cp in group}
    return sorted(members), members


def _simple_fold(cp: int) -> int:
    char = chr(cp)
    for folded in (char.casefold(), char.lower()):
        if len(folded) == 1:
            return ord(folded)
    return cp


def utf8_sequences(ranges: Ranges) -> Iterator[tuple[tuple[int, int], ...]]:
    """Byte-range sequences whose concatenations are exactly the UTF-8
    encodings of the code points in `ranges` (surrogates left out): each
    sequence matches every byte string whose i-th byte lies in its i-th
    range."""
    pending = [r for r in reversed(ranges)]
    while pending:
        lo, hi = pending.pop()
        split = _split_point(lo, hi)
        if split is not None:
            pending.append((split + 1, hi))
            pending.append((lo, split))
        elif not (SURROGATES[0] <= lo and hi <= SURROGATES[1]):
            low, high = chr(lo).encode(), chr(hi).encode()
            yield tuple(zip(low, high, strict=True))


def _split_point(lo: int, hi: int) -> int | None:
    """Where [lo, hi] must be cut so that each part is a cross product of
    byte ranges of one encoding length and holds no surrogate; None if it is
    one already (or lies wholly among the surrogates)."""
    for edge in (0x7F, 0x7FF, SURROGATES[0] - 1, SURROGATES[1], 0xFFFF):
        if lo <= edge < hi:
            return edge
    if SURROGATES[0] <= lo and hi <= SURROGATES[1]:
        return None
    for trailing in range(1, len(chr(lo).encode())):  # each holds six bits
        mask = (1 << 6 * trailing) - 1
        if lo & ~mask != hi & ~mask:  # the bytes above differ between lo and hi
            if lo & mask != 0:
                return lo | mask
            if hi & mask != mask:
                return (hi & ~mask) - 1
    return None
