"""Ids held aside a batch at a time before they are packed (``HeldIds``): the uuids of a
file's lines, its responses' keys and its calls' ids."""

from __future__ import annotations

from collections.abc import Iterator

from ...packed_ids import BATCH, PackedIds


class HeldIds(PackedIds):
    """Ids (``PackedIds("first")``: its index gives the first node of each) whose latest
    ``BATCH`` are held aside, in a list and a dict, until they are packed and indexed
    together. The reader looks each id up (a line's uuid: is it repeated? a response's
    key, a call's id: is it new?) and then appends it, and a ``PackedIds`` indexes what
    was appended before any lookup one id at a time (its packing too), where a batch is
    packed by a few string operations; the id a lookup just missed is appended without
    a second one."""

    __slots__ = ("_held", "_missed", "_recent", "_recent_at")

    def __init__(self) -> None:
        super().__init__("first")
        self._held: list[str] = []  # appended, not in the ``PackedIds`` yet
        self._recent: dict[str, int] = {}  # each of those -> its first node
        self._recent_at = 0  # the first held node
        self._missed: str | None = None  # the last id ``find`` did not find

    def __len__(self) -> int:
        return self._recent_at + len(self._held)

    def _one(self, node: int) -> str:
        if node >= self._recent_at:
            return self._held[node - self._recent_at]
        return super()._one(node)

    def texts(self, start: int, stop: int) -> list[str]:
        self._flush()
        return super().texts(start, stop)

    def __iter__(self) -> Iterator[str]:
        self._flush()
        return super().__iter__()

    def find(self, ident: str) -> int:
        node = super().find(ident) if self._recent_at else -1
        if node < 0:
            node = self._recent.get(ident, -1)
            if node < 0:
                self._missed = ident
        return node

    def add(self, ident: str) -> tuple[int, bool]:
        # (the id a lookup just missed: a new line's uuid, once ``_feed`` found it new)
        first = ident is self._missed or self.find(ident) < 0
        self._missed = None
        node = self._recent_at + len(self._held)
        self._held.append(ident)
        if first:
            self._recent[ident] = node
        if len(self._held) >= BATCH:
            self._flush()
        return node, first

    def append(self, ident: str) -> int:
        return self.add(ident)[0]

    def extend(self, idents: list[str]) -> None:
        for ident in idents:
            self.add(ident)

    def _flush(self) -> None:
        """The held ids into the ``PackedIds`` (packed now, indexed at the next lookup)."""
        held = self._held
        if held:
            super().extend(held)
            super().pack()
            self._recent_at += len(held)
            self._held = []
            self._recent.clear()


__all__ = ["HeldIds"]
