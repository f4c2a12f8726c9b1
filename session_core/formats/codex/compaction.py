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

from ...indexing import loads_payload
from ...model import Item
from ...parts import CHANGED, Part, PartSource
from ...view_ids import ViewIds
from .items import fingerprint, message_key, response_item, sent_with
from .user_turns import Shape, first_turn, kept_user_messages

# A ``compacted`` line's source, span and time, and the ids and roles of what it made.
_Reread = tuple[PartSource, int, str | None, tuple[tuple[str, str], ...]]


class MadeItems:
    """The items the ``compacted`` lines made (their replacement histories' own), found
    again when a later rewrite folds them: each read again from the line that made it
    (by its span; the last line's kept, as a compaction folds the last one's items in
    a row), else (a compressed file's line, or a history the writer did not write,
    made of the view before it) kept as made."""

    __slots__ = ("_last", "_made")

    def __init__(self) -> None:
        self._made: dict[int, _Reread | dict[str, Item]] = {}
        self._last: tuple[int, dict[str, Item]] = (0, {})

    def add(self, line: int, made: list[Item], reread: tuple[PartSource, int] | None) -> None:
        """The items the ``compacted`` line ``line`` made, and where that line is read
        again (``reread``: its source and span; None: it is not, they are kept)."""
        if reread is not None:
            # (their ids and roles too: one that cannot be read again is said changed)
            roles = tuple((item.id, item.role) for item in made)
            self._made[line] = (*reread, made[0].ts if made else None, roles)
        elif made:
            self._made[line] = {item.id: item for item in made}

    def item(self, line: int, ident: str) -> Item | None:
        """The item of id ``ident`` that line ``line`` made (None: not known); where its
        line changed on disk, its role and that it changed (as a raw item's row says)."""
        found = self._made.get(line)
        if isinstance(found, dict) or found is None:
            return None if found is None else found.get(ident)
        if self._last[0] != line:
            self._last = (line, _history_items(line, *found[:3]))
        item = self._last[1].get(ident)
        if item is None:
            role = dict(found[3]).get(ident)
            if role is not None:
                parts = [Part("other", CHANGED)]
                return Item(ident, role, parts, line, ts=found[2], marks=["folded"])
        return item


def _history_items(line: int, source: PartSource, span: int, ts: str | None) -> dict[str, Item]:
    """The items of the ``compacted`` line ``line``'s replacement history, read again
    from its ``span``, by id (none: the line is gone or changed on disk)."""
    raw = source.line(span)
    try:
        record = loads_payload(raw) if raw is not None else None
    except ValueError:
        return {}
    payload = record.get("payload") if isinstance(record, dict) else None
    if not isinstance(payload, dict):
        return {}
    history = payload.get("replacement_history")
    if not isinstance(history, list):
        return {}
    metadata = history_metadata(payload, history)
    items = (
        response_item(e, f"L{line}.{k}", line, ts, metadata[k - 1]) for k, e in _entries(history, 1)
    )
    found = {item.id: item for item in items}
    for item in found.values():  # (asked for as a later compaction's: marked as it marks them)
        item.marks.append("folded")
    return found


def history_metadata(payload: dict[str, Any], history: list[Any]) -> list[Any]:
    """The harness metadata of each item of a replacement history (upstream writes it
    beside them, ``replacement_history_metadata``, one entry per item); None for each
    where there is none, or not one for each (upstream refuses such a line: here its
    items are read as if it had none, what it says kept in its line)."""
    metadata = payload.get("replacement_history_metadata")
    if isinstance(metadata, list) and len(metadata) == len(history):
        return metadata
    return [None] * len(history)


def unmatched_metadata(payload: dict[str, Any], line: int) -> str | None:
    """The warning for a ``compacted`` line whose ``replacement_history_metadata`` is
    not one entry per item of its ``replacement_history`` (upstream refuses the line, its
    ``CompactedItem`` unread): its items are read as if it had none (``history_metadata``),
    so a configuration update among them is not sent. None where it lines up, or there
    is none."""
    metadata = payload.get("replacement_history_metadata")
    if metadata is None:
        return None
    history = payload.get("replacement_history")
    read = "its items are read as if it had none, and a configuration update among them is not sent"
    if not isinstance(history, list):
        said, read = "with no replacement_history", "the line is read without it"
    elif not isinstance(metadata, list):
        said = f"that is no list, for {len(history):,} history items"
    elif len(metadata) != len(history):
        said = f"of {len(metadata):,} entries for {len(history):,} history items"
    else:
        return None
    return (
        f"line {line}: a compaction has a replacement_history_metadata {said} "
        f"(upstream refuses such a line): {read}"
    )


def _entries(history: list[Any], start: int = 0) -> list[tuple[int, dict[str, Any]]]:
    """A replacement history's entries, numbered from ``start`` (one that is no object
    kept as a record)."""
    return [
        (k, e if isinstance(e, dict) else {"type": "record", "value": e})
        for k, e in enumerate(history, start)
    ]


class EntryIds(ViewIds):
    """The ids of some entries of a view (raw indexes, named by ``id_of``, and items),
    each made when asked for: a compaction of a long session folds 100,000s of them.
    Kept as codes: an index as it is, an item as ``-1 - `` its id's place in ``ids``
    (its id alone: each compaction folds the last one's encrypted item, 4-12 KB, which
    kept every one of them alive), and its line (what a person is shown of it); with
    ``items``, the items too (a rollback's: what it drops of a replacement history is
    on no line, and a few turns' worth: ``item_at``), else with ``made``, where they
    are found again (a compaction's: it folds what the last one made)."""

    __slots__ = ("_codes", "_id_of", "_ids", "_items", "_lines", "_made")

    def __init__(
        self,
        entries: list[int | Item],
        id_of: Callable[[int], str],
        items: bool = False,
        made: MadeItems | None = None,
    ) -> None:
        self._made = made
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
        """The item of the view's own at ``index``, where they are kept (``items``) or
        found again (``made``); None for an entry of a raw index (the raw view has it),
        or where it is not known."""
        code = self._codes[index]
        if code >= 0:
            return None
        if self._items is not None:
            return self._items[-1 - code]
        made = self._made
        return None if made is None else made.item(self._lines[-1 - code], self._ids[-1 - code])


@dataclass(slots=True)
class Replayed:
    view: list[int | Item]  # raw indexes (ids by ``id_of``) and items of its own
    keys: list[int]  # fingerprints, parallel to ``view``
    kept: EntryIds  # ids of earlier items still seen
    folded: EntryIds  # ids of earlier items replaced
    folded_at: list[int]  # where those are in the earlier view
    note: str  # what the raw view says of the line
    # Its history's items that are not sent (undo snapshots, types not named): in its
    # raw row only, as at the top level.
    unsent: list[Item]


def replay(
    view: Sequence[int | Item],
    keys: Sequence[int],
    id_of: Callable[[int], str],
    shape: Shape,
    payload: dict[str, Any],
    cid: str,
    line: int,
    ts: str | None,
    made: MadeItems | None = None,
) -> Replayed:
    def ident(entry: int | Item) -> str:
        return entry.id if isinstance(entry, Item) else id_of(entry)

    message = payload.get("message")
    message = message if isinstance(message, str) else ""
    history = payload.get("replacement_history")
    new_view: list[int | Item] = []
    new_keys: list[int] = []
    kept: list[int | Item] = []  # (their entries: ``EntryIds`` names them)
    unsent: list[Item] = []
    if isinstance(history, list):
        # (an undo snapshot it carries is not sent, nor a type not named: in no view, as
        # at the top level; the others keep their numbers)
        entries = []
        metadata = history_metadata(payload, history)
        for k, e in _entries(history):
            if sent_with(e.get("type"), metadata[k]):
                entries.append((k, e))
            else:
                unsent.append(response_item(e, f"{cid}.{k + 1}", line, ts, metadata[k]))
        wanted = [fingerprint(entry) for _k, entry in entries]
        # Where the earlier items of each of those keys are (only those: a long view has
        # many), each matched once, first to last.
        named = set(wanted)
        where: dict[int, list[int]] = {}
        for position, key in enumerate(keys):
            if key in named:
                where.setdefault(key, []).append(position)
        for (k, entry), key in zip(entries, wanted, strict=True):
            positions = where.get(key)
            item: int | Item
            if positions:
                item = view[positions.pop(0)]
                kept.append(item)
            else:
                item = response_item(entry, f"{cid}.{k + 1}", line, ts, metadata[k])
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
        new_view,
        new_keys,
        EntryIds(kept, id_of, made=made),
        EntryIds(folded, id_of, made=made),
        folded_at,
        note,
        unsent,
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


__all__ = [
    "EntryIds",
    "MadeItems",
    "Replayed",
    "history_metadata",
    "replay",
    "unmatched_metadata",
]
