"""SIGTERM and SIGHUP (a terminal closed, a ``kill``) for a command that made something to
clean up: the CLI's text commands, a piped run's viewer, the demo."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def ended_by_signals(at_once: Callable[[], None] | None = None) -> Iterator[None]:
    """SIGTERM and SIGHUP end the command as an exception would, so that what it made is
    cleaned up as it unwinds (an export's temporary file): only where no screen runs,
    the main thread's unwinding its own. With ``at_once``, for a screen, they end it at
    once, as they end the viewer of a file, once ``at_once`` has cleaned up: an exception
    raised wherever the screen's main thread is can leave Textual's shutdown waiting for
    ever (its output queue's lock, caught half way: a piped run's viewer stayed, its
    terminal gone)."""

    def end(signum: int, _frame: object) -> None:
        if at_once is not None:
            at_once()
            os._exit(128 + signum)
        raise SystemExit(128 + signum)

    before = {sig: signal.signal(sig, end) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
