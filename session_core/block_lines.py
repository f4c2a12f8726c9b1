"""A file's whole lines between two offsets, a block at a time, where they were read: the
byte searches of a big file's row (``scan_title``: a first prompt; ``tallies``: v1's
operations open before a window) look at each block in place, not line by line."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

BLOCK = 1 << 20


def whole_line_runs(
    fh: IO[bytes], start: int, end: int, block: int = BLOCK
) -> Iterator[tuple[bytes, int, int]]:
    """``(data, begin, stop)`` for the whole lines of ``fh`` from byte ``start`` (a line's
    start) to ``end``, in order: ``data[begin:stop]`` is whole lines, each with its
    newline. A line longer than a block comes joined once, when it ends, as its own
    ``data``; what follows the last newline before ``end`` is not given. A caller that
    stops iterating reads no further."""
    fh.seek(start)
    pieces: list[bytes] = []  # a line begun in earlier blocks (joined once, when it ends)
    read = start
    while read < end:
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
            pieces = []
            yield joined, 0, len(joined)
        yield chunk, begin, cut
        pieces = [chunk[cut:]] if cut < len(chunk) else []


__all__ = ["BLOCK", "whole_line_runs"]
