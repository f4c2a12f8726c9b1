"""Reading agentgo-v1 strictly: one session, a contiguous seq, only an unfinished tail ignored."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import IO, Any

import msgspec
import orjson

from .. import gc_pause
from ..errors import InvalidLineError, TranscriptError
from ..events import LineSource
from ..reader import iter_lines, open_transcript
from ..utf8 import is_utf8
from .records import span_of
from .view import AgentGoView

VERSION = 1


# A line longer than this is first decoded skipping its data but a model request's config:
# a model_request's messages and tools are nearly all of a session's bytes, and what the
# view takes of one is its envelope and its model. Shorter lines are parsed whole.
SKIM_OVER = 8192


class _RequestData(msgspec.Struct):
    config: Any = None


class _Skimmed(msgspec.Struct):
    """A record's envelope and, of its data, a model request's config (the rest skipped,
    not built)."""

    type: Any = None
    seq: Any = None
    session_id: Any = None
    run_id: Any = None
    time: Any = None
    execution: Any = None
    data: _RequestData | None = None


_SKIM = msgspec.json.Decoder(_Skimmed)
_ENVELOPE = ("type", "seq", "session_id", "run_id", "time", "execution")


def skim_request(raw: bytes | memoryview) -> dict[str, Any] | None:
    """A big model_request line as the view takes it: its envelope, and of its data only
    ``config`` (the record itself is read again by span when asked for). None: not a
    model_request, too short to be worth skimming, or not one msgspec can skim: to be
    parsed whole. Skipped bytes are checked as UTF-8 here, as orjson would have."""
    if len(raw) <= SKIM_OVER:
        return None
    try:
        skimmed = _SKIM.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None
    if skimmed.type != "model_request" or not is_utf8(raw):
        return None
    record = {key: value for key in _ENVELOPE if (value := getattr(skimmed, key)) is not None}
    data = skimmed.data
    record["data"] = {} if data is None or data.config is None else {"config": data.config}
    return record


def parse_record(raw: bytes, number: int, path: str, skim: bool = False) -> dict[str, Any]:
    """One complete line's record; ``skim``: a big model_request may come back with only
    its config in its data (``skim_request``), when the caller can read it again."""
    if skim and (skimmed := skim_request(raw)) is not None:
        return skimmed
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        what = "is blank" if not raw.strip() else "is not valid JSON"
        raise InvalidLineError(
            f"{what}; every complete line must be a record", path=path, line=number, raw=raw
        ) from None
    if not isinstance(value, dict):
        raise InvalidLineError("is not a JSON object", path=path, line=number, raw=raw)
    return value


class StrictReader:
    """The reading rules, checked one record at a time."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.session_id: str | None = None
        self.seq = -1

    def check(self, record: dict[str, Any], number: int) -> None:
        path = self.path
        seq = record.get("seq")
        if type(seq) is not int:
            raise InvalidLineError("has no integer seq", path=path, line=number)
        if not isinstance(record.get("type"), str):
            raise InvalidLineError("has no type", path=path, line=number)
        if self.session_id is None:
            if record["type"] != "session_start":
                raise TranscriptError(
                    f"starts with a {record['type']!r} record; an agentgo session starts "
                    "with session_start",
                    path=path,
                    line=number,
                )
            data = record.get("data")
            version = data.get("version") if isinstance(data, dict) else None
            if type(version) is not int or version != VERSION:
                raise TranscriptError(
                    f"declares format version {version!r}; this reader reads version {VERSION}",
                    path=path,
                    line=number,
                )
            sid = record.get("session_id")
            if not isinstance(sid, str) or not sid:
                raise InvalidLineError("has no session_id", path=path, line=number)
            if seq != 0:
                raise TranscriptError(f"starts at seq {seq}, not 0", path=path, line=number)
            self.session_id = sid
            self.seq = 0
            return
        if record.get("session_id") != self.session_id:
            raise TranscriptError(
                f"belongs to session {record.get('session_id')!r}, not {self.session_id!r}",
                path=path,
                line=number,
            )
        if seq != self.seq + 1:
            raise TranscriptError(
                f"has seq {seq} after seq {self.seq}; sequence numbers must be contiguous",
                path=path,
                line=number,
            )
        self.seq = seq


def read(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Yield every record of a complete line, in order, checking the rules as it goes.

    A final line without its newline is the writer's unfinished tail: ignored,
    even when it is valid JSON. Anything else that breaks a rule raises a
    ``TranscriptError`` naming the line.
    """
    for record, _number, _span in read_spans(path):
        yield record


def read_spans(
    path: str | os.PathLike[str], fh: IO[bytes] | None = None, skim: bool = False
) -> Iterator[tuple[dict[str, Any], int, int]]:
    """``read``, each record with its line number and its span in the file (``skim``: a
    big model_request's data holds only its config, for a caller that reads records
    again by span)."""
    where = os.fspath(path)
    if fh is None:
        fh = open_transcript(where)  # never blocks on a FIFO; closed by the with below
    checker = StrictReader(where)
    offset = 0
    with fh:
        try:
            for number, raw, ended in iter_lines(fh):
                if not ended:
                    break
                span = span_of(offset, len(raw))
                record = parse_record(raw, number, where, skim and span != 0)
                checker.check(record, number)
                yield record, number, span
                offset += len(raw) + 1
        except OSError as err:
            raise TranscriptError(f"could not be read: {err.strerror}", path=where) from None
    if checker.session_id is None:
        raise TranscriptError(
            "has no complete line; an agentgo session starts with session_start", path=where
        )


def read_view(
    path: str | os.PathLike[str],
    *,
    keep: bool = True,
    view: AgentGoView | None = None,
    fed: Callable[[dict[str, Any], int], None] | None = None,
) -> AgentGoView:
    """The whole view of a file, read strictly (into ``view`` when given).

    Its records are kept as spans in the file (read again, from the inode that was
    read, when something asks for one); ``keep=False`` keeps none (a check). ``fed``
    is told each record the view took, with its span, while it is parsed.
    """
    where = os.fspath(path)
    if view is None:
        view = AgentGoView(keep=keep)
    fh = open_transcript(where)
    if view.records.keep:
        view.records.source = LineSource(os.dup(fh.fileno()))
    feed = view.feed
    with gc_pause.paused():
        for record, number, span in read_spans(where, fh, skim=True):
            feed(record, number, span)
            if fed is not None:
                fed(record, span)
    return view
