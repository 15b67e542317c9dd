"""Progress of one compilation: each stage's name and seconds, and a total,
written to a text stream (the command line's stderr).

The library reports nothing unless a `Progress` is passed to it (`compile`,
`compile_with`, `generate_with`, `find_gaps` take `progress=`): a stage calls
`step` when it ends, a stage that walks the ONNX nodes (the import, and
convert-onnx-to-linalg through `lowering/node_progress.py`) calls `count` as
it goes.
On a terminal (`live`) the count is a bar rewritten in place with `\\r`;
otherwise only the stage lines are written, one per stage.
"""

from __future__ import annotations

import time
from typing import TextIO

_NAME_WIDTH = 24
_BAR_WIDTH = 24


class Progress:
    """Writes `  NAME  SECONDSs  [NOTE]` to `stream` as each stage ends (the
    seconds since the previous stage ended, or since the reporter was made),
    and `  total  SECONDSs` when `total` is called."""

    def __init__(self, stream: TextIO, *, live: bool | None = None) -> None:
        self.stream = stream
        self.live = stream.isatty() if live is None else live
        """Whether a bar may be rewritten in place (the stream is a terminal)."""
        self.start = self.mark = time.perf_counter()
        self._bar_shown = False

    def step(self, name: str, note: str = "") -> None:
        """Stage `name` has ended now; `note` says more (`cached`, a count)."""
        now = time.perf_counter()
        seconds = now - self.mark
        self.mark = now
        self._line(f"  {name:<{_NAME_WIDTH}} {seconds:7.2f}s" + (f"  {note}" if note else ""))

    def count(self, what: str, done: int, total: int) -> None:
        """`done` of the `total` items of the current stage are through: a bar
        on a terminal, nothing otherwise (the stage's line follows)."""
        if not self.live:
            return
        filled = _BAR_WIDTH * done // total if total else _BAR_WIDTH
        bar = "#" * filled + "." * (_BAR_WIDTH - filled)
        self.stream.write(f"\r  {what:<{_NAME_WIDTH}} [{bar}] {done}/{total}")
        self.stream.flush()
        self._bar_shown = True

    def total(self) -> None:
        """The seconds since the reporter was made, as the last line."""
        self._line(f"  {'total':<{_NAME_WIDTH}} {time.perf_counter() - self.start:7.2f}s")

    def _line(self, text: str) -> None:
        if self._bar_shown:
            self.stream.write("\r\x1b[K")  # the bar's line is taken over by the stage's
            self._bar_shown = False
        self.stream.write(text + "\n")
        self.stream.flush()
