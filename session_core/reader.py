"""Reading transcript files: line splitting, envelope parsing, read-only replay."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from typing import IO, Any

import orjson

from . import gc_pause
from .errors import InvalidLineError, ReplayError, TranscriptError
from .replay import ReplayState

CHUNK = 1 << 22


def iter_lines(fh: IO[bytes], chunk: int = CHUNK) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(line number, bytes without the \\n, ended with \\n)`` for every line.

    Blank lines are yielded too, so numbers match what an editor shows.
    A final line without its newline comes last with ``ended=False``.
    """
    number = 0
    pending: list[bytes] = []  # the pieces of a line longer than a block: joined once
    while True:
        block = fh.read(chunk)
        if not block:
            break
        if b"\n" not in block:
            pending.append(block)
            continue
        if pending:
            pending.append(block)
            block = b"".join(pending)
        parts = block.split(b"\n")
        carry = parts.pop()
        pending = [carry] if carry else []
        for part in parts:
            number += 1
            yield number, part, True
    if pending:
        yield number + 1, b"".join(pending), False


class NotAFileError(OSError):
    """The path names something that is not a regular file (a directory, a FIFO...)."""


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open a regular file for reading, without ever blocking on a FIFO or a device.

    Raises ``IsADirectoryError`` for a directory, ``NotAFileError`` for any other
    non-regular file, and the usual ``OSError``s otherwise.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory")
        if not stat.S_ISREG(mode):
            raise NotAFileError(0, "not a regular file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def is_blank(raw: bytes) -> bool:
    return not raw.strip()


def parse_line(raw: bytes, number: int, path: str) -> dict[str, Any]:
    """One non-blank line as an envelope dict, or an ``InvalidLineError``.

    Checks what every reader of v1 needs: a JSON object, ``v`` == 1, a string ``type``.
    """
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        raise InvalidLineError(
            f"is not valid JSON ({_why(err)})", path=path, line=number, raw=raw
        ) from None
    if not isinstance(value, dict):
        raise InvalidLineError("is not a JSON object", path=path, line=number, raw=raw)
    check_envelope(value, number, path, raw)
    return value


def check_envelope(value: dict[str, Any], number: int, path: str, raw: bytes = b"") -> None:
    v = value.get("v")
    if v != 1 or isinstance(v, bool):
        raise InvalidLineError(
            f"has envelope version {v!r}; this reader reads version 1",
            path=path,
            line=number,
            raw=raw,
        )
    if not isinstance(value.get("type"), str):
        raise InvalidLineError("has no type", path=path, line=number, raw=raw)


def _why(err: orjson.JSONDecodeError) -> str:
    text = str(err)
    if "utf-8" in text.lower() or "surrogate" in text.lower():
        return "invalid UTF-8"
    return text.split(":")[0]


def line_is_whole(raw: bytes) -> bool:
    """The reference's test for a crash tail: blank, or one whole JSON value."""
    if is_blank(raw):
        return True
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    return True


def open_transcript(where: str) -> IO[bytes]:
    """``open_regular`` with every way it can fail as a ``TranscriptError``."""
    try:
        return open_regular(where)
    except FileNotFoundError:
        raise TranscriptError("there is no transcript here", path=where) from None
    except IsADirectoryError:
        raise TranscriptError("is a directory, not a transcript", path=where) from None
    except NotAFileError:
        raise TranscriptError("is not a regular file, so not a transcript", path=where) from None
    except OSError as err:
        raise TranscriptError(f"cannot be read: {err.strerror}", path=where) from None


def replay_file(path: str | os.PathLike[str], *, tolerate_tail: bool) -> ReplayState:
    """Replay a v1 file read-only, as ``load`` would after its repair.

    With ``tolerate_tail``, a malformed final line (the crash tail ``load``
    would cut) becomes a warning instead of an error; the file is not touched.
    """
    where = os.fspath(path)
    state = ReplayState(where, lazy_facts=True)
    fh = open_transcript(where)
    with gc_pause.paused():
        return _replay_into(state, fh, where, tolerate_tail)


def _replay_into(state: ReplayState, fh: IO[bytes], where: str, tolerate_tail: bool) -> ReplayState:
    with fh:
        pending: InvalidLineError | None = None
        seen = 0
        feed = state.feed
        loads = orjson.loads
        try:
            for number, raw, _ended in iter_lines(fh):
                if pending is not None:
                    # The bad line was not the last one: damage, not a crash.
                    if is_blank(raw):
                        continue
                    raise _mid_file(pending, where)
                try:
                    env = loads(raw)
                except orjson.JSONDecodeError as err:
                    if is_blank(raw):
                        continue
                    pending = InvalidLineError(
                        f"is not valid JSON ({_why(err)})", path=where, line=number, raw=raw
                    )
                    continue
                if type(env) is not dict:
                    raise InvalidLineError("is not a JSON object", path=where, line=number, raw=raw)
                v = env.get("v")
                if v != 1 or type(v) is bool or type(env.get("type")) is not str:
                    check_envelope(env, number, where, raw)
                if not seen and env["type"] != "session-meta":
                    raise ReplayError(
                        f"is a {env['type']!r} line; a transcript starts with session-meta",
                        path=where,
                        line=number,
                    )
                seen += 1
                feed(env, number, raw)
        except OSError as err:
            raise TranscriptError(f"could not be read: {err.strerror}", path=where) from None
    if pending is not None:
        if not tolerate_tail:
            raise _mid_file(pending, where)
        state.warnings.append(
            f"line {pending.line} is a crash tail (not whole JSON) and was not replayed"
        )
        if not seen:
            raise InvalidLineError(
                f"{pending.reason}, and there is no line before it; "
                "a transcript starts with session-meta",
                path=where,
                line=pending.line,
                raw=pending.raw,
            )
    if not seen:
        raise TranscriptError("is empty; a transcript starts with a session-meta line", path=where)
    return state


def _mid_file(bad: InvalidLineError, where: str) -> InvalidLineError:
    return InvalidLineError(
        f"{bad.reason}; only a malformed final line is tolerated (a crash tail), "
        "anything else is damage",
        path=where,
        line=bad.line,
        raw=bad.raw,
    )
