"""Running a function in a forked child, with a deadline: what a crash or a
hang of code onnxc does not control (onnx's version converter, a model under
test) must not take the calling process down or stop it forever.

A child forked from a process with other threads inherits their locks as
they were at the fork; one held then (an allocator's under
AddressSanitizer, a library's own) is never released in the child, which
then waits forever. A child that has not answered by the deadline is
killed and the call is tried again in a new child, which forks at another
moment; `ForkedResult.answered` says whether any did.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass

ATTEMPTS = 2
"""Children forked for one call before it counts as unanswered."""


@dataclass(frozen=True)
class ForkedResult:
    """What the child wrote (its answer, possibly empty), how it ended (an
    exit status or a signal number), and whether it ended by itself."""

    data: bytes
    exit_status: int | None
    signal: int | None
    answered: bool


def run_forked(
    child: Callable[[int], None], deadline_seconds: float, attempts: int = ATTEMPTS
) -> ForkedResult:
    """Fork; in the child, call `child(fd)` (it writes its answer to `fd`
    and leaves with `os._exit`); in the parent, read the answer until the
    child closes it or `deadline_seconds` pass, then reap the child. A child
    past the deadline is killed and another is forked, up to `attempts`."""
    for _ in range(attempts):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(read)
            try:
                child(write)
            finally:
                os._exit(1)  # `child` leaves by itself; this only covers a failure to
        os.close(write)
        data, finished = _read_until(read, time.monotonic() + deadline_seconds)
        os.close(read)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        if finished:
            signalled = os.WIFSIGNALED(status)
            return ForkedResult(
                data,
                None if signalled else os.WEXITSTATUS(status),
                os.WTERMSIG(status) if signalled else None,
                answered=True,
            )
    return ForkedResult(b"", None, signal.SIGKILL, answered=False)


def _read_until(fd: int, deadline: float) -> tuple[bytes, bool]:
    """What `fd` gives until its end (True) or the deadline (False)."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return b"".join(chunks), False
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)
