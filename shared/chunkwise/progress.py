"""Progress of long work, reported by the stages and shown (or not) by a caller.

The stages call `advance(task, done, total)` at their natural step (a PDF
page, a document, a question, a queue message). Nothing is shown unless a
caller installed a sink with `reporting(sink)`: the Lambda handlers never do,
so the core needs no display library and costs one context-variable lookup
per step. The command line installs a sink that draws bars on stderr.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

#: A sink receives (task label, steps done, total steps or None when unknown).
Sink = Callable[[str, int, int | None], None]

_SINK: ContextVar[Sink | None] = ContextVar("chunkwise_progress_sink", default=None)

T = TypeVar("T")


def advance(task: str, done: int, total: int | None = None) -> None:
    """Report that `done` of `total` steps of `task` are finished."""
    sink = _SINK.get()
    if sink is not None:
        sink(task, done, total)


def active() -> bool:
    """True when someone listens (lets a stage skip work done only for progress)."""
    return _SINK.get() is not None


def track(items: Iterable[T], task: str, total: int | None = None) -> Iterator[T]:
    """Yield `items`, reporting one step after each (0 of total before the first)."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    advance(task, 0, total)
    for done, item in enumerate(items, start=1):
        yield item
        advance(task, done, total)


@contextmanager
def reporting(sink: Sink | None) -> Iterator[None]:
    """Send the progress of everything run inside the block to `sink`."""
    token = _SINK.set(sink)
    try:
        yield
    finally:
        _SINK.reset(token)
