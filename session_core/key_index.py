"""``KeyIndex``: strings kept once each, packed, and the number of each.

A reader of a big file looks ids up by the hundred thousand (a session's tool call ids,
its responses' message ids). As dict keys each was a str, an int and the dict's slot
(about 150 bytes); here a key is its UTF-8 in one bytearray, where it ends and its
str's hash in arrays, and the index an open-addressing table of key numbers (linear
probing on that hash, at most half full): about 50 bytes for a 30-character id.
"""

from __future__ import annotations

from array import array

_EMPTY = -1


class KeyIndex:
    """Distinct strings numbered in the order they were added."""

    __slots__ = ("_ends", "_hashes", "_mask", "_table", "_text")

    def __init__(self) -> None:
        self._text = bytearray()
        self._ends = array("Q")  # per key: where its UTF-8 ends in ``_text``
        self._hashes = array("q")  # per key: hash(key)
        self._table = array("i", [_EMPTY]) * 16  # slot -> key number
        self._mask = 15

    def __len__(self) -> int:
        return len(self._ends)

    def key(self, number: int) -> str:
        ends = self._ends
        return self._text[ends[number - 1] if number else 0 : ends[number]].decode(
            "utf-8", "surrogatepass"
        )

    def find(self, key: str) -> int:
        """The number of ``key`` (-1: not added)."""
        h = hash(key)
        table, mask, hashes = self._table, self._mask, self._hashes
        slot = h & mask
        while True:
            number = table[slot]
            if number == _EMPTY:
                return -1
            if hashes[number] == h and self.key(number) == key:
                return number
            slot = (slot + 1) & mask

    def add(self, key: str) -> int:
        """Add ``key`` (not added before: ``find`` says so); its number."""
        number = len(self._ends)
        h = hash(key)
        self._text += key.encode("utf-8", "surrogatepass")
        self._ends.append(len(self._text))
        self._hashes.append(h)
        self._put(number, h)
        if 2 * (number + 1) > len(self._table):
            self._grow()
        return number

    def _put(self, number: int, h: int) -> None:
        table, mask = self._table, self._mask
        slot = h & mask
        while table[slot] != _EMPTY:
            slot = (slot + 1) & mask
        table[slot] = number

    def _grow(self) -> None:
        size = 2 * len(self._table)
        self._table = array("i", [_EMPTY]) * size
        self._mask = size - 1
        for number, h in enumerate(self._hashes):
            self._put(number, h)


__all__ = ["KeyIndex"]
