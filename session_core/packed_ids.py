"""Ids kept packed, with a hash index instead of a dict of strings.

A big transcript names hundreds of thousands of lines by id (a uuid, mostly); kept as
a str each (85 bytes for a uuid) in lists and as dict keys, they were the largest thing
a replay held, and the freed objects around them kept the allocator's arenas from being
given back. ``PackedIds`` keeps a column of ids in the order they came: a canonical
UUID as its 16 bytes, any other id as its UTF-8 bytes (and where it ends), a str made
only when one is asked for. Ids are appended to ``tail`` (a plain list, for a hot loop)
and packed a batch at a time: a batch of canonical UUIDs is checked and converted by a
few C-speed string operations, not one at a time; a batch with any other id is kept as
text. Given ``index``, it also finds the node of an id: an open-addressing table of
node numbers (linear probing on the str's hash, at most half full), brought up to date
when a lookup comes.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from itertools import accumulate, islice
from typing import Literal

from .indexed import ListLike

WIDTH = 16  # a UUID's bytes
BATCH = 4096  # ids appended before they are packed (a reader packs at each block too)
_EMPTY = -1
# A node's hash is kept as its low 32 bits, signed (an int32): the table's slots are
# those bits (it has fewer than 2**31) and a match is confirmed on the id anyway.
_LOW, _HALF = (1 << 32) - 1, 1 << 31
_LOW_WORD = 0 if sys.byteorder == "little" else 1  # an int64's low int32 in memory


def _low_halves(hashes: array[int]) -> array[int]:
    """The low 32 bits of each of these int64s, as int32s (at C speed)."""
    return array("i", hashes.tobytes())[_LOW_WORD::2]


def low_hash(ident: str) -> int:
    """The hash of ``ident``, as an index keeps it: its low 32 bits, signed. (The hot
    lookups below, ``find``, ``add``, ``intern`` and ``Texts._intern``, write it inline.)"""
    return ((hash(ident) + _HALF) & _LOW) - _HALF


def low_hashes(idents: Iterable[str]) -> array[int]:
    """``low_hash`` of each of these ids, as int32s."""
    return _low_halves(array("q", map(hash, idents)))


def packed_run(joined: str, n: int) -> bytes | None:
    """The 16 bytes of each of ``n`` canonical UUIDs ("8-4-4-4-12" lowercase hex digits)
    written one after another in ``joined``, or None if any is not one."""
    if len(joined) != 36 * n:
        return None
    if n == 1:  # (one id at a time: its four hyphens in one slice)
        if joined[8:24:5] != "----":
            return None
    else:
        dashes = "-" * n
        if not joined[8::36] == joined[13::36] == joined[18::36] == joined[23::36] == dashes:
            return None
    digits = joined.replace("-", "")
    if len(digits) != 32 * n:  # (a hyphen elsewhere)
        return None
    try:
        keys = bytes.fromhex(digits)
    except ValueError:
        return None
    # (fromhex skips whitespace: the length says there was none; lower case: one text
    # per key)
    if len(keys) != WIDTH * n or not (digits.islower() or digits.isdigit()):
        return None
    return keys


def packed(uuid: str) -> bytes | None:
    """A canonical UUID's 16 bytes, else None."""
    return packed_run(uuid, 1)


def text_of(key: bytes | bytearray) -> str:
    """The canonical text of a UUID's 16 bytes."""
    return _text_at(key.hex(), 0)


def _text_at(h: str, i: int) -> str:
    """The canonical text of the UUID whose 32 hex digits start at ``i`` in ``h``."""
    return (
        f"{h[i : i + 8]}-{h[i + 8 : i + 12]}-{h[i + 12 : i + 16]}-"
        f"{h[i + 16 : i + 20]}-{h[i + 20 : i + 32]}"
    )


class PackedIds(ListLike[str]):
    """Ids in the order they were appended, packed (see the module); reads as the list
    of them. ``index``: which node ``find`` gives for an id appended more than once, the
    ``"first"`` or the ``"last"`` (None: no lookups, no hashes kept)."""

    __slots__ = (
        "_bases",
        "_count",
        "_ends",
        "_firsts",
        "_hashes",
        "_indexed",
        "_keep",
        "_keep_last",
        "_keys",
        "_last_node",
        "_last_text",
        "_mask",
        "_table",
        "_text",
        "_used",
        "_uuid",
        "tail",
    )

    def __init__(self, index: Literal["first", "last"] | None = None) -> None:
        self._keep = index
        self._keep_last = index == "last"
        self.tail: list[str] = []  # appended, not packed yet
        self._count = 0  # ids packed
        # Runs of nodes kept alike: each run's first node, whether it is of UUIDs, and
        # where its first node's key is (UUIDs: in _keys, 16 bytes each; else: in _ends).
        self._firsts = array("q")
        self._uuid = bytearray()
        self._bases = array("q")
        self._keys = bytearray()
        self._text = bytearray()  # the other ids' UTF-8, one after another
        self._ends = array("Q")  # where each of them ends in _text
        self._hashes = array("i")  # per node: hash(id)'s low 32 bits (only with an index)
        self._table = array("i", [_EMPTY]) * 64  # slot -> node
        self._mask = 63
        self._used = 0
        self._indexed = 0  # nodes in the table so far
        self._last_node, self._last_text = -1, ""  # the id made last

    def __len__(self) -> int:
        return self._count + len(self.tail)

    def append(self, ident: str) -> int:
        """Append an id; its node."""
        tail = self.tail
        tail.append(ident)
        if len(tail) >= BATCH:
            self.pack()
        return self._count + len(tail) - 1

    def extend(self, idents: list[str]) -> None:
        self.tail.extend(idents)
        if len(self.tail) >= BATCH:
            self.pack()

    def pack(self) -> None:
        """Pack what ``tail`` holds."""
        tail = self.tail
        if not tail:
            return
        n = len(tail)
        joined = "".join(tail)
        keys = packed_run(joined, n)
        if keys is not None:
            self._run(1, len(self._keys) // WIDTH)
            self._keys += keys
        else:
            self._run(0, len(self._ends))
            text = self._text
            base = len(text)
            if joined.isascii():
                text += joined.encode("ascii")
                sizes = map(len, tail)
            else:
                data = [ident.encode("utf-8", "surrogatepass") for ident in tail]
                text += b"".join(data)
                sizes = map(len, data)
            self._ends.extend(islice(accumulate(sizes, initial=base), 1, None))
        if self._keep is not None:
            self._hashes.extend(_low_halves(array("q", map(hash, tail))))
        self._count += n
        tail.clear()

    def _run(self, uuid: int, base: int) -> None:
        """The nodes packed next are of this kind: go on with the last run, or start one."""
        if not self._uuid or self._uuid[-1] != uuid:
            self._firsts.append(self._count)
            self._uuid.append(uuid)
            self._bases.append(base)

    def _one(self, node: int) -> str:
        if node == self._last_node:  # (a reader asks for a line's id, then reads the line)
            return self._last_text
        if node >= self._count:
            self.pack()
        firsts = self._firsts
        run = 0 if len(firsts) == 1 else bisect_right(firsts, node) - 1
        at = self._bases[run] + node - self._firsts[run]
        if self._uuid[run]:
            text = text_of(self._keys[at * WIDTH : at * WIDTH + WIDTH])
        else:
            ends = self._ends
            start = ends[at - 1] if at else 0
            text = self._text[start : ends[at]].decode("utf-8", "surrogatepass")
        self._last_node, self._last_text = node, text
        return text

    def texts(self, start: int, stop: int) -> list[str]:
        """Ids ``start`` to ``stop`` (in range), made a run at a time: a replay's JSON
        lists every compaction's folded ids."""
        if stop > self._count:
            self.pack()
        out: list[str] = []
        firsts, node = self._firsts, start
        while node < stop:
            run = bisect_right(firsts, node) - 1
            end = min(stop, firsts[run + 1] if run + 1 < len(firsts) else stop)
            at = self._bases[run] + node - firsts[run]
            if self._uuid[run]:
                h = self._keys[at * WIDTH : (at + end - node) * WIDTH].hex()
                out += [_text_at(h, i) for i in range(0, len(h), 32)]
            else:
                out += [self._one(n) for n in range(node, end)]
            node = end
        return out

    def take(self, nodes: Sequence[int]) -> list[str]:
        """The ids of ``nodes`` (each in range), in that order: ``_one`` without its
        checks when every id is a UUID (a replay's JSON lists every compaction's folded
        ids, kept as their lines')."""
        if nodes and max(nodes) >= self._count:
            self.pack()
        if len(self._firsts) == 1 and self._uuid[0]:
            keys = self._keys
            return [_text_at(keys[n * WIDTH : n * WIDTH + WIDTH].hex(), 0) for n in nodes]
        return [self._one(n) for n in nodes]

    def __iter__(self) -> Iterator[str]:
        for start in range(0, len(self), BATCH):
            yield from self.texts(start, min(start + BATCH, len(self)))

    # -- the index -----------------------------------------------------------------

    def index_now(self) -> None:
        """Index every id appended so far, now rather than at the next ``find`` (which
        then costs only what comes after): a worker does it, not a screen's draw."""
        self._catch_up()

    def find(self, ident: str) -> int:
        """The node of ``ident`` (the first or the last appended, as ``index`` says), or
        -1."""
        if self._indexed != self._count + len(self.tail) or self._keep is None:
            self._catch_up()
        # (``_probe``, inline: a diff or an export looks up every message line's id)
        h = ((hash(ident) + _HALF) & _LOW) - _HALF  # (its low 32 bits, as kept)
        table, hashes, mask = self._table, self._hashes, self._mask
        slot = h & mask
        while (node := table[slot]) != _EMPTY:
            if hashes[node] == h and self._is(node, ident):
                return node
            slot = (slot + 1) & mask
        return -1

    def add(self, ident: str) -> tuple[int, bool]:
        """Append an id and index it at once; its node, and whether it is the first
        node of its id (a lookup then an append, probing the table once): a reader that
        looks ids up as it goes (Claude Code's parents), one id at a time."""
        if self._indexed != self._count + len(self.tail) or self._keep is None:
            self._catch_up()
        low = ((hash(ident) + _HALF) & _LOW) - _HALF
        slot, found = self._probe(ident, low)
        node = self._put(ident, low)
        if found < 0:
            self._fill(slot, node)
        elif self._keep_last:
            self._table[slot] = node
        return node, found < 0

    def intern(self, ident: str) -> int:
        """The node of ``ident``: the one it has, else a new one (appended and indexed)."""
        if self._indexed != self._count + len(self.tail) or self._keep is None:
            self._catch_up()
        low = ((hash(ident) + _HALF) & _LOW) - _HALF
        slot, found = self._probe(ident, low)
        if found >= 0:
            return found
        node = self._put(ident, low)
        self._fill(slot, node)
        return node

    def _put(self, ident: str, low: int) -> int:
        """Append ``ident`` (its hash's low bits ``low``) packed at once; its node (the
        caller puts it in the table)."""
        node = self._count
        key = packed(ident)
        if key is not None:
            if not self._uuid or not self._uuid[-1]:
                self._run(1, len(self._keys) // WIDTH)
            self._keys += key
        else:
            if not self._uuid or self._uuid[-1]:
                self._run(0, len(self._ends))
            self._text += ident.encode("utf-8", "surrogatepass")
            self._ends.append(len(self._text))
        self._hashes.append(low)
        self._count = self._indexed = node + 1
        return node

    def _probe(self, ident: str, low: int) -> tuple[int, int]:
        """The slot of ``ident`` (``low``: its hash's low 32 bits, signed) and its node,
        or the empty slot it would take and -1."""
        table, hashes, mask = self._table, self._hashes, self._mask
        slot = low & mask  # (its low bits are the hash's)
        while (node := table[slot]) != _EMPTY:
            if hashes[node] == low and self._is(node, ident):
                return slot, node
            slot = (slot + 1) & mask
        return slot, -1

    def _is(self, node: int, ident: str) -> bool:
        """Node ``node`` is ``ident`` (``_one`` without the batch not packed yet: a
        lookup has packed it)."""
        firsts = self._firsts
        run = 0 if len(firsts) == 1 else bisect_right(firsts, node) - 1
        at = self._bases[run] + node - firsts[run]
        if self._uuid[run]:
            return text_of(self._keys[at * WIDTH : at * WIDTH + WIDTH]) == ident
        ends = self._ends
        start = ends[at - 1] if at else 0
        return self._text[start : ends[at]] == ident.encode("utf-8", "surrogatepass")

    def _catch_up(self) -> None:
        """Index the nodes appended since the last lookup."""
        if self._keep is None:
            raise TypeError("these ids are kept without an index")
        self.pack()
        start, end = self._indexed, self._count
        if start == end:
            return
        hashes, keep_last = self._hashes, self._keep_last
        for node in range(start, end):
            h = hashes[node]
            table, mask = self._table, self._mask
            slot = h & mask
            while (other := table[slot]) != _EMPTY:
                if hashes[other] == h and self._one(other) == self._one(node):
                    if keep_last:
                        table[slot] = node
                    break
                slot = (slot + 1) & mask
            else:
                self._fill(slot, node)
        self._indexed = end

    def _fill(self, slot: int, node: int) -> None:
        self._table[slot] = node
        self._used += 1
        if self._used * 2 > len(self._table):
            self._grow()

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


RECENT = 1024  # texts a Texts table finds without probing (two generations of them)


class Texts:
    """Texts named many times (call ids, tool names), each kept once, packed: its number
    stands for it. A call id is named by its call, its dispatch and its answer, mostly a
    few lines apart: the texts met last are found in a small dict first (a str each was
    80 bytes, and a dict entry more, at 160,000 call ids a GB)."""

    __slots__ = ("_old", "ids", "recent")

    def __init__(self) -> None:
        self.ids = PackedIds("first")
        self.recent: dict[str, int] = {}  # (a caller may look in it first)
        self._old: dict[str, int] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def number(self, text: str) -> int:
        """The number of ``text`` (a new one if it has none)."""
        found = self.recent.get(text)
        if found is None:
            found = self._old.get(text)
            if found is None:
                found = self._intern(text)
            recent = self.recent
            recent[text] = found
            if len(recent) >= RECENT:
                self._old, self.recent = recent, {}
        return found

    def _intern(self, text: str) -> int:
        """``PackedIds.intern``, inline for a text that is no UUID (a call id, a name,
        a digest: each new one of a live load comes here)."""
        ids = self.ids
        if len(text) == 36 or ids.tail or ids._keep is None or ids._indexed != ids._count:
            return ids.intern(text)
        low = ((hash(text) + _HALF) & _LOW) - _HALF
        table, hashes, mask = ids._table, ids._hashes, ids._mask
        slot = low & mask
        while (node := table[slot]) != _EMPTY:
            if hashes[node] == low and ids._is(node, text):
                return node
            slot = (slot + 1) & mask
        node = ids._count
        uuid = ids._uuid
        if not uuid or uuid[-1]:
            ids._run(0, len(ids._ends))
        data = ids._text
        data += text.encode("utf-8", "surrogatepass")
        ids._ends.append(len(data))
        hashes.append(low)
        ids._count = ids._indexed = node + 1
        table[slot] = node  # (``_fill``, inline)
        ids._used += 1
        if ids._used * 2 > len(table):
            ids._grow()
        return node

    def find(self, text: str) -> int:
        """The number of ``text``, -1 if it has none (none is given)."""
        found = self.recent.get(text)
        return found if found is not None else self.ids.find(text)

    def text(self, number: int) -> str:
        return self.ids[number]


__all__ = [
    "WIDTH",
    "PackedIds",
    "Texts",
    "low_hash",
    "low_hashes",
    "packed",
    "packed_run",
    "text_of",
]
