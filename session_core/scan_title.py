"""A big file's title lines past its head, as the browser's row reads them (``scan``):
found by their bytes, the other lines passed over unread, so that the row's title is
the one a whole read gives (``titles``) however far in its first prompt (or, for a
format whose title a later line may set, that line) is written."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from .reader import loads_line

BLOCK = 1 << 20


def lines_holding(
    fh: IO[bytes], start: int, end: int, needles: Sequence[bytes], block: int = BLOCK
) -> Iterator[bytes]:
    """The whole lines of ``fh`` from byte ``start`` (a line's start) to ``end`` that hold
    one of ``needles``, in file order, read a block at a time and searched where read.
    ``needles`` is looked at again for each line: a caller that needs fewer from some
    line on (a first prompt found) takes them out of its list, and reads on cheaper."""
    fh.seek(start)
    pieces: list[bytes] = []  # a line begun in earlier blocks (joined when it ends)
    read = start
    while read < end and needles:
        chunk = fh.read(min(block, end - read))
        if not chunk:
            return
        read += len(chunk)
        cut = chunk.rfind(b"\n") + 1
        if not cut:
            pieces.append(chunk)
            continue
        begin = 0
        if pieces:
            begin = chunk.find(b"\n") + 1
            joined = b"".join((*pieces, chunk[:begin]))
            yield from _holding(joined, 0, len(joined), needles)
        yield from _holding(chunk, begin, cut, needles)
        pieces = [chunk[cut:]] if cut < len(chunk) else []


def _holding(data: bytes, start: int, stop: int, needles: Sequence[bytes]) -> Iterator[bytes]:
    """``data[start:stop]``'s lines (whole ones) that hold one of ``needles``."""
    starts: set[int] = set()
    for needle in needles:
        at = data.find(needle, start, stop)
        while at >= 0:
            line = data.rfind(b"\n", start, at) + 1 or start
            starts.add(max(line, start))
            at = data.find(b"\n", at, stop)  # (the next line: this one is taken)
            at = data.find(needle, at, stop) if at >= 0 else -1
    for line in sorted(starts):
        raw = data[line : data.find(b"\n", line, stop)]
        if any(n in raw for n in needles):  # (``needles`` may have changed since)
            yield raw


USER = (b'"user"',)  # (v1's role, agentgo's kind: a prompt's line holds it)


def first_record_said(
    fh: IO[bytes], start: int, end: int, said: Callable[[dict[str, Any]], str | None]
) -> str | None:
    """The first of the lines from ``start`` to ``end`` holding ``"user"`` (a v1 or
    agentgo prompt's) that ``said`` gives a title of; a line that is no JSON object is
    passed over, as the head's are (not this row's to judge)."""
    for raw in lines_holding(fh, start, end, USER):
        try:
            record = loads_line(raw)
        except ValueError:
            continue
        if isinstance(record, dict) and (title := said(record)) is not None:
            return title
    return None


__all__ = ["first_record_said", "lines_holding"]
