"""Where the items of a column that took several lines of the file end: each one's last
line and its time, packed (``ItemColumn.ends``)."""

from __future__ import annotations

from array import array
from bisect import bisect_left


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
        at = len(items) if not items or items[-1] < index else bisect_left(items, index)
        told = b"" if ts is None else ts.encode("utf-8", "surrogatepass")
        if at < len(items) and items[at] == index:  # told again (a run grown, a later line)
            self.line[at] = line
            start, stop = self.start[at], self.stop[at]
            if stop - start == len(told):
                self.text[start:stop] = told
                return
        else:  # (in item order: at the end but for a response's line after a later run)
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


__all__ = ["ItemEnds"]
