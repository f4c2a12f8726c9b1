"""The records of an agentgo view, kept compactly: spans into the file, facts in arrays.

A view parses every record once (that is how it validates it and takes what
its runs, calls and messages need), but keeping every parsed record alive is
what made a 1 GB session cost twice its size in memory. A record read from a
file is kept as its byte span in that file (``source``) and parsed again when
something asks for it, through a small cache bounded in bytes; a record fed
without a span (a test's dict, a record appended by hand) is kept as it is.
Its few facts every view needs of every record (seq, type, run, call) are
kept in arrays beside it.
"""

from __future__ import annotations

from array import array
from typing import Any

from ..events import (
    SPAN_BITS,
    SPAN_MAX,
    BuiltOnDemand,
    LineSource,
    refuse_changed_line,
    refuse_unread_line,
    still_holds,
)
from ..indexing import loads_payload
from ..text import as_str

CACHE_RECORDS = 64  # parsed records kept at once
CACHE_BYTES = 16 << 20  # and at most this many bytes of their lines (one bigger is kept alone)
NO_SEQ = -(1 << 63)  # in ``seqs``: the record's seq is not an int
NO_RUN = -1  # in ``runs``: the record has no run_id
ODD_RUN = -2  # in ``runs``: its run_id is not a str (the run is keyed by its str())
CHANGED = "(this record changed on disk after it was read; the view reloads the file)"


def span_of(offset: int, length: int) -> int:
    """A span as ``follow`` hands them on (0: none, for a line too long to say so)."""
    return offset << SPAN_BITS | length if length <= SPAN_MAX else 0


class Records(BuiltOnDemand):
    """Every record of a view, in feed order. Indexing gives the record (a dict).

    ``keep=False`` keeps nothing to read back (a check that only counts).
    The dicts handed out are shared with the cache: callers copy before changing one.
    """

    def __init__(self, keep: bool = True) -> None:
        super().__init__()
        self.keep = keep
        self.source: LineSource | None = None
        self._spans = array("Q")
        self._kept: dict[int, dict[str, Any]] = {}  # records fed without a span
        self.seqs = array("q")
        self.lines = array("q")  # the file line of each record
        self.runs = array("i")  # the run's index in the view, NO_RUN or ODD_RUN
        self.calls = array("i")  # the call's index in the view's call_order, or -1
        self._kinds = array("H")
        self.kind_names: list[str] = []
        self._kind_codes: dict[str, int] = {}
        self._cache_bytes = 0

    def append(self, record: dict[str, Any], span: int, kind: str, seq: int, line: int) -> int:
        """Keep one record (its span in ``source``, or the dict when it has none)."""
        index = len(self._spans)
        self._spans.append(span if self.keep else 0)
        if span == 0 and self.keep:
            self._kept[index] = record
        code = self._kind_codes.get(kind)
        if code is None:
            code = self._kind_codes[kind] = len(self.kind_names)
            self.kind_names.append(kind)
        self._kinds.append(code)
        self.seqs.append(seq)
        self.lines.append(line)
        self.runs.append(NO_RUN)
        self.calls.append(-1)
        return index

    def __len__(self) -> int:
        return len(self._spans)

    def span(self, index: int) -> int:
        """Where record ``index`` is in ``source`` (0: kept as it was fed, or not kept)."""
        return self._spans[index]

    def kind(self, index: int) -> str:
        return self.kind_names[self._kinds[index]]

    def kind_code(self, index: int) -> int:
        """Record ``index``'s type as its number in ``kind_names``."""
        return self._kinds[index]

    def _one(self, index: int) -> dict[str, Any]:
        """Record ``index`` (in range): kept, or through a cache bounded in bytes too."""
        kept = self._kept.get(index)
        if kept is not None:
            return kept
        cache = self._cache
        found = cache.pop(index, None)
        if found is None:
            found = self.read(index)
            self._cache_bytes += self._spans[index] & SPAN_MAX
            while cache and (len(cache) >= CACHE_RECORDS or self._cache_bytes > CACHE_BYTES):
                oldest = next(iter(cache))
                del cache[oldest]
                self._cache_bytes -= self._spans[oldest] & SPAN_MAX
        cache[index] = found  # the most recent last
        return found

    def line(self, index: int) -> bytes | None:
        """Record ``index``'s line as the file holds it now (None: it was fed as a dict, or
        the file cannot be read: ``read`` says what it makes of that)."""
        span = self._spans[index]
        if not span or self.source is None or index in self._kept:
            return None
        try:
            return self.source.read(span)
        except OSError:
            return None

    def read(self, index: int) -> dict[str, Any]:
        """Record ``index`` parsed again from the file, not through the cache."""
        kept = self._kept.get(index)
        if kept is not None:
            return kept
        span = self._spans[index]
        try:
            if not span or self.source is None:
                raise OSError("not kept")
            raw = self.source.read(span)
        except OSError:
            return self._changed(index)
        try:
            value = loads_payload(raw)  # (as the skim took it)
        except ValueError as err:  # (as long as it was: not known to have changed)
            seq = self.seqs[index]
            if not still_holds(raw, span, self.kind(index), *([] if seq == NO_SEQ else [seq])):
                return self._changed(index)
            return self._changed(index, str(err).split(":")[0])
        seq = self.seqs[index]
        if (
            type(value) is not dict
            or as_str(value.get("type")) != self.kind(index)
            or (seq != NO_SEQ and value.get("seq") != seq)
        ):
            return self._changed(index)
        return value

    def data(self, index: int) -> dict[str, Any]:
        """Record ``index``'s data (an object, else empty)."""
        data = self[index].get("data")
        return data if isinstance(data, dict) else {}

    def _changed(self, index: int, unread: str | None = None) -> dict[str, Any]:
        """What the view shows of a record the file no longer holds as it was; ``unread``:
        of one as long as it was that is not read again, and why (``refuse_unread_line``)."""
        if unread is None:
            refuse_changed_line()
            said = CHANGED
        else:
            refuse_unread_line(unread, "its type and seq")
            said = f"(this record could not be read again: {unread})"
        kind = self.kind(index)
        seq = self.seqs[index]
        data: dict[str, Any] = {"changed": said}
        if kind == "message_end":
            data = {"message": {"kind": "?", "content": [{"type": "text", "text": said}]}}
        return {"data": data, "seq": None if seq == NO_SEQ else seq, "type": kind, "time": ""}
