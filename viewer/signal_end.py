"""SIGTERM and SIGHUP (a terminal closed, a ``kill``): the CLI's text commands clean up
what they made as they unwind; a screen (the viewer, a piped run's, the demo's) cleans
up, gives the terminal back as it found it, and ends at once."""

from __future__ import annotations

import contextlib
import os
import signal
import termios
from collections.abc import Callable, Iterator
from typing import Any

TTY = "/dev/tty"
# What Textual's driver sets, undone as its ``stop_application_mode`` undoes it: mouse
# reports, bracketed paste, no line wrap, the Kitty keyboard protocol, focus reports,
# the alternate screen and the hidden cursor.
_RESET = (
    b"\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l\x1b[?7h"
    b"\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l"
)


def _terminal_modes() -> list[Any] | None:
    """The terminal's modes now (before a screen makes it raw); None: no terminal."""
    try:
        fd = os.open(TTY, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return termios.tcgetattr(fd)
    except termios.error:
        return None
    finally:
        os.close(fd)


def give_terminal_back(modes: list[Any] | None) -> None:
    """The terminal as it was before the screen took it (``modes``), written straight to
    it, as a signal handler may (no queue of Textual's is waited on); nothing where the
    terminal is gone (SIGHUP: it was closed)."""
    try:
        fd = os.open(TTY, os.O_RDWR | os.O_NOCTTY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.write(fd, _RESET)
        if modes is not None:
            with contextlib.suppress(termios.error):
                termios.tcsetattr(fd, termios.TCSANOW, modes)
    finally:
        os.close(fd)


@contextlib.contextmanager
def ended_by_signals(at_once: Callable[[], None] | None = None) -> Iterator[None]:
    """SIGTERM and SIGHUP end the command as an exception would, so that what it made is
    cleaned up as it unwinds (an export's temporary file): only where no screen runs,
    the main thread's unwinding its own. With ``at_once``, for a screen, they end it at
    once, as they end the viewer of a file, once ``at_once`` has cleaned up: an exception
    raised wherever the screen's main thread is can leave Textual's shutdown waiting for
    ever (its output queue's lock, caught half way: a piped run's viewer stayed, its
    terminal gone). Ending at once skips Textual's own restoring of the terminal: it is
    given back here (``give_terminal_back``: a ``kill`` left it in the alternate screen,
    reporting the mouse, echo off)."""
    modes = _terminal_modes() if at_once is not None else None

    def end(signum: int, _frame: object) -> None:
        if at_once is not None:
            at_once()
            give_terminal_back(modes)
            os._exit(128 + signum)
        raise SystemExit(128 + signum)

    before = {sig: signal.signal(sig, end) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
