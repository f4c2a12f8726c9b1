"""Each node's uuid and the node of each uuid, without a Python object per uuid.

A real file has hundreds of thousands of lines with a ``uuid``; as dict keys (a str
and an int object each, and the dict's slot) they were the largest thing the reader
kept, and the freed objects around them kept the allocator's arenas from being given
back. Here a uuid is its 16 bytes in one bytearray, its str's hash in an array, and
the index an open-addressing table of node numbers (linear probing on that hash, at
most half full). A uuid of another shape (not a canonical lowercase UUID: one text
per 16 bytes) is kept in a dict, as before: real files have none.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

from ...indexed import ListLike
from ...item_column import ItemColumn

WIDTH = 16  # a UUID's bytes
_EMPTY = -1
_LOW, _HALF = (1 << 32) - 1, 1 << 31  # a hash's low 32 bits, as a signed int32
_ODD = bytes(WIDTH)  # the key column's bytes for a uuid of another shape


def packed(uuid: str) -> bytes | None:
    """A canonical UUID's 16 bytes ("8-4-4-4-12" lowercase hex digits), else None."""
    if len(uuid) != 36 or uuid[8:24:5] != "----":  # (at 8, 13, 18 and 23)
        return None
    digits = uuid.replace("-", "")
    if len(digits) != 32:
        return None
    try:
        key = bytes.fromhex(digits)
    except ValueError:
        return None
    # (32 hex digits, in lower case: one text per key)
    return key if len(key) == WIDTH and (digits.islower() or digits.isdigit()) else None


def text_of(key: bytes | bytearray) -> str:
    """The canonical text of a UUID's 16 bytes."""
    h = key.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


class UuidIndex:
    """The uuids of a file's nodes, in node order, and their first nodes."""

    __slots__ = ("_hashes", "_keys", "_mask", "_miss", "_odd", "_odd_of", "_table", "_used")

    def __init__(self) -> None:
        self._keys = bytearray()  # per node: its uuid's bytes (``_ODD``: in ``_odd_of``)
        # per node: hash(uuid)'s low 32 bits, signed (0: an odd one); the table's slots
        # are its low bits (it has fewer than 2**31)
        self._hashes = array("i")
        self._table = array("i", [_EMPTY]) * 64  # slot -> node (the first of its uuid)
        self._mask = 63
        self._used = 0  # the table's filled slots
        self._odd: dict[str, int] = {}  # a uuid of another shape -> its first node
        self._odd_of: dict[int, str] = {}  # node -> its uuid of another shape
        # The last lookup that missed (uuid, hash, its empty slot), for the append
        # that follows it: a new line's uuid is looked up, then appended.
        self._miss: tuple[str, int, int] | None = None

    def __len__(self) -> int:
        return len(self._hashes)

    def find(self, uuid: str) -> int:
        """The first node with this uuid, or -1."""
        if self._odd and uuid in self._odd:
            return self._odd[uuid]
        h = hash(uuid)
        low = ((h + _HALF) & _LOW) - _HALF
        table, hashes, keys, mask = self._table, self._hashes, self._keys, self._mask
        slot = h & mask
        key: bytes | None = None
        while (node := table[slot]) != _EMPTY:
            if hashes[node] == low:
                if key is None:
                    key = packed(uuid)
                    if key is None:
                        return -1  # (an odd one: in ``_odd`` if it was seen)
                at = node * WIDTH
                if keys[at : at + WIDTH] == key:
                    return node
            slot = (slot + 1) & mask
        self._miss = (uuid, h, slot)
        return -1

    def append(self, uuid: str) -> tuple[int, bool]:
        """A new node with this uuid, and whether it is the uuid's first (a uuid seen
        before keeps its first node)."""
        node = len(self._hashes)
        key = packed(uuid)
        if key is None:
            first = self._odd.setdefault(uuid, node) == node
            self._odd_of[node] = uuid
            self._keys += _ODD
            self._hashes.append(0)
            self._miss = None
            return node, first
        miss = self._miss
        if miss is not None and miss[0] is uuid:  # (looked up just now: not there)
            _, h, slot = miss
        elif self.find(uuid) >= 0:
            slot = -1  # a repeated uuid: its node is not the index's
            h = hash(uuid)
        else:
            assert self._miss is not None
            _, h, slot = self._miss
        self._miss = None
        self._keys += key
        self._hashes.append(((h + _HALF) & _LOW) - _HALF)
        if slot >= 0:
            self._table[slot] = node
            self._used += 1
            if self._used * 2 > len(self._table):
                self._grow()
        return node, slot >= 0

    def _grow(self) -> None:
        size = len(self._table) * 2
        mask = size - 1
        table = array("i", [_EMPTY]) * size
        hashes = self._hashes
        for node in self._table:
            if node != _EMPTY:
                slot = hashes[node] & mask
                while table[slot] != _EMPTY:
                    slot = (slot + 1) & mask
                table[slot] = node
        self._table, self._mask = table, mask
        self._miss = None

    def uuid_of(self, node: int) -> str:
        if self._odd_of:
            odd = self._odd_of.get(node)
            if odd is not None:
                return odd
        at = node * WIDTH
        return text_of(self._keys[at : at + WIDTH])


class UuidColumn(ItemColumn):
    """The raw items, each named by its first line's uuid (its node's), kept once in the
    ``UuidIndex`` rather than as a str per item; an item without one is
    ``line-<n>``."""

    __slots__ = ("nodes", "uuids")

    def __init__(self, nodes: array[int], uuids: UuidIndex) -> None:
        super().__init__("line-")
        self.nodes = nodes  # raw item -> its first node (-1: a line without uuid)
        self.uuids = uuids

    def id_of(self, index: int) -> str:
        node = self.nodes[index]
        return self.uuids.uuid_of(node) if node >= 0 else super().id_of(index)


class ItemIds(ListLike[str]):
    """Some raw items' ids (a compaction's folded items), each made when asked for: a
    compaction of a long session folds tens of thousands, and an id is no longer a str
    kept anyway. Reads as the list it stands for."""

    __slots__ = ("_column", "_items")

    def __init__(self, column: ItemColumn, items: Sequence[int]) -> None:
        self._column = column
        self._items = array("i", items)

    def __len__(self) -> int:
        return len(self._items)

    def _one(self, index: int) -> str:
        return self._column.id_of(self._items[index])


__all__ = ["WIDTH", "ItemIds", "UuidColumn", "UuidIndex", "packed", "text_of"]
