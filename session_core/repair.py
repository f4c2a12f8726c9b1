"""Crash-tail repair: byte level, into ``<file>.repair``, then one atomic rename."""

from __future__ import annotations

import os
from dataclasses import dataclass

import orjson

from .errors import TranscriptError
from .reader import bom_length, is_blank, line_is_whole

_BACK = 1 << 16


@dataclass(frozen=True, slots=True)
class Tail:
    """What the end of a file looks like, found by reading backwards."""

    size: int
    start: int  # offset of the last line
    line: bytes  # the last line without its line break
    ends_broken: bool  # the file ends in \n (so its last line is whole, not broken)
    previous: bytes | None  # the line before it, when there is one
    crlf: bool  # the file's line ending, judged by its last \n
    cr_end: bool  # the file ends in a bare \r (a CRLF cut before its \n)


def _last_lf(fd: int, before: int) -> int:
    """Offset of the last \\n strictly before ``before``, or -1."""
    pos = before
    while pos > 0:
        start = max(0, pos - _BACK)
        block = os.pread(fd, pos - start, start)
        found = block.rfind(b"\n")
        if found >= 0:
            return start + found
        pos = start
    return -1


def _read(fd: int, start: int, end: int) -> bytes:
    return os.pread(fd, end - start, start) if end > start else b""


def _line(fd: int, start: int, end: int) -> bytes:
    """The line from ``start`` to its line break at ``end``, without a CR before it; the
    first line read past a byte order mark (v1 reads it so: ``reader.BOM``)."""
    line = _read(fd, start, end)
    if line.endswith(b"\r"):
        line = line[:-1]
    return line if start else line[bom_length(line) :]


def read_tail(fd: int) -> Tail | None:
    size = os.fstat(fd).st_size
    if size == 0:
        return None
    ends_broken = _read(fd, size - 1, size) == b"\n"
    end = size - 1 if ends_broken else size
    lf = _last_lf(fd, end)
    start = lf + 1
    line = _line(fd, start, end)
    previous = None
    if start > 0:
        before = _last_lf(fd, lf)
        previous = _line(fd, before + 1, lf)
    last_lf = size - 1 if ends_broken else lf
    crlf = last_lf > 0 and _read(fd, last_lf - 1, last_lf) == b"\r"
    cr_end = not ends_broken and _read(fd, size - 1, size) == b"\r"
    return Tail(size, start, line, ends_broken, previous, crlf, cr_end)


def opens_as_transcript(fd: int, tail: Tail) -> bool:
    """Whether the file's first line that is not blank (blank lines are skipped, as the
    reader skips them) is a whole ``session-meta`` line, read up to its line break; where
    every line before the tail is blank, the tail is that line."""
    chunks: list[bytes] = []  # (the line being read: a huge one is joined once)
    offset = bom_length(_read(fd, 0, 3))  # (read past a byte order mark)
    while offset < tail.start:
        block = os.pread(fd, min(_BACK, tail.start - offset), offset)
        if not block:
            return False
        offset += len(block)
        start = 0
        while (end := block.find(b"\n", start)) >= 0:
            chunks.append(block[start:end])
            line = b"".join(chunks)
            chunks = []
            if not is_blank(line):
                return _is_meta(line)
            start = end + 1
        chunks.append(block[start:])
    return _is_meta(tail.line) if is_blank(b"".join(chunks)) else False


def _is_meta(line: bytes) -> bool:
    try:
        record = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return isinstance(record, dict) and record.get("type") == "session-meta"


def repair_path(path: str) -> str:
    return path + ".repair"


def _copy_prefix(src: int, dst: int, length: int) -> int:
    """Copy ``length`` bytes verbatim; returns how many line breaks they hold."""
    offset = 0
    breaks = 0
    while offset < length:
        block = os.pread(src, min(1 << 22, length - offset), offset)
        if not block:
            raise OSError("the file shrank during the repair")
        breaks += block.count(b"\n")
        view = memoryview(block)
        while view:
            written = os.write(dst, view)
            view = view[written:]
        offset += len(block)
    return breaks


def _count_breaks(fd: int, length: int) -> int:
    """How many \n the first ``length`` bytes hold."""
    offset = 0
    breaks = 0
    while offset < length:
        block = os.pread(fd, min(1 << 22, length - offset), offset)
        if not block:
            break
        breaks += block.count(b"\n")
        offset += len(block)
    return breaks


def repair_tail(path: str, fd: int) -> tuple[int, list[str]]:
    """Make the file append-safe. Returns the fd now holding the transcript and warnings.

    ``fd`` is the caller's locked descriptor on ``path``. When the file is
    rewritten, the new inode is locked before the rename and its descriptor
    returned (the old one is closed), so the writer lock never lapses.
    """
    import fcntl

    tail = read_tail(fd)
    if tail is None or (tail.ends_broken and line_is_whole(tail.line)):
        return fd, []
    if not opens_as_transcript(fd, tail):
        # A file whose first line is not a whole session-meta line is not known to be
        # a transcript (nor its last lines a crash tail of one, or two bad lines its
        # damage): nothing of it is cut, and the replay after says why it is refused.
        return fd, []
    warnings: list[str] = []
    if line_is_whole(tail.line):
        keep = tail.size
        # A file cut between the \r and the \n of a CRLF only needs that \n.
        suffix = b"\n" if tail.cr_end else b"\r\n" if tail.crlf else b"\n"
    else:
        if tail.previous is not None and not line_is_whole(tail.previous):
            last = _count_breaks(fd, tail.start) + 1
            raise TranscriptError(
                f"ends in two malformed lines (line {last - 1} and line {last}); only a single "
                "malformed final line is tolerated (a crash tail), two mean the file was "
                "damaged some other way",
                path=path,
                line=last - 1,
            )
        keep = tail.start
        suffix = b""
    staging = repair_path(path)
    named = os.path.basename(staging)
    mode = os.fstat(fd).st_mode & 0o7777
    doing = f"creating {named}"
    try:
        new = os.open(staging, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except OSError as err:
        raise _not_repaired(path, doing, err) from None
    try:
        fcntl.flock(new, fcntl.LOCK_EX | fcntl.LOCK_NB)
        doing = f"writing {named}"
        breaks = _copy_prefix(fd, new, keep)
        if suffix:
            os.write(new, suffix)
        os.fchmod(new, mode)
        doing = f"renaming {named} over the file"
        os.rename(staging, path)
    except BaseException as err:
        os.close(new)
        if os.path.lexists(staging):
            os.unlink(staging)
        if isinstance(err, OSError):
            raise _not_repaired(path, doing, err) from None
        raise
    os.close(fd)
    if not suffix:
        excerpt = tail.line[:200].decode("utf-8", "backslashreplace")
        warnings.append(
            f"line {breaks + 1} was a crash tail (not whole JSON) and was cut off: {excerpt}"
        )
    return new, warnings


def _not_repaired(path: str, doing: str, err: OSError) -> TranscriptError:
    """A repair that failed, saying which step did (a read-only folder: the file itself
    may be writable, its ``.repair`` beside it not)."""
    return TranscriptError(
        f"cannot repair the crash tail ({doing}: {err.strerror or err})", path=path
    )
