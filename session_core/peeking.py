"""``peek``: what a file actually says, in file order, without writing or raising.

A format says what a peek of a file shows as a ``PeekSource``: its meta, and a pass
over its records and one over its messages, each read when asked. ``peek`` keeps them
in lists; ``write_peek`` writes them as they are read (``tailscope peek`` of a big
file held every record and message at once: six times the file).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, TypeVar

import orjson

from .agentgo.reader import StrictReader
from .agentgo.shape import shape_said, well_shaped
from .agentgo.view import KNOWN_TYPES, as_message, no_kind_said
from .errors import TranscriptError
from .events import strict_rereads
from .indexing import loads_mended
from .line_warnings import skipped_line
from .message import Message, message_from_payload
from .parts import answering, said_beside, said_text
from .reader import (
    is_blank,
    iter_lines,
    loads_line,
    open_lines,
    open_transcript,
    skip_bom,
)
from .replay import payload_of
from .text import inert, name_line

if TYPE_CHECKING:
    from .model import Item, Transcript


@dataclass(slots=True)
class PeekResult:
    path: str
    size: int = 0
    meta: dict[str, Any] = field(default_factory=dict)
    envelopes: list[dict[str, Any]] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    error: str | None = None
    format: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "path": self.path,
            "size": self.size,
            "meta": self.meta,
            "envelopes": self.envelopes,
            "messages": [m.to_payload() for m in self.messages],
            "warnings": self.warnings,
            "format": self.format,
        }
        if self.error is not None:
            out["error"] = self.error
        return out


@dataclass(frozen=True, slots=True)
class SaidBeside(Message):
    """A model format's message answering calls, with what it says beside its results
    (a block of an unknown type, a result naming no call): ``text`` in its payload, as
    in the replay's message, never dropped."""

    text: str = ""

    def to_payload(self) -> dict[str, Any]:
        payload = Message.to_payload(self)
        if self.text:
            payload["text"] = self.text
        return payload


@dataclass(slots=True)
class PeekSource:
    """What a peek of one file shows, read when asked: ``meta()`` (asked first),
    ``envelopes(warnings)`` (every record that parses, in file order, its warnings
    added to the list given) and ``messages()``, each a pass of its own; ``warnings``:
    what the format said before any pass."""

    meta: Callable[[], dict[str, Any]]
    envelopes: Callable[[list[str]], Iterator[dict[str, Any]]]
    messages: Callable[[], Iterator[Message]]
    warnings: list[str] = field(default_factory=list)
    error: str | None = None  # what the peek says once read, unless reading failed


def peek(path: str | os.PathLike[str]) -> PeekResult:
    """Read what parses; skip what does not with a warning. Never writes, never raises."""
    result, source, before = _start(path)
    if source is not None:  # (as ``write_peek`` reads it: what was read stays)
        with strict_rereads(result.path):
            _read_meta(result, source)
            result.envelopes.extend(_guarded(result, lambda: source.envelopes(result.warnings)))
            result.messages.extend(_guarded(result, source.messages))
    _finish(result, source, before)
    return result


def write_peek(path: str | os.PathLike[str], out: IO[bytes]) -> PeekResult:
    """``dump_json(peek(path).to_json())``, byte for byte, written into ``out`` as it is
    read: a record and a message at a time. The result holds all but the records and the
    messages. Never raises for the file (a write to ``out`` may)."""
    from .views import write_parts

    result, source, before = _start(path)
    with strict_rereads(result.path):  # (a line read again that changed: the error says)
        write_parts(_parts(result, source, before), out)
    return result


def _parts(
    result: PeekResult, source: PeekSource | None, before: os.stat_result | None
) -> Iterator[tuple[str, Any]]:
    """``PeekResult.to_json``'s keys, in its order, each read when it is written."""
    if source is not None:
        _read_meta(result, source)
    yield from (("path", result.path), ("size", result.size), ("meta", result.meta))
    if source is None:
        yield from (("envelopes", []), ("messages", []))
    else:
        yield "envelopes", _guarded(result, lambda: source.envelopes(result.warnings))
        yield "messages", (m.to_payload() for m in _guarded(result, source.messages))
    _finish(result, source, before)
    yield from (("warnings", result.warnings), ("format", result.format))
    if result.error is not None:
        yield "error", result.error


_T = TypeVar("_T")


def _read_meta(result: PeekResult, source: PeekSource) -> None:
    for meta in _guarded(result, lambda: iter((source.meta(),))):
        result.meta = meta


def _guarded(result: PeekResult, items: Callable[[], Iterator[_T]]) -> Iterator[_T]:
    """``items()``, ended (and the result's error said) where reading it raises."""
    try:
        yield from items()
    except Exception as err:  # the contract: a report, never an exception
        if result.error is None:  # (its path is said once, by ``_finish``)
            result.error = _unread(err)


def _unread(err: Exception) -> str:
    """What a read that failed half way says (without the path, which ``_finish`` adds):
    as a reader's read that fails, its words said once."""
    if isinstance(err, TranscriptError):
        why = err.reason.removeprefix("could not be read: ")  # (said once)
    else:  # (an OSError's words, not its errno: "[Errno 5] a truncated zstd stream")
        why = (err.strerror if isinstance(err, OSError) else None) or str(err)
    return f"could not be read: {why}"


def _start(
    path: str | os.PathLike[str],
) -> tuple[PeekResult, PeekSource | None, os.stat_result | None]:
    """The result as far as the file's kind says, the source of the rest (None: there
    is no rest), and the file's stat before it is read."""
    try:
        where = os.fsdecode(path) if path is not None else "(nowhere)"
    except TypeError:  # (the contract: never raises, whatever it is given)
        result = PeekResult(path=repr(path))
        result.error = f"a path is needed, not {type(path).__name__}"
        return result, None, None
    result = PeekResult(path=where)
    try:
        return _open(result, where)
    except Exception as err:  # the contract: a report, never an exception
        result.error = _unread(err)
        return result, None, None


def _open(
    result: PeekResult, where: str
) -> tuple[PeekResult, PeekSource | None, os.stat_result | None]:
    from .formats import format_of

    try:
        fh = open_transcript(where)
    except TranscriptError as err:
        result.error = err.reason  # (one way, as every reader says it: the path by ``_finish``)
        with contextlib.suppress(OSError, ValueError):
            st = os.stat(where)
            if stat.S_ISREG(st.st_mode):
                result.size = st.st_size  # (a file not to be read can be sized)
        return result, None, None
    with fh:
        before = os.fstat(fh.fileno())
        result.size = before.st_size
    if result.size == 0:
        from .views import NoClaim, blank_file

        if blank_file(where):  # (a /proc file says 0 bytes, and has lines: read on)
            result.error = str(NoClaim(where, empty=True).error())  # (as ``check`` says it)
            return result, None, None
    fmt = format_of(where)
    if fmt is None:  # what parses is still shown; a read that fails says so instead
        from .views import why_unclaimed

        # (empty, a first line's damage, or none: as ``check`` says it, from one place)
        why = why_unclaimed(where)
        if why.document is not None:  # (one JSON document an older writer wrote: no
            result.error = str(why.error())  # lines to read, what it is alone)
            return result, None, None
        source = v1_source(where)
        source.error = str(why.error())
        return result, source, None
    result.format = fmt.name
    try:
        source = fmt.peek_source(where)
    except TranscriptError as err:
        result.error = str(err)
        return result, None, before
    result.warnings.extend(source.warnings)
    return result, source, before


def _finish(result: PeekResult, source: PeekSource | None, before: os.stat_result | None) -> None:
    """Say what the source says once read, and whether the file was replaced, or changed
    format, while it was read; the error, any, as ``PATH: reason`` (as ``check`` and every
    ``TranscriptError`` say it, the path named as ``name_line`` names it, the reason
    inert: some named the path, some did not)."""
    _checked(result, source, before)
    error = result.error
    named = name_line(result.path)
    if error is not None and not error.startswith(f"{named}: "):
        result.error = f"{named}: {inert(error)}"


def _checked(result: PeekResult, source: PeekSource | None, before: os.stat_result | None) -> None:
    from .formats import detect_format

    if source is not None and source.error is not None and result.error is None:
        result.error = source.error
    if before is None:
        return
    after = _stat(result.path)
    if after is None or after.st_ino != before.st_ino:
        result.error = "the file was deleted or replaced while it was being read"
    elif after.st_size < before.st_size:  # (its records past the cut were not all read)
        result.error = "the file was cut short while it was being read"
    elif detect_format(result.path) != result.format:
        result.error = "the file changed format while it was being read"


class _Passes:
    """The passes of one peek over a file's records: the records pass (the one that says
    their warnings) counts the lines it reads, and a later pass reads no further, so a
    file written to meanwhile gives no message its records did not."""

    def __init__(self, path: str, agentgo: bool) -> None:
        self.path, self.agentgo = path, agentgo
        self.read: int | None = None  # lines the records pass read (None: not yet)

    def records(self, warnings: list[str]) -> Iterator[Any]:
        self.read = 0
        return _read_records(self.path, self.agentgo, warnings, self)

    def again(self) -> Iterator[Any]:
        return _read_records(self.path, self.agentgo, None, None, self.read)


def _read_records(
    path: str,
    agentgo: bool,
    warnings: list[str] | None,
    counted: _Passes | None = None,
    upto: int | None = None,
) -> Iterator[Any]:
    """Every record of the file that parses, in file order, its warnings added to
    ``warnings`` (None: not said, a pass after the one that says them); ``counted``
    is told of each line read; ``upto``: no line after that one."""
    said = warnings if warnings is not None else []
    # agentgo's rules (its seq, its session), said as the viewer's follow says them, on
    # the pass that says warnings: what breaks one is shown all the same
    rules = StrictReader(path) if agentgo and warnings is not None else None
    with open_lines(path)[0] as fh:  # (a compressed file: its lines)
        if not agentgo:  # (v1's first line is read past a byte order mark: ``reads_bom``)
            skip_bom(fh)
        for number, raw, ended in iter_lines(fh):
            if upto is not None and number > upto:
                return
            if counted is not None:
                counted.read = number
            if not ended and agentgo:
                # agentgo-v1 ignores a final line without its newline, even valid JSON.
                if not is_blank(raw):
                    said.append(
                        f"line {number} has no newline (the writer's unfinished tail), "
                        "and was skipped"
                    )
                continue
            if not agentgo and (not raw or raw.isspace()):
                continue  # (blank: skipped before two parsers fail on it, 3 µs a line)
            try:
                # (v1 as the reference reads it: nothing mended, ``1e400`` read)
                value = loads_mended(raw) if agentgo else loads_line(raw)
            except orjson.JSONDecodeError:
                if agentgo:  # (a blank line too: every complete line must be a record)
                    said.append(skipped_line(number, raw))
                elif not is_blank(raw):
                    # (the words of v1's spec and its reference, the reason left out)
                    said.append(f"line {number} could not be read, and was skipped")
                continue
            if not isinstance(value, dict) or not isinstance(value.get("type"), str):
                continue
            if rules is not None and (why := rules.said(value, number)) is not None:
                said.append(f"line {number}: {why}")
            if rules is not None and value["type"] in KNOWN_TYPES:
                said.extend(_shape_said(value, number))  # (as the view says it)
            yield value


def _shape_said(value: dict[str, Any], number: int) -> list[str]:
    """What the view says of a record of agentgo's named types not in its shape, or of a
    committed message with no kind."""
    if value["type"] == "session_start":
        return []  # (its rules are the reader's)
    if (why := shape_said(value, number)) is not None:
        return [why]
    message = value["data"].get("message") if value["type"] == "message_end" else None
    said = no_kind_said(message, number) if isinstance(message, dict) else None
    return [] if said is None else [said]


def v1_source(path: str) -> PeekSource:
    """transcript-v1: meta from the first session-meta that says any, messages from
    message lines."""

    passes = _Passes(path, agentgo=False)

    def meta() -> dict[str, Any]:
        for value in passes.again():
            if value["type"] == "session-meta" and payload_of(value):
                return payload_of(value)
        return {}

    def messages() -> Iterator[Message]:
        for value in passes.again():
            if value["type"] == "message":
                yield message_from_payload(payload_of(value))

    return PeekSource(meta, passes.records, messages)


def agentgo_source(path: str) -> PeekSource:
    """agentgo-v1: meta from session_start, messages from message_end (in v1's shape)."""

    passes = _Passes(path, agentgo=True)

    def meta() -> dict[str, Any]:
        for value in passes.again():
            if value["type"] == "session_start":
                data = value.get("data")
                data = data if isinstance(data, dict) else {}
                return {"session_id": value.get("session_id"), "version": data.get("version")}
        return {}

    def messages() -> Iterator[Message]:
        for value in passes.again():  # (one kept raw, as the view keeps it: no message)
            if value["type"] == "message_end" and well_shaped(
                "message_end", value.get("data"), value.get("run_id"), value.get("execution")
            ):
                yield as_message(value["data"]["message"])

    return PeekSource(meta, passes.records, messages)


def _stat(where: str) -> os.stat_result | None:
    try:
        return os.stat(where)
    except OSError:
        return None


def model_peek(path: str, read: Callable[[], Transcript]) -> PeekSource:
    """What a peek shows of a model format: every record that parses and every message
    line, in file order (peek is what the file says, not what the model is sent). The
    model is ``read()`` of the lines read before any failure (a ``.jsonl.zst`` cut
    short): those are shown, then the error (which the records' pass meets too)."""
    from .file_lines import read_records, reads_so_far
    from .vocabulary import kinds_of

    with reads_so_far(path) as failed:
        transcript = read()

    def message(item: Item) -> Message:
        parts = item.parts
        answers = answering(parts)
        if not answers:
            # (as the replay's content says it: an unknown block as written, never dropped)
            return Message(item.role, said_text(parts), tuple(item.tool_calls()))
        content = "\n".join(p.text for p in answers)
        calls, answered = tuple(item.tool_calls()), answers[0].call_id
        # (what it says beside its results, as the replay's ``text`` says it; a plain
        # ``Message`` where it says nothing, as every message was)
        text = said_beside(parts, answers)
        if not text:
            return Message(item.role, content, calls, answered)
        return SaidBeside(item.role, content, calls, answered, text=text)

    def messages() -> Iterator[Message]:
        said = False
        written = kinds_of(transcript.format).message
        for item in transcript.raw:
            if item.kind in written:
                said = True
                yield message(item)
        if not said:  # a file with no message lines (Codex's events alone) says them so
            yield from map(message, transcript.messages)

    return PeekSource(
        lambda: dict(transcript.meta),
        lambda _warnings: (value for _n, value, _raw in read_records(path) if type(value) is dict),
        messages,
        list(transcript.warnings),
        _unread(failed[0]) if failed else None,
    )
