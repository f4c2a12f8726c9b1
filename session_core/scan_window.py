"""A big file's end, as the browser reads it (``scan``): a tail window from a line
boundary, reaching back to the last line's start however long, never over a head
already read, and its whole lines fed with a crash tail told from damage."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO, TYPE_CHECKING, Any

import orjson

from .errors import TranscriptError
from .reader import bom_length, is_blank

if TYPE_CHECKING:
    from .scan import FileSummary


def lines_of(data: bytes) -> Iterator[tuple[int, bytes, bool]]:
    parts = data.split(b"\n")
    tail = parts.pop()
    for number, part in enumerate(parts, start=1):
        yield number, part, True
    if tail:
        yield len(parts) + 1, tail, False


LAST_LINE_MAX = 64 << 20  # a last line longer than this is looked for no further back


def tail_window(
    summary: FileSummary, fh: IO[bytes], window: int, floor: int = 0
) -> tuple[bytes, float]:
    """The last ``window`` bytes from a line boundary, with the last line whole however
    long (a huge tool result the writer was writing when it died: a window inside it held
    no line, and the row read "finished"), and the file's size over what was read (to
    scale counts by); the row is flagged ``estimated``. A last line over
    ``LAST_LINE_MAX`` is not read: b"", and ``last_line_unread`` says whether a
    newline ends it (the caller says so). ``floor``: where the lines
    the caller read already end (a head's: never read twice)."""
    summary.estimated = True
    size = summary.size
    start = max(size - window, 0)
    last = _line_start(fh, size - 1 if size else 0, LAST_LINE_MAX)
    if last is None:  # (said by ``settle_status``: nothing of the end was read)
        fh.seek(size - 1)  # (its last byte alone: whether a newline ends the line)
        summary.last_line_unread = "ended" if fh.read(1) == b"\n" else "cut"
        return b"", 1.0
    start = min(start, max(last - window, 0))  # (the lines before a long last one too)
    at_line = start <= floor  # (a head's lines end at a line's start)
    start = max(start, floor)
    if start >= size:  # (the head's lines are every line: nothing more to read)
        return b"", 1.0
    fh.seek(start)
    tail = fh.read(size - start)
    # Counts are scaled by the lines before the last one: a huge last line (a tool
    # result) is one line, not the measure of how many lines the file's bytes hold.
    unmeasured = size - last
    if start > 0 and not at_line:  # begin at a line boundary
        cut = tail.find(b"\n")
        tail = tail[cut + 1 :] if cut >= 0 else b""
        # Begun inside a long line, the window holds the few lines after it, no measure
        # (5 MB line, then 3 small ones: ~700 times the messages): it reaches back over
        # that line, whole, to a window of lines before it; the line set aside as the last.
        begun = _line_start(fh, start, LAST_LINE_MAX) if cut >= 0 else None
        if len(tail) - unmeasured < window // 2 and begun is not None and begun >= floor:
            unmeasured += start + cut + 1 - begun
            start = max(begun - window, floor)
            fh.seek(start)
            tail = fh.read(size - start)
            if start > floor:
                tail = tail[tail.find(b"\n") + 1 :]  # (one ends the line before ``begun``)
    if start == 0:  # (the file's start: past a byte order mark, where the format reads one)
        tail = tail[bom_length(tail) :]
    summary.unmeasured = unmeasured
    if len(tail) > unmeasured:
        return tail, (size - unmeasured) / (len(tail) - unmeasured)
    return tail, 1.0


def _line_start(fh: IO[bytes], end: int, most: int) -> int | None:
    """Where the line holding byte ``end`` starts (the file's last line: its last byte,
    the newline that ends it, if any, left aside), looked for back a block at a time,
    bytes alone (no line parsed); None: not within ``most`` bytes."""
    at = end
    block = 1 << 20
    while at > 0:
        begin = max(at - block, 0)
        fh.seek(begin)
        found = fh.read(at - begin).rfind(b"\n")
        if found >= 0:
            start = begin + found + 1
            return start if end - start <= most else None
        if end - begin >= most:
            return None
        at = begin
    return 0 if end <= most else None


def feed_window(tail: bytes, feed: Any, *, unfinished_is_tail: bool = False) -> bool:
    """Feed every whole line; a bad line that is not the last is damage. True: a crash tail."""
    lines = list(lines_of(tail))
    for index, (number, raw, ended) in enumerate(lines):
        if is_blank(raw):
            continue
        if unfinished_is_tail and not ended:
            return True
        last = index == len(lines) - 1
        try:
            feed(raw, number)
        except orjson.JSONDecodeError:
            if last:
                return True
            raise TranscriptError(
                f"is not valid JSON (line {number} of the last {len(tail):,} bytes read)"
            ) from None
        except TranscriptError as err:
            raise TranscriptError(
                f"{err.reason} (line {number} of the last {len(tail):,} bytes read)"
            ) from None
    return False


__all__ = ["LAST_LINE_MAX", "feed_window", "lines_of", "tail_window"]
