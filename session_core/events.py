"""The envelopes of a replay, kept compactly: a line read from a file is kept as a
reference to it, and its few facts every view needs are kept beside it.

A replay parses every line (that is how it validates it), but keeping every
parsed line alive is what makes a big replay slow and large. A line read from
a file is kept as the bytes it was read from or, when the file can be read
again (``Events.source``), as its byte span in that file; it is parsed again
when something asks for it, through a small cache. What every view needs of
every line (its type and id; a message's role, line count, tool calls and
usage) is taken at feed time into columns, so drawing, indexing and tallying
a big file never parses a line twice. Envelopes appended live are kept as the
dicts they already are.
"""

from __future__ import annotations

import os
import weakref
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, overload

import orjson

from .message_usage import MessageUsage, v1_usage

CACHE = 512  # parsed lines kept at once
SPAN_BITS = 32  # a span is offset << SPAN_BITS | length
SPAN_MAX = (1 << SPAN_BITS) - 1

_ROLES = {r: r for r in ("system", "user", "assistant", "tool")}
LINES_COUNTED = 8  # a message's lines are counted this far: enough for any folded row


def as_str(value: Any) -> str:
    """A field as text: "" for a missing one, str() of anything not a str."""
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)


def payload_of(envelope: Mapping[str, Any]) -> dict[str, Any]:
    payload = envelope.get("payload")
    return payload if isinstance(payload, dict) else {}


@dataclass(slots=True)
class MessageFacts:
    """What views need of a message line without parsing it again."""

    role: str  # "user" when the line names none
    lines: int  # lines of its content ("" is one line), counted up to LINES_COUNTED
    reasoning: bool
    call_count: int  # items of its tool-calls list (whatever they are)
    calls: tuple[tuple[str, str], ...]  # (call id, function name) of each tool-call object
    answers: str | None  # its tool-call-id
    turn: bool  # counts as a turn for usage
    usage: MessageUsage | None
    error: bool = False  # its is-error flag


def message_facts(
    payload: Mapping[str, Any], strings: dict[str, str] | None = None
) -> MessageFacts:
    """A message payload's facts. Given ``strings`` (a replay's), its call ids and tool
    names are kept as one str object each, however many lines name them."""
    # Run for every message line of every replay: plain lookups, no helpers on the way.
    get = payload.get
    role = get("role")
    if type(role) is not str:
        role = as_str(role)
    content = get("content")
    if type(content) is not str:
        content = as_str(content)
    # A folded row needs only its first few lines: count no further, mostly.
    lines = content.count("\n", 0, 4096) + 1
    if lines <= LINES_COUNTED and len(content) > 4096:
        lines = content.count("\n") + 1
    raw_calls = get("tool-calls")
    calls: tuple[tuple[str, str], ...] = ()
    count = 0
    if type(raw_calls) is list:
        count = len(raw_calls)
        found = []
        for call in raw_calls:
            if isinstance(call, dict):
                cid = call.get("id")
                if type(cid) is not str:
                    cid = str(cid or "")
                function = call.get("function")
                name = function.get("name") if isinstance(function, dict) else None
                if type(name) is not str:
                    name = str(name or "")
                if strings is not None:
                    cid = strings.setdefault(cid, cid)
                    name = strings.setdefault(name, name)
                found.append((cid, name))
        calls = tuple(found)
    tcid = get("tool-call-id")
    if tcid is not None:
        if type(tcid) is not str:
            tcid = as_str(tcid)
        if strings is not None:
            tcid = strings.setdefault(tcid, tcid)
    usage = get("usage")
    reported = v1_usage(payload) if isinstance(usage, dict) else None
    return MessageFacts(
        _ROLES.get(role) or role or "user",
        min(lines, LINES_COUNTED),
        bool(get("reasoning")),
        count,
        calls,
        tcid,
        role == "assistant" or reported is not None,
        reported,
        bool(get("is-error")),
    )


class LineSource:
    """Lines read back by span from one open file (one inode): never writes.

    Owns its descriptor (a duplicate of the reader's), so the file read stays
    the file replayed even after a rename puts another one at its path.
    """

    def __init__(self, fd: int) -> None:
        self._fd: int | None = fd

    def read(self, span: int) -> bytes:
        if self._fd is None:
            raise OSError("the file is closed")
        return os.pread(self._fd, span & SPAN_MAX, span >> SPAN_BITS)

    def close(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def __del__(self) -> None:
        self.close()


class FactsColumn(Sequence[MessageFacts | None]):
    """``MessageFacts`` for message lines, None for others. A message fed without its
    facts (a replay that may never need them) has them taken when first asked for."""

    def __init__(self, events: Events) -> None:
        # A weak reference: no cycle with the Events that own this, so a replay nobody
        # holds any more is freed at once, without waiting for (or escaping, frozen)
        # the cyclic collector.
        self._events = weakref.ref(events)
        self._items: list[MessageFacts | None] = []
        self._strings: dict[str, str] = {}  # see message_facts

    def append(self, facts: MessageFacts | None) -> None:
        self._items.append(facts)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> MessageFacts | None: ...

    @overload
    def __getitem__(self, index: slice) -> list[MessageFacts | None]: ...

    def __getitem__(self, index: int | slice) -> MessageFacts | list[MessageFacts | None] | None:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._items)))]
        found = self._items[index]
        events = self._events()
        if found is None and events is not None and events.kinds[index] == "message":
            payload = events[index].get("payload")
            found = message_facts(payload if isinstance(payload, dict) else {}, self._strings)
            self._items[index] = found
        return found

    def at(self, indexes: Iterable[int]) -> list[MessageFacts | None]:
        """The facts of these lines at once (cheaper than one by one, for an index)."""
        items = self._items
        return [items[index] or self[index] for index in indexes]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Sequence):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


class BuiltOnDemand(Sequence[dict[str, Any]]):
    """A sequence of dicts built when asked for (``_build``); the last CACHE built are kept.

    The dicts handed out are shared with the cache: callers copy before changing one.
    """

    def __init__(self) -> None:
        self._cache: dict[int, dict[str, Any]] = {}

    def _build(self, index: int) -> dict[str, Any]:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        found = self._cache.get(index)
        if found is None:
            found = self._build(index)
            if len(self._cache) >= CACHE:
                del self._cache[next(iter(self._cache))]
            self._cache[index] = found
        return found

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for index in range(len(self)):
            yield self[index]


class Events(BuiltOnDemand):
    """A list of envelopes, some stored as raw lines or spans. Indexing gives a dict.

    ``kinds``, ``ids`` and ``facts`` (a ``MessageFacts`` for message lines,
    else None) are kept for every envelope.
    """

    def __init__(self) -> None:
        super().__init__()
        # A span per envelope (0: none), in an array: a list of ints costs 36 bytes each.
        self._spans = array("Q")
        # Envelopes kept as dicts or lines (None where a span is kept), made on the first.
        self._others: list[dict[str, Any] | bytes | None] | None = None
        self.kinds: list[str] = []
        self.ids: list[str] = []
        self.facts = FactsColumn(self)
        self.source: LineSource | None = None

    def append(
        self, item: dict[str, Any] | bytes | int, kind: str, eid: str, facts: MessageFacts | None
    ) -> None:
        others = self._others
        if isinstance(item, int):
            self._spans.append(item)
            if others is not None:
                others.append(None)
        else:
            if others is None:
                others = self._others = [None] * len(self._spans)
            self._spans.append(0)
            others.append(item)
        self.kinds.append(kind)
        self.ids.append(eid)
        self.facts.append(facts)

    def __len__(self) -> int:
        return len(self._spans)

    def kept(self, index: int) -> dict[str, Any] | bytes | int:
        """How envelope ``index`` is kept: its dict, its line, or its span in ``source``."""
        span = self._spans[index]
        if span or self._others is None:
            return span
        item = self._others[index]
        assert item is not None
        return item

    def read(self, index: int) -> dict[str, Any]:
        """Envelope ``index`` parsed again, not through the cache: for another thread."""
        return self._build(index)

    def _build(self, index: int) -> dict[str, Any]:
        item = self.kept(index)
        return item if isinstance(item, dict) else self._parse(index, item)

    def _parse(self, index: int, item: bytes | int) -> dict[str, Any]:
        if isinstance(item, bytes):
            value: dict[str, Any] = orjson.loads(item)  # it parsed once already: it parses
            return value
        try:
            raw = self.source.read(item) if self.source is not None else b""
            value = orjson.loads(raw)
        except (OSError, orjson.JSONDecodeError):
            value = {}
        if not isinstance(value, dict) or as_str(value.get("id")) != self.ids[index]:
            return self._changed(index)
        return value

    def _changed(self, index: int) -> dict[str, Any]:
        """The line is not what it was when it was replayed (the file changed under us)."""
        text = "(this line changed on disk after it was read; the view reloads the file)"
        payload: dict[str, Any] = {"content": text}
        facts = self.facts[index]
        if facts is not None:
            payload["role"] = facts.role
        return {"v": 1, "type": self.kinds[index], "id": self.ids[index], "payload": payload}


class LazyPayload(Mapping[str, Any]):
    """The payload of ``events[index]``, read when asked for (a replayed message's body)."""

    __slots__ = ("_events", "_index")

    def __init__(self, events: Events, index: int) -> None:
        self._events = events
        self._index = index

    @property
    def index(self) -> int:
        """The line's index in ``events``."""
        return self._index

    def _payload(self) -> dict[str, Any]:
        payload = self._events[self._index].get("payload")
        return payload if isinstance(payload, dict) else {}

    def __getitem__(self, key: str) -> Any:
        return self._payload()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self._payload().get(key, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._payload())

    def __len__(self) -> int:
        return len(self._payload())
