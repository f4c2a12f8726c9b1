"""A ``compacted`` line: the view the model continues from, and what it folded.

The writer copies the items it keeps into ``replacement_history`` as they were, so
each is matched to the earlier item with the same fingerprint (the first unused one)
and keeps that item's id; what it adds (a summary, an encrypted compaction item, a
changed developer message) becomes an item of its own, ``L<line>.<n>``.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...indexed import ListLike
from ...model import Item
from ...parts import Part
from .items import fingerprint, message_key, response_item
from .user_turns import Shape, first_turn, kept_user_messages


class EntryIds(ListLike[str]):
    """The ids of some entries of a view (raw indexes, named by ``id_of``, and items),
    each made when asked for: a compaction of a long session folds 100,000s of them.
    Kept as codes: an index as it is, an item as ``-1 - `` its id's place in ``ids``
    (its id alone: each compaction folds the last one's encrypted item, 4-12 KB, which
    kept every one of them alive), and its line (what a person is shown of it); with
    ``items``, the items too (a rollback's: what it drops of a replacement history is
    on no line, and a few turns' worth: ``item_at``)."""

    __slots__ = ("_codes", "_id_of", "_ids", "_items", "_lines")

    def __init__(
        self, entries: list[int | Item], id_of: Callable[[int], str], items: bool = False
    ) -> None:
        self._ids: list[str] = []
        self._lines = array("q")
        self._items: list[Item] | None = [] if items else None
        codes = self._codes = array("q")
        for entry in entries:
            if isinstance(entry, Item):
                codes.append(-1 - len(self._ids))
                self._ids.append(entry.id)
                self._lines.append(entry.line)
                if self._items is not None:
                    self._items.append(entry)
            else:
                codes.append(entry)
        self._id_of = id_of

    def __len__(self) -> int:
        return len(self._codes)

    def _one(self, index: int) -> str:
        code = self._codes[index]
        return self._ids[-1 - code] if code < 0 else self._id_of(code)

    def index_at(self, index: int) -> int:
        """The raw index of the entry whose id is ``self[index]`` (-1: an item of the
        view's own, in no raw index)."""
        return max(self._codes[index], -1)

    def line_at(self, index: int) -> int:
        """The line of an item of the view's own at ``index`` (the line whose rewrite made
        it: its id is internal, ``L<line>.<n>``); 0 for an entry of a raw index."""
        code = self._codes[index]
        return self._lines[-1 - code] if code < 0 else 0

    def item_at(self, index: int) -> Item | None:
        """The item of the view's own at ``index``, where they are kept (``items``); None
        for an entry of a raw index (the raw view has it), or where they are not kept."""
        code = self._codes[index]
        return self._items[-1 - code] if code < 0 and self._items is not None else None


@dataclass(slots=True)
class Replayed:
    view: list[int | Item]  # raw indexes (ids by ``id_of``) and items of its own
    keys: list[int]  # fingerprints, parallel to ``view``
    kept: EntryIds  # ids of earlier items still seen
    folded: EntryIds  # ids of earlier items replaced
    folded_at: list[int]  # where those are in the earlier view
    note: str  # what the raw view says of the line


def replay(
    view: Sequence[int | Item],
    keys: Sequence[int],
    id_of: Callable[[int], str],
    shape: Shape,
    payload: dict[str, Any],
    cid: str,
    line: int,
    ts: str | None,
) -> Replayed:
    def ident(entry: int | Item) -> str:
        return entry.id if isinstance(entry, Item) else id_of(entry)

    message = payload.get("message")
    message = message if isinstance(message, str) else ""
    history = payload.get("replacement_history")
    new_view: list[int | Item] = []
    new_keys: list[int] = []
    kept: list[int | Item] = []  # (their entries: ``EntryIds`` names them)
    if isinstance(history, list):
        entries = [e if isinstance(e, dict) else {"type": "record", "value": e} for e in history]
        wanted = [fingerprint(entry) for entry in entries]
        # Where the earlier items of each of those keys are (only those: a long view has
        # many), each matched once, first to last.
        named = set(wanted)
        where: dict[int, list[int]] = {}
        for position, key in enumerate(keys):
            if key in named:
                where.setdefault(key, []).append(position)
        for k, (entry, key) in enumerate(zip(entries, wanted, strict=True)):
            positions = where.get(key)
            item: int | Item
            if positions:
                item = view[positions.pop(0)]
                kept.append(item)
            else:
                item = response_item(entry, f"{cid}.{k + 1}", line, ts)
            new_view.append(item)
            new_keys.append(key)
        note = f"replacement history: {len(history):,} items, {len(kept):,} kept"
    else:
        # Older writers wrote no history: Codex made it of its initial context (here the
        # session's prefix, what came before the first turn), the newest user messages
        # within a budget and the summary.
        def carry(position: int) -> None:
            new_view.append(view[position])
            new_keys.append(keys[position])
            kept.append(view[position])

        prefix = first_turn(view, shape)
        whole, cut, fits = kept_user_messages(view, shape, prefix)
        for position in range(prefix):
            carry(position)
        if cut is not None:  # the oldest one chosen, cut to what was left of the budget
            shortened = _shortened(shape.parts(view[cut]), fits, f"{cid}.0", line, ts)
            new_view.append(shortened)
            new_keys.append(message_key("user", shortened.parts))
        for position in whole:
            carry(position)
        summary = Item(f"{cid}.1", "user", [Part("text", message)], line, ts=ts)
        new_view.append(summary)
        new_keys.append(message_key("user", summary.parts))
        note = (
            f"no replacement history: the context before the first turn, "
            f"{len(whole) + (cut is not None):,} user messages and the summary"
        )
    keep = {ident(entry) for entry in kept}
    folded: list[int | Item] = []
    folded_at: list[int] = []
    for position, earlier in enumerate(view):
        name = earlier.id if isinstance(earlier, Item) else id_of(earlier)
        if name not in keep:
            folded.append(earlier)
            folded_at.append(position)
    return Replayed(
        new_view, new_keys, EntryIds(kept, id_of), EntryIds(folded, id_of), folded_at, note
    )


def _shortened(parts: list[Part], fits: int, ident: str, line: int, ts: str | None) -> Item:
    """A user message cut to ``fits`` bytes, its start and end kept (as Codex cuts it)."""
    text = "\n".join(p.text for p in parts if p.kind == "text")
    data = text.encode("utf-8", "surrogatepass")
    half = max(fits // 2, 0)
    head = data[:half].decode("utf-8", "ignore")
    tail = data[len(data) - half :].decode("utf-8", "ignore") if half else ""
    cut = len(data) - 2 * half
    shown = f"{head}…{cut:,} bytes cut…{tail}"
    return Item(ident, "user", [Part("text", shown)], line, ts=ts)


__all__ = ["EntryIds", "Replayed", "replay"]
