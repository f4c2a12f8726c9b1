"""transcript-v1's lines of a type the spec does not name: "kept in ``events``, nothing
else" (transcript-v1.md), and, as every format's, listed by ``replay`` and counted by
``check`` (``session_core.other_records``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ...events import REFUSED
from ...indexed import Indexed
from ...other_records import OtherRecord

if TYPE_CHECKING:
    from ...replay import ReplayState


def unknown_at(state: ReplayState) -> list[int]:
    """Where in ``events`` each line of a type not named is (not a line a follow kept
    without applying it: ``keep_refused``'s, noted among them)."""
    kinds = state.events.kinds
    return [at for at in state.unknown_events if kinds[at] != REFUSED]


class OtherRecords(Indexed[OtherRecord]):
    """A snapshot's such lines (``Transcript.other_records``), each read again when
    indexed: an open reads none of them (a big file's index pass is not slowed)."""

    __slots__ = ("_at", "_state")

    def __init__(self, state: ReplayState) -> None:
        self._state = state
        self._at = unknown_at(state)

    def __len__(self) -> int:
        return len(self._at)

    def _one(self, index: int) -> OtherRecord:
        at = self._at[index]
        record = dict(self._state.events[at])  # (a copy: the events' cache keeps its own)
        return OtherRecord(self._state.event_lines[at], record.get("type"), record)


def other_records(state: ReplayState) -> Iterator[OtherRecord]:
    """Each such line's record, as written, read again when reached."""
    return iter(OtherRecords(state))
