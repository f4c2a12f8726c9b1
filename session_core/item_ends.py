"""Where the items of a column that took several lines of the file end: each one's last
line and its time, packed (``ItemColumn.ends``)."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:
    from .model import Item


class ItemEnds:
    """The last line, and its time, of each item of a column that took more than one
    line (a Claude Code run of progress lines, a response split over lines): the item's
    first line's time is its own (``ts``), but the file's last line may be the last of
    such an item, seconds later. Packed (a big file has tens of thousands of runs): the
    items' indexes in order, their last lines, and where each one's time is in one
    ``bytearray`` (told again: written over where it fits, else after the rest)."""

    __slots__ = ("item", "line", "start", "stop", "text")

    def __init__(self) -> None:
        self.item = array("q")
        self.line = array("i")
        self.start = array("I")
        self.stop = array("I")
        self.text = bytearray()

    def __len__(self) -> int:
        return len(self.item)

    def set(self, index: int, line: int, ts: str | None) -> None:
        """Item ``index`` ends at ``line``, written at ``ts`` (None: not given)."""
        items = self.item
        told = b"" if ts is None else ts.encode("utf-8", "surrogatepass")
        if not items or items[-1] < index:  # (nearly always: a later item, appended)
            items.append(index)
            self.line.append(line)
            self.start.append(len(self.text))
            self.text += told
            self.stop.append(len(self.text))
            return
        at = len(items) - 1 if items[-1] == index else bisect_left(items, index)
        if items[at] == index:  # told again (a run grown, a later line)
            self.line[at] = line
            start, stop = self.start[at], self.stop[at]
            if stop - start == len(told):
                self.text[start:stop] = told
                return
        else:  # (in item order: a response's line after a later run)
            items.insert(at, index)
            self.line.insert(at, line)
            self.start.insert(at, 0)
            self.stop.insert(at, 0)
        self.start[at] = len(self.text)
        self.text += told
        self.stop[at] = len(self.text)

    def get(self, index: int) -> tuple[int, str | None] | None:
        """Item ``index``'s last line and its time (None: it took one line, or was not
        told)."""
        items = self.item
        at = bisect_left(items, index)
        if at == len(items) or items[at] != index:
            return None
        start, stop = self.start[at], self.stop[at]
        ts = self.text[start:stop].decode("utf-8", "surrogatepass") if stop > start else None
        return self.line[at], ts


# How many items before the last with a time may end after it (an item may end after a
# later one began: a Claude Code response split over lines around a tool's result).
LATER_ENDS = 20


# How many items, or lines, back from the end ``Transcript.last_time`` looks for a time
# (each one may be read back from the file: v1's lines); a browser row's too.
LAST_LOOK = 20


class LineEnds(Protocol):
    """A file's lines each with its time, where its items leave lines out (v1's dispatch
    and settle lines are no items): what ``last_stamp`` looks back over instead. Each
    ends where it begins (``one_line_each``): none before the last with a time ends later."""

    one_line_each: bool

    def __len__(self) -> int: ...

    def end(self, index: int) -> tuple[int, str | None]:
        """Line ``index``'s number and time (None: it has none)."""
        ...


def last_stamp(
    items: Sequence[Item] | LineEnds, look: int | None = None, header_timed_alone: bool = False
) -> str | None:
    """The time of the last line that has one of ``items`` (in file order): an item's last
    line's (``Item.end``: a run of progress lines ends seconds after its first line),
    that of the last item with a time or of one of the ``LATER_ENDS`` before it that ends
    later (none can where each is one line: ``LineEnds``); None if none of the last
    ``look`` items (None: all) has one, or, in a file whose lines after its header say
    no time (``header_timed_alone``: a mid-2025 Codex rollout's), if the first alone has
    one and items follow it (the header's time is not when they were written). A sequence
    that says its items' ends without making them (``Items.end``, ``LineEnds.end``) is
    asked so."""
    told = getattr(items, "end", None)
    end: Callable[[int], tuple[int, str | None]] = (
        told if callable(told) else (lambda index: cast("Sequence[Item]", items)[index].end)
    )
    last = len(items) - 1
    stop = -1 if look is None else max(-1, last - look)
    best_line, best, newest = -1, None, -1  # (newest: the last item with a time)
    left = 0 if getattr(items, "one_line_each", False) else LATER_ENDS
    for index in range(last, stop, -1):
        line, ts = end(index)
        if ts:
            newest = max(newest, index)
            if line > best_line:
                best_line, best = line, ts
        if best is not None:
            left -= 1
            if left < 0:
                break
    return None if header_timed_alone and newest == 0 < last else best


__all__ = ["LAST_LOOK", "LATER_ENDS", "ItemEnds", "LineEnds", "last_stamp"]
