"""A ``compacted`` line: the view the model continues from, and what it folded.

The writer copies the items it keeps into ``replacement_history`` as they were, so
each is matched to the earlier item with the same fingerprint (the first unused one)
and keeps that item's id; what it adds (a summary, an encrypted compaction item, a
changed developer message) becomes an item of its own, ``L<line>.<n>``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...model import Item
from ...parts import Part
from .items import fingerprint, message_key, response_item


@dataclass(slots=True)
class Replayed:
    view: list[int | Item]  # raw indexes (ids by ``id_of``) and items of its own
    keys: list[int]  # fingerprints, parallel to ``view``
    kept: list[str]  # ids of earlier items still seen
    folded: list[str]  # ids of earlier items replaced
    folded_at: list[int]  # where those are in the earlier view
    note: str  # what the raw view says of the line


def replay(
    view: list[int | Item],
    keys: Sequence[int],
    id_of: Callable[[int], str],
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
    kept: list[str] = []
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
                kept.append(ident(item))
            else:
                item = response_item(entry, f"{cid}.{k + 1}", line, ts)
            new_view.append(item)
            new_keys.append(key)
        note = f"replacement history: {len(history):,} items, {len(kept):,} kept"
    else:  # older writers: the summary alone stands for what came before
        summary = Item(f"{cid}.1", "user", [Part("text", message)], line, ts=ts)
        new_view.append(summary)
        new_keys.append(message_key("user", summary.parts))
        note = "no replacement history: the summary stands for what came before"
    keep = set(kept)
    folded: list[str] = []
    folded_at: list[int] = []
    for position, earlier in enumerate(view):
        name = earlier.id if isinstance(earlier, Item) else id_of(earlier)
        if name not in keep:
            folded.append(name)
            folded_at.append(position)
    return Replayed(new_view, new_keys, kept, folded, folded_at, note)


__all__ = ["Replayed", "replay"]
