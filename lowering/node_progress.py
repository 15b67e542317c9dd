"""Progress through the nodes of a pass that lowers one ONNX node at a time
(convert-onnx-to-linalg): a caller that shows progress wraps the pipeline in
`reporting(callback)`, and the pass calls `callback(done, total)` after each
node. Passes run from xdsl-opt report nothing."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Callback = Callable[[int, int], None]

_CALLBACK: ContextVar[Callback | None] = ContextVar("onnxc_node_progress", default=None)


@contextmanager
def reporting(callback: Callback) -> Iterator[None]:
    """Within the block, node-by-node passes tell `callback` their progress."""
    token = _CALLBACK.set(callback)
    try:
        yield
    finally:
        _CALLBACK.reset(token)


def counter(total: int) -> Callable[[], None]:
    """What a pass calls after each of its `total` nodes (nothing when no
    caller is reporting)."""
    callback = _CALLBACK.get()
    if callback is None:
        return lambda: None
    done = 0

    def one_more() -> None:
        nonlocal done
        done += 1
        callback(done, total)

    return one_more
