"""A replay's elision records, kept in columns: an ``Elision`` is made when asked for.

A big transcript stubs 10,000s of messages; an object each, with its message id as a str
and a list per message id in a dict, was 11 MB at 1 GB. Here a record is its elision
line's (a few records a line), its message's number among the elided ids (packed, with a
hash index: ``Elided`` looks them up), its stub (packed) and its message's line.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from .indexed import ListLike
from .packed_ids import PackedIds


@dataclass(slots=True)
class Elision:
    """One stubbed message: which elision line did it, and the stub it left."""

    elision_id: str
    ts: str
    message_id: str
    stub: str
    line: int | None = None  # the stubbed message's line (None: not known, not a line)
    elision_line: int = 0  # the elision line's own line in the file


class Elisions(ListLike[Elision]):
    """Every elision record in the order applied; reads as the list of ``Elision``s."""

    __slots__ = (
        "_last",
        "_line",
        "_line_ids",
        "_line_lines",
        "_line_ts",
        "_lines",
        "_node",
        "_prev",
        "_stubs",
        "mids",
    )

    def __init__(self) -> None:
        self._line_ids: list[str] = []  # per elision line: its id
        self._line_ts: list[str] = []  # ... and its ts
        self._line_lines = array("i")  # ... and its line in the file
        self._lines = array("i")  # per record: its elision line (in _line_ids)
        self._node = array("i")  # per record: its message id's node in ``mids``
        self._stubs = PackedIds()
        self._line = array("i")  # per record: its message's line, -1 for none
        self.mids = PackedIds("first")  # the elided message ids, each once
        self._last = array("i")  # per elided id: its last record
        self._prev = array("i")  # per record: the record before it of the same id, or -1

    def start_line(self, eid: str, ts: str, line: int) -> None:
        """The records added next are elision line ``eid``'s, at ``line`` of the file."""
        self._line_ids.append(eid)
        self._line_ts.append(ts)
        self._line_lines.append(line)

    def add(self, mid: str, stub: str, line: int | None) -> None:
        """A record of the line started last: message ``mid`` stubbed with ``stub``."""
        record = len(self._lines)
        self._lines.append(len(self._line_ids) - 1)
        node = self.mids.intern(mid)
        last = self._last
        if node == len(last):
            last.append(-1)
        self._node.append(node)
        self._prev.append(last[node])
        last[node] = record
        self._stubs.append(stub)
        self._line.append(-1 if line is None else line)

    def __len__(self) -> int:
        return len(self._lines)

    @property
    def line_count(self) -> int:
        """How many elision lines were applied (one that stubs nothing too): the elisions
        every surface counts, where ``len`` counts the messages they stubbed."""
        return len(self._line_ids)

    def elision_id(self, index: int) -> str:
        """Record ``index``'s elision line id (no ``Elision`` made)."""
        return self._line_ids[self._lines[index]]

    def line_number(self, index: int) -> int:
        """Which elision line (in the order applied) record ``index`` is of: two lines of
        one id (a line written again) are two."""
        return self._lines[index]

    def _one(self, index: int) -> Elision:
        at, line = self._lines[index], self._line[index]
        return Elision(
            self._line_ids[at],
            self._line_ts[at],
            self.mids[self._node[index]],
            self._stubs[index],
            None if line < 0 else line,
            self._line_lines[at],
        )

    def of(self, node: int) -> list[Elision]:
        """The records of elided message ``node`` (in ``mids``), in order."""
        found: list[int] = []
        record = self._last[node]
        while record >= 0:
            found.append(record)
            record = self._prev[record]
        return [self._one(record) for record in reversed(found)]


class Elided(Mapping[str, list[Elision]]):
    """Message id -> its elision records, in order (in the order first elided)."""

    __slots__ = ("_elisions",)

    def __init__(self, elisions: Elisions) -> None:
        self._elisions = elisions

    def __getitem__(self, mid: str) -> list[Elision]:
        node = self._elisions.mids.find(mid) if type(mid) is str else -1
        if node < 0:
            raise KeyError(mid)
        return self._elisions.of(node)

    def __contains__(self, mid: object) -> bool:
        return type(mid) is str and self._elisions.mids.find(mid) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self._elisions.mids)

    def __len__(self) -> int:
        return len(self._elisions.mids)


def per_line(elisions: Sequence[Elision]) -> list[Elision]:
    """A message's elision records (in the order applied), one per elision line: of a
    line that names the message more than once, its last, the stub that line left (its
    others were never sent). The last of them all is the stub the model is sent; each
    other was sent until the next one's line replaced it."""
    out: list[Elision] = []
    for elision in elisions:
        if out and (out[-1].elision_id, out[-1].elision_line) == (
            elision.elision_id,
            elision.elision_line,
        ):
            out[-1] = elision
        else:
            out.append(elision)
    return out
