"""The replayed view rewritten (``CodexRewrites``): a ``compacted`` line replaces it with
what the model continues from (``compaction``), a ``thread_rolled_back`` event drops its
newest user turns (``user_turns``); each is a compaction of the model, and a raw item."""

from __future__ import annotations

from array import array
from typing import Any

from ...item_column import FOLDED_MARK
from ...model import ROLLBACK, ROLLED_BACK, Compaction, Item
from ...parts import Part
from ...text import str_or_none
from .compaction import EntryIds, replay, unmatched_metadata
from .responses import CodexResponses
from .user_turns import Entry, Shape, View, rollback_cut


class CodexRewrites(CodexResponses):
    def _compacted(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        cid = f"L{line}"
        raw = self.raw
        made_items = self.made_items
        replayed = replay(
            self.view, self.view_keys, raw.id_of, self._shape(), payload, cid, line, ts, made_items
        )
        view = self.view
        for position in replayed.folded_at:
            entry = view[position]
            if isinstance(entry, Item):
                if "folded" not in entry.marks:
                    entry.marks.append("folded")
            else:
                raw.flag(entry, FOLDED_MARK)
        self.view, self.view_keys = View.of(replayed.view), array("q", replayed.keys)
        unmatched = unmatched_metadata(payload, line)
        if unmatched is not None:  # (said, not refused: the line is read on)
            self.warnings.append(unmatched)
        message = str_or_none(payload.get("message")) or ""
        parts = [Part("text", message)] if message else []
        parts.append(Part("other", replayed.note, name="compacted"))
        # What its history holds that no earlier line does (a developer message it made,
        # say), so the raw view holds the line's every word as written
        history = payload.get("replacement_history")
        written = isinstance(history, list)  # (else made here)
        for kept in history if isinstance(history, list) else ():
            if isinstance(kept, dict) and isinstance(call_id := kept.get("call_id"), str):
                self.compacted_calls.add(call_id)
        made = [e for e in replayed.view if isinstance(e, Item) and e.id.startswith(cid + ".")]
        # (a later rewrite folds them: its rows say them, read again from this line)
        source = self.part_source if written and self.rereadable() else None
        made_items.add(line, made, None if source is None else (source, self.span))
        # (each in the order written: one with no text, an encrypted compaction item or a
        # tools list, by what it says; one not sent, by what its record row says)
        unsent = {entry.id for entry in replayed.unsent}
        for entry in sorted([*made, *replayed.unsent], key=_place) if written else ():
            said = "\n".join(part.text for part in entry.parts if part.text)
            if not said:  # (an encrypted reasoning, say: its kind, what it is)
                said = f"({entry.parts[0].kind if entry.parts else 'empty'}, no text)"
            if said != message:
                role = "not sent" if entry.id in unsent else entry.role
                parts.append(Part("other", said, name=f"replacement item {_place(entry)} ({role})"))
        self._add(parts, line, "system", "compaction", ts, keep=True)
        compaction = Compaction(
            id=cid,
            kind="compaction",
            line=line,
            summary=message,
            folded=replayed.folded,
            kept=replayed.kept,
            tokens_before=self.context_tokens,
            ts=ts,
        )
        self.compactions.append(compaction)
        # Its after is the next request's context; the last one's context is no later
        # rewrite's before (a second compaction with no request between: unknown).
        self.awaiting_after, self.context_tokens = compaction, None

    def _shape(self) -> Shape:
        raw = self.raw

        def role(entry: Entry) -> str:
            return entry.role if isinstance(entry, Item) else raw.role_of(entry)

        def parts(entry: Entry) -> list[Part]:
            return entry.parts if isinstance(entry, Item) else raw.parts_of(entry)

        return Shape(role, parts)

    def _rolled_back(self, payload: dict[str, Any], line: int, ts: str | None) -> None:
        """``thread_rolled_back``: the newest ``num_turns`` user turns are no longer sent
        (they stay in the raw view, marked; their runs, calls and usage happened)."""
        turns = payload.get("num_turns")
        turns = turns if isinstance(turns, int) and not isinstance(turns, bool) else 0
        raw, view = self.raw, self.view
        cut = rollback_cut(view, self._shape(), turns)
        dropped = view[cut:]
        for entry in dropped:
            if isinstance(entry, Item):
                entry.marks.append(ROLLED_BACK)
            else:
                raw.set_marks(entry, [*raw.marks.get(entry, ()), ROLLED_BACK])
        self.view, self.view_keys = view.head(cut), self.view_keys[:cut]
        note = (
            f"thread rolled back {turns:,} user turn{'' if turns == 1 else 's'}: "
            f"{len(dropped):,} items no longer sent"
        )
        self._add(
            [Part("other", note, name="thread_rolled_back")], line, "system", "event", ts, keep=True
        )
        self.compactions.append(
            Compaction(
                id=f"L{line}",
                kind="compaction",
                line=line,
                folded=EntryIds(dropped, raw.id_of, items=True),  # (their rows say them)
                trigger=ROLLBACK,
                tokens_before=self.context_tokens,
                ts=ts,
            )
        )
        # (the next request's context is after this, not after a compaction before it)
        self.awaiting_after = self.context_tokens = None


def _place(item: Item) -> int:
    """A replacement history's item's place in it (its id: ``L<line>.<place>``)."""
    return int(item.id.rsplit(".", 1)[1])


__all__ = ["CodexRewrites"]
