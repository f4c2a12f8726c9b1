"""Every line a v1 replay applied, with its time, read back only when asked: the file's
last line with a time is often no item (a ``tool-dispatched`` or ``tool-settled`` line after
the last message), so ``Transcript.last_time`` looks back over these (``LineEnds``), not over
the items. Nothing is kept per line for it: the index pass stays as it was."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...replay import ReplayState


class V1LineEnds:
    """The replay's lines up to a snapshot (``stop``): each one's number, and its ``ts``
    read back from the file (a string, else none; a line a follow kept without applying
    it has none), each read once for the snapshot: the status asks ``last_time`` at every
    draw, and where the last line has no time it and the one before it are read (a last
    line may be MBs). A snapshot's lines never change (a reset makes another state)."""

    __slots__ = ("_ends", "_state", "_stop")
    one_line_each = True

    def __init__(self, state: ReplayState, stop: int) -> None:
        self._state, self._stop = state, stop
        self._ends: dict[int, tuple[int, str | None]] = {}  # (those asked for: few)

    def __len__(self) -> int:
        return self._stop

    def end(self, index: int) -> tuple[int, str | None]:
        told = self._ends.get(index)
        if told is None:
            state = self._state
            ts = state.events.read(index).get("ts")
            told = self._ends[index] = (
                int(state.event_lines[index]),
                ts if isinstance(ts, str) else None,
            )
        return told


__all__ = ["V1LineEnds"]
