"""Reading agentgo-v1 strictly: one session, a contiguous seq, only an unfinished tail ignored."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from typing import IO, Any

import orjson
import simdjson

from .. import gc_pause
from ..errors import InvalidLineError, TranscriptError
from ..events import LineSource
from ..indexing import loads_mended
from ..line_warnings import UNFINISHED_SHOWN, bad_line_reason, unfinished_line
from ..reader import is_blank, iter_lines, open_lines, path_of
from ..text import as_written
from .records import span_of
from .view import AgentGoView

VERSION = 1


# A line longer than this is first skimmed for its envelope and a model request's config:
# a model_request's messages and tools are nearly all of a session's bytes, and what the
# view takes of one is its envelope and its model. Shorter lines are parsed whole.
SKIM_OVER = 8192

# A line over this is skimmed by a parser of its own, dropped after it: a thread's parser
# keeps buffers about five times the size of the biggest line it has parsed.
_OWN_PARSER_OVER = 1 << 20

_ENVELOPE = frozenset(("type", "seq", "session_id", "run_id", "time", "execution"))

# simdjson skips a UTF-8 byte order mark, which orjson (the whole parse) refuses.
_BOM = b"\xef\xbb\xbf"


class _Parsers(threading.local):
    """A simdjson parser per thread (the viewer's loader and its follower each read)."""

    def __init__(self) -> None:
        self.parser = simdjson.Parser()


_PARSERS = _Parsers()


def _plain(value: simdjson.SimValue) -> Any:
    if isinstance(value, simdjson.Object):
        return value.as_dict()
    if isinstance(value, simdjson.Array):
        return value.as_list()
    return value


def _unique_keys(value: simdjson.Object) -> list[str] | None:
    """An object's keys, or None where one is repeated: orjson keeps the last of them,
    simdjson's lookup the first, so such a line is left to the whole parse."""
    keys = list(value.keys())
    return keys if len(set(keys)) == len(keys) else None


def _envelope(doc: simdjson.SimValue) -> dict[str, Any] | None:
    """A parsed model_request's envelope, and of its data only ``config``, taken from the
    document lazily (``items()`` would build every value)."""
    if not isinstance(doc, simdjson.Object) or (keys := _unique_keys(doc)) is None:
        return None
    if doc.get("type") != "model_request":
        return None
    record: dict[str, Any] = {}
    for key in keys:
        if key in _ENVELOPE and (value := doc[key]) is not None:
            record[key] = _plain(value)
    data = doc.get("data")
    if not isinstance(data, simdjson.Object) or _unique_keys(data) is None:
        # (a data missing or null too: misshapen, as the parse path's ``shape`` says)
        return None
    config = data.get("config")
    record["data"] = {} if config is None else {"config": _plain(config)}
    return record


def skim_request(raw: bytes | memoryview) -> dict[str, Any] | None:
    """A big model_request line as the view takes it: its envelope, and of its data only
    ``config`` (the record itself is read again by span when asked for). None: not a
    model_request, too short to be worth skimming, or not one simdjson takes: to be
    parsed whole by orjson, which gives the error.

    simdjson validates the whole line, its JSON and its UTF-8 (refusing what orjson
    refuses: a number beyond a double's range, a lone surrogate escape) in one pass,
    building none of what the view does not take: 2.6 times quicker on agentgo's
    requests than msgspec's typed skip and the UTF-8 check it needs."""
    if len(raw) <= SKIM_OVER or raw[:3] == _BOM:
        return None
    parser = _PARSERS.parser if len(raw) <= _OWN_PARSER_OVER else simdjson.Parser()
    try:
        return _envelope(parser.parse(raw))  # the document is let go before the next parse
    except (ValueError, RuntimeError):  # not JSON, not UTF-8, or beyond simdjson's limits
        return None


def skim_envelope(raw: bytes) -> tuple[Any, Any, Any, bool] | None:
    """A line's ``type``, ``run_id``, ``execution`` and whether its ``data`` is an object,
    none of its data built (a big line's bulk). None: not one simdjson takes, or a key
    repeated (orjson keeps the last, simdjson's lookup the first): to be parsed whole."""
    if raw[:3] == _BOM:
        return None
    parser = _PARSERS.parser if len(raw) <= _OWN_PARSER_OVER else simdjson.Parser()
    try:
        doc = parser.parse(raw)
        if not isinstance(doc, simdjson.Object) or _unique_keys(doc) is None:
            return None
        said = tuple(_plain(doc.get(key)) for key in ("type", "run_id", "execution"))
        return (*said, isinstance(doc.get("data"), simdjson.Object))
    except (ValueError, RuntimeError):  # not JSON, not UTF-8, or beyond simdjson's limits
        return None


def parse_record(raw: bytes, number: int, path: str, skim: bool = False) -> dict[str, Any]:
    """One complete line's record; ``skim``: a big model_request may come back with only
    its config in its data (``skim_request``), when the caller can read it again."""
    if skim and (skimmed := skim_request(raw)) is not None:
        return skimmed
    try:
        value = loads_mended(raw)
    except orjson.JSONDecodeError:
        raise InvalidLineError(
            f"{bad_line_reason(raw)}; every complete line must be a record",
            path=path,
            line=number,
            raw=raw,
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
        self._resync = False  # (``said``: a break was said; the next line is the baseline)

    def said(self, record: dict[str, Any], number: int) -> str | None:
        """``check`` for a reader that shows damage (the viewer's follow, ``peek``): why
        the record breaks a rule, or None. After a break, this session's next line is
        the new baseline: one warning per break, not one per later line."""
        seq = record.get("seq")
        if self._resync and record.get("session_id") == self.session_id and type(seq) is int:
            self.seq = seq - 1
            self._resync = False
        try:
            self.check(record, number)
        except TranscriptError as err:
            sid = record.get("session_id")
            if self.session_id is None and record.get("type") == "session_start" and sid:
                # (a session_start of another version, or not at seq 0, still starts its
                # session: the next line was "starts with a 'run_start' record")
                self.session_id, self.seq = sid if isinstance(sid, str) else None, 0
            self._resync = self.session_id is not None
            return err.reason
        return None

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
                    f"starts with a {as_written(record['type'])} record; an agentgo session starts "
                    "with session_start",
                    path=path,
                    line=number,
                )
            data = record.get("data")
            version = data.get("version") if isinstance(data, dict) else None
            if type(version) is not int or version != VERSION:
                said = (
                    f"format version {as_written(version)}"
                    if isinstance(data, dict) and "version" in data
                    else "no format version (no data.version)"
                )
                raise TranscriptError(
                    f"declares {said}; this reader reads version {VERSION}",
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
                f"belongs to session {as_written(record.get('session_id'))}, "
                f"not {as_written(self.session_id)}",
                path=path,
                line=number,
            )
        if seq != self.seq + 1:
            raise TranscriptError(
                f"has seq {seq} after seq {self.seq}; sequence numbers must be contiguous",
                path=path,
                line=number,
            )
        if record["type"] == "session_start":
            raise TranscriptError(
                f"is a second session_start (seq {seq}); a session starts once, at seq 0",
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
    path: str | os.PathLike[str],
    fh: IO[bytes] | None = None,
    skim: bool = False,
    warnings: list[str] | None = None,
    spans: bool = True,
    reader: str = "agentgo.read",
) -> Iterator[tuple[dict[str, Any], int, int]]:
    """``read``, each record with its line number and its span in the file (``skim``: a
    big model_request's data holds only its config, for a caller that reads records
    again by span; ``warnings``: told of an unfinished tail left out). A compressed file
    (``fh`` None, or ``spans`` False) gives every record the span 0: none to read by.
    A first line refused in a file of another format says which it is (``reader``: the
    caller named), as ``AgentGoSession.open`` does."""
    where = path_of(path)
    if fh is None:
        fh, compressed = open_lines(where)  # never blocks on a FIFO; closed by the with
        spans = not compressed
    checker = StrictReader(where)
    offset = 0
    with fh:
        try:
            for number, raw, ended in iter_lines(fh):
                if not ended:
                    if warnings is not None and not is_blank(raw):
                        warnings.append(unfinished_line(number, len(raw), raw[:UNFINISHED_SHOWN]))
                    break
                span = span_of(offset, len(raw)) if spans else 0
                record = parse_record(raw, number, where, skim and span != 0)
                checker.check(record, number)
                yield record, number, span
                offset += len(raw) + 1
        except OSError as err:
            raise TranscriptError(f"could not be read: {err.strerror}", path=where) from None
        except TranscriptError as err:
            raise _of_another_format(where, err, reader) from None
    if checker.session_id is None:
        raise _of_another_format(
            where,
            TranscriptError(
                "has no complete line; an agentgo session starts with session_start",
                path=where,
            ),
            reader,
        )


def _of_another_format(where: str, err: TranscriptError, reader: str) -> TranscriptError:
    from ..formats import of_another_format  # (the registry imports this module)

    return of_another_format(where, err, "agentgo-v1", reader, "reads")


def read_view(
    path: str | os.PathLike[str],
    *,
    keep: bool = True,
    view: AgentGoView | None = None,
    fed: Callable[[dict[str, Any], int], None] | None = None,
) -> AgentGoView:
    """The whole view of a file, read strictly (into ``view`` when given).

    Its records are kept as spans in the file (read again, from the inode that was
    read, when something asks for one); ``keep=False`` keeps none (a check), though
    its file is still there to read a line again by a span ``fed`` was told (its
    ``StreamedFolds``). ``fed`` is told each record the view took, with its span, while
    it is parsed.
    """
    where = path_of(path)
    if view is None:
        view = AgentGoView(keep=keep)
    fh, compressed = open_lines(where)
    if not compressed:
        view.records.source = LineSource(os.dup(fh.fileno()))
    feed = view.feed
    with gc_pause.paused():
        records = read_spans(
            where,
            fh,
            skim=True,
            warnings=view.warnings,
            spans=not compressed,
            reader="agentgo.read_view",
        )
        for record, number, span in records:
            feed(record, number, span)
            if fed is not None:
                fed(record, span)
    return view
