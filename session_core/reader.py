"""Reading transcript files: line splitting, envelope parsing, read-only replay."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from io import BufferedReader, BytesIO
from typing import IO, TYPE_CHECKING, Any, cast

import orjson

from . import gc_pause, indexing
from .codec import WHITE_SPACE
from .errors import InvalidLineError, ReplayError, TranscriptError
from .events import SPAN_BITS, SPAN_MAX, LineSource
from .line_warnings import UNFINISHED_SHOWN, too_deep, unfinished_line
from .text import as_written
from .utf8 import is_utf8

if TYPE_CHECKING:
    from .replay import ReplayState

# Bytes read at a time. 1 MB, not 4: the block and its lines, made and freed block after
# block, were 20 MB of a 1 GB check's peak RSS (the CPU the same).
CHUNK = 1 << 20


def iter_lines(fh: IO[bytes], chunk: int = CHUNK) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(line number, bytes without the \\n, ended with \\n)`` for every line.

    Blank lines are yielded too, so numbers match what an editor shows.
    A final line without its newline comes last with ``ended=False``.
    """
    number = 0
    for parts, ended in _blocks(fh, chunk):
        for part in parts:
            number += 1
            yield number, part, ended


class NotAFileError(OSError):
    """The path names something that is not a regular file (a directory, a FIFO...)."""


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """Open a regular file for reading, without ever blocking on a FIFO or a device.

    Raises ``IsADirectoryError`` for a directory, ``NotAFileError`` for any other
    non-regular file, and the usual ``OSError``s otherwise.
    """
    return os.fdopen(open_regular_fd(path), "rb")


def open_regular_fd(path: str | os.PathLike[str], flags: int = os.O_RDONLY) -> int:
    """``open_regular``'s descriptor, opened with ``flags`` (a writer's: to append, to
    make the file, 0644). A FIFO opened to write with no reader is ``NotAFileError`` too
    (where the open would have waited for one)."""
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    except OSError as err:
        if err.errno == errno.ENXIO:  # (O_NONBLOCK's answer for a FIFO with no reader)
            raise NotAFileError(0, "not a regular file") from None
        raise
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory")
        if not stat.S_ISREG(mode):
            raise NotAFileError(0, "not a regular file")
        os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


def opened_as(descriptor: int, path: str | os.PathLike[str]) -> bool:
    """Whether the open ``descriptor`` is the file at ``path`` (its device and inode):
    an output that would write into the transcript being read."""
    try:
        opened, named = os.fstat(descriptor), os.stat(path)
    except (OSError, ValueError):
        return False
    return (opened.st_dev, opened.st_ino) == (named.st_dev, named.st_ino)


# Unicode's White_Space: what the reference's ``.trim`` takes off (Python's ``str.strip``
# would take U+001C-U+001F too).


def is_blank(raw: bytes) -> bool:
    """A line of nothing but white space, which every reader skips, as v1's reference
    does: Unicode's (a no-break or ideographic space too), not only ASCII's."""
    stripped = raw.strip()  # (the line itself where nothing is stripped: no copy)
    if not stripped:
        return True
    if stripped[0] < 0x80:  # (a record's "{", say: no Unicode white space begins it)
        return False
    try:
        return not raw.decode("utf-8").strip(WHITE_SPACE)
    except UnicodeDecodeError:
        return False


# UTF-8's byte order mark. v1's reference reads a file through a decoder that drops one
# at the file's start, so its first line is read past it there (a format that reads one:
# ``TranscriptFormat.reads_bom``); anywhere else it is no JSON, as before.
BOM = b"\xef\xbb\xbf"


def bom_length(start: bytes | bytearray | memoryview) -> int:
    """How many of a file's first bytes (``start``) are a byte order mark: 3 or 0."""
    return len(BOM) if bytes(start[: len(BOM)]) == BOM else 0


def skip_bom(fh: IO[bytes]) -> int:
    """Read past a byte order mark at the start of ``fh`` (a file just opened, or its
    decompressed stream: buffered, so its first bytes are looked at, not consumed);
    how many bytes that was, 3 or 0 (where its first line starts in the file)."""
    skip = bom_length(cast(BufferedReader, fh).peek(len(BOM)))
    if skip:
        fh.read(skip)
    return skip


def loads_line(raw: bytes) -> Any:
    """A v1 line parsed as the reference's reader reads it: by JSON's grammar (``1e400``
    read as infinity: ``indexing.loads_payload``), nothing mended (a lone surrogate
    escape is no JSON there). ``orjson.JSONDecodeError`` when it is not JSON."""
    return indexing.loads_payload(raw, mend=False)


def check_envelope(
    value: dict[str, Any], number: int, path: str, raw: bytes | memoryview = b""
) -> None:
    """A v1 envelope's version and type, refused as a line that breaks the rules; each
    quoted as ``raw`` (the line, where the caller has it) wrote it."""
    v = value.get("v")
    if type(v) is not int or v != 1:  # (the integer 1: not 1.0, "1" or true)
        written = as_written(indexing.written_field(raw, "v", v))
        said = f"envelope version {written}" if "v" in value else 'no "v"'
        raise InvalidLineError(
            f"has {said}; this reader reads version 1", path=path, line=number, raw=bytes(raw)
        )
    kind = value.get("type")
    if type(kind) is not str or not kind:  # (the spec: a non-empty string)
        said = indexing.field_said(value, "type", "a non-empty string", raw)
        raise InvalidLineError(f"has {said}", path=path, line=number, raw=bytes(raw))


def _why(err: orjson.JSONDecodeError, raw: bytes) -> str:
    text = str(err)
    if "byte order mark" in text:
        return "it starts with a byte order mark, U+FEFF, which JSON does not allow"
    if "utf-8" in text.lower():
        return "invalid UTF-8"
    if "surrogate" in text.lower():  # (Node writes them; the reference reads none)
        return "a lone UTF-16 surrogate escape"
    if "depth limit" in text:  # (orjson stops there: ``indexing.deeper`` read on)
        deep = too_deep(raw)
        return f"nested deeper than this reader reads: {deep}" if deep else "malformed"
    return text.split(":")[0]


def line_is_whole(raw: bytes) -> bool:
    """The reference's test for a crash tail: blank, or one whole JSON value (by JSON's
    grammar: ``1e400`` is whole, though orjson will not build it)."""
    if is_blank(raw):
        return True
    try:
        loads_line(raw)  # (the reference's repair mends nothing)
    except ValueError:
        return False
    return True


def path_of(path: Any) -> str:
    """A transcript's path as a string (bytes decoded as the file system's names are);
    anything else, and a string no file can be named (``no_path``), is refused with a
    ``TranscriptError``."""
    try:
        where = os.fsdecode(path)
    except TypeError:
        raise TranscriptError(
            f"a path is needed, not {type(path).__name__}", path=str(path)
        ) from None
    if "\0" in where:  # (``os`` would say ValueError; ``Session.load``, no such file)
        raise no_path(where)
    if not where:  # (``os`` would say no such file, or take it for the working folder)
        raise empty_path()
    return where


def missing_file(where: str) -> str:
    """What is said of a path that is not there: no such file, and the compressed copy
    beside it where there is one (Codex's ``NAME.jsonl.zst``: read that); a symbolic
    link whose target is not there is a link to nothing (nothing in it is damaged)."""
    with contextlib.suppress(OSError, ValueError):
        if os.path.islink(where):
            return f"a link to nothing: {os.readlink(where)} is not there"
    packed = where + ".zst"
    if os.path.exists(packed):
        name = os.path.basename(packed)
        return f"there is no such file; its compressed copy is beside it: {name}"
    return "there is no such file"


def cannot_read(err: OSError) -> str:
    """What is said of a file the system will not let be read (permission, an I/O
    error): every reader's words for it (``check``, ``replay``, ``peek``, the browser)."""
    return f"cannot be read: {err.strerror or err}"


def open_transcript(where: str) -> IO[bytes]:
    """``open_regular`` with every way it can fail as a ``TranscriptError``."""
    if not where:
        raise empty_path()
    try:
        return open_regular(where)
    except FileNotFoundError:
        raise TranscriptError(missing_file(where), path=where) from None
    except IsADirectoryError:
        raise TranscriptError("is a directory, not a transcript", path=where) from None
    except NotAFileError:
        raise not_a_file(where) from None
    except OSError as err:
        raise TranscriptError(cannot_read(err), path=where) from None
    except ValueError:
        raise no_path(where) from None


def no_path(where: str) -> TranscriptError:
    """What is said of a path with a NUL in it (``os``' ``ValueError``): no file can have
    that name."""
    return TranscriptError("is no path (it holds a NUL byte)", path=where)  # (named ␀)


def empty_path() -> TranscriptError:
    """What every entry point, reader or writer, says of the path ``""`` (named, it
    would be an empty name before the colon)."""
    return TranscriptError("the path is empty: a file's path is needed")


def not_a_file(where: str, command: str = "tailscope check") -> TranscriptError:
    """What a reader says of a path that is no regular file: a pipe (``/dev/stdin``,
    ``<(…)``, a FIFO) is said to be one, and what reads it, ``-`` (the command line's
    standard input, copied as it comes: ``command``'s example); anything else is not a
    transcript."""
    with contextlib.suppress(OSError, ValueError):
        if stat.S_ISFIFO(os.stat(where).st_mode):
            return TranscriptError(
                "is a pipe, not a regular file: `-` reads one, as standard input "
                f"(`{command} - < PIPE`)",
                path=where,
            )
    return TranscriptError("is not a regular file, so not a transcript", path=where)


def open_lines(where: str) -> tuple[IO[bytes], bool]:
    """``open_transcript``, a zstd file decompressed as it is read, and whether it was:
    a compressed file's lines have no spans in it to be read again by."""
    from .compressed import maybe_decompress

    fh = open_transcript(where)
    try:
        lines = maybe_decompress(fh)
    except OSError as err:
        raise TranscriptError(cannot_read(err), path=where) from None
    return lines, lines is not fh


def replay_file(
    path: str | os.PathLike[str],
    *,
    tolerate_tail: bool,
    keep: str = "spans",
    facts: bool = False,
    keep_tail: bool = False,
) -> ReplayState:
    """Replay a v1 file read-only, as ``load`` would after its repair.

    With ``tolerate_tail``, a malformed final line (the crash tail ``load``
    would cut) becomes a warning instead of an error; the file is not touched.
    With ``keep_tail`` too, that line is kept unapplied (``ReplayState.keep_refused``)
    for the viewer's raw view, as a follow keeps it (not for an export: its warning
    quotes its start, as every format's does).
    The state keeps each line as its span in the file, read back from a
    descriptor of the inode replayed (``keep="spans"``), or as its bytes
    (``keep="bytes"``).

    With ``facts``, every message line's facts (``events.facts``) are taken by the index
    pass itself, for a caller that reads them all (``tailscope replay``'s operation
    states and usage), instead of each line being read again when first asked for.
    """
    where = os.fspath(path)
    from .replay import ReplayState  # (v1's: not imported by another format's read)

    state = ReplayState(where, lazy_facts=not facts)
    fh, compressed = open_lines(where)
    spans = keep == "spans" and not compressed  # (a compressed file keeps its lines)
    with gc_pause.paused():
        if spans:
            state.events.source = LineSource(os.dup(fh.fileno()))
        return _replay_into(state, fh, where, tolerate_tail, spans, facts, keep_tail)


def _blocks(
    fh: IO[bytes], chunk: int = CHUNK, strip: bool = True
) -> Iterator[tuple[list[bytes], bool]]:
    """The lines of the file a block's worth at a time, without their \\n (``strip``;
    else with it: a copy of each line saved), and whether they ended with one (only a
    final line without its newline did not)."""
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
            pending.clear()  # (a long line's pieces let go before it is cut: held once)
        # ``readlines`` finds the newlines by memchr, twice as quick as ``split`` on big
        # lines; each keeps its newline, cut off after
        ended = BytesIO(block).readlines()
        del block  # (its lines are copies: the block is not held while they are read)
        carry = b"" if ended[-1].endswith(b"\n") else ended.pop()
        pending = [carry] if carry else []
        yield [line[:-1] for line in ended] if strip else ended, True
    if pending:
        yield [b"".join(pending)], False


def _replay_into(
    state: ReplayState,
    fh: IO[bytes],
    where: str,
    tolerate_tail: bool,
    spans: bool = False,
    facts: bool = False,
    keep_tail: bool = False,
) -> ReplayState:
    """Feed every line of ``fh`` to ``state``.

    The hot loop of every file replay. A message, dispatch or settle line goes
    through the index pass (``indexing``: only the fields replay keeps, decoded
    natively) and is applied here, inline, as ``ReplayState.feed_indexed`` would;
    any other line, or one the index pass does not take in full, is parsed with
    orjson and fed the plain way (``ReplayState.feed``), which says what is wrong.
    With ``facts`` a message line's facts are taken here too (``indexing.FACTS``).
    """
    from .block_replay import BlockPass, pieces

    events = state.events
    with fh:
        pending: InvalidLineError | None = None
        ended = True  # (the last block's: whether a bad last line has its newline)
        seen = 0
        number = 0
        offset = 0  # where the next line starts in the file
        loads = orjson.loads
        decode = (indexing.FACTS if facts else indexing.LAZY).decode
        message_fields = indexing.message_fields
        failed = indexing.IndexError_
        utf8_ok = is_utf8
        feed_indexed = state.feed_indexed
        state.tool_ops.number_now = facts  # (the facts number the calls: found as dispatched)
        message = "message"
        ids, op_ids = events.ids, state.op_ids  # (packed at the end of each block)
        indexed = indexing.INDEXED
        block = BlockPass(state, decode, facts) if spans else None
        # Lines taken at once take their (empty) facts in one go, before a line at a
        # time and at the end (events.pad_facts).
        try:
            offset = skip_bom(fh)  # (the first line starts past one)
            # Each line keeps its \n (JSON's whitespace to both parsers): ``size`` is
            # the line's without it, and the rare path that keeps a line's bytes cuts it.
            for parts, ended in _blocks(fh, CHUNK, strip=False):
                # Runs of index-pass lines taken at once (``block_replay``); the lines
                # between, and a block it cannot plan, one at a time.
                whole = len(parts)
                runs = block.plan(parts, not seen) if block and ended and not pending else None
                if runs is not None:
                    numbers = range(number + 1, number + whole + 1)
                    block_spans = block.spans(offset)  # type: ignore[union-attr]
                for first, stop, at_once in pieces(runs, whole):
                    if at_once and seen:  # (after the file's session-meta line)
                        if pending is not None:
                            raise _mid_file(pending, where)
                        if block.apply(first, stop, numbers, block_spans):  # type: ignore[union-attr]
                            number += stop - first
                            offset += sum(block.lens[first:stop])  # type: ignore[union-attr]
                            seen += stop - first
                            continue
                    events.pad_facts()  # (a line at a time appends its facts, or none)
                    for raw in parts if stop - first == whole else parts[first:stop]:
                        number += 1
                        start = offset
                        size = len(raw) - ended
                        offset += size + 1
                        if pending is not None:
                            # The bad line was not the last one (a blank line after it too:
                            # the reference's repair cuts only the last line): damage.
                            raise _mid_file(pending, where)
                        try:
                            env = decode(raw)
                        except failed:
                            if raw.isspace():  # a blank line: skipped, before two more parsers
                                continue  # fail on it (3 µs a line: 20 MB of them took 60 s)
                            env = None
                        if env is not None and seen and env.v == 1:
                            kind = env.type
                            if kind in indexed and (raw.isascii() or utf8_ok(raw)):
                                body = env.payload
                                feed_indexed(
                                    env.id,
                                    kind,
                                    body,
                                    number,
                                    start << SPAN_BITS | size
                                    if spans and 0 < size <= SPAN_MAX
                                    else raw[:size],
                                    message_fields(cast("indexing.FactsBody | None", body))
                                    if facts and kind == message
                                    else None,
                                )
                                seen += 1
                                continue
                        raw = raw[:size]
                        try:
                            value = loads(raw)
                        except orjson.JSONDecodeError as err:
                            try:
                                value = loads_line(raw)  # (a number beyond a double)
                            except orjson.JSONDecodeError:
                                if is_blank(raw):
                                    continue
                                if not seen:  # (its first line: no transcript, not damage)
                                    from .views import first_line_refused

                                    raise first_line_refused(where, number, raw) from None
                                pending = InvalidLineError(
                                    f"is not valid JSON ({_why(err, raw)})",
                                    path=where,
                                    line=number,
                                    raw=raw,
                                )
                                continue
                        if type(value) is not dict:
                            raise InvalidLineError(
                                "is not a JSON object", path=where, line=number, raw=bytes(raw)
                            )
                        v = value.get("v")
                        named = value.get("type")
                        if type(v) is not int or v != 1 or type(named) is not str or not named:
                            check_envelope(value, number, where, raw)
                        if not seen and value["type"] != "session-meta":
                            raise ReplayError(
                                f"is a {as_written(value['type'])} line; "
                                "a transcript starts with session-meta",
                                path=where,
                                line=number,
                            )
                        seen += 1
                        span = start << SPAN_BITS | size if spans and size <= SPAN_MAX else 0
                        state.feed(value, number, span or raw)
                ids.pack()
                op_ids.pack()
        except OSError as err:
            raise TranscriptError(f"could not be read: {err.strerror}", path=where) from None
        finally:
            events.pad_facts()
            if state.event_lines:  # the fast path leaves it to this: the last line applied
                state.last_line = state.event_lines[-1]
    if pending is not None:
        if not tolerate_tail:
            raise _mid_file(pending, where)
        raw = pending.raw or b""
        said = unfinished_line(pending.line or 0, len(raw), raw[:UNFINISHED_SHOWN], ended)
        state.warnings.append(said)  # (every format's words for it)
        if keep_tail and pending.line is not None:
            state.keep_refused(pending.line, pending.raw)
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
