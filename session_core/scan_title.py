"""A big file's first prompt past its head, as the browser's row reads it (``scan``):
the lines that may hold it found by their bytes, the others passed over unread, for
``PAST_HEAD`` bytes at most, so that the row's title is the one a whole read gives
(``titles``) where the first prompt is written that far in, and none (never a later
prompt) where it is further."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any

from .block_lines import BLOCK, whole_line_runs
from .reader import loads_line

# Bytes past a big file's head its row reads on for a first prompt, at most: as much as
# its tail window (``scan.WINDOW``), so that a row's read stays of its head and window's
# size (a file with no prompt at all is read no further, and a live row is read again on
# every change of its file).
PAST_HEAD = 4 << 20


def whole_lines_end(head: bytes) -> int:
    """Where a head's whole lines end (a line's start: the next one's)."""
    return len(head) - len(head.rsplit(b"\n", 1)[-1])


def title_end(start: int, end: int) -> int:
    """Where a row reading on from ``start`` for a first prompt stops: ``end`` (the
    file's, or its tail window's start), else ``PAST_HEAD`` bytes on."""
    return min(end, start + PAST_HEAD)


def lines_holding(
    fh: IO[bytes], start: int, end: int, needles: Sequence[bytes], block: int = BLOCK
) -> Iterator[bytes]:
    """The whole lines of ``fh`` from byte ``start`` (a line's start) to ``end`` that hold
    one of ``needles``, in file order, read a block at a time and searched where read.
    ``needles`` is looked at again for each line: a caller that needs fewer from some
    line on (a first prompt found) takes them out of its list, and reads on cheaper."""
    for data, begin, stop in whole_line_runs(fh, start, end, block):
        if not needles:
            return
        yield from _holding(data, begin, stop, needles)


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


def prompt_past_head(
    fh: IO[bytes], head: bytes, size: int, said: Callable[[dict[str, Any]], str | None]
) -> str | None:
    """A big v1 or agentgo file's first prompt past its ``head`` (a long system message
    before it), as far as ``title_end``: the first line holding ``"user"`` that ``said``
    gives a title of; a line that is no JSON object is passed over, as the head's are
    (not this row's to judge)."""
    start = whole_lines_end(head)
    for raw in lines_holding(fh, start, title_end(start, size), USER):
        try:
            record = loads_line(raw)
        except ValueError:
            continue
        if isinstance(record, dict) and (title := said(record)) is not None:
            return title
    return None


__all__ = ["PAST_HEAD", "lines_holding", "prompt_past_head", "title_end", "whole_lines_end"]
