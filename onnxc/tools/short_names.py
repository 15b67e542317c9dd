"""Node names shortened to a fixed width for the text tables (`check`, the
size report, `bench --per-layer`).

TensorFlow exports name nodes by their whole scope, up to 350 characters;
one such name would widen a table's column for every row. The start (the
outer scope) and the end (the layer and the operator) are what tell the
names apart, so the middle gives way to an ellipsis. JSON and HTML keep the
names whole.
"""

from __future__ import annotations

NAME_WIDTH = 48
"""The most characters a node name takes in a text table."""

ELLIPSIS = "..."


def shorten(name: str, width: int = NAME_WIDTH) -> str:
    """`name` as it is when it fits in `width` characters, else its start
    and its end around `ELLIPSIS`, `width` characters in all (the end gets
    the extra character of an odd split)."""
    if len(name) <= width:
        return name
    kept = width - len(ELLIPSIS)
    start = kept // 2
    return name[:start] + ELLIPSIS + name[len(name) - (kept - start) :]
