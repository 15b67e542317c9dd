"""Parse RE2 regular expressions into a small syntax tree (`parse_regex`), for
the DFA compiler in `onnxc.text.regex_dfa`.

The syntax is RE2's (ONNX's RegexFullMatch names it), restricted to what a DFA
over UTF-8 bytes can decide: literals, `.`, escapes (`\\a \\f \\t \\n \\r \\v`,
octal `\\0`, `\\123`, `\\xHH`, `\\x{H...}`, escaped punctuation, `\\Q...\\E`),
the classes `\\d \\D \\s \\S \\w \\W` and `[...]` with ranges, negation and
`[:alpha:]`-style POSIX classes (all ASCII, as in RE2), the Unicode general
categories `\\pL \\p{Lu} \\p{^Lu} \\PL` and `\\p{Any}`, `\\C` (any byte),
groups `( )`, `(?: )`, `(?P<name> )`, `(?<name> )`, alternation, the greedy and
lazy repeats `* + ? {n} {n,} {n,m}` (lazy ones match the same strings in a full
match), the assertions `^ $ \\A \\z \\b \\B`, and the flags `i m s U` in
`(?flags)` and `(?flags: )`. Case folding (`i`) is the simple folding of
`onnxc.text.regex_chars`.

Invalid patterns (what RE2 itself rejects: unbalanced parentheses or brackets,
a repeat of nothing or of a repeat, `a{3,2}`, counts above 1000, backreferences,
look-around, unknown escapes) raise `OnnxcError`; Unicode script classes such
as `\\p{Greek}`, valid in RE2 but not compiled here, raise `UnsupportedError`
(as does a class name neither knows). Both messages are one line naming the
pattern and the construct.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import re
import unicodedata
from dataclasses import dataclass

from onnxc.errors import OnnxcError, UnsupportedError
from onnxc.text.regex_chars import (
    ALL,
    MAX_CODE_POINT,
    PERL_CLASSES,
    POSIX_CLASSES,
    Ranges,
    fold,
    negate,
    normalise,
    unicode_category,
)

MAX_REPEAT = 1000
"""RE2's bound on a repeat count, and on the product of nested counts."""


class Assert(enum.Enum):
    """An empty-width assertion: what it needs of the characters around it."""

    BEGIN_TEXT = "\\A"  # also ^ without the m flag
    END_TEXT = "\\z"  # also $ without the m flag
    BEGIN_LINE = "(?m)^"
    END_LINE = "(?m)$"
    WORD_BOUNDARY = "\\b"
    NOT_WORD_BOUNDARY = "\\B"


@dataclass(frozen=True)
class Chars:
    """One code point out of `ranges` (empty: matches nothing)."""

    ranges: Ranges


@dataclass(frozen=True)
class AnyByte:
    """`\\C`: any one byte."""


@dataclass(frozen=True)
class Assertion:
    """The empty string, where `kind` holds."""

    kind: Assert


@dataclass(frozen=True)
class Concat:
    """The items one after the other (none: the empty string)."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alternate:
    """Any one of the items."""

    items: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    """`item` from `min` to `max` times (`max` None: no bound)."""

    item: Node
    min: int
    max: int | None


Node = Chars | AnyByte | Assertion | Concat | Alternate | Repeat


@dataclass(frozen=True)
class _Flags:
    fold: bool = False  # i: case-insensitive
    multi_line: bool = False  # m: ^ and $ also at line ends
    dot_nl: bool = False  # s: . matches \n
    ungreedy: bool = False  # U: swaps lazy and greedy, which a full match ignores


_FLAG_FIELDS = {"i": "fold", "m": "multi_line", "s": "dot_nl", "U": "ungreedy"}
_CHAR_ESCAPES = {"a": 0x07, "f": 0x0C, "t": 0x09, "n": 0x0A, "r": 0x0D, "v": 0x0B}
_ASSERT_ESCAPES = {
    "A": Assert.BEGIN_TEXT,
    "z": Assert.END_TEXT,
    "b": Assert.WORD_BOUNDARY,
    "B": Assert.NOT_WORD_BOUNDARY,
}
_COUNT = "(0|[1-9][0-9]{0,8})"  # RE2 reads no leading zero, nor ten digits
_BRACES = re.compile(rf"\{{{_COUNT}(,{_COUNT}?)?\}}")
_NAME_CATEGORIES = {"Lu", "Ll", "Lt", "Lm", "Lo", "Nl", "Mn", "Mc", "Nd", "Pc"}
"""The Unicode categories RE2 allows in a group name."""
_OCTAL = "01234567"
_HEX = re.compile(r"\{([0-9A-Fa-f]+)\}|[0-9A-Fa-f]{2}")
_NOT_NEWLINE = negate(((0x0A, 0x0A),))


def parse_regex(pattern: str) -> Node:
    """The syntax tree of the RE2 `pattern`; raises `OnnxcError` if it is
    invalid, `UnsupportedError` if it uses what this module does not parse."""
    parser = _Parser(pattern)
    tree = parser.alternation()
    if parser.pos < len(pattern):  # only a ) stops alternation() early
        raise parser.invalid(f"unmatched ) at offset {parser.pos}")
    if _repeat_budget(tree, MAX_REPEAT) == 0:
        raise parser.invalid(f"nested repeat counts multiply to more than {MAX_REPEAT}")
    return tree


def _repeat_budget(node: Node, budget: int) -> int:
    """What is left of `budget` once divided by the counts of the repeats
    around the most repeated part of `node` (RE2's rule); 0 means too many."""
    if isinstance(node, Repeat):
        count = node.min if node.max is None else node.max
        return _repeat_budget(node.item, budget // count if count else budget)
    if isinstance(node, Concat | Alternate):
        return min((_repeat_budget(item, budget) for item in node.items), default=budget)
    return budget


class _Parser:
    """Recursive descent over the pattern's code points; `flags` are those in
    force at `pos` (a group restores its caller's flags when it closes)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.pos = 0
        self.flags = _Flags()
        self.names: set[str] = set()

    def invalid(self, why: str) -> OnnxcError:
        return OnnxcError(f"invalid regex pattern {self.pattern!r}: {why}")

    def unsupported(self, what: str, note: str = "") -> UnsupportedError:
        return UnsupportedError(f"regex pattern {self.pattern!r}: {what} is not supported{note}")

    def peek(self, text: str | tuple[str, ...]) -> bool:
        return self.pattern.startswith(text, self.pos)

    def eat(self, text: str) -> bool:
        if self.peek(text):
            self.pos += len(text)
            return True
        return False

    def next_char(self, missing: str) -> str:
        if self.pos >= len(self.pattern):
            raise self.invalid(missing)
        self.pos += 1
        return self.pattern[self.pos - 1]

    # Structure: alternation of concatenations of repeated atoms.

    def alternation(self) -> Node:
        branches = [self.concatenation()]
        while self.eat("|"):
            branches.append(self.concatenation())
        return branches[0] if len(branches) == 1 else Alternate(tuple(branches))

    def concatenation(self) -> Node:
        items: list[Node] = []
        while self.pos < len(self.pattern) and not self.peek("|") and not self.peek(")"):
            if self.eat("\\Q"):  # a repeat after \Q...\E applies to its last character
                quoted = self.quoted()
                items.extend(quoted[:-1])
                atom = quoted[-1] if quoted else None
            else:
                atom = self.atom()
            if atom is None and items and self.repeat_follows():
                atom = items.pop()  # as RE2: a repeat after (?i) or \Q\E repeats what came before
            if atom is not None:  # None: a flag group or \Q\E, which match nothing
                items.append(self.repeats(atom))
        return items[0] if len(items) == 1 else Concat(tuple(items))

    def repeats(self, atom: Node) -> Node:
        start = self.pos
        bounds = self.repeat_operator()
        if bounds is None:
            return atom
        self.eat("?")  # lazy: the same strings match in full
        if self.repeat_operator() is not None:
            raise self.invalid(f"repeat operator after a repeat: {self.pattern[start : self.pos]}")
        return Repeat(atom, *bounds)

    def repeat_follows(self) -> bool:
        start = self.pos
        found = self.repeat_operator() is not None
        self.pos = start
        return found

    def repeat_operator(self) -> tuple[int, int | None] | None:
        """Consume a repeat operator (not its lazy `?`) and give its bounds;
        None if none is here (a `{` that is not a repeat is a literal)."""
        for text, bounds in (("*", (0, None)), ("+", (1, None)), ("?", (0, 1))):
            if self.eat(text):
                return bounds
        braces = _BRACES.match(self.pattern, self.pos)
        if braces is None:
            return None
        low, comma, high = braces.group(1), braces.group(2), braces.group(3)
        bounds = (int(low), int(high) if high else None if comma else int(low))
        if max(bounds[0], bounds[1] or 0) > MAX_REPEAT:
            raise self.invalid(f"repeat count above {MAX_REPEAT} in {braces.group(0)}")
        if bounds[1] is not None and bounds[1] < bounds[0]:
            raise self.invalid(f"repeat {braces.group(0)} has its maximum below its minimum")
        self.pos = braces.end()
        return bounds

    def atom(self) -> Node | None:
        start = self.pos
        char = self.pattern[self.pos]
        if self.repeat_operator() is not None:
            raise self.invalid(f"nothing to repeat before {self.pattern[start : self.pos]}")
        self.pos += 1
        if char == "(":
            return self.group()
        if char == "[":
            return self.char_class()
        if char == "\\":
            return self.escape()
        if char == ".":
            return Chars(ALL if self.flags.dot_nl else _NOT_NEWLINE)
        if char == "^":
            return Assertion(Assert.BEGIN_LINE if self.flags.multi_line else Assert.BEGIN_TEXT)
        if char == "$":
            return Assertion(Assert.END_LINE if self.flags.multi_line else Assert.END_TEXT)
        return self.chars(((ord(char), ord(char)),))

    def chars(self, ranges: Ranges) -> Chars:
        return Chars(fold(ranges) if self.flags.fold else ranges)

    # Groups and flags.

    def group(self) -> Node | None:
        """After `(`: a group, or a flag setting (None)."""
        start = self.pos - 1
        outer = self.flags
        if self.eat("?P<") or (not self.peek(("?<=", "?<!")) and self.eat("?<")):
            self.group_name()
        elif self.eat("?") and self.flag_group(start):
            return None
        body = self.alternation()
        if not self.eat(")"):
            raise self.invalid(f"missing ) for the ( at offset {start}")
        self.flags = outer
        return body

    def group_name(self) -> None:
        end = self.pattern.find(">", self.pos)
        if end < 0:
            raise self.invalid("group name without a closing >")
        name = self.pattern[self.pos : end]
        if not name or not all(unicodedata.category(c) in _NAME_CATEGORIES for c in name):
            raise self.invalid(f"bad group name {name!r}")
        if name in self.names:
            raise self.invalid(f"duplicate group name {name!r}")
        self.names.add(name)
        self.pos = end + 1

    def flag_group(self, start: int) -> bool:
        """After `(?`: read flags up to `)` (True: they hold until the
        enclosing group ends) or `:` (False: a group with them follows)."""
        flags, negated, seen = self.flags, False, False
        while True:
            char = self.next_char(f"missing ) for the ( at offset {start}")
            if char in _FLAG_FIELDS:
                flags = dataclasses.replace(flags, **{_FLAG_FIELDS[char]: not negated})
                seen = True
            elif char == "-" and not negated:
                negated, seen = True, False
            elif char in ":)" and (seen or not negated):  # (?) and (?:) are fine, (?-) is not
                self.flags = flags
                return char == ")"
            else:
                raise self.invalid(self.bad_group(start))

    def bad_group(self, start: int) -> str:
        for opening in ("(?=", "(?!", "(?<=", "(?<!"):
            if self.pattern.startswith(opening, start):
                return f"look-around {opening} is not RE2 syntax"
        for opening in ("(?P=", "(?P>"):
            if self.pattern.startswith(opening, start):
                return f"backreference or recursion {opening} is not RE2 syntax"
        return f"unknown group syntax or flag in {self.pattern[start : self.pos]}"

    # Escapes and classes.

    def escape(self) -> Node:
        """After a `\\` outside a class."""
        char = self.next_char("trailing \\ at the end")
        if char in _ASSERT_ESCAPES:
            return Assertion(_ASSERT_ESCAPES[char])
        if char == "C":
            return AnyByte()
        self.pos -= 1
        named = self.named_class()
        if named is not None:
            return Chars(named)
        code_point = self.escaped_char()
        return self.chars(((code_point, code_point),))

    def quoted(self) -> list[Node]:
        """After `\\Q`: the literal characters up to `\\E` or the end."""
        end = self.pattern.find("\\E", self.pos)
        end = len(self.pattern) if end < 0 else end
        text, self.pos = self.pattern[self.pos : end], min(end + 2, len(self.pattern))
        return [self.chars(((ord(c), ord(c)),)) for c in text]

    def named_class(self) -> Ranges | None:
        """At the letter of `\\d \\D \\s \\S \\w \\W`: its code points (folded
        first under `i`, as RE2 does, then negated); None at any other."""
        letter = self.pattern[self.pos]
        if letter in "pP":
            return self.unicode_class()
        if letter.lower() not in PERL_CLASSES:
            return None
        self.pos += 1
        ranges = self.chars(PERL_CLASSES[letter.lower()]).ranges
        return negate(ranges) if letter.isupper() else ranges

    def unicode_class(self) -> Ranges:
        """At the letter of `\\pL`, `\\p{Lu}`, `\\p{^Lu}`, `\\PL`: its code
        points (a general category, or Any)."""
        start, letter = self.pos - 1, self.pattern[self.pos]
        self.pos += 1
        if self.eat("{"):
            end = self.pattern.find("}", self.pos)
            if end < 0:
                raise self.invalid(f"missing }} in \\{letter}{{")
            name, self.pos = self.pattern[self.pos : end], end + 1
        else:
            name = self.next_char(f"\\{letter} without a class name")
        ranges = unicode_category(name.removeprefix("^"))
        if ranges is None:
            raise self.unsupported(
                f"the Unicode class {self.pattern[start : self.pos]}",
                " (only general categories such as \\p{Lu}, and \\p{Any}, are)",
            )
        ranges = self.chars(ranges).ranges
        return negate(ranges) if (letter == "P") != name.startswith("^") else ranges

    def escaped_char(self) -> int:
        """At the character after a `\\`: the code point it escapes."""
        char = self.next_char("trailing \\ at the end")
        digits = "".join(itertools.takewhile(_OCTAL.__contains__, self.pattern[self.pos :][:2]))
        if char in "1234567" and not digits:
            raise self.invalid(f"backreference \\{char} is not RE2 syntax")
        if char in _OCTAL:
            self.pos += len(digits)
            return int(char + digits, 8)
        if char == "x":
            return self.hex_char()
        if char in _CHAR_ESCAPES:
            return _CHAR_ESCAPES[char]
        if char.isascii() and not char.isalnum():
            return ord(char)
        raise self.invalid(f"unknown escape \\{char}")

    def hex_char(self) -> int:
        """After `\\x`: the code point of `HH` or `{H...}`."""
        found = _HEX.match(self.pattern, self.pos)
        value = int(found.group(1) or found.group(0), 16) if found else MAX_CODE_POINT + 1
        if found is None or value > MAX_CODE_POINT:
            raise self.invalid(f"bad hex escape at offset {self.pos - 2}")
        self.pos = found.end()
        return value

    def char_class(self) -> Chars:
        """After `[`: the class up to its `]`."""
        start = self.pos - 1
        negated = self.eat("^")
        found: list[tuple[int, int]] = []
        first = True
        while first or not self.eat("]"):
            if self.pos >= len(self.pattern):
                raise self.invalid(f"missing ] for the [ at offset {start}")
            first = False
            posix = self.posix_class()
            if posix is not None:
                found.extend(posix)
                continue
            if self.peek("\\") and self.pattern[self.pos + 1 : self.pos + 2] in tuple("dDsSwWpP"):
                self.pos += 1
                named = self.named_class()
                assert named is not None
                found.extend(named)
                continue
            range_start = self.pos
            low = self.class_char()
            high = low
            if self.peek("-") and self.pattern[self.pos + 1 : self.pos + 2] not in ("", "]"):
                self.pos += 1
                high = self.class_char()
                if high < low:
                    text = self.pattern[range_start : self.pos]
                    raise self.invalid(f"class range {text} runs backwards")
            found.append((low, high))
        ranges = self.chars(normalise(found)).ranges
        return Chars(negate(ranges) if negated else ranges)

    def posix_class(self) -> Ranges | None:
        """At `[:name:]` or `[:^name:]` inside a class: its code points."""
        end = self.pattern.find(":]", self.pos + 2)
        if not self.peek("[:") or end < 0:
            return None
        name = self.pattern[self.pos + 2 : end]
        negated = name.startswith("^")
        if name.removeprefix("^") not in POSIX_CLASSES:
            raise self.invalid(f"unknown POSIX class [:{name}:]")
        self.pos = end + 2
        ranges = self.chars(POSIX_CLASSES[name.removeprefix("^")]).ranges
        return negate(ranges) if negated else ranges

    def class_char(self) -> int:
        """One code point of a class (a range end)."""
        if not self.eat("\\"):
            return ord(self.next_char("missing ] at the end of the pattern"))
        letter = self.pattern[self.pos : self.pos + 1]
        if letter and letter in "dDsSwWpP":
            raise self.invalid(f"\\{letter} cannot end a class range")
        if letter and letter in "ABCQbz":
            raise self.invalid(f"\\{letter} is not allowed in a character class")
        return self.escaped_char()
