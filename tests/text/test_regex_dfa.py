"""RegexFullMatch's pattern compiler (onnxc.text.regex_dfa) and its C matcher
(runtime_c/onnxc_regex.h).

Each pattern's DFA is compared with Python's `re.fullmatch` on the same
pattern written for Python where the two dialects differ (RE2's `\\z` is
Python's `\\Z`, RE2's `\\s` has no `\\v`, ...; `re.ASCII` gives RE2's ASCII
`\\d \\w \\s \\b`), over hand-picked strings, random strings over an alphabet
built from the pattern (ASCII and not), strings the DFA itself accepts
(random walks towards acceptance) and their one-character mutations. The C
matcher, built with cffi, must give `Dfa.full_match`'s answer on the same
strings and on byte strings that are not UTF-8. Every error message is
checked.
"""

from __future__ import annotations

import math
import os
import random
import re
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from onnxc.errors import OnnxcError, UnsupportedError
from onnxc.runtime_c import runtime_dir
from onnxc.text.regex_chars import ALL, CASED_LIMIT, fold, negate, normalise, utf8_sequences
from onnxc.text.regex_dfa import MAX_NFA_STATES, MAX_STATES, Dfa, compile_regex
from tests.runtime_c.drivers import cffi_module


@dataclass(frozen=True)
class Case:
    re2: str
    python: str | None = None  # the same language in Python's syntax, if it differs
    flags: int = re.ASCII
    examples: tuple[str, ...] = ()


EMAIL = r"[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}"
CASES = [
    # The ONNX backend suite's patterns (and the operator's documented example).
    Case(
        r"www\.[\w.-]+\.\bcom\b",
        examples=("www.google.com", "www.facebook.com", "www.bbc.co.uk", "www..com", "www.a.comx"),
    ),
    Case(
        r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)",
        examples=("account@gmail.com", "account@hotmail.com", "not email", "account2@yahoo.com"),
    ),
    Case(
        r"(\W|^)[\w.\-]{0,25}@(yahoo|hotmail|gmail)\.com(\W|$)",
        examples=(" a@hotmail.com ", "é@gmail.com", "@yahoo.com", "x" * 26 + "@gmail.com"),
    ),
    Case(EMAIL, examples=("john.doe@example.com", "a@b.c", "a@b.cd", "@b.cd", "a b@c.de")),
    # Literals, UTF-8, escapes.
    Case("", examples=("", "a")),
    Case("abc", examples=("abc", "ab", "abcd", "")),
    Case("héllo wörld €😀", examples=("héllo wörld €😀", "hello world €😀")),
    Case(r"a\.b\\c\*\+\?\(\)\[\]\{\}\|\^\$", examples=(r"a.b\c*+?()[]{}|^$",)),
    Case(r"\t\n\r\f\v\a\x41\101\0", "\t\n\r\f\v\a\x41\101\0", examples=("\t\n\r\f\v\aAA\0",)),
    Case(r"\x{263a}+\x{1F600}", "\u263a+\U0001f600", examples=("☺☺😀", "😀")),
    Case(r"\Qa.b*\E+c", r"a\.b\*+c", examples=("a.b*c", "a.b**c", "a.bc")),
    Case(r"a{,3}", r"a\{,3\}", examples=("a{,3}", "aaa")),
    Case(r"a{x}]}", r"a\{x\}\]\}", examples=("a{x}]}",)),
    Case(
        r"a{01}b{٣}c{1234567890}",
        r"a\{01\}b\{٣\}c\{1234567890\}",
        examples=("a{01}b{٣}c{1234567890}",),
    ),
    # Dot and flags.
    Case(".", examples=("a", "\n", "é", "😀", "ab", "")),
    Case("(?s).", flags=re.ASCII | re.DOTALL, examples=("\n", "😀")),
    Case("a.*b", examples=("ab", "a\nb", "aéb", "axxbxb")),
    Case("(?s:a.)b.", flags=re.ASCII, examples=("a\nbx", "a\nb\n")),
    Case("(?i)straße", flags=0, examples=("STRAẞE", "strasse", "Straße", "STRASSE")),
    Case("(?i)k[a-c]σ", flags=0, examples=("KAΣ", "\u212abς", "kcσ", "kdσ")),
    Case("(?i)[à-þ]+", flags=0, examples=("àÀ", "ÞÆ", "×", "÷")),
    Case("a(?i)b|c", "a[bB]|[cC]", examples=("aB", "C", "Ab")),
    Case("(?i:a)b", flags=0, examples=("Ab", "AB")),
    Case("(?i)(?-i:a)b", flags=0, examples=("aB", "AB")),
    Case("(?U)a+?b*", "a+?b*", examples=("aab", "a")),
    Case("(?m)^a$\n^b$", flags=re.ASCII | re.MULTILINE, examples=("a\nb", "a\nbb")),
    Case("(?m)a\n^", flags=re.ASCII | re.MULTILINE, examples=("a\n",)),
    # Classes.
    Case(r"[a-c]+[^a-c]", examples=("abcd", "abc\n", "abcé", "abca")),
    Case(r"[]a]+[^]a]", examples=("]a]b", "]]")),
    Case(r"[-a-]+[a\-z]", examples=("-a-z", "-b")),
    Case(r"[\d\s\w]+", r"[\d\t\n\f\r \w]+", examples=("a1 _\t", "a\v")),
    Case(r"[^\D]\S\W", examples=("1a-", "1--", "a1-")),
    Case(r"\s+", r"[\t\n\f\r ]+", examples=(" \t\n\f\r", "\v")),
    Case(r"\d\D\w", examples=("1a1", "1é_", "11a")),
    Case(r"[[:alpha:]][[:^digit:]][[:punct:]]", r"[A-Za-z]\D[!-/:-@\[-`{-~]", examples=("a!.",)),
    Case(r"[[:word:][:space:]]+", r"[\w\t\n\v\f\r ]+", examples=("a b\v",)),
    Case(r"[α-ωа-я]+", examples=("αβγ", "привет", "Ω", "aя")),
    Case(r"[^α-ω]+", examples=("abc", "α", "😀\n")),
    Case(r"[😀-😂é]{2}", examples=("😀😂", "é😁", "😃é")),
    Case(r"[^\x00-\x{10FFFF}]", r"[^\x00-\U0010ffff]", examples=("", "a")),
    Case(
        r"[\x{80}-\x{7FF}]\x{800}", "[\x80-\u07ff]\u0800", examples=("\x80\u0800", "\u07ff\u0800")
    ),
    # Structure and repeats.
    Case("(a|b)*abb", examples=("abb", "aabb", "ab", "babb")),
    Case(r"(?P<x>ab)(?<y>c)?(?:d|)", r"(?P<x>ab)(?P<y>c)?(?:d|)", examples=("ab", "abcd")),
    Case("a|b|", examples=("", "a", "c")),
    Case(r"(?)a(?i)*b\Q\E+(?:)", "a*[bB]+", examples=("aaBb", "b", "a")),
    Case(r"(?P<é_1>x)(?<ж>y)", "(?P<é_1>x)(?P<ж>y)", examples=("xy",)),
    Case("(|a)+b", examples=("b", "aab")),
    Case("()*x(()|())", examples=("x",)),
    Case("a{3}b{2,}c{1,3}d{0}", examples=("aaabbc", "aaabbbbccc", "aabbc", "aaabbcccc")),
    Case("(ab|a)*?b+?a??c{2,3}?", examples=("ababbcc", "abac")),
    Case(r"((a|b){2}c){1,2}x", examples=("abcx", "abcbbcx", "abcabcabcx")),
    Case(r"(a*)*b", examples=("b", "aaab")),
    Case(r"[ab]*a[ab]{5}", examples=("aaaaaa", "babbbbb")),
    # Assertions.
    Case(r"^abc$", examples=("abc",)),
    Case(r"\Aab\z", r"\Aab\Z", examples=("ab",)),
    Case(r"a$\n", r"a\Z\n", examples=("a\n",)),
    Case(r"a^b|c", examples=("ab", "c")),
    Case(r"(^|x)a(b|$)", examples=("a", "xab", "xa")),
    Case(r"\ba\b", examples=("a",)),
    Case(r"\b-", examples=("-",)),
    Case(r"a\bb|a\Bb", examples=("ab",)),
    Case(r"-\B-|a\b-", examples=("--", "a-")),
    Case(r"\B", "", examples=("",)),  # Python's \B never matches an empty text
    Case(r"\b", examples=("",)),
    Case(r"(\bfoo\b|bar)\s?(\b|x)", r"(\bfoo\b|bar)[\t\n\f\r ]?(\b|x)", examples=("foo ", "foo")),
    Case(r"é\bb|é\Bé", examples=("éb", "éé")),
    Case(r"(?m)(^\w+$\n?)+", flags=re.ASCII | re.MULTILINE, examples=("ab\ncd", "ab\n\ncd")),
]

BASE_ALPHABET = "aAbzZ019_ .-@\n\t\v\x00éÀß€😀ſ\u212aσΣςЖ"
"""Characters every pattern is tried on (no Turkic ı or İ: Python's case
folding pairs them with i, RE2's does not)."""


def python_matches(case: Case, text: str) -> bool:
    python = case.re2 if case.python is None else case.python
    return re.fullmatch(python, text, case.flags) is not None


def alphabet(pattern: str) -> list[str]:
    """Characters to build strings of: the base ones, the pattern's, and the
    code points next to the pattern's non-ASCII ones (class edges)."""
    chars = set(BASE_ALPHABET) | set(pattern)
    for char in pattern:
        if not char.isascii():
            chars.update(chr(ord(char) - 1), chr(ord(char) + 1))
    return sorted(chars)


def accepted_samples(dfa: Dfa, rng: random.Random, count: int) -> list[str]:
    """Strings the DFA accepts: random walks over its byte classes that, past
    a random length, head for acceptance by a shortest way (the walks that are
    not UTF-8 left out)."""

    def row(state: int) -> tuple[int, ...]:
        return dfa.transitions[state * dfa.class_count : (state + 1) * dfa.class_count]

    distance = {s: 0 for s in range(dfa.state_count) if dfa.accepting[s]}
    while True:  # steps to acceptance, for the states that can reach it
        closer = {
            s: 1 + min(distance[t] for t in row(s) if t in distance)
            for s in range(dfa.state_count)
            if s not in distance and any(t in distance for t in row(s))
        }
        if not closer:
            break
        distance.update(closer)
    found: list[str] = []
    for _ in range(count if dfa.start in distance else 0):
        state, data, wander = dfa.start, bytearray(), rng.randrange(30)
        while True:
            classes = [c for c, t in enumerate(row(state)) if t in distance]
            if len(data) >= wander:
                classes = [c for c in classes if distance[row(state)[c]] < distance[state]]
            if dfa.accepting[state] and (not classes or rng.random() < 0.2):
                break
            chosen = rng.choice(classes)
            data.append(rng.choice([b for b in range(256) if dfa.byte_class[b] == chosen]))
            state = row(state)[chosen]
        try:
            found.append(data.decode())
        except UnicodeDecodeError:
            pass
    return found


def mutations(text: str, chars: list[str], rng: random.Random) -> list[str]:
    """`text` with one character dropped, added or changed."""
    if not text:
        return [rng.choice(chars)]
    at = rng.randrange(len(text))
    return [
        text[:at] + text[at + 1 :],
        text[:at] + rng.choice(chars) + text[at:],
        text[:at] + rng.choice(chars) + text[at + 1 :],
    ]


def strings_for(case: Case, dfa: Dfa, seed: int) -> list[str]:
    rng = random.Random(seed)
    chars = alphabet(case.re2)
    texts = list(case.examples)
    texts += ["".join(rng.choices(chars, k=rng.randrange(8))) for _ in range(150)]
    samples = accepted_samples(dfa, rng, 60)
    texts += samples
    for text in [*case.examples, *samples]:
        texts += mutations(text, chars, rng)
    return texts


@pytest.fixture(scope="module")
def c_matcher(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """onnxc_regex_full_match compiled into a cffi extension."""
    cdef = (
        "int onnxc_regex_full_match(const uint8_t *byte_class, const uint16_t *transitions,"
        " size_t class_count, const uint8_t *accepting, size_t start, const char *data,"
        " size_t size);"
    )
    folder = tmp_path_factory.mktemp("regex_c")
    return cffi_module(folder, "_onnxc_regex_test", cdef, '#include "onnxc_regex.h"\n')


def c_full_match(c_matcher: ModuleType, dfa: Dfa, texts: list[bytes]) -> list[bool]:
    ffi, lib = c_matcher.ffi, c_matcher.lib
    byte_class = ffi.new("uint8_t[]", dfa.byte_class)
    transitions = ffi.new("uint16_t[]", list(dfa.transitions))
    accepting = ffi.new("uint8_t[]", [int(a) for a in dfa.accepting])
    return [
        lib.onnxc_regex_full_match(
            byte_class, transitions, dfa.class_count, accepting, dfa.start, text, len(text)
        )
        == 1
        for text in texts
    ]


@pytest.mark.parametrize("case", CASES, ids=[c.re2 for c in CASES])
def test_agrees_with_python_re_and_c(case: Case, c_matcher: ModuleType) -> None:
    dfa = compile_regex(case.re2)
    texts = strings_for(case, dfa, seed=len(case.re2))
    got = [dfa.full_match(t.encode()) for t in texts]
    want = [python_matches(case, t) for t in texts]
    wrong = [(t, g) for t, g, w in zip(texts, got, want, strict=True) if g != w]
    assert not wrong, f"{len(wrong)} of {len(texts)} strings disagree, e.g. {wrong[:5]}"
    assert any(want) or dfa.start == Dfa.DEAD  # no case passes for want of a match
    not_utf8 = [bytes(random.Random(n).choices(range(256), k=n % 9)) for n in range(200)]
    raw = [t.encode() for t in texts] + not_utf8
    assert c_full_match(c_matcher, dfa, raw) == [dfa.full_match(t) for t in raw]


CHAR_ATOMS = ["a", "b", "-", "é", ".", r"\d", r"\w", r"\W", "[ab]", "[^a]", "[a-c]"]
ATOMS = [*CHAR_ATOMS, "^", "$", r"\b", r"\B"]


def random_pattern(rng: random.Random, depth: int = 0, repeats: bool = True) -> str:
    """A random RE2 pattern over constructs Python spells alike (but `$`);
    no repeat inside a repeat, where Python's backtracking takes exponential
    time."""
    choice = rng.randrange(6 if repeats else 4) if depth < 3 else 0
    if choice <= 1:
        return rng.choice(ATOMS)
    if choice == 2:
        return "".join(random_pattern(rng, depth + 1, repeats) for _ in range(rng.randint(2, 3)))
    if choice == 3:
        return "(" + "|".join(random_pattern(rng, depth + 1, repeats) for _ in range(2)) + ")"
    item = random_pattern(rng, depth + 1, repeats=False)
    if item not in CHAR_ATOMS:  # Python repeats neither an assertion nor, unwrapped, a sequence
        item = f"(?:{item})"
    low = rng.randint(0, 2)
    return item + rng.choice(["*", "+", "?", f"{{{low}}}", f"{{{low},}}", f"{{{low},3}}"])


@pytest.mark.parametrize("seed", range(8))
def test_random_patterns(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(40):
        pattern = random_pattern(rng)
        case = Case(pattern, pattern.replace("$", r"\Z"))
        dfa = compile_regex(pattern)
        texts = [t for t in strings_for(case, dfa, seed) if t or r"\B" not in pattern]
        wrong = [t for t in texts if dfa.full_match(t.encode()) != python_matches(case, t)]
        assert not wrong, f"{pattern!r}: {len(wrong)} of {len(texts)} disagree, e.g. {wrong[:5]}"


def test_backend_cases() -> None:
    """The expected outputs of the ONNX backend suite's RegexFullMatch cases."""
    basic = compile_regex(r"www\.[\w.-]+\.\bcom\b")
    assert [
        basic.full_match(s.encode())
        for s in ("www.google.com", "www.facebook.com", "www.bbc.co.uk")
    ] == [True, True, False]
    email = compile_regex(r"(\W|^)[\w.\-]{0,25}@(yahoo|gmail)\.com(\W|$)")
    got = [
        email.full_match(s.encode())
        for s in ("account@gmail.com", "account@hotmail.com", "not email", "account2@yahoo.com")
    ]
    assert got == [True, False, False, True]


def test_any_byte() -> None:
    r"""`\C` is any one byte: the same as Python's `.` with DOTALL on bytes."""
    dfa = compile_regex(r"a\C\Cb")
    rng = random.Random(1)
    for _ in range(500):
        data = b"a" + bytes(rng.choices(range(256), k=rng.randrange(4))) + rng.choice([b"b", b"c"])
        assert dfa.full_match(data) == (re.fullmatch(rb"a..b", data, re.DOTALL) is not None)


def test_tables_are_minimal_and_numbered() -> None:
    """Dead state 0, start 1, breadth-first numbering, classes by first byte."""
    dfa = compile_regex("ab")
    assert dfa.class_count == 3 and dfa.start == 1
    assert dfa.byte_class == bytes(1 if b == 0x61 else 2 if b == 0x62 else 0 for b in range(256))
    assert dfa.transitions == (0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0)
    assert dfa.accepting == (False, False, False, True)
    assert (
        compile_regex("(a|b)*abb").state_count == 5
    )  # the textbook example's 4, and the dead state
    assert compile_regex("[ab]*a[ab]{3}").state_count == 17
    # dead, start, end, and the continuation bytes still due: one, two or three of
    # any, or the restricted second bytes after E0, ED, F0, F4
    assert compile_regex(".").state_count == 10
    assert compile_regex("a^b").start == Dfa.DEAD


def test_deterministic() -> None:
    """The same tables in processes with different string hashing."""
    patterns = [case.re2 for case in CASES[:4]] + [r"(?im)^\bk\B.$", r"\pL+\d"]
    script = (
        "import sys; from onnxc.text.regex_dfa import compile_regex; "
        "print([compile_regex(p) for p in sys.argv[1:]])"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script, *patterns],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert outputs == {f"{[compile_regex(p) for p in patterns]}\n"}


def test_state_bounds() -> None:
    with pytest.raises(UnsupportedError) as error:
        compile_regex("[ab]*a[ab]{12}")
    assert str(error.value) == (
        f"regex pattern '[ab]*a[ab]{{12}}': its DFA has more than {MAX_STATES} states"
    )
    with pytest.raises(UnsupportedError) as error:
        compile_regex(r"\pL{100}")
    assert str(error.value) == (
        f"regex pattern '\\\\pL{{100}}': its NFA has more than {MAX_NFA_STATES} states"
    )


INVALID = [
    ("(a", "missing ) for the ( at offset 0"),
    ("a)", "unmatched ) at offset 1"),
    ("a**", "repeat operator after a repeat: **"),
    ("a*??", "repeat operator after a repeat: *??"),
    ("a{2}{3}", "repeat operator after a repeat: {2}{3}"),
    ("*a", "nothing to repeat before *"),
    ("a|+", "nothing to repeat before +"),
    ("(?i)?", "nothing to repeat before ?"),
    ("{2}", "nothing to repeat before {2}"),
    ("a{3,2}", "repeat {3,2} has its maximum below its minimum"),
    ("a{1001}", "repeat count above 1000 in {1001}"),
    ("a{2,1001}", "repeat count above 1000 in {2,1001}"),
    ("(a{100}){11}", "nested repeat counts multiply to more than 1000"),
    (r"(a)\1", r"backreference \1 is not RE2 syntax"),
    (r"\18", r"backreference \1 is not RE2 syntax"),
    ("(?=a)", "look-around (?= is not RE2 syntax"),
    ("(?!a)", "look-around (?! is not RE2 syntax"),
    ("(?<=a)b", "look-around (?<= is not RE2 syntax"),
    ("(?<!a)b", "look-around (?<! is not RE2 syntax"),
    ("(?P<n>a)(?P=n)", "backreference or recursion (?P= is not RE2 syntax"),
    ("(?#note)", "unknown group syntax or flag in (?#"),
    ("(?-)", "unknown group syntax or flag in (?-)"),
    ("(?i-:a)", "unknown group syntax or flag in (?i-:"),
    ("(?i-)", "unknown group syntax or flag in (?i-)"),
    ("(?i", "missing ) for the ( at offset 0"),
    ("(?P<a>x)(?P<a>y)", "duplicate group name 'a'"),
    ("(?P<a-b>x)", "bad group name 'a-b'"),
    ("(?<a²>x)", "bad group name 'a²'"),
    ("(?P<a", "group name without a closing >"),
    ("[a", "missing ] for the [ at offset 0"),
    ("[]", "missing ] for the [ at offset 0"),
    ("[a-", "missing ] for the [ at offset 0"),
    ("[z-a]", "class range z-a runs backwards"),
    (r"[a-\d]", r"\d cannot end a class range"),
    (r"[\b]", r"\b is not allowed in a character class"),
    ("[[:foo:]]", "unknown POSIX class [:foo:]"),
    (r"\e", r"unknown escape \e"),
    (r"\Z", r"unknown escape \Z"),
    (r"\é", r"unknown escape \é"),
    ("a\\", "trailing \\ at the end"),
    (r"\x{110000}", "bad hex escape at offset 0"),
    (r"a\xg0", "bad hex escape at offset 1"),
    (r"\x{}", "bad hex escape at offset 0"),
    (r"\p{Greek", r"missing } in \p{"),
    (r"a\P", r"\P without a class name"),
]


UNSUPPORTED = [
    (r"\p{Greek}", r"the Unicode class \p{Greek}"),
    (r"a\p{^Han}", r"the Unicode class \p{^Han}"),
    (r"[\PX]", r"the Unicode class \PX"),
    (r"\p{Cn}", r"the Unicode class \p{Cn}"),
]
ERRORS = [
    *((p, OnnxcError, f"invalid regex pattern {p!r}: {why}") for p, why in INVALID),
    *(
        (
            p,
            UnsupportedError,
            f"regex pattern {p!r}: {what} is not supported"
            r" (only general categories such as \p{Lu}, and \p{Any}, are)",
        )
        for p, what in UNSUPPORTED
    ),
]


@pytest.mark.parametrize(("pattern", "kind", "message"), ERRORS, ids=[p for p, _, _ in ERRORS])
def test_error_messages(pattern: str, kind: type[OnnxcError], message: str) -> None:
    """Invalid patterns raise OnnxcError itself, valid ones onnxc does not
    compile UnsupportedError; the message is the one line given."""
    with pytest.raises(OnnxcError) as error:
        compile_regex(pattern)
    assert type(error.value) is kind
    assert str(error.value) == message


CATEGORY_CASES: list[tuple[str, Callable[[str], bool]]] = [
    (r"\pL", lambda c: unicodedata.category(c)[0] == "L"),
    (r"\p{Lu}", lambda c: unicodedata.category(c) == "Lu"),
    (r"\PL", lambda c: unicodedata.category(c)[0] != "L"),
    (r"\p{^Nd}", lambda c: unicodedata.category(c) != "Nd"),
    (r"\P{^Nd}", lambda c: unicodedata.category(c) == "Nd"),
    (r"\p{C}", lambda c: unicodedata.category(c)[0] == "C" and unicodedata.category(c) != "Cn"),
    (r"[\p{Zs}\p{Mn}x]", lambda c: unicodedata.category(c) in ("Zs", "Mn") or c == "x"),
    (r"\p{Any}", lambda c: True),
]


@pytest.mark.parametrize(("pattern", "holds"), CATEGORY_CASES, ids=[p for p, _ in CATEGORY_CASES])
def test_unicode_categories(pattern: str, holds: Callable[[str], bool]) -> None:
    """Python's `re` has no `\\p`: each class is checked against
    `unicodedata` on code points drawn from all of Unicode."""
    dfa = compile_regex(pattern)
    rng = random.Random(5)
    tops = [rng.choice((0xFF, 0x7FF, 0xFFFF, 0x10FFFF)) for _ in range(4000)]
    chars = [chr(rng.randint(0, top)) for top in tops] + list("aZ5 _é€😀ǅ\u0300٣ſ\u212a")
    text = [c for c in chars if not 0xD800 <= ord(c) <= 0xDFFF]
    wrong = [c for c in text if dfa.full_match(c.encode()) != holds(c)]
    assert not wrong, f"{len(wrong)} code points disagree, e.g. {wrong[:5]}"
    assert not dfa.full_match(b"") and not dfa.full_match(b"xx")


def test_folded_unicode_categories() -> None:
    """Under `i` a category holds its letters' case partners; a negated
    category leaves them out (RE2 folds, then negates)."""
    upper, not_upper = compile_regex(r"(?i)\p{Lu}"), compile_regex(r"(?i)\P{Lu}")
    for char, partnered in [
        ("a", True),
        ("A", True),
        ("ǆ", True),
        ("ſ", True),
        ("1", False),
        ("ı", False),
    ]:
        assert upper.full_match(char.encode()) == partnered
        assert not_upper.full_match(char.encode()) != partnered


def test_utf8_sequences_spell_exactly_the_range() -> None:
    rng = random.Random(3)
    edges = [0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF]
    for _ in range(60):
        lo, hi = sorted(rng.choice([rng.choice(edges), rng.randrange(0x110000)]) for _ in range(2))
        sequences = list(utf8_sequences(((lo, hi),)))
        spelled = sum(math.prod(b - a + 1 for a, b in seq) for seq in sequences)
        assert spelled == hi - lo + 1 - _surrogates_in(lo, hi)
        for cp in {lo, hi, rng.randint(lo, hi)} - set(range(0xD800, 0xE000)):
            encoded = chr(cp).encode()
            assert sum(_spells(seq, encoded) for seq in sequences) == 1


def _surrogates_in(lo: int, hi: int) -> int:
    return max(0, min(hi, 0xDFFF) - max(lo, 0xD800) + 1)


def _spells(sequence: tuple[tuple[int, int], ...], encoded: bytes) -> bool:
    return len(sequence) == len(encoded) and all(
        a <= b <= c for (a, c), b in zip(sequence, encoded, strict=True)
    )


def test_case_folding() -> None:
    """Simple folding: k, K and the Kelvin sign; s, S and the long s; the
    three sigmas; ß and ẞ; but not i and the dotless ı."""

    def letters(char: str) -> set[str]:
        return {chr(c) for lo, hi in fold(((ord(char), ord(char)),)) for c in range(lo, hi + 1)}

    assert letters("k") == {"k", "K", "\u212a"}
    assert letters("S") == {"s", "S", "ſ"}
    assert letters("ς") == {"σ", "ς", "Σ"}
    assert letters("ß") == {"ß", "ẞ"}
    assert letters("i") == {"i", "I"}
    assert letters("ı") == {"ı"}
    assert letters("1") == {"1"}
    assert fold(negate(fold(((0x61, 0x61),)))) == negate(fold(((0x61, 0x61),)))
    assert normalise([(5, 9), (0, 3), (4, 4), (20, 30)]) == ((0, 9), (20, 30))
    assert negate(ALL) == ()
    uncased = [
        cp
        for cp in range(CASED_LIMIT, 0x110000)
        if chr(cp).lower() != chr(cp) or chr(cp).upper() != chr(cp)
    ]
    assert uncased == []


@pytest.mark.parametrize("compiler", ["gcc", "clang", "arm-none-eabi-gcc"])
def test_header_is_warning_free(compiler: str, tmp_path: Path) -> None:
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    source = tmp_path / "probe.c"
    source.write_text(
        '#include "onnxc_regex.h"\n'
        "int probe(const uint8_t *c, const uint16_t *t, const uint8_t *a, const char *d);\n"
        "int probe(const uint8_t *c, const uint16_t *t, const uint8_t *a, const char *d) {\n"
        "  return onnxc_regex_full_match(c, t, 3, a, 1, d, 5);\n"
        "}\n"
    )
    flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-Wconversion", "-O2"]
    subprocess.run(
        [
            compiler,
            *flags,
            "-I",
            str(runtime_dir()),
            "-c",
            str(source),
            "-o",
            str(tmp_path / "probe.o"),
        ],
        check=True,
    )
