"""A last line its writer left without a newline: where it is, and its bytes.

Once no writer will end it, such a line is not read as a record (a crash tail): it is
what was in flight when the writer stopped. Its warning shows its first bytes;
``UnfinishedLineScreen`` (``unfinished_line_screen``, imported only when it is opened:
its ``TextArea`` is not loaded at every start) reads all of them, up to a limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from session_core.compressed import open_maybe_compressed

LIMIT = 1_000_000  # (one line, wrapped: a megabyte is more than anyone reads on a screen)
MOVED = "not there any more: the file changed since the line was read"


@dataclass(frozen=True, slots=True)
class UnfinishedLine:
    """Where the line is: its file, its number, and its bytes' offset and count (in the
    file's lines as read: a compressed file's are its decompressed bytes)."""

    path: str
    line: int
    start: int
    size: int


def line_bytes(path: str, start: int, count: int) -> bytes:
    """Up to ``count`` bytes of a file's lines from offset ``start`` (a compressed file's
    unpacked bytes: read past); ``OSError`` where it cannot be read."""
    with open_maybe_compressed(path) as fh:  # (never a FIFO's blocking open)
        _skip(fh, start)
        return fh.read(count)


def _skip(fh: IO[bytes], count: int) -> None:
    """To ``count`` bytes in: a seek where the file can, else read past (decompressed)."""
    if fh.seekable():
        fh.seek(count)
        return
    while count > 0:
        got = len(fh.read(min(count, 1 << 20)))
        if not got:
            return
        count -= got


__all__ = ["LIMIT", "MOVED", "UnfinishedLine", "line_bytes"]
