"""Prefix sums of row heights that grow by appends: O(log n) updates and lookups."""

from __future__ import annotations


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
