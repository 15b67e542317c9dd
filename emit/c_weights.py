"""Weight arrays as C definitions: small ones as lists of literals, large ones
as their bytes in string literals.

A weight of more than `LISTED_BYTES` bytes is a union of its bytes and its
elements, initialised through the bytes:

    static const union conv_w_storage {
      unsigned char bytes[2][3000];
      float v[1500];
    } conv_w ONNXC_WEIGHT_ATTRIBUTES = {{
      "\\2\\274\\10=..."
      ...
    }};

and code reads `conv_w.v` (the union is tagged so that NAME.c can declare a
weight that NAME_weights.c defines). The bytes are the elements' storage in
little-endian order, as ONNX stores tensor data, so the text is exact and
about 2.7 times the weight bytes for float data (decimal literals took 4.4),
and compilers read it fast: gcc builds 28 MB of weights in under 2 s at any
-O level, where it took 27 s (and 1.7 GB) for the same values as a list of
hex words. Reading the member other than the one initialised is C99's
type punning through a union (6.5.2.3, footnote 82). Each row of `bytes` is one
string literal of at most `ROW_BYTES` characters, below C99's translation
limit of 4095 (gcc -pedantic warns beyond it); rows are cut into source
lines of `LINE_BYTES` bytes.

The text is made with numpy over whole blocks of bytes (a Python loop per
byte took seconds per megabyte). A printable character stands for itself,
except `"`, `\\` and `?` (a `??x` trigraph); every other byte is an octal
escape, as short as the next character allows (an escape runs on while
octal digits follow, up to three).
"""

from __future__ import annotations

import numpy as np

LISTED_BYTES = 64
"""Weights up to this many bytes are written as lists of C literals."""

ROW_BYTES = 4000
LINE_BYTES = 96

LITTLE_ENDIAN_CHECK = (
    "#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && "
    "__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__",
    '#error "the weights are little-endian bytes: this target is big-endian"',
    "#endif",
)
"""Guards a file holding byte-string weights (every onnxc target is
little-endian; a compiler that cannot tell is trusted)."""

_PLAIN = np.zeros(256, dtype=bool)
_PLAIN[0x20:0x7F] = True
_PLAIN[[ord('"'), ord("\\"), ord("?")]] = False


def _escape_table() -> tuple[np.ndarray, np.ndarray]:
    """Row b: the text of byte b as short as it can be; row 256 + b: as a
    three-digit escape (for an escape followed by an octal digit). Padded
    with NUL, which never occurs in the text."""
    table = np.zeros((512, 4), dtype=np.uint8)
    for b in range(256):
        short = chr(b) if _PLAIN[b] else f"\\{b:o}"
        for form, text in ((b, short), (256 + b, short if _PLAIN[b] else f"\\{b:03o}")):
            table[form, : len(text)] = np.frombuffer(text.encode(), dtype=np.uint8)
    return table, (table != 0).sum(axis=1)


_TABLE, _LENGTH = _escape_table()
_OCTAL_DIGIT = np.zeros(256, dtype=bool)
_OCTAL_DIGIT[ord("0") : ord("7") + 1] = True


def string_lines(data: np.ndarray) -> list[str]:
    """The bytes `data` (uint8) as string-literal source lines, one per
    `LINE_BYTES` bytes, each `"..."` with no indentation or separator."""
    n = data.size
    if n == 0:
        return []
    followed_by_digit = np.zeros(n, dtype=bool)
    followed_by_digit[:-1] = _OCTAL_DIGIT[data[1:]]
    followed_by_digit[LINE_BYTES - 1 :: LINE_BYTES] = False  # a line's literal ends there
    form = data.astype(np.int32) + np.where(followed_by_digit & ~_PLAIN[data], 256, 0)
    chars = _TABLE[form].reshape(-1)
    text = chars[chars != 0].tobytes().decode("ascii")
    ends = np.cumsum(_LENGTH[form])[LINE_BYTES - 1 :: LINE_BYTES].tolist()
    if not ends or ends[-1] != len(text):
        ends.append(len(text))
    starts = [0, *ends[:-1]]
    return [f'"{text[a:b]}"' for a, b in zip(starts, ends, strict=True)]


def _union(name: str, element_c_type: str, size: int, count: int) -> list[str]:
    rows = -(-size // ROW_BYTES)
    return [
        f"const union {name}_storage {{",
        f"  unsigned char bytes[{rows}][{-(-size // rows)}];",
        f"  {element_c_type} v[{count}];",
    ]


def byte_string_declaration(element_c_type: str, name: str, size: int, count: int) -> list[str]:
    """The `extern` declaration of weight `name`, a union (tagged
    `NAME_storage`) of `size` bytes and `count` elements of `element_c_type`."""
    head = _union(name, element_c_type, size, count)
    return [f"extern {head[0]}", *head[1:], f"}} {name} ONNXC_WEIGHT_ATTRIBUTES;"]


def byte_string_definition(
    storage: str, element_c_type: str, name: str, data: np.ndarray, count: int, declared: bool
) -> list[str]:
    """The definition of weight `name` from `data`, its storage bytes (uint8,
    little-endian); `storage` ("static " or "") first. With `declared` the
    union's type comes from `byte_string_declaration` earlier in the file."""
    rows = -(-data.size // ROW_BYTES)
    width = -(-data.size // rows)
    init = f" {name} ONNXC_WEIGHT_ATTRIBUTES = {{{{"
    if declared:
        lines = [f"{storage}const union {name}_storage{init}"]
    else:
        head = _union(name, element_c_type, data.size, count)
        lines = [storage + head[0], *head[1:], "}" + init]
    for r in range(rows):
        text = string_lines(data[r * width : (r + 1) * width])
        text[-1] += "," if r + 1 < rows else ""
        lines += ["  " + t for t in text]
    return [*lines, "}};"]


def little_endian_bytes(values: np.ndarray) -> np.ndarray:
    """The bytes (uint8) of `storage_values`' array, whose dtype is
    little-endian already."""
    return np.ascontiguousarray(values).view(np.uint8).reshape(-1)
