"""A model format's file read as lines: every non-blank one, unparsed, with its span in
the file, a block's worth at a time (``read_batches``), and fed to a ``Builder``
(``feed_file``). Plain and zstd-compressed files alike; errors as ``TranscriptError``."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from io import BytesIO
from itertools import accumulate
from typing import IO, TYPE_CHECKING, Any

from .errors import TranscriptError
from .events import SPAN_BITS, SPAN_MAX, LineSource
from .indexing import concatenated, loads_payload

if TYPE_CHECKING:
    from .formats.builders import Builder


# (the file a ``reads_so_far`` is for, and its list of errors)
_SO_FAR: ContextVar[tuple[str, list[TranscriptError]] | None] = ContextVar(
    "tailscope_so_far", default=None
)


def _same_path(where: str | os.PathLike[str]) -> str:
    return os.path.abspath(os.fspath(where))


@contextlib.contextmanager
def reads_so_far(path: str | os.PathLike[str]) -> Iterator[list[TranscriptError]]:
    """Within: ``path``, when its read fails after some lines (a ``.jsonl.zst`` cut short
    or corrupt, an I/O error), is read as the lines before the failure, its error added
    to the list given instead of raised (``peek``: what was read, then why no more was).
    Any other file (a subagent's, read with it) raises as it would outside, so its
    failure is what its reader makes of it, not ``path``'s."""
    said: list[TranscriptError] = []
    token = _SO_FAR.set((_same_path(path), said))
    try:
        yield said
    finally:
        _SO_FAR.reset(token)


def feed_file(builder: Builder, where: str) -> None:
    """Every line of a file into ``builder``, read-only; long texts stay in the file
    (read again by span) when it is a plain file, kept whole when it is compressed.
    Fed a block's lines at a time (``Builder.feed_lines``). A read that fails raises
    ``TranscriptError`` (within ``reads_so_far`` of this file: keeps what was read, and
    says why)."""
    try:
        for raws, numbers, spans in read_batches(where, builder):
            builder.feed_lines(raws, numbers, spans)
    except TranscriptError as err:
        so_far = _SO_FAR.get()
        if so_far is None or so_far[0] != _same_path(where):
            raise
        so_far[1].append(err)
    builder.span = 0


# 1 MB, not 4: a block, its lines and the next one's carry are held together, and
# bigger blocks left the heap that much higher (a 1 GB Codex check: 168 -> 143 MB).
_BLOCK = 1 << 20


def read_lines(where: str, builder: Builder | None = None) -> Iterator[tuple[int, bytes, int]]:
    """Every non-blank line of a file, unparsed: ``(number, bytes, span)``.

    The one tolerant line reader of the model formats (``read_batches``, a line at a
    time): CRLF endings are accepted and a zstd file is read decompressed. A plain file's
    lines come each with its span (offset << 32 | length; 0 where not known: a compressed
    file, a last line without its newline), and ``builder`` (when given) is told the file
    it can read its lines again from. Unreadable files (a truncated or corrupt ``.zst``
    too) raise ``TranscriptError``.
    """
    for raws, numbers, spans in read_batches(where, builder):
        yield from zip(numbers, raws, spans, strict=True)


_BATCH = 4096  # lines of a compressed file handed on together


def read_batches(
    where: str, builder: Builder | None = None
) -> Iterator[tuple[list[bytes], list[int], list[int]]]:
    """``read_lines``' lines a batch at a time (a block's): ``(lines, numbers, spans)``,
    three lists of the same length (CR taken off, blank lines left out)."""
    from .compressed import is_zstd
    from .reader import is_blank, iter_lines, open_transcript

    with open_transcript(where) as fh:
        if not is_zstd(fh.read(4)):
            fd = fh.fileno()
            if builder is not None:
                builder.set_source(LineSource(os.dup(fd)))
            number = 0
            offset = 0  # where the carried bytes start
            carry: list[bytes] = []  # the last line so far (a long one: many blocks)
            carried = 0
            try:
                while True:
                    block = os.pread(fd, _BLOCK, offset + carried)
                    if not block:
                        break
                    if b"\n" not in block:  # inside a long line: joined once, when it ends
                        carry.append(block)
                        carried += len(block)
                        continue
                    # (``readlines`` finds the newlines by memchr: 5x quicker than
                    # ``split``, which looks at each byte; their newlines cut off after)
                    ended = BytesIO(block).readlines()
                    if carry:  # (the carried bytes joined to the first line alone, not
                        # to the whole block: a copy of the block saved)
                        ended[0] = b"".join((*carry, ended[0]))
                        carry.clear()  # (a long line's pieces let go: held once)
                    last = b"" if ended[-1].endswith(b"\n") else ended.pop()
                    lines = [line[:-1] for line in ended]
                    del ended  # (each line held once: without its newline)
                    carry, carried = ([last], len(last)) if last else ([], 0)
                    if (
                        lines
                        and min(lines)[:1] > b" "
                        and max(lines)[:1] < b"\x80"
                        and b"\r" not in block
                        and not lines[0].endswith(b"\r")  # (its CR carried)
                    ):
                        # No line is blank or ends with a CR (none begins with a byte a
                        # blank line could: the least line's first is past " ", the
                        # greatest's ASCII): the batch's numbers and spans made whole,
                        # not a line at a time.
                        starts = list(accumulate((len(x) + 1 for x in lines), initial=offset))
                        offset = starts.pop()
                        numbers = list(range(number + 1, number + 1 + len(lines)))
                        number += len(lines)
                        spans = [
                            start << SPAN_BITS | size if size <= SPAN_MAX else 0
                            for start, size in zip(starts, map(len, lines), strict=True)
                        ]
                        yield lines, numbers, spans
                        continue
                    raws: list[bytes] = []
                    numbers = []
                    spans = []
                    for raw in lines:
                        number += 1
                        start = offset
                        offset += len(raw) + 1
                        if raw.endswith(b"\r"):
                            raw = raw[:-1]
                        if is_blank(raw):
                            continue
                        size = len(raw)
                        raws.append(raw)
                        numbers.append(number)
                        spans.append(start << SPAN_BITS | size if size <= SPAN_MAX else 0)
                    if raws:
                        yield raws, numbers, spans
            except OSError as err:
                raise TranscriptError(f"could not be read: {err.strerror}", path=where) from None
            tail = b"".join(carry)
            if not is_blank(tail):
                if builder is not None:
                    builder.unended = True
                yield [tail[:-1] if tail.endswith(b"\r") else tail], [number + 1], [0]
            return
    with open_read(where) as fh:
        raws, numbers = [], []
        failed = None  # (said after the lines read before it: a cut .zst's)
        try:
            for number, raw, whole in iter_lines(fh):
                if raw.endswith(b"\r"):
                    raw = raw[:-1]
                if is_blank(raw):
                    continue
                if not whole:  # (the last line, with no newline: a batch of its own)
                    if raws:
                        yield raws, numbers, [0] * len(raws)
                    raws, numbers = [], []
                    if builder is not None:
                        builder.unended = True
                raws.append(raw)
                numbers.append(number)
                if len(raws) >= _BATCH:
                    yield raws, numbers, [0] * len(raws)
                    raws, numbers = [], []
        except OSError as err:
            failed = TranscriptError(f"could not be read: {err.strerror}", path=where)
        if raws:
            yield raws, numbers, [0] * len(raws)
        if failed is not None:
            raise failed


def read_records(where: str) -> Iterator[tuple[int, Any, bytes]]:
    """``read_lines``, parsed as the builders parse a line (``loads_payload``: a number
    beyond a double read, a lone surrogate mended): ``(number, parsed value or None, raw
    bytes)``; a line of several records with no line break between them
    (``concatenated``) gives each."""
    for number, raw, _span in read_lines(where):
        try:
            value = loads_payload(raw)
        except ValueError:
            records = concatenated(raw)
            if records is not None:
                for record in records:
                    yield number, record, raw
                continue
            value = None
        yield number, value, raw


def open_read(where: str) -> IO[bytes]:
    """Open a transcript for reading (never for writing), errors as ``TranscriptError``.

    A zstd-compressed file (by its first bytes, not its name) is decompressed as read.
    """
    from .reader import open_lines

    return open_lines(where)[0]


__all__ = ["feed_file", "open_read", "read_batches", "read_lines", "read_records", "reads_so_far"]
