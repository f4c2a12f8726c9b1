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
    read back from the file (a line a follow kept without applying it has none)."""

    __slots__ = ("_state", "_stop")
    one_line_each = True

    def __init__(self, state: ReplayState, stop: int) -> None:
        self._state, self._stop = state, stop

    def __len__(self) -> int:
        return self._stop

    def end(self, index: int) -> tuple[int, str | None]:
        state = self._state
        ts = state.events.read(index).get("ts")
        return int(state.event_lines[index]), ts if isinstance(ts, str) else None


__all__ = ["V1LineEnds"]
