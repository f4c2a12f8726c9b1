"""A format registered for one test, and gone after it (``FORMATS`` as it was)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TypeVar

from session_core.formats import FORMATS, register
from session_core.formats.base import TranscriptFormat

F = TypeVar("F", bound=TranscriptFormat)


@contextlib.contextmanager
def registered(fmt: F) -> Iterator[F]:
    register(fmt)
    try:
        yield fmt
    finally:
        FORMATS.remove(fmt)
