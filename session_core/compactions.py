"""A v1 replay's compactions as applied, and what each folded and kept, packed.

Every compaction's folded entries are kept one after another as their events'
indices (``FoldedIndex``), each compaction's ``folded`` its stretch of them; its
``kept`` ids are a prefix of the sticky entries' ids (``KeptIds``); ``FoldedBy``
answers which compaction last folded a message.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .indexed import ListLike
from .packed_ids import BATCH, PackedIds, low_hash, low_hashes


@dataclass(slots=True)
class Compaction:
    """A compaction as applied: which live messages it folded into its summary."""

    id: str
    ts: str
    summary: str
    through: str
    fallback: bool
    # As the file wrote each (``text.written_count``): a count, None where it left the
    # key out, ``WRITTEN_NULL`` where it wrote null, or whatever else it wrote.
    tokens_before: Any
    tokens_after: Any
    folded: Sequence[str] = field(default_factory=list)
    kept: Sequence[str] = field(default_factory=list)
    line: int = 0  # the compaction's own line in the file
    event: int = -1  # its line's index in the replay's events
    # The event of the entry its summary was placed before, as it was made (-1: none, the
    # summary was the last sent): the place it is sent in, whatever is folded since.
    placed_before: int = -1


class FoldedIds(ListLike[str]):
    """A compaction's folded ids: its stretch of the replay's ``folded_ids``."""

    __slots__ = ("_ids", "_start", "_stop")

    def __init__(self, ids: FoldedIndex, start: int, stop: int) -> None:
        self._ids, self._start, self._stop = ids, start, stop

    def __len__(self) -> int:
        return self._stop - self._start

    def _one(self, index: int) -> str:
        return self._ids[self._start + index]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids.texts(self._start, self._stop))


class KeptIds(ListLike[str]):
    """A compaction's kept ids: the first ``n`` of the replay's ``sticky_ids`` (which
    only grows)."""

    __slots__ = ("_ids", "_n")

    def __init__(self, ids: list[str], n: int) -> None:
        self._ids, self._n = ids, n

    def __len__(self) -> int:
        return self._n

    def _one(self, index: int) -> str:
        return self._ids[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids[: self._n])


class FoldedIndex(ListLike[str]):
    """Every compaction's folded entries one after another, read as the list of their
    ids: each kept as its event's index (an entry's id is its line's, a summary's its
    compaction line's), the text made from ``events.ids`` when asked for.

    ``find`` gives an id's last position: a chain of positions per bucket of their ids'
    hashes (the low 32 bits, kept per position), newest first, at most two positions a
    bucket on average. Made when a lookup comes (or ``index_now``): 12 bytes a position
    and 2 to 4 for the heads, where the ids as text (16 bytes a UUID), their hashes and
    an open-addressed table took 28 to 36.
    """

    __slots__ = ("_events", "_hashes", "_heads", "_ids", "_indexed", "_next")

    def __init__(self, ids: PackedIds) -> None:
        self._ids = ids
        self._events = array("i")  # position -> its entry's event
        self._hashes = array("i")  # position -> hash(id)'s low 32 bits
        self._heads = array("i", [-1])  # bucket -> its newest position, -1: none
        self._next = array("i")  # position -> the bucket's position before it
        self._indexed = 0  # positions in the chains

    def extend(self, events: array[int], mids: list[str]) -> None:
        """Append folded entries: their events and their ids (the hashes first: a position
        is there once its event is)."""
        self._hashes.extend(low_hashes(mids))
        self._events.extend(events)

    def __len__(self) -> int:
        return len(self._events)

    def _one(self, index: int) -> str:
        return self._ids[self._events[index]]

    def texts(self, start: int, stop: int) -> list[str]:
        """Ids ``start`` to ``stop`` (in range)."""
        return self._ids.take(self._events[start:stop])

    def events(self) -> frozenset[int]:
        """The events whose ids are folded (each event's id is one of them)."""
        return frozenset(self._events)

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), BATCH):
            yield from self.texts(start, start + BATCH)

    def index_now(self) -> None:
        """Chain every position so far, now rather than at the next ``find``."""
        start, end = self._indexed, len(self._events)
        if start == end:
            return
        heads, chain = self._heads, self._next
        if end > 2 * len(heads):  # (more than two a bucket: twice the buckets, chained again)
            size = len(heads)
            while end > 2 * size:
                size *= 2
            heads, chain, start = array("i", [-1]) * size, array("i"), 0
        hashes, chained, mask = self._hashes, chain.append, len(heads) - 1
        for position in range(start, end):
            bucket = hashes[position] & mask
            chained(heads[bucket])
            heads[bucket] = position
        self._next, self._heads, self._indexed = chain, heads, end

    def find(self, mid: str) -> int:
        """The last position of ``mid``, or -1."""
        if self._indexed != len(self._events):
            self.index_now()
        low = low_hash(mid)
        hashes, chained, heads = self._hashes, self._next, self._heads
        position = heads[low & (len(heads) - 1)]
        while position >= 0:
            if hashes[position] == low and self._ids._one(self._events[position]) == mid:
                return position
            position = chained[position]
        return -1


class FoldedBy(Mapping[str, str]):
    """Message id -> the id of the last compaction that folded it, found in the
    replay's ``folded_ids`` (every compaction's folded entries, one after another)."""

    __slots__ = ("_compactions", "_ids", "_starts")

    # (the replay's parts, not the replay: no cycle, so a replay nobody holds is freed at once)
    def __init__(self, ids: FoldedIndex, starts: array[int], compactions: list[Compaction]) -> None:
        self._ids, self._starts, self._compactions = ids, starts, compactions

    def __getitem__(self, mid: str) -> str:
        node = self._ids.find(mid) if type(mid) is str else -1
        if node < 0:
            raise KeyError(mid)
        return self._compactions[bisect_right(self._starts, node) - 1].id

    def get(self, mid: str, default: str | None = None) -> str | None:  # type: ignore[override]
        node = self._ids.find(mid) if type(mid) is str else -1
        return default if node < 0 else self._compactions[bisect_right(self._starts, node) - 1].id

    def __contains__(self, mid: object) -> bool:
        return type(mid) is str and self._ids.find(mid) >= 0

    def folded_events(self) -> frozenset[int]:
        """The events whose ids are keys here, without making an id (another event of one
        of those ids, in a file that repeats an id, is not among them)."""
        return self._ids.events()

    def index_now(self) -> None:
        """Index the folded ids so far (``FoldedIndex.index_now``)."""
        self._ids.index_now()

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(self._ids))

    def __len__(self) -> int:
        return len(set(self._ids))
