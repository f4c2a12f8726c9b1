"""``peek``: what a file actually says, in file order, without writing or raising."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from typing import Any

import orjson

from .agentgo.view import as_message
from .errors import TranscriptError
from .formats.base import skipped_line
from .indexing import loads_mended
from .message import Message, message_from_payload
from .reader import NotAFileError, iter_lines, open_lines, open_regular
from .replay import payload_of


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


def peek(path: str | os.PathLike[str]) -> PeekResult:
    """Read what parses; skip what does not with a warning. Never writes, never raises."""
    try:
        where = os.fspath(path) if path is not None else "(nowhere)"
    except TypeError:  # (the contract: never raises, whatever it is given)
        result = PeekResult(path=repr(path))
        result.error = f"a path is needed, not {type(path).__name__}"
        return result
    result = PeekResult(path=where)
    try:
        _peek_into(result, where)
    except Exception as err:  # the contract: a report, never an exception
        result.error = f"the transcript could not be read: {err}"
    return result


def _peek_into(result: PeekResult, where: str) -> None:
    from .formats import detect_format, format_of, not_a_transcript

    try:
        fh = open_regular(where)
    except FileNotFoundError:
        result.error = f"there is no transcript at {where}"
        return
    except (IsADirectoryError, NotAFileError):
        result.error = f"{where} is not a regular file, so not a transcript"
        return
    except OSError as err:
        result.error = f"the transcript could not be read: {err.strerror or err}"
        with contextlib.suppress(OSError, ValueError):
            result.size = os.stat(where).st_size  # (a file not to be read can be sized)
        return
    with fh:
        before = os.fstat(fh.fileno())
        result.size = before.st_size
    if result.size == 0:
        result.error = "the transcript is empty"
        return
    fmt = format_of(where)
    if fmt is None:
        peek_v1(result)  # what parses is still shown
        result.error = f"this is not a transcript: {not_a_transcript()}"
        return
    result.format = fmt.name
    try:
        fmt.peek_into(result)
    except TranscriptError as err:
        result.error = str(err)
    after = _stat(where)
    if after is None or after.st_ino != before.st_ino:
        result.error = "the file was deleted or replaced while it was being read"
    elif detect_format(where) != result.format:
        result.error = "the file changed format while it was being read"


def _read_records(result: PeekResult, agentgo: bool) -> Any:
    """Every record of the file that parses, in file order, with its warnings."""
    with open_lines(result.path)[0] as fh:  # (a compressed file: its lines)
        for number, raw, ended in iter_lines(fh):
            if not ended and agentgo:
                # agentgo-v1 ignores a final line without its newline, even valid JSON.
                if raw.strip():
                    result.warnings.append(
                        f"line {number} has no newline (the writer's unfinished tail), "
                        "and was skipped"
                    )
                continue
            try:
                value = loads_mended(raw)
            except orjson.JSONDecodeError:
                if raw.strip():
                    result.warnings.append(skipped_line(number, raw))
                continue
            if not isinstance(value, dict) or not isinstance(value.get("type"), str):
                continue
            yield value


def peek_v1(result: PeekResult) -> None:
    """transcript-v1: meta from session-meta, messages from message lines."""
    for value in _read_records(result, agentgo=False):
        result.envelopes.append(value)
        kind = value["type"]
        if kind == "session-meta" and not result.meta:
            result.meta = payload_of(value)
        elif kind == "message":
            result.messages.append(message_from_payload(payload_of(value)))


def peek_agentgo(result: PeekResult) -> None:
    for value in _read_records(result, agentgo=True):
        result.envelopes.append(value)
        _agentgo_fields(result, value)


def _agentgo_fields(result: PeekResult, record: dict[str, Any]) -> None:
    """agentgo-v1: meta from session_start, messages from message_end (in v1's shape)."""
    data = record.get("data")
    data = data if isinstance(data, dict) else {}
    kind = record["type"]
    if kind == "session_start" and not result.meta:
        result.meta = {"session_id": record.get("session_id"), "version": data.get("version")}
    elif kind == "message_end" and isinstance(data.get("message"), dict):
        result.messages.append(as_message(data["message"]))


def _is_regular(mode: int) -> bool:
    import stat

    return stat.S_ISREG(mode)


def _stat(where: str) -> os.stat_result | None:
    try:
        return os.stat(where)
    except OSError:
        return None
