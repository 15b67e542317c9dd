"""`onnxc.forked.run_forked`: a child's answer, its crash, and a child that
never answers (killed at the deadline, then forked again)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from onnxc.forked import run_forked


def _answer(text: bytes):
    def child(pipe: int) -> None:
        os.write(pipe, text)
        os._exit(0)

    return child


def test_the_answer_and_the_exit_status() -> None:
    result = run_forked(_answer(b"x" * 300_000), 30)  # more than a pipe holds
    assert result.answered and result.data == b"x" * 300_000
    assert result.exit_status == 0 and result.signal is None


def test_a_crash_is_a_signal() -> None:
    def child(pipe: int) -> None:
        os.kill(os.getpid(), signal.SIGSEGV)

    result = run_forked(child, 30)
    assert result.answered and result.signal == signal.SIGSEGV and result.data == b""


def test_a_child_that_never_answers_is_killed_and_forked_again(tmp_path: Path) -> None:
    tries = tmp_path / "tries"

    def stuck_once(pipe: int) -> None:
        with tries.open("a") as log:
            log.write("x")
        if len(tries.read_text()) == 1:
            time.sleep(60)  # as a child stuck on a lock another thread held
        os.write(pipe, b"done")
        os._exit(0)

    start = time.monotonic()
    result = run_forked(stuck_once, 1.0)
    assert result.answered and result.data == b"done" and tries.read_text() == "xx"
    assert time.monotonic() - start < 10


def test_no_answer_at_all() -> None:
    def stuck(pipe: int) -> None:
        time.sleep(60)

    result = run_forked(stuck, 0.5, attempts=2)
    assert not result.answered and result.signal == signal.SIGKILL
