"""The raw items' timestamps, packed (``Stamps``), and the raw column's facts that tell
them when an item is built (``CodexFacts``).

Every line of a rollout has a timestamp, written as ``2026-02-13T16:26:40.099Z``: kept
as text (24 bytes each) they were, after the operations, the largest thing a followed
file held. ``Stamps`` keeps each as its 17 digits in 9 bytes (hex nibbles, a 0 after
them), packed a batch at a time by a few C-speed string operations; a timestamp of any
other form is kept as it is. The column's items flagged ``READ_TS`` ask for theirs by
index (``ItemColumn.ts_of``).
"""

from __future__ import annotations

from ...item_column import ItemColumn
from ...response_usage import ResponseUsage

WIDTH = 9  # bytes a timestamp
BATCH = 4096  # timestamps put before they are packed
FORM = "0000-00-00T00:00:00.000Z"  # (what an index no timestamp was put at holds)
_SEPARATORS = ((4, "-"), (7, "-"), (10, "T"), (13, ":"), (16, ":"), (19, "."), (23, "Z"))


def packed_run(joined: str, n: int) -> bytes | None:
    """The 9 bytes of each of ``n`` timestamps of ``FORM``'s shape written one after
    another in ``joined``, or None if any is not of it."""
    size = len(FORM)
    if len(joined) != size * n or not joined.isascii():
        return None
    for at, char in _SEPARATORS:
        if joined[at::size] != char * n:
            return None
    if joined.count("Z") != n:  # (a Z where a digit is would read as a 0)
        return None
    digits = joined.encode("ascii").translate(None, b"-T:.").replace(b"Z", b"0")
    if len(digits) != 2 * WIDTH * n or not digits.isdigit():
        return None
    return bytes.fromhex(digits.decode("ascii"))


def text_of(key: bytes | bytearray) -> str:
    """The timestamp whose 9 bytes are ``key``."""
    h = key.hex()
    return f"{h[:4]}-{h[4:6]}-{h[6:8]}T{h[8:10]}:{h[10:12]}:{h[12:14]}.{h[14:17]}Z"


class Stamps:
    """Timestamps by index (see the module): ``put`` in ascending order of index, an index
    skipped holds none."""

    __slots__ = ("_full", "_keys", "_next", "_other", "tail")

    def __init__(self) -> None:
        self._keys = bytearray()  # WIDTH bytes each, packed
        self._other: dict[int, str] = {}  # those not of FORM's shape, by index
        self.tail: list[str] = []  # put, not packed yet
        self._next = 0  # the index the next one put is expected at
        self._full = BATCH - 1  # the index that fills the batch

    def __len__(self) -> int:
        return self._next

    def put(self, index: int, ts: str) -> None:
        if index != self._next:
            if index < self._next:
                raise ValueError(f"timestamp {index} put again")
            self.tail.extend([FORM] * (index - self._next))
        self.tail.append(ts)
        self._next = index + 1
        if index >= self._full:
            self.pack()

    def pack(self) -> None:
        """Pack what ``tail`` holds."""
        tail = self.tail
        if not tail:
            return
        keys = packed_run("".join(tail), len(tail))
        if keys is None:  # one at a time: those of another form kept as they are
            start = len(self._keys) // WIDTH
            blank = bytes(WIDTH)
            parts = []
            for at, ts in enumerate(tail, start):
                key = packed_run(ts, 1)
                if key is None:
                    self._other[at] = ts
                parts.append(blank if key is None else key)
            keys = b"".join(parts)
        self._keys += keys
        tail.clear()
        self._full = self._next + BATCH - 1

    def at(self, index: int) -> str:
        """The timestamp put at ``index``. It changes nothing: the viewer asks (for a
        snapshot's items, on its screen's thread) while the reader puts more; ``pack``
        extends the keys before it empties the tail, so a timestamp read from the tail
        is the one at ``index`` if the keys did not change meanwhile."""
        if index >= self._next:
            raise IndexError(index)
        while True:
            packed = len(self._keys) // WIDTH
            if index < packed:
                other = self._other.get(index) if self._other else None
                if other is not None:
                    return other
                start = index * WIDTH
                return text_of(self._keys[start : start + WIDTH])
            tail = self.tail
            ts = tail[index - packed] if index - packed < len(tail) else None
            if ts is not None and len(self._keys) // WIDTH == packed:
                return ts


class CodexFacts(ResponseUsage):
    """The raw column's facts (``ItemColumn.facts``): each response's usage
    (``ResponseUsage``) and the timestamps of the items flagged ``READ_TS``."""

    __slots__ = ("stamps",)

    def __init__(self, raw: ItemColumn) -> None:
        super().__init__(raw)
        self.stamps = Stamps()

    def ts(self, index: int, span: int) -> str | None:
        return self.stamps.at(index)


__all__ = ["FORM", "CodexFacts", "Stamps", "packed_run", "text_of"]
