"""What a snapshot hands out of an ``ItemColumn``: ``Items``, a ``Sequence[Item]`` that
builds each item only when it is indexed (``Transcript.raw`` and ``messages`` may be
one), and ``ItemIds``, some items' ids made when asked for."""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from . import search
from .fold import folder
from .indexed import Indexed, ListLike
from .item_column import ItemColumn
from .item_ends import last_stamp
from .item_heights import folded_height
from .model import Item
from .parts import preview
from .vocabulary import Readable, as_written, kinds_of, shown_parts

if TYPE_CHECKING:
    from .model import Transcript


class ItemIds(ListLike[str]):
    """Some items' ids (a compaction's folded items), each made when asked for: a
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

    def index_at(self, index: int) -> int:
        """The column index of the item whose id is ``self[index]``."""
        return self._items[index]


class Items(Indexed[Item]):
    """A snapshot of an ``ItemColumn`` (its first ``n`` items, or the entries of a view:
    column indexes and items of their own). Indexing builds the item (see ``ItemColumn``).

    A view's entries may be an ``array`` of indexes (8 bytes an entry, not an int object
    each), with the items of its own in ``own``: entry ``-1 - k`` is ``own[k]``."""

    __slots__ = ("_column", "_entries", "_n", "_own")

    def __init__(
        self,
        column: ItemColumn,
        n: int | None = None,
        entries: Sequence[int | Item] | None = None,
        own: list[Item] | None = None,
    ) -> None:
        self._column = column
        self._entries = entries
        self._own = own
        self._n = (len(entries) if entries is not None else len(column)) if n is None else n

    def __len__(self) -> int:
        return self._n

    def _entry(self, index: int) -> int | Item:
        entry = self._entries[index] if self._entries is not None else index
        if type(entry) is int and entry < 0 and self._own is not None:
            return self._own[-1 - entry]
        return entry

    def _one(self, index: int) -> Item:
        entry = self._entry(index)
        return entry if isinstance(entry, Item) else self._column.item(entry)

    def roles_and_kinds(self) -> tuple[set[str], set[str]]:
        """The roles and the kinds these items have (what a filter offers), none built."""
        column = self._column
        entries = self._entries
        built: list[Item] = list(self._own or ())
        if entries is None:
            role_codes, kind_codes = set(column.role[: self._n]), set(column.kind[: self._n])
        else:
            taken = entries[: self._n]
            built += [e for e in taken if isinstance(e, Item)]
            indexes = [e for e in taken if type(e) is int and e >= 0]
            role_codes = set(map(column.role.__getitem__, indexes))
            kind_codes = set(map(column.kind.__getitem__, indexes))
        roles = {column.string(code) or "" for code in role_codes}
        kinds = {column.string(code) or "message" for code in kind_codes}
        return roles | {i.role for i in built}, kinds | {i.kind for i in built}

    def json_rows(self, fragments: bool = False) -> Iterator[dict[str, Any]]:
        """Every item's ``to_json()``, in order, each built for it alone (``sent_item``):
        the replay JSON's messages (``model.rows_json``; no fragments)."""
        column = self._column
        for index in range(self._n):
            entry = self._entry(index)
            yield (entry if isinstance(entry, Item) else column.sent_item(entry)).to_json()

    def folded_heights(self, readable: Readable | None = None) -> list[int]:
        """Every item's folded height, without building the items; ``readable``: as a
        view that shows texts in their format's readable words draws them
        (``vocabulary.shown_parts``: ``/exit``, not its wrapper's lines)."""
        column = self._column
        entries = self._entries
        shown = column.shown_height if readable is not None else None
        if entries is None:
            if shown:  # (few: a session's commands; the rest looked up at C speed)
                return list(map(shown.get, range(self._n), column.height[: self._n]))
            return list(column.height[: self._n])
        height = column.height
        own = self._own
        taken = entries[: self._n]
        if own is not None and not own:  # indexes alone: at C speed
            heights = list(map(height.__getitem__, taken))  # type: ignore[arg-type]
            return list(map(shown.get, taken, heights)) if shown else heights  # type: ignore[arg-type]

        def of_item(item: Item) -> int:
            parts = item.parts if readable is None else shown_parts(item, readable)
            return folded_height(parts)

        got = shown.get if shown else (lambda _e, h: h)
        if own is not None:
            return [
                of_item(own[-1 - e]) if e < 0 else got(e, height[e])  # type: ignore[operator, index, arg-type]
                for e in taken
            ]
        return [of_item(e) if isinstance(e, Item) else got(e, height[e]) for e in taken]

    def find(
        self,
        needle: str,
        start: int = 0,
        cancelled: Callable[[], bool] | None = None,
        stop: int | None = None,
        readable: Readable = as_written,
    ) -> list[int] | None:
        """``search.find`` of the folded ``needle`` here, no item built (an item of
        the column read by ``ItemColumn.search_text``, ``readable``'s words of it too);
        the items whose lines cannot hold it (``search_skip.Skipping``) not read at all."""
        from .search_skip import Skipping

        column = self._column
        skipping = Skipping.of(column, needle, readable)
        found: list[int] = []
        # (``fold``, but for a mark as drawn: ``␛``, ``⏎``; each search text's texts apart)
        folded = folder(needle, apart=True)
        step = search.CHECK_EVERY
        end = self._n if stop is None else min(stop, self._n)
        for first in range(start, end, step):
            if cancelled is not None and cancelled():
                return None
            indexes = range(first, min(first + step, end))
            skip = skipping.skippable(indexes, self._entry) if skipping is not None else ()
            for index in indexes:
                if index in skip:
                    continue
                entry = self._entry(index)
                if isinstance(entry, Item):
                    text = search.item_search_text(entry, readable)
                else:
                    text = column.search_text(entry, readable)
                if needle in folded(text):
                    found.append(index)
        return found

    def having(self, keep: Callable[[str, str], bool]) -> Items:
        """The items whose role and kind ``keep`` says yes to, in order, as a view of the
        same column: none built, each role and kind pair asked once (a filtered raw view
        of a 1 GB session built its 184,000 items at every draw: 6 s)."""
        column, own = self._column, self._own
        roles, kinds = column.role, column.kind
        said: dict[int, bool] = {}
        kept: list[int | Item] = []
        for index in range(self._n):
            entry = self._entries[index] if self._entries is not None else index
            if type(entry) is int and entry >= 0:
                pair = roles[entry] << 16 | kinds[entry]
                ok = said.get(pair)
                if ok is None:
                    ok = said[pair] = keep(column.role_of(entry), column.kind_of(entry))
            else:
                item = self._one(index)
                ok = keep(item.role, item.kind)
            if ok:
                kept.append(entry)
        numbers = [entry for entry in kept if type(entry) is int]
        if len(numbers) == len(kept):  # (8 bytes an entry, as the view's own are)
            return Items(column, entries=array("q", numbers), own=own)
        return Items(column, entries=kept, own=own)

    def of_column(self, keep: Callable[[int], bool]) -> Items:
        """The items of the column whose index ``keep`` says yes to, in order (none of
        their own), as a view of the same column: none built."""
        n = self._n
        entries = range(n) if self._entries is None else self._entries[:n]
        return Items(
            self._column,
            entries=array("q", [e for e in entries if type(e) is int and e >= 0 and keep(e)]),
        )

    def count_kind(self, *kinds: str) -> int:
        """How many of these items are of one of ``kinds``, none built (the column's codes
        counted: a 1 GB session's 184,000 items are counted at C speed)."""
        column = self._column
        codes = [code for kind in kinds for code in column.kind_codes(kind)]
        if self._entries is None:
            head = column.kind[: self._n]
            return sum(head.count(code) for code in codes)
        wanted = set(codes)
        total = 0
        for index in range(self._n):
            entry = self._entry(index)
            if isinstance(entry, Item):
                total += entry.kind in kinds
            elif entry >= 0:
                total += column.kind[entry] in wanted
        return total

    def mark_counts(self) -> dict[str, int] | None:
        """How many items carry each mark, none built (None: only by building them)."""
        return self._column.mark_counts(self._n) if self._entries is None else None

    def ts(self, index: int) -> str | None:
        """An item's time, without building it."""
        entry = self._entry(index)
        return entry.ts if isinstance(entry, Item) else self._column.ts_of(entry)

    def end(self, index: int) -> tuple[int, str | None]:
        """An item's last line and that line's time (``Item.end``), without building it."""
        entry = self._entry(index)
        return entry.end if isinstance(entry, Item) else self._column.end_of(entry)

    def key(self, index: int) -> tuple[str, int]:
        """``(id, line)`` of an item, without building it."""
        entry = self._entry(index)
        if isinstance(entry, Item):
            return entry.id, entry.line
        return self._column.id_of(entry), self._column.line[entry]


def stamps_at_ends(
    items: Sequence[Item], header_timed_alone: bool = False
) -> tuple[str | None, str | None]:
    """The first time any of ``items`` has and the last line's (``last_stamp``, of a file
    whose ``header_timed_alone`` or not; None: none has one), built from the ends inward
    (a browser row's: every item built was each one read back from the file, 40% of a
    directory's scan)."""

    def ts(index: int) -> str | None:
        return items.ts(index) if isinstance(items, Items) else items[index].ts

    first = next((t for t in map(ts, range(len(items))) if t), None)
    return first, last_stamp(items, None, header_timed_alone)


def item_key(items: Sequence[Item], index: int) -> tuple[str, int]:
    """``(id, line)`` of item ``index``, without building it where the items can say."""
    if isinstance(items, Items):
        return items.key(index)
    item = items[index]
    return item.id, item.line


def count_kind(items: Sequence[Item], *kinds: str) -> int:
    """How many of ``items`` are of one of ``kinds`` (a column's counted without building
    them)."""
    if isinstance(items, Items):
        return items.count_kind(*kinds)
    return sum(1 for item in items if item.kind in kinds)


def messages_written(raw: Sequence[Item], fmt: str) -> int:
    """How many of a file's raw items (of format ``fmt``) are message lines as written
    (``Kinds.message``)."""
    return count_kind(raw, *sorted(kinds_of(fmt).message))


def message_count(transcript: Transcript) -> int:
    """A file's messages: its message lines as written (``messages_written``); in a file
    with none whose conversation is read from other lines (Codex's newer writers'
    ``item_completed`` events alone), its conversation's messages, as ``peek`` lists
    them. The browser's "msgs", a subagent's messages, the diff's first row."""
    written = messages_written(transcript.raw, transcript.format)
    return written or len(transcript.messages)


def at_line(items: Sequence[Item], line: int) -> int:
    """The index of the item holding file line ``line`` (items in file order): the last
    one starting at or before it (-1: none; an item may span lines)."""
    lo, hi = 0, len(items)
    while lo < hi:
        mid = (lo + hi) // 2
        if item_key(items, mid)[1] <= line:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


def near_end(items: Sequence[Item], item: Item, from_end: int, grown: int) -> int:
    """The index of ``item``, an item of a big file's end read alone first, in ``items``,
    the whole file's: ``from_end`` items before their end, or nearer their start by up to
    ``grown`` (items appended since it was there); -1: not there. (The end's items carry
    no lines to find them by in the whole.)

    An index is taken only where the item there reads as ``item`` does (``_alike``): an
    id may be a place counted from where the end began (Codex's ``L7``, Claude Code's
    ``line-7`` for a line with no uuid), another item's in the whole. At its place from
    the end, an item alike is taken whatever its id; nearer the start, by its id too."""
    count = len(items)
    guess = count - from_end
    if 0 <= guess < count and _alike(items[guess], item):
        return guess
    for index in range(count - 1, max(0, guess - grown) - 1, -1):
        if item_key(items, index)[0] == item.id and _alike(items[index], item):
            return index
    return -1


def _alike(a: Item, b: Item) -> bool:
    """Whether two items read the same: role, kind, time and parts (each part's kind,
    name, call id, error and the head a lazy part keeps, ``preview``: the end's items
    are built whole, the whole file's keep heads). Not what other lines say of them
    (marks, a stub): the end read alone may not hold those lines."""
    return (a.role, a.kind, a.ts, _parts_said(a)) == (b.role, b.kind, b.ts, _parts_said(b))


def _parts_said(item: Item) -> list[tuple[str, str | None, str | None, bool, str]]:
    return [(p.kind, p.name, p.call_id, p.is_error, preview(p.head)) for p in item.parts]


def first_of_span(items: Sequence[Item], first: int, last: int | None) -> int:
    """The index of the first item of file lines ``first`` to ``last`` (None: to the end):
    the one holding ``first``, else the first after it (a v1 run begins at its run-context
    line, which is no item: its prompt comes after); -1: none."""
    index = at_line(items, first)
    if index >= 0:
        item = items[index]
        if not item.line <= first < item.line + max(item.lines, 1):
            index += 1  # (the item before the span)
    else:
        index = 0
    if index >= len(items) or (last is not None and item_key(items, index)[1] > last):
        return -1
    return index


__all__ = [
    "ItemIds",
    "Items",
    "at_line",
    "count_kind",
    "first_of_span",
    "item_key",
    "message_count",
    "messages_written",
    "near_end",
    "stamps_at_ends",
]
