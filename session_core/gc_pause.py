"""The cyclic garbage collector paused while a big replay runs.

A replay keeps every record it builds alive: each collection would rescan
them all, which made a big load quadratic-ish (at 1 GB it doubled the time).
Nothing replay keeps is cyclic. Pauses nest and may overlap across threads
(two files loading at once); the collector runs again when the last ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_was_enabled = False


def hold() -> None:
    """Pause the collector until the matching ``release``."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1


def release() -> None:
    """End one ``hold``; the last one restarts the collector (if it ran before)."""
    global _holders
    with _lock:
        if _holders == 0:
            return
        _holders -= 1
        if _holders == 0 and _was_enabled:
            gc.enable()


@contextmanager
def paused() -> Iterator[None]:
    hold()
    try:
        yield
    finally:
        release()
