"""The envelopes of a replay, kept compactly: a message line may be held as its raw bytes.

A replay parses every line (that is how it validates it), but keeping every
parsed message alive is what makes a big replay slow and large. A message
line read from a file is kept as the bytes it was read from and parsed again
when something asks for it, through a small cache; everything else, and every
envelope appended live, is kept as the dict it already is.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

import orjson

CACHE = 512  # parsed raw lines kept at once


class Events(Sequence[dict[str, Any]]):
    """A list of envelopes, some stored as raw lines. Indexing always gives a dict."""

    def __init__(self) -> None:
        self._items: list[dict[str, Any] | bytes] = []
        self._cache: dict[int, dict[str, Any]] = {}

    def append(self, item: dict[str, Any] | bytes) -> None:
        self._items.append(item)

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, index: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, index: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self._items)))]
        item = self._items[index]
        if isinstance(item, dict):
            return item
        if index < 0:
            index += len(self._items)
        cached = self._cache.get(index)
        if cached is None:
            value: dict[str, Any] = orjson.loads(item)  # it parsed once already: it parses
            if len(self._cache) >= CACHE:
                del self._cache[next(iter(self._cache))]
            self._cache[index] = cached = value
        return cached

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for index in range(len(self._items)):
            yield self[index]


class LazyPayload(Mapping[str, Any]):
    """The payload of ``events[index]``, read when asked for (a replayed message's body)."""

    __slots__ = ("_events", "_index")

    def __init__(self, events: Events, index: int) -> None:
        self._events = events
        self._index = index

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
