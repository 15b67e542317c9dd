"""C spellings: identifiers derived from ONNX names, string literals, comments.

Generated identifiers must be valid C90 identifiers, must not be keywords or
names the C library or the runtime uses, and must be unique within a file; the
`Namer` hands them out deterministically (same model, same names).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float "
    "for goto if inline int long register restrict return short signed sizeof "
    "static struct switch typedef union unsigned void volatile while _Bool _Complex "
    "_Imaginary main arena workspace workspace_size status NULL INFINITY NAN isnan "
    "float_t double_t y0 y1 yn j0 j1 jn gamma signgam errno".split()
)
"""Keywords, and names of the C library and of generated entry points' own
parameters and locals, that no generated identifier may take."""

MATH_FUNCTIONS = (
    "acos asin atan atan2 cos sin tan acosh asinh atanh cosh sinh tanh exp exp2 expm1 "
    "frexp ilogb ldexp log log10 log1p log2 logb modf scalbn scalbln cbrt fabs hypot pow "
    "sqrt erf erfc lgamma tgamma ceil floor nearbyint rint lrint llrint round lround "
    "llround trunc fmod remainder remquo copysign nan nextafter nexttoward fdim fmax fmin "
    "fma".split()
)

C_LIBRARY = frozenset(
    [
        *MATH_FUNCTIONS,
        *(f + "f" for f in MATH_FUNCTIONS),
        *(f + "l" for f in MATH_FUNCTIONS),
        *"fpclassify isfinite isinf isnormal signbit isgreater isgreaterequal isless "
        "islessequal islessgreater isunordered HUGE_VAL HUGE_VALF HUGE_VALL size_t ptrdiff_t "
        "offsetof wchar_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t "
        "intptr_t uintptr_t intmax_t uintmax_t".split(),
    ]
)
"""The functions, macros and types of the headers generated C includes
(math.h, stddef.h, stdint.h): a tensor named `sin` (a rotary embedding's sine
cache) must not become a file-scope `sin`."""


def sanitize(name: str) -> str:
    """A C identifier from any string (no leading underscore: those are reserved)."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", name).lstrip("_")
    if not s or s[0].isdigit():
        s = "t_" + s
    return s


def c_string(text: str) -> str:
    """A C string literal holding `text` (UTF-8, non-printable bytes in octal)."""
    out: list[str] = []
    for byte in text.encode():
        char = chr(byte)
        if char in '"\\?':
            out.append("\\" + char)
        elif 32 <= byte < 127:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def c_comment(text: str) -> str:
    """`/* text */` on one line, with anything that would end it (or form a
    trigraph) defused."""
    text = " ".join(text.split())
    for bad, good in (("*/", "* /"), ("/*", "/ *"), ("??", "? ?")):
        text = text.replace(bad, good)
    return f"/* {text} */"


class Namer:
    """Hands out unique C identifiers, deterministically."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.used = set(C_KEYWORDS) | C_LIBRARY | set(reserved)
        self.counters: dict[str, int] = {}

    def take(self, base: str) -> str:
        """`base` sanitised, made unique with a numeric suffix if needed."""
        base = sanitize(base)
        if base.lower().startswith("onnxc_"):
            base = "t_" + base
        name, k = base, 1
        while name in self.used:
            name, k = f"{base}_{k}", k + 1
        self.used.add(name)
        return name

    def numbered(self, prefix: str) -> str:
        """The next unused `prefix0`, `prefix1`, ..."""
        while True:
            k = self.counters.get(prefix, 0)
            self.counters[prefix] = k + 1
            if f"{prefix}{k}" not in self.used:
                self.used.add(f"{prefix}{k}")
                return f"{prefix}{k}"
