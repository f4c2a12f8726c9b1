"""A file's API responses kept packed: an index each, its facts in columns.

A long session has a response every few lines, each split over as many lines as it has
content blocks. As a record each (its key, nodes, calls, largest counts and ``Usage``)
they were, after the calls, the largest thing the reader kept. Here a response is an
index: its raw item, turn, place among the file's responses, side, model and stop
reason as codes, its largest counts as int64s; its nodes and calls are lists threaded
through arrays (each one's next: ``Lists``), its usage (``UsageBook``) numbers in the raw
column's ``ResponseUsage``.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator

from ...item_column import ItemColumn
from .held_ids import HeldIds

NO_COUNT = -(1 << 63)  # a count not reported
# A response's counts: input, output, cache read, cache write, and of the cache write
# the one-hour writes (priced apart: Claude Code 2.1 writes its cache for an hour).
COUNTS = 5
_NO_COUNTS = array("q", [NO_COUNT] * COUNTS)
# A response's flags (``GAVE_UP``: Claude Code's own message that an API call failed
# for good, ``isApiErrorMessage``: the turn ends at it).
SIDE, STALE, GAVE_UP = 1, 2, 4
# Stop reasons of a model's answer that ended its turn, for the reason it states (a
# refusal, the token limit, a stop sequence, a paused server-tool loop): nothing is left
# to come but the next prompt. (``tool_use``: a call, answered or left open.)
ENDED_TURN = frozenset({"end_turn", "refusal", "max_tokens", "stop_sequence", "pause_turn"})
FINISH_SAID = ENDED_TURN - {"end_turn"}  # ...those its message is marked with
_END = -1
_ENDS = array("i", [_END]) * 4096  # (a node- or call-indexed array grows by as many)


class Lists:
    """A list per response threaded through arrays: its first and last member, and each
    member's next (``_END``: none), a member being a node or a call number."""

    __slots__ = ("first", "last", "next")

    def __init__(self) -> None:
        self.first, self.last = array("i"), array("i")
        self.next = array("i")  # member -> the next member of its response

    def open(self) -> None:
        """The list of a new response (empty)."""
        self.first.append(_END)
        self.last.append(_END)

    def add(self, at: int, member: int) -> None:
        """``member`` at the end of response ``at``'s list."""
        following = self.next
        while len(following) <= member:
            following.extend(_ENDS)
        last = self.last[at]
        if last < 0:
            self.first[at] = member
        else:
            following[last] = member
        self.last[at] = member

    def of(self, at: int) -> Iterator[int]:
        """Response ``at``'s members, in the order they were added."""
        member, following = self.first[at], self.next
        while member >= 0:
            yield member
            member = following[member]


class Responses:
    """Every response of a file, in the order they came (a response of another side with
    the same key takes the earlier one's place among the file's: ``by_order``)."""

    __slots__ = (
        "big",
        "by_key",
        "by_order",
        "calls",
        "flags",
        "items",
        "keys",
        "last",
        "nodes",
        "order",
        "priced",
        "raw",
        "run",
        "searched",
        "speed",
        "stop",
        "tokens",
        "written_cost",
    )

    def __init__(self, items: ItemColumn) -> None:
        self.items = items  # the raw column (its model and stop codes)
        # Their keys (message id, or request id, uuid), and each key's response.
        self.keys = HeldIds()
        self.by_key = array("i")
        self.last: tuple[str, int] = ("", -1)  # the last key found, and its number
        self.raw = array("l")  # its raw item (ascending)
        self.flags = bytearray()
        self.run = array("i")  # its turn (-1: none)
        self.order = array("i")  # its place among the file's responses
        self.by_order = array("i")  # the file's responses, by place
        self.priced = array("H")  # the model its usage is priced as (a code of ``items``)
        self.stop = array("H")  # its stop reason (a code of ``items``)
        # Its largest counts (``COUNTS`` of them) over its lines (``NO_COUNT``: none
        # reported; in ``big``, past an int64's range).
        self.tokens = array("q")
        self.big: dict[int, list[int | None]] = {}
        # What the writer said a response cost (``costUSD``, 1.0.x: rare, so a dict).
        self.written_cost: dict[int, float] = {}
        # Those that reported web searches: their cost unknown (the searches unpriced)
        self.searched: set[int] = set()
        # Those served at a speed not the standard one (fast mode: priced at its multiple)
        self.speed: dict[int, str] = {}
        self.nodes = Lists()  # its nodes
        self.calls = Lists()  # its calls (added in order: each is the latest)

    def __len__(self) -> int:
        return len(self.raw)

    def find(self, key: str) -> int:
        """The response of ``key`` (-1: none)."""
        last, number = self.last  # (a response's lines come one after another)
        if key != last:
            number = self.keys.find(key)
            if number < 0:
                return -1
            self.last = (key, number)
        return self.by_key[number]

    def add(
        self, key: str, raw: int, side: bool, run: int, replaced: int, *, reused: bool = False
    ) -> int:
        """A new response (``replaced``: the one of that key it takes the place of, or
        -1; ``reused``: a key an earlier response had, which stays one of its own);
        its index."""
        at = len(self.raw)
        if replaced < 0 and not reused:
            self.keys.add(key)
            self.by_key.append(at)
        else:
            self.by_key[self.keys.find(key)] = at
        if replaced < 0:
            self.order.append(len(self.by_order))
            self.by_order.append(at)
        else:
            place = self.order[replaced]
            self.order.append(place)
            self.by_order[place] = at
        self.raw.append(raw)
        self.flags.append(SIDE if side else 0)
        self.run.append(run)
        self.priced.append(0)
        self.stop.append(0)
        self.tokens.extend(_NO_COUNTS)
        self.nodes.open()
        self.calls.open()
        return at

    def side(self, at: int) -> bool:
        return bool(self.flags[at] & SIDE)

    def model(self, at: int) -> str | None:
        return self.items.model_of(self.raw[at])

    def of_raw(self, index: int) -> int:
        """The response whose item is raw item ``index`` (-1: none)."""
        raw = self.raw
        at = bisect_left(raw, index)
        return at if at < len(raw) and raw[at] == index else -1

    def largest(self, at: int, which: int, value: int) -> None:
        """Its ``which``-th count is at least ``value``."""
        tokens = self.tokens
        slot = COUNTS * at + which
        big = self.big.get(at) if self.big else None
        if big is None:
            if tokens[slot] != NO_COUNT and value <= tokens[slot]:
                return
            if NO_COUNT < value < 1 << 63:
                tokens[slot] = value
                return
            # (a count no int64 holds, in a hostile file: kept as a list from now on)
            big = self.big[at] = self.counts(at)
        old = big[which]
        if old is None or value > old:
            big[which] = value

    def counts(self, at: int) -> list[int | None]:
        """Its counts (input, output, cache read, cache write, one-hour cache write; None:
        not reported)."""
        big = self.big.get(at) if self.big else None
        if big is not None:
            return list(big)
        first = COUNTS * at
        return [None if t == NO_COUNT else t for t in self.tokens[first : first + COUNTS]]


__all__ = [
    "COUNTS",
    "ENDED_TURN",
    "FINISH_SAID",
    "GAVE_UP",
    "NO_COUNT",
    "SIDE",
    "STALE",
    "Responses",
]
