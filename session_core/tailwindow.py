"""The last lines of a file, read backwards from its end: a big transcript's first screen."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import orjson

from .errors import TranscriptError
from .indexing import loads_mended
from .reader import bom_length, is_blank, open_transcript
from .replay import ReplayState


@dataclass(slots=True)
class TailWindow:
    """The complete lines of the last ``window`` bytes, parsed; nothing before them."""

    start: int  # byte offset of the first line shown
    size: int  # the file's size when it was read
    envelopes: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0  # lines in the window that were not JSON objects


def read_tail_window(path: str | os.PathLike[str], window: int = 1 << 20) -> TailWindow:
    """Read only the end of the file (read-only; a partial last line is left for later)."""
    where = os.fspath(path)
    with open_transcript(where) as fh:
        size = os.fstat(fh.fileno()).st_size
        start = max(0, size - window)
        fh.seek(start)
        data = fh.read(size - start)
    if start > 0:
        cut = data.find(b"\n")
        if cut < 0:
            return TailWindow(size, size)  # one line longer than the window: nothing whole
        data = data[cut + 1 :]
        start += cut + 1
    else:  # (the whole file: its first line read past a byte order mark, as v1 reads it)
        start = bom_length(data)
        data = data[start:]
    result = TailWindow(start, size)
    lines = data.split(b"\n")
    lines.pop()  # what follows the last newline is not a whole line yet
    for raw in lines:
        try:
            value = loads_mended(raw)
        except orjson.JSONDecodeError:
            result.skipped += not is_blank(raw)
            continue
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            result.envelopes.append(value)
        else:
            result.skipped += 1
    return result


def preview_state(tail: TailWindow, where: str) -> ReplayState:
    """A replay of the window alone, leniently: what refers to lines before it is skipped.

    Only for showing the end of a file at once; the real replay reads it all.
    """
    state = ReplayState(where)
    for envelope in tail.envelopes:
        try:
            state.feed(envelope, 0)  # line 0: its number is not known yet
        except TranscriptError:
            continue
    return state
