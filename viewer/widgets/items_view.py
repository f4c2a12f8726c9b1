"""The model screen's conversation: ``Transcript.messages`` (replayed) or ``.raw`` (every
line), one block per item, folded to a few lines each until expanded.

A folded item is measured and drawn from its parts' heads (``Part.head``): a lazy part's
text stays in the file until the item is expanded, copied or searched.

A folded item's height comes from its parts alone (no text is laid out), so measuring
100,000s of items per update stays cheap; only the items on screen are drawn.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message

from session_core.column_items import Items, item_key, near_end
from session_core.fold import holds
from session_core.item_heights import FOLD_PARTS, folded_height
from session_core.model import (
    FOLDED,
    NOT_SENT_MARKS,
    Item,
    Part,
    ToolOp,
    Transcript,
    ops_by_call,
    projection_dropped,
)
from session_core.search import args_preview, item_search_text
from session_core.text import NEWLINE_MARK, copied, count
from session_core.vocabulary import kinds_of, readable_of
from session_core.vocabulary import shown_parts as readable_parts

from ..safe import one_line
from .block_view import BlockView
from .folding_lines import FoldingLines
from .item_filter import ItemFilter
from .item_parts import MAX_TEXT, PREVIEW_LINES, REUSED_ID, ItemParts
from .item_places import ItemPlaces
from .item_search import ItemSearch
from .item_text import (
    as_json,
    item_facts,
    parts_hold,
    shown_runs,
)
from .row_head_fit import fitted_head

ItemsMode = Literal["replayed", "raw"]
MAX_PARTS = FOLD_PARTS  # parts a folded item shows
GROWN_WHILE_LOADING = 10_000  # items a big file's cursor is looked for past its end's place
# Where a search's match is that an item's lines do not show: in words, and in short
HIDDEN_MATCH = {
    "folded": ("the match is in what is folded: enter shows it", "match folded: enter"),
    "original": ("the match is in the original: o shows it", "match in original: o"),
    "stub": ("the match is in the stub: o shows it", "match in stub: o"),
    "written": ("the match is in its text as written: r shows it", "match as written: r"),
    "readable": ("the match is in its readable words: r shows them", "match readable: r"),
}


class ItemsView(ItemFilter, ItemSearch, ItemPlaces, ItemParts):
    """One view of a transcript's conversation, with a cursor, search and jumps."""

    COMPONENT_CLASSES: ClassVar[set[str]] = BlockView.COMPONENT_CLASSES | {
        f"items--{name}"
        for name in (
            "user",
            "assistant",
            "system",
            "tool",
            "other",
            "record",
            "meta",
            "marks",
            "summary",
            "reasoning",
            "call",
            "ok",
            "bad",
            "warn",
            "info",
            "image",
            "dim",
        )
    }

    DEFAULT_CSS = """
    ItemsView {
        & > .items--user { color: $success; text-style: bold; }
        & > .items--assistant { color: $primary-lighten-2; text-style: bold; }
        & > .items--system { color: $secondary; text-style: bold; }
        & > .items--tool { color: $warning; text-style: bold; }
        & > .items--other { color: $foreground-muted; text-style: bold; }
        & > .items--record { color: $foreground-muted; }
        & > .items--meta { color: $foreground-muted; }
        & > .items--marks { color: $warning; text-style: italic; }
        & > .items--summary { color: $accent; text-style: bold; }
        & > .items--reasoning { color: $foreground-muted; text-style: italic; }
        & > .items--call { color: $warning; }
        & > .items--ok { color: $success; }
        & > .items--bad { color: $error; text-style: bold; }
        & > .items--warn { color: $warning; text-style: bold; }
        & > .items--info { color: $primary; text-style: bold; }
        & > .items--image { color: $secondary; text-style: italic; }
        & > .items--dim { color: $foreground-muted; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_fold", "Expand"),
        Binding("o", "toggle_original", "Original/stub", show=False),
        Binding("c", "copy", "Copy"),
        # (in the footer once searched, ahead of t / e: at 80 columns they would leave it)
        Binding("n", "next_match(1)", "Next match"),
        Binding("N", "next_match(-1)", "Previous match", show=False),
        Binding("t", "jump('call', 1)", "Next tool call"),
        Binding("T", "jump('call', -1)", "Previous tool call", show=False),
        Binding("e", "jump('error', 1)", "Next error"),
        Binding("E", "jump('error', -1)", "Previous error", show=False),
        Binding("x", "jump('compaction', 1)", "Next compaction", show=False),
        Binding("X", "jump('compaction', -1)", "Previous compaction", show=False),
    ]

    @dataclass
    class Said(Message):
        """Something to tell the user (a jump found nothing, ...)."""

        text: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stick_to_end = True  # the conversation opens at its end
        self.mode: ItemsMode = "replayed"
        self.transcript = Transcript(format="", path="")
        self.items: Sequence[Item] = []
        self.ops: Mapping[str, ToolOp] = {}
        self.kind_words = kinds_of("")  # (its format's: the shared ones until a file is shown)
        # In the raw view: each item a compaction folded, and the line of that compaction
        # (0: folded by an elision, or a compaction not from a line).
        self.folded_by: dict[str, int] = {}
        self.dropped_by: dict[str, int] = {}  # each item a projection dropped: its line
        self._folding = FoldingLines()  # (kept across snapshots: only new ones are read)
        self.expanded: set[str] = set()
        self.originals: set[str] = set()  # elided items shown as they were, not as their stub
        self.new_count = 0  # items appended since the view left the end (not seen yet)
        # The line the cursor was on when the file was read again from line 1 (``rebuilt``),
        # away from the end: gone back to once the file holds it again, forgotten once the
        # user moves the cursor or scrolls away from the end (``watch_cursor``, ``show``)
        self._back_to: int | None = None
        self._placing = False  # ``show`` moves the cursor (not the user)
        self._held_at_end = False  # a batch since the reset put the cursor at the end
        self._end_alone = False  # the transcript shown is a big file's end alone
        self._expanded_at: dict[str, int] = {}  # where each expanded item was last seen
        self._expanded_heights: dict[tuple[str, int], int] = {}

    # -- feeding ----------------------------------------------------------------------

    def show(
        self, transcript: Transcript, *, to_end: bool | None = None, end_alone: bool = False
    ) -> None:
        """A new snapshot of the transcript: redraw, keeping the cursor on its item
        (``end_alone``: it is a big file's end alone, the next the whole file)."""
        same_view = self.transcript.path == transcript.path and bool(self.transcript.format)
        before = len(self.items)
        last = self.block_key(before - 1) if before else None
        if self._back_to is not None and self._held_at_end and not self.follows_end:
            self._back_to = None  # (scrolled away from the end since: left where it is)
        if self._back_to is not None:
            to_end = True  # (till its line is read again: nothing re-read is new)
        self._placing = True
        try:
            self._show(transcript, before, last, to_end, end_alone, same_view)
        finally:
            self._placing = False
        self._held_at_end = self._back_to is not None

    def _show(
        self,
        transcript: Transcript,
        before: int,
        last: Hashable,
        to_end: bool | None,
        end_alone: bool,
        same_view: bool,
    ) -> None:
        away = not (self.follows_end if to_end is None else to_end)
        # (the cursor's item, named before the items change: taken after, it was the new
        # snapshot's item at the old index, another message where a compaction folded)
        keep = self._safe_key(self.cursor) if 0 <= self.cursor < before else None
        # (the whole after its end alone: the cursor's item, found by its place from the
        # end, is kept, not left for the end: a search's match was, "1/10" → "–/11")
        from_end = before - self.cursor if self._end_alone and not self.follows_end else 0
        was = self.items[self.cursor] if from_end and isinstance(keep, tuple) else None
        if transcript is not self.transcript:  # (not the same one in the other view)
            self._end_alone = end_alone
        self.transcript = transcript
        self.items = self._shown(transcript.raw if self.mode == "raw" else transcript.messages)
        near = None
        if was is not None and not self._end_alone:
            near = near_end(self.items, was, from_end, GROWN_WHILE_LOADING)
            keep, to_end = (item_key(self.items, near), False) if near >= 0 else (None, True)
            self._land_next = self._land_next or near < 0  # (lost: a search lands as asked)
        if self._back_to is not None:
            place = self._at_line(self._back_to)
            if place >= 0:  # (its line's item, read again)
                keep, to_end, near, self._back_to = item_key(self.items, place), False, place, None
                self.call_after_refresh(self.scroll_to_cursor)
        grown = len(self.items) - before
        self.new_count = self.new_count + max(0, grown) if away and same_view else 0
        self.ops = ops_by_call(transcript.tool_operations)
        self.kind_words = kinds_of(transcript.format)
        self.readable = readable_of(transcript.format)
        if not same_view:
            self._folding.clear()
        if self.mode == "raw":
            self.folded_by = self._folding.update(transcript.compactions)
            self.dropped_by = self._folding.dropped
        else:
            self.folded_by, self.dropped_by = {}, {}
        self._expanded_heights.clear()
        self.reload(keep_key=keep, to_end=to_end, near=near)
        # (no more than are below the cursor: a compaction shortens the replayed view)
        self.new_count = min(self.new_count, max(0, len(self.items) - 1 - self.cursor))
        if self.search_term:  # the matches are indexes into the new snapshot
            appended = same_view and grown >= 0 and before > 0
            self.search_again(appended and self.block_key(before - 1) == last, before)

    def rebuilt(self) -> None:
        """The file is read again from line 1 (a reset): nothing read again is new, and a
        cursor away from the end goes back to its line (``_at_line``) once the file holds
        it again, the end followed till then (``show``), unless the user moves the cursor
        or scrolls away from the end meanwhile (then it stays where they put it)."""
        self.new_count = 0
        if self._back_to is not None or self.follows_end or not self.items:
            return
        key = self._safe_key(max(self.cursor, 0))
        self._held_at_end = False  # (the cursor is away from the end now: not the user's doing)
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int) and key[1]:
            self._back_to = key[1]

    def _at_line(self, line: int) -> int:
        """The item of file line ``line``; -1 while the file is not read that far.

        The replayed view is not in line order (sticky messages, a compaction's summary
        before the messages it kept), so it is not the first item in view order at or
        after the line: the item whose line it is, else the one nearest after it in file
        order (a line that makes no item), else the nearest before it (the file holds the
        line, no item is at or after it: not waited for for good)."""
        count = len(self.items)
        # (a window of a big file's end says no lines read: its last item's then)
        read = (self.transcript.lines or item_key(self.items, count - 1)[1]) if count else 0
        if read < line:
            return -1  # (not read that far: no item looked at, once per batch)
        after = before = -1
        after_line, before_line = 0, -1
        for index in range(count):
            at = item_key(self.items, index)[1]
            if at == line:
                return index
            if at > line and (after < 0 or at < after_line):
                after, after_line = index, at
            elif line > at > before_line:
                before, before_line = index, at
        return after if after >= 0 else before

    def watch_cursor(self, old: int, new: int) -> None:
        if not self._placing:
            self._back_to = None  # (the user moved it: it stays where they put it)
        super().watch_cursor(old, new)

    def width_changed(self) -> None:
        placing, self._placing = self._placing, True  # (a resize is no move of the user's)
        try:
            super().width_changed()
        finally:
            self._placing = placing

    def set_mode(self, mode: ItemsMode) -> None:
        self.end_jump()  # (its items are others now)
        key = self._safe_key(self.cursor) if self.cursor >= 0 else None
        at_end = self.follows_end
        self.mode = mode
        self.originals.clear()  # (each view shows its own of the two first: ``original_shown``)
        self.show(self.transcript, to_end=at_end)
        self.new_count = 0
        if not at_end and key is not None:
            index = self._find_key(key, self.cursor)
            self.move_to(index)

    def block_count(self) -> int:
        return len(self.items)

    def block_key(self, index: int) -> Hashable:
        return item_key(self.items, index)

    def block_instead(self, key: Hashable, near: int, count: int) -> int:
        """An item gone from the view (a compaction folded it away): the first item at or
        after its line, the compaction's own where it is the next, not the view's end."""
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int):
            line = key[1]
            found = next((i for i in range(count) if item_key(self.items, i)[1] >= line), -1)
            if found >= 0:
                return found
        return super().block_instead(key, near, count)

    def block_heights(self, count: int, width: int) -> list[int] | None:
        """Folded heights as the model keeps them (no item built), the expanded measured."""
        items = self.items
        if not isinstance(items, Items):
            return None
        heights = items.folded_heights(None if self.mode == "raw" else self.readable)
        for ident in self.expanded:
            index = self._expanded_at.get(ident, -1)
            if not (0 <= index < count and items.key(index)[0] == ident):
                index = next((i for i in range(count) if items.key(i)[0] == ident), -1)
            if index >= 0:
                self._expanded_at[ident] = index
                heights[index] = self.block_height(index, width)
        return heights

    def block_marked(self, index: int) -> bool:
        item = self.items[index]
        # (the raw view's stub too: not sent as written; the conversation shows the stub)
        marked = (*NOT_SENT_MARKS, "elided") if self.mode == "raw" else NOT_SENT_MARKS
        return item.id in self.folded_by or any(m in item.marks for m in marked)

    @property
    def selected(self) -> Item | None:
        return self.items[self.cursor] if 0 <= self.cursor < len(self.items) else None

    # -- measuring ----------------------------------------------------------------------

    def moved(self) -> Message:
        if self.new_count:  # (no more than are below the cursor: none at the end)
            self.new_count = min(self.new_count, max(0, len(self.items) - 1 - self.cursor))
        return super().moved()

    def block_height(self, index: int, width: int) -> int:
        item = self.items[index]
        if item.id in self.expanded:
            key = (item.id, width)
            height = self._expanded_heights.get(key)
            if height is None:
                height = self._expanded_heights[key] = len(self.block_lines(index, width))
            return height
        return self._folded_height(item, self.shown_parts(item))

    def _folded_height(self, item: Item, parts: list[Part]) -> int:
        """An item's folded height: that of what is shown (a readable text's, ``/exit``:
        not its wrapper's), a stub in the height of what it stands for (which says ``o``)."""
        return folded_height(item.parts if item.stub is not None else parts)

    # -- drawing ----------------------------------------------------------------------

    def original_shown(self, item: Item) -> bool:
        """Whether an elided item is drawn as written: in the raw view (the file as it
        is), not in the replayed view (what is sent: its stub); ``o`` swaps the two."""
        return (item.id in self.originals) != (self.mode == "raw")

    def shown_parts(self, item: Item) -> list[Part]:
        """What the view shows of an item: its parts (a text its writer wrapped in its
        format's readable words, ``/exit``, but in the raw view: as written), or (elided)
        its stub in their place where the view shows what is sent (``original_shown``)."""
        if item.stub is None or self.original_shown(item):
            return item.parts if self.mode == "raw" else readable_parts(item, self.readable)
        first = item.parts[0] if item.parts else None
        if first is not None and first.kind == "tool-result":
            return [Part("tool-result", item.stub, call_id=first.call_id)]
        return [Part("text", item.stub)]

    def block_lines(self, index: int, width: int) -> list[Text]:
        item = self.items[index]
        lines = [self._header(item, width)]
        parts = self.shown_parts(item)
        if item.id in self.expanded:
            for part in parts:
                lines.extend(self._part_full(part, width, item))
            return lines
        for part in parts[:MAX_PARTS]:
            lines.extend(self._part_folded(part, width, item))
        if len(parts) > MAX_PARTS:
            more = len(parts) - MAX_PARTS
            lines.append(Text(f"  … {count(more, 'more part')} (enter shows all)", self._s("dim")))
        whole = True  # (every line drawn is shown)
        if parts is not item.parts:  # a stub, a readable text: in the height it was measured
            height = self._folded_height(item, parts)
            whole = len(lines) <= height
            cut = len(lines) > height > 1  # (taller than its text as written: the rest said)
            lines = lines[:height] + [Text("", end="")] * (height - len(lines))
            stub = item.stub is not None
            if stub and height > 2 and len(lines) == height and not lines[-1].plain:
                lines[-1] = Text("  (o: the original)", self._s("dim"))
            elif cut and not lines[-1].plain.endswith("…"):
                lines[-1].truncate(max(1, width - 2), overflow="ellipsis")
                lines[-1].append(" …", self._s("dim"))
        needle = self.highlight  # (a search found it, and no match could be seen)
        shown = parts[:MAX_PARTS] if whole else []
        if needle and self.is_match(index) and not _match_shown(lines, shown, width, needle):
            hidden = self._hidden_match(item, needle)
            if hidden:
                lines[0] = self._header(item, width, hidden_match=hidden)
        return lines

    def _hidden_match(self, item: Item, needle: str) -> tuple[str, str] | None:
        """Where a match its lines do not show is, and the key that shows it, in words and
        in short (None: in nothing drawn, such as its kind, ``message``, or a call's id)."""
        shown = self.shown_parts(item)
        if parts_hold(shown, needle):
            return HIDDEN_MATCH["folded"]
        if shown is not item.parts and parts_hold(item.parts, needle):
            return HIDDEN_MATCH["original" if item.stub is not None else "written"]
        if item.stub is not None and shown is item.parts and holds(item.stub, needle):
            return HIDDEN_MATCH["stub"]
        said = self.readable(item) if self.mode == "raw" else None
        if said is not None and holds(said, needle):  # (the replayed view shows them)
            return HIDDEN_MATCH["readable"]
        return None

    def _header(
        self, item: Item, width: int, *, hidden_match: tuple[str, str] | None = None
    ) -> Text:
        """The item's first line: its role, kind, marks and facts; ``hidden_match``: where
        the search's term is, that its lines do not show (the cursor went to an item where
        no match could be seen), said in full after the role where the line's number still
        fits, else in short with the number right after it (at 60 columns it pushed the
        number off)."""
        role_style = item.role if item.role in ("user", "assistant", "system", "tool") else "other"
        if item.kind in self.kind_words.compaction:
            role_style = "summary"
        text = Text(no_wrap=True, end="")
        marker = "▾ " if item.id in self.expanded else "▸ "
        text.append(marker, self._s("dim"))
        text.append(one_line(item.role or "?", 20), self._s(role_style))
        said = self._kind_and_marks(item)
        facts = item_facts(item)
        if hidden_match:
            full, short = hidden_match
            note = f"  ‹{full}›"
            upto = text.cell_len + len(note) + sum(cell_len(words) for words, _ in said)
            if upto + (2 + cell_len(facts[0]) if facts else 0) <= width:
                said.insert(0, (note, "marks"))
            else:
                first = [(f"  ‹{short}›", "marks")]
                if facts:
                    first.append((f"  {facts.pop(0)}", "dim"))
                said[:0] = first
        # (the time, then the model, then the usage go whole before a number is cut)
        least = [one_line(v, n) for v, n in ((item.ts, 30), (item.model, 40)) if v]
        kept = facts[:1] if facts and facts[0] == item_facts(item)[0] else []
        least += [fact for fact in reversed(facts) if fact not in kept]
        said, facts = fitted_head(text.cell_len, said, facts, least, width)
        for words, style in said:
            text.append(words, self._s(style))
        text.append("  " + " · ".join(facts) if facts else "", self._s("dim"))
        text.truncate(width, overflow="ellipsis")
        return text

    def _kind_and_marks(self, item: Item) -> list[tuple[str, str]]:
        """What an item's first line says after its role: its kind and marks (words and the
        name of their style)."""
        said: list[tuple[str, str]] = []
        if item.kind in self.kind_words.compaction:
            said.append(("  ◆ compaction summary", "summary"))
        elif item.kind not in ("message", item.role):
            said.append((f"  {one_line(item.kind, 30)}", "meta"))
        marks = list(item.marks)
        if item.stub is not None and "elided" in marks and item.id in self.originals:
            # (which of the two is on screen, where ``o`` swapped the view's own)
            shown = "original" if self.original_shown(item) else "stub"
            marks[marks.index("elided")] = f"elided: {shown} shown"
        by = self.folded_by.get(item.id)
        dropped = self.dropped_by.get(item.id)
        # (sticky: context a compaction keeps; not said of one not sent next, as a Codex
        # instruction a compaction's replacement history does not hold, which it folded)
        not_sent = by is not None or bool(dropped) or any(m in marks for m in NOT_SENT_MARKS)
        if item.sticky and "sticky" not in marks and not not_sent:
            marks.append("sticky")
        if dropped and not by and FOLDED in marks:  # (not sent next: which projection's)
            marks[marks.index(FOLDED)] = projection_dropped(f"line {dropped:,}")
        # (an item whose own mark says why it is not sent, rolled back, keeps it alone)
        elif by is not None and not any(m in marks for m in NOT_SENT_MARKS if m != FOLDED):
            if by:  # which compaction folded it: its summary is that line's item
                marks = [mark for mark in marks if mark != FOLDED]
                marks.append(f"folded by the compaction at line {by:,}")
            elif FOLDED not in marks:
                marks.append(FOLDED)  # (a compaction not from a line folded it)
        if marks:
            said.append((f"  [{one_line(', '.join(marks), 60)}]", "marks"))
        return said

    # -- actions ------------------------------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        # A double click expands or folds the item, as ``enter`` does: once the base's
        # handler (called after this one) has put the cursor on it.
        if event.chain == 2 and event.get_content_offset(self) is not None:
            self.call_later(self.action_toggle_fold)

    def action_toggle_fold(self) -> None:
        item = self.selected
        if item is None:
            return
        self.expanded.symmetric_difference_update({item.id})
        self._expanded_at[item.id] = self.cursor
        self.remeasure(self.cursor)
        self.scroll_to_cursor()

    def action_toggle_original(self) -> None:
        item = self.selected
        if item is None or item.stub is None:
            self.post_message(self.Said("Not an elided message: it has no stub to swap (o)."))
            return
        self.originals.symmetric_difference_update({item.id})
        for key in [key for key in self._expanded_heights if key[0] == item.id]:
            del self._expanded_heights[key]
        self.remeasure(self.cursor)
        self.scroll_to_cursor()

    def selected_text(self) -> str | None:
        item = self.selected
        if item is None:
            return None
        parts = self.shown_parts(item)
        return "\n\n".join(part.text or args_preview(part.data) for part in parts) or item.kind

    def action_copy(self) -> None:
        text = self.selected_text()
        if text is None:
            return
        text = copied(text)  # (inert, as every copy is)
        self.app.copy_to_clipboard(text)
        self.app.notify(f"Copied {count(len(text), 'character')} to the clipboard.")

    def say(self, text: str) -> None:
        self.post_message(self.Said(text))


def _match_shown(lines: list[Text], parts: list[Part], width: int, needle: str) -> bool:
    """Do the lines drawn show ``needle``: one of them, or (a term of a line's end
    ``⏎``, ``/␍⏎``) the lines one after another, as the screen shows them, or a text
    part's lines drawn whole (``parts``: those shown, every line of them on screen), as
    written: the term running on past a line's end (``first␍⏎sec``), a tab in it drawn
    as spaces (``a␉b``), as the search found it there?"""
    if any(holds(line.plain, needle) for line in lines):
        return True
    if NEWLINE_MARK in needle and holds("\n".join(line.plain for line in lines), needle):
        return True
    room = max(10, width - 4)  # (as ``_part_folded`` draws a text's lines)
    runs = (run for part in parts for run in shown_runs(part, room, PREVIEW_LINES))
    return any(holds(run, needle) for run in runs)


__all__ = [
    "MAX_TEXT",
    "PREVIEW_LINES",
    "REUSED_ID",
    "ItemsView",
    "args_preview",
    "as_json",
    "item_search_text",
]
