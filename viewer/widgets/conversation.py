"""The conversation pane: a Line API view that renders only the rows on screen."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events, work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.worker import get_current_worker

from session_core.replay import ReplayState
from session_core.text import count

from ..heights import HeightIndex
from ..rows import Mode, Row, RowRenderer, build_rows, replayed_rows
from .line_list import LineList, highlight, jump_failed

SEARCH_IN_PLACE = 5_000  # rows searched on the UI thread; more are searched in a worker

STYLE_NAMES = (
    "system",
    "user",
    "assistant",
    "tool",
    "other",
    "summary",
    "meta",
    "flag",
    "error",
    "usage",
    "folded",
    "elided",
    "body",
    "body-error",
    "reasoning",
    "call",
    "ok",
    "warn",
    "running",
    "compaction",
    "compaction-text",
    "elision",
    "event",
    "cursor",
    "match",
    "band",
)


class ConversationView(LineList):
    """Messages of one view (replayed or raw), folded by default, over a replay state."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"conversation--{n}" for n in STYLE_NAMES}

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "toggle_fold", "Expand"),
        Binding("o", "toggle_original", "Original/stub", show=False),
        Binding("c", "copy", "Copy", show=False),
        Binding("t", "jump('call', 1)", "Tool call"),
        Binding("T", "jump('call', -1)", "Prev tool call", show=False),
        Binding("e", "jump('error', 1)", "Error"),
        Binding("E", "jump('error', -1)", "Prev error", show=False),
        Binding("x", "jump('compaction', 1)", "Next compaction", show=False),
        Binding("X", "jump('compaction', -1)", "Prev compaction", show=False),
        Binding("n", "next_match(1)", "Next match", show=False),
        Binding("N", "next_match(-1)", "Prev match", show=False),
    ]

    new_count: reactive[int] = reactive(0)

    @dataclass
    class Changed(Message):
        """The cursor, the row count, the unseen count or the matches changed."""

        view: ConversationView

    @dataclass
    class Searched(Message):
        """A search that went on in a worker ended."""

        view: ConversationView
        term: str
        count: int

    @dataclass
    class JumpFailed(Message):
        what: str

    def __init__(self, mode: Mode, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.mode: Mode = mode
        self.renderer = RowRenderer(ReplayState(), self._style, mode)
        self.rows: list[Row] = []
        self.heights: HeightIndex = HeightIndex()
        self.expanded: set[str] = set()
        self.originals: set[str] = set()
        self.roles: frozenset[str] | None = None
        self.types: frozenset[str] | None = None
        self.search_term = ""
        self.searching: float | None = None  # how far a search in a worker is (0 to 1)
        self._search_generation = 0
        self._events_seen = 0
        self._entries_seen = 0
        self._elisions_seen = 0
        self._compactions_seen = 0
        self.stick_to_end = True

    # -- styles ---------------------------------------------------------------

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"conversation--{name}", default=Style())

    def moved(self) -> Message:
        return self.Changed(self)

    # -- feeding ----------------------------------------------------------------

    def set_state(self, state: ReplayState, *, stick: bool = True) -> None:
        """Show a new state (a new file, a reset, another mode): everything is rebuilt.

        ``stick``: follow the end (the default); False leaves the cursor to the caller.
        """
        if state is self.renderer.state:
            self.renderer.mode = self.mode  # the same replay in another mode: keep its indexes
        else:
            live = self.renderer.live
            self.renderer = RowRenderer(state, self._style, self.mode)
            self.renderer.live = live
        self.expanded.clear()
        self.originals.clear()
        self._events_seen = 0
        self._entries_seen = 0
        self._elisions_seen = 0
        self._compactions_seen = 0
        self.rows = []
        self.heights = HeightIndex()
        self.cursor = -1
        self.new_count = 0
        self.stick_to_end = stick
        self.refresh_rows()

    def set_live(self, live: bool) -> None:
        if self.renderer.live != live:
            self.renderer.live = live
            self._cache.clear()
            self.refresh()

    def set_filter(self, roles: frozenset[str] | None, types: frozenset[str] | None) -> None:
        self.roles, self.types = roles, types
        self._rebuild()

    def _rebuild(self) -> None:
        keep = self.rows[self.cursor].id if 0 <= self.cursor < len(self.rows) else None
        at_end = self.follows_end
        self.renderer.index_new()
        state = self.renderer.state
        self.rows = build_rows(self.renderer, 0, self.roles, self.types)
        self._events_seen = len(state.events)
        self._entries_seen = len(state.entries)
        self._elisions_seen = len(state.elisions)
        self._compactions_seen = len(state.compactions)
        width = self.content_width
        self.heights = HeightIndex([self._height(row, width) for row in self.rows])
        self._cache.clear()
        self._research()
        self.update_size()
        # Scrolling waits for the layout: until then the new height cannot be scrolled.
        if at_end:
            self.cursor = len(self.rows) - 1
            self.call_after_refresh(self.scroll_to_end)
        elif keep is not None and (found := self._rows_of({keep})):
            self.cursor = found[keep]
            self.call_after_refresh(self.scroll_to_cursor)
        self.post_message(self.Changed(self))

    def refresh_rows(self) -> None:
        """Catch up with the state after an update (appends only, or a rebuild)."""
        renderer = self.renderer
        state = renderer.state
        if self.mode == "replayed" and (
            len(state.compactions) != self._compactions_seen
            or len(state.elisions) != self._elisions_seen
            or len(state.entries) < self._entries_seen
        ):
            self._rebuild()
            return
        at_end = self.follows_end
        renderer.index_new()
        before = len(self.rows)
        elisions_before = self._elisions_seen
        if self.mode == "replayed":
            new_rows = replayed_rows(renderer, state.entries[self._entries_seen :], self.roles)
        else:
            new_rows = build_rows(renderer, self._events_seen, self.roles, self.types)
            self._restyle_touched(state)
        self._events_seen = len(state.events)
        self._entries_seen = len(state.entries)
        width = self.content_width
        for row in new_rows:
            self.rows.append(row)
            self.heights.append(self._height(row, width))
        self._cache.clear()
        added = len(self.rows) - before
        if self.search_term and self._elisions_seen != elisions_before:
            self._research()  # a stub is searched with the row it stubs: look again at all
        elif added and self.search_term:
            self._research(before)  # only the new rows: never every line on every append
        self.update_size()
        if added:
            if at_end:
                self.new_count = 0
                self.cursor = len(self.rows) - 1
                self.call_after_refresh(self.scroll_to_end)
            else:
                self.new_count += added
        self.refresh()
        self.post_message(self.Changed(self))

    def _restyle_touched(self, state: ReplayState) -> None:
        """Raw view: rows an elision or a compaction touched gain an overlay line."""
        touched: list[str] = []
        for record in state.elisions[self._elisions_seen :]:
            touched.append(record.message_id)
        for compaction in state.compactions[self._compactions_seen :]:
            touched.extend(compaction.folded)
        self._elisions_seen = len(state.elisions)
        self._compactions_seen = len(state.compactions)
        for index in self._rows_of(set(touched)).values():
            self.heights.set(index, self._height(self.rows[index]))

    def _height(self, row: Row, width: int | None = None) -> int:
        """``width``: the content width, when the caller measures many rows at once."""
        return self.renderer.height(
            row,
            row.id in self.expanded,
            row.id in self.originals,
            self.content_width if width is None else width,
        )

    # -- geometry -----------------------------------------------------------------

    def width_changed(self) -> None:
        for index in self._rows_of(self.expanded).values():
            self.heights.set(index, self._height(self.rows[index]))

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        if self.new_count and self.is_at_end:
            self.new_count = 0
            self.post_message(self.Changed(self))

    def _rows_of(self, ids: Collection[str]) -> dict[str, int]:
        """Where the rows of these ids are (the last, for an id shown twice). A scan: the
        few lookups an action or an overlay needs do not pay for an index of every row
        (a raw view of a big file has 100,000s)."""
        if not ids:
            return {}
        return {row.id: index for index, row in enumerate(self.rows) if row.id in ids}

    def move_to_id(self, message_id: str) -> bool:
        index = self._rows_of({message_id}).get(message_id)
        if index is None:
            return False
        self.move_to(index)
        return True

    # -- rendering ------------------------------------------------------------------

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        row = self.rows[index]
        lines = self.renderer.lines(row, row.id in self.expanded, row.id in self.originals, width)
        gutter_style = self._style("cursor") if selected else self._style("band")
        folded = self.mode == "raw" and row.id in self.renderer.state.folded_by
        mark = "▌" if selected else ("┃" if folded else " ")
        term = self.search_term.lower()
        match_style = self._style("match")
        out = []
        for line in lines:
            if term:
                highlight(line, term, match_style)
            out.append(Text(mark, style=gutter_style if (selected or folded) else Style()) + line)
        return out

    # -- actions --------------------------------------------------------------------

    def _toggle(self, bucket: set[str]) -> None:
        if not 0 <= self.cursor < len(self.rows):
            return
        row = self.rows[self.cursor]
        bucket.symmetric_difference_update({row.id})
        self.heights.set(self.cursor, self._height(row))
        self.remeasured(self.cursor)

    def action_toggle_fold(self) -> None:
        self._toggle(self.expanded)

    def action_toggle_original(self) -> None:
        if 0 <= self.cursor < len(self.rows) and self.rows[self.cursor].id in (
            self.renderer.state.elided
        ):
            self._toggle(self.originals)
        else:
            self.post_message(self.JumpFailed("this message was not elided"))

    def selected_text(self) -> str | None:
        if not 0 <= self.cursor < len(self.rows):
            return None
        row = self.rows[self.cursor]
        if row.kind in ("message", "summary"):
            return self.renderer.displayed_content(row, row.id in self.originals)
        return self.renderer.search_text(row)

    def action_copy(self) -> None:
        text = self.selected_text()
        if text is None:
            return
        self.app.copy_to_clipboard(text)
        self.app.notify(f"Copied {count(len(text), 'character')} to the clipboard.")

    def _is(self, what: str, row: Row) -> bool:
        """Whether ``row`` is what a jump looks for: from the facts replay kept, so a jump
        across a big file reads no line."""
        if what == "compaction":
            return row.kind in ("compaction", "summary")
        facts, at = self.renderer.state.events.facts, row.event
        if row.kind != "message" or not facts.is_message(at):
            return False
        if what == "call":
            return facts.call_count(at) > 0 or facts.answers(at) is not None
        if what == "error":
            if facts.error(at):
                return True
            for cid, _name in facts.calls(at):
                op = self.renderer.op_for_call(cid)
                if op is not None and op.get("outcome") in ("failed", "outcome-unknown"):
                    return True
        return False

    def action_jump(self, what: str, direction: int) -> None:
        rows = self.rows
        if not self.jump(lambda index: self._is(what, rows[index]), direction):
            self.post_message(self.JumpFailed(jump_failed(what, direction)))

    # -- search -----------------------------------------------------------------

    def search(self, term: str) -> int | None:
        """Look for ``term`` in every row; the number of matches, or None when the rows
        are many and the search goes on in a worker (``Searched`` says when it ends)."""
        self.search_term = term
        self._research()
        self._cache.clear()
        self.refresh()
        if self.searching is not None:
            self.post_message(self.Changed(self))
            return None
        self._show_first_match()
        return len(self.matches)

    def _show_first_match(self) -> None:
        self.first_match()
        self.post_message(self.Changed(self))

    def _research(self, start: int = 0) -> None:
        """Find the search term in the rows from ``start`` on (0: in all of them): here
        when they are few, else in a worker (each row's line is read to search it)."""
        if start == 0:
            self._search_generation += 1  # a new search: what a running worker finds is stale
            self.searching = None
        term = self.search_term.lower()
        if not term:
            self.matches, self.match_pos = [], -1
            return
        if start == 0 and len(self.rows) > SEARCH_IN_PLACE:
            self.matches, self.match_pos = [], -1
            self.searching = 0.0
            self._search_rows(term, list(self.rows), self._search_generation)
            return
        # (While a worker searches the rows it was given, rows appended since are searched
        # here, and kept when its result comes.)
        search_text, rows = self.renderer.search_text, self.rows
        found = [i for i in range(start, len(rows)) if term in search_text(rows[i]).lower()]
        if start:
            self.matches.extend(found)
        else:
            self.matches = found
        if self.match_pos >= len(self.matches):
            self.match_pos = len(self.matches) - 1

    @work(thread=True, exclusive=True, group="search")
    def _search_rows(self, term: str, rows: list[Row], generation: int) -> None:
        """In a worker: which of ``rows`` hold ``term``. Lines are read without the shared
        cache (``RowRenderer.search_text(fresh=True)``): the UI thread draws meanwhile."""
        worker = get_current_worker()
        search_text = self.renderer.search_text
        found: list[int] = []
        step = max(1, len(rows) // 50)
        for index, row in enumerate(rows):
            if worker.is_cancelled or generation != self._search_generation:
                return
            if term in search_text(row, fresh=True).lower():
                found.append(index)
            if index % step == 0:
                self.app.call_from_thread(self._search_progress, generation, index / len(rows))
        self.app.call_from_thread(self._search_done, generation, found, len(rows))

    def _search_progress(self, generation: int, done: float) -> None:
        if generation == self._search_generation and self.searching is not None:
            self.searching = done
            self.post_message(self.Changed(self))

    def _search_done(self, generation: int, found: list[int], searched: int) -> None:
        if generation != self._search_generation:
            return
        # Matches in rows appended while the worker ran were found here already.
        self.matches = found + [m for m in self.matches if m >= searched]
        self.searching = None
        self._cache.clear()
        self.refresh()
        self._show_first_match()
        self.post_message(self.Searched(self, self.search_term, len(self.matches)))

    def action_next_match(self, direction: int) -> None:
        if self.step_match(direction):
            self.post_message(self.Changed(self))
        else:
            self.post_message(self.JumpFailed("No matches (/ searches)."))

    # -- mouse ------------------------------------------------------------------------

    def on_click(self, event: events.Click) -> None:
        # A double click on the cursor's row expands it (the base's handler, called after
        # this one, moves the cursor).
        offset = event.get_content_offset(self)
        if event.chain < 2 or offset is None or not self.rows:
            return
        y = int(self.scroll_y) + offset.y
        if y < self.heights.total and self.item_at(y) == self.cursor:
            self.action_toggle_fold()


__all__ = ["ConversationView"]
