"""``UnfinishedLineScreen``: a last line its writer left without a newline, whole.

Once no writer will end it, such a line is not read as a record (a crash tail): it is
what was in flight when the writer stopped. Its warning shows its first bytes; this
screen reads all of them (up to a limit) from where the follower found the line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import IO

from rich.text import Text

from session_core.compressed import open_maybe_compressed
from session_core.reader import cannot_read

from ..safe import inert
from .text_file import ReadResult, TextFileScreen

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


class UnfinishedLineScreen(TextFileScreen):
    """The unfinished line's bytes as text (undecodable bytes as U+FFFD), inert."""

    def __init__(self, unfinished: UnfinishedLine, *, limit: int = LIMIT) -> None:
        super().__init__(limit=limit, soft_wrap=True)
        self.unfinished = unfinished

    def _title(self) -> Text:
        where = os.path.basename(self.unfinished.path)
        return Text.assemble(
            (f"line {self.unfinished.line}, unfinished", "bold"),
            ("  in ", "dim"),
            (inert(where), "dim"),
        )

    def _record_line(self) -> Text:
        return Text(
            "the writer left it without its newline: what was in flight when it stopped "
            "(not read as a record)",
            style="dim",
        )

    def _read(self) -> ReadResult:
        at = self.unfinished
        want = min(at.size, self.limit)
        try:
            data = line_bytes(at.path, at.start, want)
        except OSError as err:
            return ("unreadable", cannot_read(err))
        if len(data) < want:
            return ("missing", MOVED)
        text = data.decode("utf-8", "replace")
        return ("here", inert(text), at.size, at.size > self.limit, "")


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


__all__ = ["MOVED", "UnfinishedLine", "UnfinishedLineScreen", "line_bytes"]
