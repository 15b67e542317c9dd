"""Compile an RE2 pattern into a minimal DFA over UTF-8 bytes, for ONNX's
RegexFullMatch: `compile_regex(pattern) -> Dfa`.

The pattern is parsed by `onnxc.text.regex_parse`, turned into a Thompson NFA over
bytes (each code point class spelled as its UTF-8 byte sequences), made
deterministic by subset construction, minimised (Moore's partition
refinement), and its bytes grouped into equivalence classes (bytes whose
columns of the transition table are equal). Generated C runs the tables with
`onnxc_regex_full_match` of ``runtime_c/onnxc_regex.h``; `Dfa.full_match` is
the same loop in Python.

Assertions (`^ $ \\A \\z \\b \\B`) are decided exactly wherever they stand: a
DFA state remembers the kind of the byte before it (none yet, a newline, an
ASCII word byte, another byte), and the NFA's assertion edges are followed when
they hold between that kind and the kind of the next byte (or the end of the
text). So `a^b` matches nothing and `\\.\\bcom\\b` needs the text to end after
`com`. Every byte sequence gets an answer, valid UTF-8 or not.

Output is deterministic: states are numbered breadth-first from the start in
byte-class order, with the dead state (non-accepting, every byte leads back
to it) always state 0, and classes numbered by their smallest byte.
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import ClassVar

from onnxc.errors import UnsupportedError
from onnxc.text.regex_chars import utf8_sequences
from onnxc.text.regex_parse import (
    Alternate,
    AnyByte,
    Assert,
    Assertion,
    Chars,
    Concat,
    Node,
    Repeat,
    parse_regex,
)

MAX_STATES = 4096
"""Bound on the DFA's states (before minimisation): the C tables hold them as
uint16_t, and subset construction must stay fast."""

MAX_NFA_STATES = 200_000
"""Bound on the NFA's states (counted repeats copy their body)."""


@dataclass(frozen=True)
class Dfa:
    """A total DFA over bytes that accepts exactly the strings the pattern
    matches in full.

    `byte_class[b]` is the class of byte b (256 entries); the next state of
    state s on byte b is `transitions[s * class_count + byte_class[b]]`;
    `accepting[s]` says whether the text may end in state s. State `DEAD` (0)
    is never left and never accepts."""

    byte_class: bytes
    class_count: int
    transitions: tuple[int, ...]
    accepting: tuple[bool, ...]
    start: int

    DEAD: ClassVar[int] = 0

    @property
    def state_count(self) -> int:
        return len(self.accepting)

    def full_match(self, data: bytes) -> bool:
        """Whether the whole of `data` matches (the C matcher's loop)."""
        state = self.start
        for byte in data:
            state = self.transitions[state * self.class_count + self.byte_class[byte]]
            if state == self.DEAD:
                return False
        return self.accepting[state]


def compile_regex(pattern: str) -> Dfa:
    """The minimal DFA of the RE2 `pattern` in full-match mode. Raises
    `OnnxcError` for an invalid pattern and `UnsupportedError` for a
    construct not compiled here or a DFA above `MAX_STATES` states."""
    nfa = _Nfa(pattern)
    nfa.start = nfa.build(parse_regex(pattern), _MATCH)
    table, accepting, intervals = _Subsets(nfa).run()
    return _tables(*_minimise(table, accepting), intervals)


class _Context(enum.IntEnum):
    """What stands on one side of a position: the kind of the byte there, or
    the edge of the text."""

    EDGE = 0
    NEWLINE = 1
    WORD = 2
    OTHER = 3


def _context(byte: int) -> _Context:
    if byte == 0x0A:
        return _Context.NEWLINE
    if chr(byte).isascii() and (chr(byte).isalnum() or byte == 0x5F):
        return _Context.WORD
    return _Context.OTHER  # bytes of non-ASCII code points are not word bytes (RE2)


_CONTEXT_CUTS = (0x0A, 0x0B, 0x30, 0x3A, 0x41, 0x5B, 0x5F, 0x60, 0x61, 0x7B)
"""The bytes at which `_context` changes."""


def _holds(kind: Assert, before: _Context, after: _Context) -> bool:
    """Whether the assertion holds between `before` and `after`."""
    if kind is Assert.BEGIN_TEXT:
        return before is _Context.EDGE
    if kind is Assert.END_TEXT:
        return after is _Context.EDGE
    if kind is Assert.BEGIN_LINE:
        return before in (_Context.EDGE, _Context.NEWLINE)
    if kind is Assert.END_LINE:
        return after in (_Context.EDGE, _Context.NEWLINE)
    at_boundary = (before is _Context.WORD) != (after is _Context.WORD)
    return at_boundary == (kind is Assert.WORD_BOUNDARY)


@dataclass(eq=False)
class _State:
    """An NFA state: consumes one byte in `byte_range` and goes to `out[0]`;
    or, without a range, moves without input to each of `out` (only where
    `assertion` holds, if it is set)."""

    byte_range: tuple[int, int] | None = None
    assertion: Assert | None = None
    out: list[int] = field(default_factory=list[int])


_MATCH = 0
"""The NFA's accepting state."""


class _Nfa:
    """Thompson's construction, built backwards: `build(node, then)` adds the
    states that match `node` and continue at state `then`, and returns the
    first of them."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.states = [_State()]  # _MATCH
        self.start = _MATCH

    def add(self, state: _State) -> int:
        if len(self.states) >= MAX_NFA_STATES:
            raise UnsupportedError(
                f"regex pattern {self.pattern!r}: its NFA has more than {MAX_NFA_STATES} states"
            )
        self.states.append(state)
        return len(self.states) - 1

    def build(self, node: Node, then: int) -> int:
        if isinstance(node, Chars):
            starts: list[int] = []
            for sequence in utf8_sequences(node.ranges):
                state = then
                for byte_range in reversed(sequence):
                    state = self.add(_State(byte_range, out=[state]))
                starts.append(state)
            return self.add(_State(out=starts))
        if isinstance(node, AnyByte):
            return self.add(_State((0, 255), out=[then]))
        if isinstance(node, Assertion):
            return self.add(_State(assertion=node.kind, out=[then]))
        if isinstance(node, Alternate):
            return self.add(_State(out=[self.build(item, then) for item in node.items]))
        if isinstance(node, Concat):
            for item in reversed(node.items):
                then = self.build(item, then)
            return then
        return self.build_repeat(node, then)

    def build_repeat(self, node: Repeat, then: int) -> int:
        if node.max is None:  # a loop: the body, then back to the choice
            tail = self.add(_State())
            self.states[tail].out = [self.build(node.item, tail), then]
        else:  # (x(x(x)?)?)? for the optional copies
            tail = then
            for _ in range(node.max - node.min):
                tail = self.add(_State(out=[self.build(node.item, tail), then]))
        for _ in range(node.min):
            tail = self.build(node.item, tail)
        return tail


class _Subsets:
    """Subset construction. A DFA state is a set of NFA states (closed under
    unconditional moves, keeping the assertion states) and the context
    before it, reduced to what the pattern's assertions can tell apart. The
    alphabet is cut into byte intervals no NFA range and no context splits."""

    def __init__(self, nfa: _Nfa) -> None:
        self.nfa = nfa
        kinds = {s.assertion for s in nfa.states if s.assertion is not None}
        cuts = {0, 256}
        for state in nfa.states:
            if state.byte_range is not None:
                cuts.update((state.byte_range[0], state.byte_range[1] + 1))
        if kinds:
            cuts.update(_CONTEXT_CUTS)
        self.starts = sorted(cuts)[:-1]
        # without assertions the bytes after a state need not be told apart
        self.contexts = [_context(lo) if kinds else _Context.OTHER for lo in self.starts]

        def signature(before: _Context) -> tuple[bool, ...]:
            return tuple(
                _holds(k, before, after) for k in sorted(kinds, key=str) for after in _Context
            )

        self.canonical = {
            c: min(d for d in _Context if signature(d) == signature(c)) for c in _Context
        }

    def run(self) -> tuple[list[list[int]], list[bool], list[tuple[int, int]]]:
        """The table (state -> interval -> state, the dead state 0 and the
        start 1), each state's acceptance, and the byte intervals."""
        start = (self.closure([self.nfa.start]), self.canonical[_Context.EDGE])
        keys: dict[tuple[frozenset[int], _Context], int] = {start: 1}
        order = [start]
        table: list[list[int]] = [[0] * len(self.starts)]
        accepting = [False]
        while len(table) < len(keys) + 1:
            states, before = order[len(table) - 1]
            accepting.append(_MATCH in self.closure(states, before, _Context.EDGE))
            row: list[int] = []
            for target in self.step(states, before):
                if target[0]:
                    if target not in keys:
                        if len(keys) + 1 >= MAX_STATES:
                            raise UnsupportedError(
                                f"regex pattern {self.nfa.pattern!r}: its DFA has more than "
                                f"{MAX_STATES} states"
                            )
                        keys[target] = len(keys) + 1
                        order.append(target)
                    row.append(keys[target])
                else:
                    row.append(0)
            table.append(row)
        ends = [*self.starts[1:], 256]
        return table, accepting, [(lo, end - 1) for lo, end in zip(self.starts, ends, strict=True)]

    def step(
        self, states: frozenset[int], before: _Context
    ) -> list[tuple[frozenset[int], _Context]]:
        """The DFA state after each byte interval."""
        targets: list[set[int]] = [set() for _ in self.starts]
        for after in sorted(set(self.contexts)):
            for index in self.closure(states, before, after):
                byte_range = self.nfa.states[index].byte_range
                if byte_range is None:
                    continue
                first = bisect.bisect_left(self.starts, byte_range[0])
                last = bisect.bisect_right(self.starts, byte_range[1])
                for interval in range(first, last):
                    if self.contexts[interval] is after:
                        targets[interval].add(self.nfa.states[index].out[0])
        closed: dict[frozenset[int], frozenset[int]] = {}  # intervals often share targets
        for found in map(frozenset, targets):
            if found not in closed:
                closed[found] = self.closure(found)
        return [
            (closed[frozenset(found)], self.canonical[context])
            for found, context in zip(targets, self.contexts, strict=True)
        ]

    def closure(
        self,
        seeds: Iterable[int],
        before: _Context | None = None,
        after: _Context | None = None,
    ) -> frozenset[int]:
        """The states reachable from `seeds` without input, crossing an
        assertion only if it holds between `before` and `after` (never
        without them); keeps the states that consume bytes, match, or wait
        on an assertion."""
        found: set[int] = set()
        pending = list(seeds)
        while pending:
            index = pending.pop()
            if index in found:
                continue
            found.add(index)
            state = self.nfa.states[index]
            if state.byte_range is not None:
                continue
            if state.assertion is None or (
                before is not None and after is not None and _holds(state.assertion, before, after)
            ):
                pending.extend(state.out)
        return frozenset(
            i
            for i in found
            if i == _MATCH
            or self.nfa.states[i].byte_range is not None
            or self.nfa.states[i].assertion is not None
        )


def _minimise(
    table: list[list[int]], accepting: list[bool]
) -> tuple[list[list[int]], list[bool], int]:
    """The minimal DFA of `table` (Moore: split blocks of states until each
    block's states agree on acceptance and on the block each interval leads
    to), numbered breadth-first from the start (state 1) with the dead
    state's block first; and its start."""
    block = [int(a) for a in accepting]
    count = len(set(block))
    while True:
        signatures: dict[tuple[int, ...], int] = {}
        refined = [
            signatures.setdefault((block[s], *(block[t] for t in row)), len(signatures))
            for s, row in enumerate(table)
        ]
        if len(signatures) == count:
            break
        block, count = refined, len(signatures)
    number = {block[0]: 0}
    number.setdefault(block[1], 1)  # the start, unless it is dead
    members = {b: s for s, b in reversed(list(enumerate(block)))}  # first state of each block
    order = list(number)
    for b in order:
        for target in table[members[b]]:
            if block[target] not in number:
                number[block[target]] = len(number)
                order.append(block[target])
    minimal = [[number[block[t]] for t in table[members[b]]] for b in order]
    return minimal, [accepting[members[b]] for b in order], number[block[1]]


def _tables(
    table: list[list[int]], accepting: list[bool], start: int, intervals: list[tuple[int, int]]
) -> Dfa:
    """The `Dfa` of a minimal table over byte intervals: intervals whose
    columns agree become one byte class."""
    classes: dict[tuple[int, ...], int] = {}
    byte_class = bytearray()
    for index, (lo, hi) in enumerate(intervals):
        column = tuple(row[index] for row in table)
        byte_class.extend([classes.setdefault(column, len(classes))] * (hi - lo + 1))
    transitions = [state for row in zip(*classes, strict=True) for state in row]
    return Dfa(
        byte_class=bytes(byte_class),
        class_count=len(classes),
        transitions=tuple(transitions),
        accepting=tuple(accepting),
        start=start,
    )
