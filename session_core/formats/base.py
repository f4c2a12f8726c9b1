"""The format interface: what every transcript format implements, once.

A format names itself, claims a file from its first record, and reads a file into the
neutral model (``session_core.model.Transcript``) through a ``Builder`` fed one record
at a time: the same builder serves the read-only replay (fed the whole file once) and
the live view (fed what ``follow`` hands on). Everything else a read path needs (peek,
check, the browser's summary, the export document, the diff, the replay JSON) has a
default here built on that model; a format overrides what it does better or stricter.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any, ClassVar

import orjson

from ..errors import InvalidLineError, TranscriptError
from ..model import Transcript
from ..text import count

if TYPE_CHECKING:
    from ..exportdoc import Document, View
    from ..following import FollowUpdate
    from ..peeking import PeekResult
    from ..scan import FileSummary


IDLE_SECONDS = 120.0  # a file of a lock-less writer untouched this long has no writer


class Builder(ABC):
    """Turns one file's records, in file order, into a ``Transcript``.

    ``feed`` is called for every record that parses as a JSON object, with its 1-based
    line number; ``bad_line`` for a complete line that does not. ``transcript`` may be
    called at any time (after every batch, for a live view) and must be cheap enough
    for that: it assembles what ``feed`` kept, it does not read the file again.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.warnings: list[str] = []
        self.lines = 0

    @abstractmethod
    def feed(self, record: dict[str, Any], line: int) -> None: ...

    def bad_line(self, line: int, raw: bytes, why: str) -> None:
        """A line that is not a JSON object: kept as a warning (and raw, where shown)."""
        self.warnings.append(f"line {line} {why}, and was kept as it is")

    @abstractmethod
    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        """The model as far as it was fed; ``writer_alive`` decides running vs interrupted."""


class LiveModel:
    """A builder kept up to date from ``follow`` updates (parsed), never re-reading the file."""

    def __init__(self, fmt: TranscriptFormat, path: str) -> None:
        self.format = fmt
        self.path = path
        self.builder = fmt.builder(path)
        self.resets = 0
        self.exists = True
        self.size = 0

    def apply(self, update: FollowUpdate) -> bool:
        """Apply one update; True when it reset the model (rebuild everything shown)."""
        if update.reset:
            self.builder = self.format.builder(self.path)
            self.resets += 1
        self.exists = update.exists
        self.size = max(update.size, 0)
        builder = self.builder
        builder.warnings.extend(update.warnings)
        if update.raw:
            loads = orjson.loads
            for raw, line in zip(update.raw, update.lines, strict=True):
                try:
                    record = loads(raw)
                except orjson.JSONDecodeError:
                    if bytes(raw).strip():
                        builder.bad_line(line, bytes(raw), "is not valid JSON")
                    continue
                self._feed(record, line, bytes(raw))
        else:
            for record, line in zip(update.envelopes, update.lines, strict=True):
                self._feed(record, line, b"")
        return update.reset

    def _feed(self, record: Any, line: int, raw: bytes) -> None:
        builder = self.builder
        builder.lines = max(builder.lines, line)
        if type(record) is not dict:
            builder.bad_line(line, raw, "is not a JSON object")
            return
        builder.feed(record, line)

    def transcript(self, writer_alive: bool | None = None) -> Transcript:
        return self.builder.transcript(writer_alive)


class TranscriptFormat(ABC):
    """One transcript format. Built-ins and plugins register the same way (``register``)."""

    name: ClassVar[str]  # "transcript-v1", "agentgo-v1", "claude-code", "codex"
    title: ClassVar[str]  # what a person calls it: "Claude Code session"
    writable: ClassVar[bool] = False  # tailscope writes this format too
    extra_panes: ClassVar[tuple[str, ...]] = ()  # panes only this format has
    first_line: ClassVar[str] = ""  # what its first line is ("a session-meta line")
    # Its writers hold a lock on the file while they write (so no lock: no writer).
    locks: ClassVar[bool] = False
    # Follow hands the live view parsed records (False: raw lines, parsed as applied).
    parsed_updates: ClassVar[bool] = True

    @abstractmethod
    def claims(self, record: dict[str, Any]) -> bool:
        """Is this parsed first record the start of a file of this format?"""

    @abstractmethod
    def builder(self, path: str) -> Builder:
        """A fresh builder for one file."""

    # -- read paths, with defaults over the model ----------------------------------------

    def writer_alive(self, path: str | os.PathLike[str]) -> bool | None:
        """Is a writer still at work on this file, as far as a reader can tell?

        True while a writer holds its lock. A format whose writers lock: no lock, no
        writer. Otherwise (Claude Code, Codex hold none) a compressed file, or one
        untouched for ``IDLE_SECONDS``, has no writer; a fresher one may (``None``).
        """
        from ..compressed import is_compressed_file
        from ..writers import writer_holds_lock

        held = writer_holds_lock(path)
        if held or self.locks:
            return held
        if is_compressed_file(path):
            return False
        try:
            age = time.time() - os.stat(path).st_mtime
        except OSError:
            return None
        return False if age > IDLE_SECONDS else None

    def open(self, path: str | os.PathLike[str], *, writer_alive: bool | None = None) -> Transcript:
        """The whole file, read-only, into the model. ``TranscriptError`` when unreadable."""
        where = os.fspath(path)
        builder = self.builder(where)
        for number, value, raw in read_records(where):
            builder.lines = number
            if value is None:
                builder.bad_line(number, raw, bad_line_reason(raw))
            elif type(value) is not dict:
                builder.bad_line(number, raw, "is not a JSON object")
            else:
                builder.feed(value, number)
        return builder.transcript(writer_alive)

    def live(self, path: str) -> LiveModel:
        return LiveModel(self, path)

    def replay_json(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """``tailscope replay``: the shared keys (api.md) and the format's own."""
        return self.open(path).to_json()

    def check(self, path: str | os.PathLike[str]) -> str:
        """Validate strictly; the note after ``ok (``, or ``TranscriptError``.

        The default refuses a complete line that does not parse (damage); a torn last
        line is a warning (the writer's unfinished tail).
        """
        where = os.fspath(path)
        transcript = self.open(where)
        for warning in transcript.warnings:
            line = _damage_line(warning, transcript.lines)
            if line is not None:
                raise TranscriptError(warning.split(" ", 2)[-1], path=where, line=line)
        return check_note(transcript)

    def peek_into(self, result: PeekResult) -> None:
        """Fill a peek result (never raising is the caller's job): records in file order."""
        transcript = self.open(result.path)
        from ..message import Message

        result.meta = dict(transcript.meta)
        result.warnings.extend(transcript.warnings)
        for item in transcript.raw:
            if item.kind == "message":
                result.messages.append(Message(role=item.role, content=item.text))

    def document(self, path: str | os.PathLike[str], view: View = "replayed") -> Document:
        from ..exportdoc_model import model_document

        return model_document(self.open(path), view)

    def diff(self, path: str | os.PathLike[str]) -> str:
        from ..diff_model import model_diff

        return model_diff(self.open(path))

    def summarise_file(
        self,
        summary: FileSummary,
        fh: IO[bytes],
        head: bytes,
        first: dict[str, Any],
        *,
        budget: int,
        window: int,
    ) -> None:
        """Fill a browser row: the whole file up to ``budget`` bytes, else its head and a
        tail window of ``window`` bytes (counts scaled, the row flagged ``estimated``)."""
        from ..scan_model import summarise_model, windowed_model

        if summary.size <= budget:
            transcript = self.open(summary.path, writer_alive=self.writer_alive(summary.path))
        else:
            transcript = windowed_model(self.builder(summary.path), summary, fh, head, window)
        summarise_model(summary, transcript)

    def part_of_another(self, path: str) -> bool:
        """Is this file part of another file's session (not a browser row of its own)?"""
        return False

    def default_roots(self, environ: Mapping[str, str]) -> list[str]:
        """Where this format's writers keep their sessions on this machine (may not exist)."""
        return []

    def discover(self, root: str) -> list[str] | None:
        """Where the browser finds this format's sessions under ``root`` (None: not a tree
        this format lays out; the browser then lists every ``*.jsonl``)."""
        return None


def check_note(transcript: Transcript) -> str:
    """``claude-code, 12 messages, 3 tool operations, 1 compaction; warning: ...``."""
    parts = [transcript.format, count(len(transcript.messages), "message")]
    if transcript.tool_operations:
        parts.append(count(len(transcript.tool_operations), "tool operation"))
        pending = sum(1 for op in transcript.tool_operations if op.state == "running")
        if pending:
            parts.append(f"{pending} running")
    if transcript.compactions:
        parts.append(count(len(transcript.compactions), "compaction"))
    note = ", ".join(parts)
    for warning in transcript.warnings:
        note += f"; warning: {warning}"
    return note


def bad_line_reason(raw: bytes) -> str:
    try:
        orjson.loads(raw)
    except orjson.JSONDecodeError as err:
        text = str(err).lower()
        if "utf-8" in text or "surrogate" in text:
            return "is not valid UTF-8"
    return "is not valid JSON"


def _damage_line(warning: str, last: int) -> int | None:
    """The line a "line N ... kept as it is" warning names, unless it is the last line."""
    if not warning.startswith("line ") or "kept as it is" not in warning:
        return None
    try:
        line = int(warning.split(" ", 2)[1])
    except ValueError:
        return None
    return None if line >= last else line


def read_records(where: str) -> Iterator[tuple[int, Any, bytes]]:
    """Every non-blank line of a file: ``(number, parsed value or None, raw bytes)``.

    The one tolerant line reader of the model formats: CRLF endings are accepted, a
    line that does not parse comes back as ``None`` with its bytes, a zstd file is read
    decompressed. Unreadable files (a truncated or corrupt ``.zst`` too) raise
    ``TranscriptError``.
    """
    from ..reader import iter_lines

    loads = orjson.loads
    with open_read(where) as fh:
        try:
            for number, raw, _ended in iter_lines(fh):
                if raw.endswith(b"\r"):
                    raw = raw[:-1]
                if not raw.strip():
                    continue
                try:
                    value = loads(raw)
                except orjson.JSONDecodeError:
                    value = None
                yield number, value, raw
        except OSError as err:
            raise TranscriptError(f"could not be read: {err.strerror}", path=where) from None


def open_read(where: str) -> IO[bytes]:
    """Open a transcript for reading (never for writing), errors as ``TranscriptError``.

    A zstd-compressed file (by its first bytes, not its name) is decompressed as read.
    """
    from ..compressed import maybe_decompress
    from ..reader import open_transcript

    fh = open_transcript(where)
    try:
        return maybe_decompress(fh)
    except OSError as err:
        raise TranscriptError(f"cannot be read: {err.strerror}", path=where) from None


__all__ = [
    "Builder",
    "InvalidLineError",
    "LiveModel",
    "TranscriptFormat",
    "check_note",
    "open_read",
    "read_records",
]
