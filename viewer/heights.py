"""Row heights of a ``LineList``: the y offset of a row and the row at a y offset.

``HeightIndex`` grows by appends (a Fenwick tree: O(log n) updates and lookups),
``Measured`` is measured all at once, ``Uniform`` is rows of one height.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from itertools import accumulate
from typing import Protocol


class HeightIndex:
    """Heights of rows; find the row at a y offset and the y offset of a row."""

    def __init__(self, heights: list[int] | None = None) -> None:
        self._h: list[int] = []
        self._tree: list[int] = [0]
        for h in heights or ():
            self.append(h)

    def __len__(self) -> int:
        return len(self._h)

    @property
    def total(self) -> int:
        return self.prefix(len(self._h))

    def height(self, row: int) -> int:
        return self._h[row]

    def append(self, h: int) -> None:
        self._h.append(h)
        i = len(self._h)
        # tree[i] covers rows (i - lowbit(i), i]; sum the smaller nodes it spans.
        total = h
        j = i - 1
        stop = i - (i & -i)
        while j > stop:
            total += self._tree[j]
            j -= j & -j
        self._tree.append(total)

    def set(self, row: int, h: int) -> None:
        delta = h - self._h[row]
        if not delta:
            return
        self._h[row] = h
        i = row + 1
        size = len(self._h)
        while i <= size:
            self._tree[i] += delta
            i += i & -i

    def prefix(self, count: int) -> int:
        """Sum of the first ``count`` heights (the y offset where row ``count`` starts)."""
        total = 0
        i = count
        tree = self._tree
        while i > 0:
            total += tree[i]
            i -= i & -i
        return total

    def find(self, y: int) -> int:
        """The row containing offset ``y`` (clamped to the last row); -1 when empty."""
        size = len(self._h)
        if not size:
            return -1
        pos = 0
        remaining = y
        step = 1 << size.bit_length()
        tree = self._tree
        while step:
            nxt = pos + step
            if nxt <= size and tree[nxt] <= remaining:
                pos = nxt
                remaining -= tree[nxt]
            step >>= 1
        return min(pos, size - 1)


class Uniform:
    """``count`` rows of one height each (a table, the diff, the timeline): nothing stored."""

    def __init__(self, count: int = 0, each: int = 1) -> None:
        self.count = count
        self.each = each

    def __len__(self) -> int:
        return self.count

    @property
    def total(self) -> int:
        return self.count * self.each

    def height(self, row: int) -> int:
        return self.each

    def prefix(self, count: int) -> int:
        return count * self.each

    def find(self, y: int) -> int:
        return min(y // self.each, self.count - 1)


def _tops(heights: list[int]) -> array[int]:
    """Each row's y offset, then the total: an array (8 bytes a row, not an int object
    each: a big file's pane has 100,000s of rows)."""
    tops = array("q", [0])
    tops.extend(accumulate(heights))
    return tops


class Measured:
    """Heights measured all at once (every block of a model pane, at C speed with
    ``accumulate``): a change to one row rebuilds the prefix sums."""

    def __init__(self, heights: list[int] | None = None) -> None:
        self._h = heights if heights is not None else []
        self._tops = _tops(self._h)

    def __len__(self) -> int:
        return len(self._h)

    @property
    def total(self) -> int:
        return self._tops[-1]

    def height(self, row: int) -> int:
        return self._h[row]

    def set(self, row: int, h: int) -> None:
        self._h[row] = h
        self._tops = _tops(self._h)

    def prefix(self, count: int) -> int:
        return self._tops[count]

    def find(self, y: int) -> int:
        return max(0, min(bisect_right(self._tops, y) - 1, len(self._h) - 1)) if self._h else -1


class Heights(Protocol):
    """What a ``LineList`` asks of its rows' heights."""

    def __len__(self) -> int: ...

    @property
    def total(self) -> int: ...

    def height(self, row: int) -> int: ...

    def prefix(self, count: int) -> int: ...

    def find(self, y: int) -> int: ...


__all__ = ["HeightIndex", "Heights", "Measured", "Uniform"]
