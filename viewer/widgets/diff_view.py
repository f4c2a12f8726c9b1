"""Raw versus replayed side by side, one fixed-height block per message line.

The rows are ``DiffRows``: indexed from the replay's columns when the view is
shown, each built (its texts read) only when drawn, or when a search (``/``: the words
a row says, its texts whole) looks at it.
"""

from __future__ import annotations

import bisect
import contextlib
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer

from session_core.diff import DiffRow, DiffRows
from session_core.fold import fold, holds
from session_core.replay import ReplayState
from session_core.search import TextSearch
from session_core.text import count, count_text, searched_apart

from ..heights import Uniform
from ..safe import clip_whole_numbers, one_line
from .line_list import highlight
from .row_search import FURTHER_ON, MATCH_STEPS, RowSearch

ROW_HEIGHT = 3
_PREVIOUS = "Previous difference (p / N too until / searches this tab)"


class DiffView(RowSearch):
    """What the file says (left) beside what the model is sent next (right), searched
    (``/``: a row's words, ``row_text``)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff--kept",
        "diff--elided",
        "diff--folded",
        "diff--summary",
        "diff--meta",
        "diff--cursor",
        "diff--gone",
        "diff--match",
    }
    # n / N (and p) step through the differences until the tab is searched, then through
    # its matches, as on every tab; ] / [ step through the differences always
    BINDINGS: ClassVar[list[BindingType]] = [
        *MATCH_STEPS,
        Binding(
            "right_square_bracket,n",
            "step(1)",
            "Next difference",
            tooltip="Next difference (n too until / searches this tab)",
        ),
        Binding("left_square_bracket,p", "step(-1)", "Prev difference", tooltip=_PREVIOUS),
        Binding("N", "step(-1)", "Prev difference", show=False, tooltip=_PREVIOUS),  # (the
        # footer says p, as it did)
        Binding("a", "toggle_changed", "Changed only / all"),
        Binding("enter,m", "show_line", "In the raw view"),
    ]
    NOT_FOUND = "No row matches: / searches the diff."

    changed_only: reactive[bool] = reactive(False)

    @dataclass
    class Stepped(Message):
        """``n``/``p`` found a difference (or none): what to tell the user."""

        text: str

    @dataclass
    class ShowLine(Message):
        """Enter on a row: its line, in the conversation's raw view."""

        line: int

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.all_rows = DiffRows(ReplayState())
        self.order: Sequence[int] = range(0)  # the rows shown: all, or the changed ones
        self._stale = True
        self.state: ReplayState | None = None
        self._pending: Timer | None = None
        self.heights: Uniform = Uniform(0, ROW_HEIGHT)
        # The reader's lock, held while a search reads the rows: the replay state they
        # read is the one the file's reader changes (``V1Panes`` gives it)
        self.state_lock: threading.RLock | None = None

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"diff--{name}", default=Style())

    def set_state(self, state: ReplayState) -> None:
        self.state = state
        self.mark_stale()

    def mark_stale(self) -> None:
        """The state moved on. Diff rows are a whole-file pass: rebuild only when shown,
        and at most a few times a second however fast the file grows."""
        self._stale = True
        if self._pending is None and self.is_on_screen:
            self._pending = self.set_timer(0.3, self._rebuild_if_stale)

    def _rebuild_if_stale(self) -> None:
        self._pending = None
        if self._stale and self.is_on_screen:
            self.rebuild()

    def rebuild(self) -> None:
        if self.state is None:
            return
        self.all_rows = DiffRows(self.state)
        self._stale = False
        self._apply_filter()

    def on_show(self) -> None:
        if self._stale:
            self.rebuild()

    @property
    def summary_line(self) -> dict[str, int]:
        return self.all_rows.summary_lines

    def _apply_filter(self) -> None:
        rows = self.all_rows
        old = self.order
        was = old[self.cursor] if 0 <= self.cursor < len(old) else -1  # the row, not its place
        self.order = rows.changed() if self.changed_only else range(len(rows))
        self.heights.count = len(self.order)
        self.update_size()
        self.invalidate()
        if was >= 0 and self.order:  # on that row still, else the first shown after it
            at = bisect.bisect_left(self.order, was)
            self.cursor = min(at, len(self.order) - 1)
        else:
            self.cursor = min(max(self.cursor, 0), len(self.order) - 1)
        self.search_again()  # (other rows, or the same in other places)

    # -- searching (``RowSearch``) ------------------------------------------------------

    def search_source(self) -> DiffRows:
        return self.all_rows

    def search_keys(self, start: int, end: int) -> Sequence[int]:
        return self.order[start:end]

    def finder(self, term: str) -> TextSearch:
        return TextSearch(
            term, lambda rows, index: row_text(rows[index], rows.summary_lines), apart=True
        )

    def search_lock(self) -> contextlib.AbstractContextManager[object]:
        lock = self.state_lock
        return contextlib.nullcontext() if lock is None else lock

    def watch_changed_only(self) -> None:
        self._apply_filter()

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        row = self.all_rows[self.order[index]]
        lines = [self._line(row, offset, width, selected) for offset in range(ROW_HEIGHT)]
        term = fold(self.search_term)
        if term:
            match = self._style("match")
            for line in lines:
                highlight(line, term, match)
            if self.is_match(index) and not any(holds(line.plain, term) for line in lines):
                # (a row shows the start of each text: the match is further on)
                lines[-1] = Text(f"   {FURTHER_ON}", self._style("meta"))
                lines[-1].truncate(width, overflow="ellipsis")
        return lines

    def _line(self, row: DiffRow, offset: int, width: int, selected: bool) -> Text:
        kind_style = self._style(row.kind)
        meta = self._style("meta")
        gutter = Text("▌" if selected else " ", self._style("cursor"))
        if offset == 0:
            text = gutter + Text(f"{row.mark} line {row.line} ", kind_style)
            text.append(f"{one_line(row.role, 12)} ", meta)
            fate = clip_whole_numbers(row_fate(row, self.summary_line), width - text.cell_len)
            text.append(fate, meta)
            text.truncate(width, overflow="ellipsis")
            return text
        if offset == 1:  # (the gutter, two cells, the columns and " │ ": the width)
            half = (width - 6) // 2
            rest = width - 6 - half
            left = Text(
                one_line(row.raw, half), self._style("kept" if row.kind == "kept" else row.kind)
            )
            left.pad_right(half - left.cell_len)
            if row.sent is None:
                said = not_sent_in(row, self.summary_line, rest)
                right = Text(said, self._style("gone"))
            else:
                right = Text(one_line(row.sent, rest), self._style("kept"))
            return gutter + Text("  ") + left + Text(" │ ", meta) + right
        return Text("")

    def action_step(self, direction: int) -> None:
        rows, order = self.all_rows, self.order
        if not self.jump(lambda index: rows.kind(order[index]) != "kept", direction):
            self.post_message(self.Stepped("no more differences in that direction"))
            return
        at = order[self.cursor]
        row, changed = rows[at], rows.changed()
        # (which of the file's differences: "(21 changes)" after "line 6" read as its own)
        which = f"difference {bisect.bisect_left(changed, at) + 1} of {len(changed)}"
        self.post_message(self.Stepped(f"{which}: line {row.line}, {row.kind}"))

    def action_show_line(self) -> None:
        if 0 <= self.cursor < len(self.order):
            self.post_message(self.ShowLine(self.all_rows[self.order[self.cursor]].line))

    def action_toggle_changed(self) -> None:
        self.changed_only = not self.changed_only

    def empty_note(self) -> str | None:
        rows = len(self.all_rows)
        if self.changed_only and rows:  # (``a`` left none: the tab was blank)
            every = count(rows, "message line")
            return f"No differences: {every}, each sent as written. a shows them."
        return None


def row_fate(row: DiffRow, summary_lines: Mapping[str, int]) -> str:
    """What a row's first line says of its fate, after its mark, line and role."""
    folded_at = _folded_at(row, summary_lines)
    c = row.compaction
    if c is not None:  # (a summary: sent, stubbed or folded, it says so first)
        facts = (  # (its counts as ``diff`` says them: ``?`` left out, ``null`` written)
            f"folded {len(c.folded)}, kept {len(c.kept)} sticky, tokens "
            f"{count_text(c.tokens_before)} → {count_text(c.tokens_after)}, "
            f"fallback {'yes' if c.fallback else 'no'}"
        )
        if row.kind == "folded":  # (its fate first: the facts run past a narrow screen)
            return f"compaction summary {_folded(row, folded_at)}; it {facts}"
        said = f"compaction summary: {facts}" + (f" [{row.place}]" if row.place else "")
        return said + (f"; {_elided(row)}" if row.kind == "elided" else "")
    if row.kind == "folded":
        return _folded(row, folded_at)
    if row.kind == "elided":
        return _elided(row)
    return "sent as written"


def row_text(row: DiffRow, summary_lines: Mapping[str, int]) -> str:
    """What a row says, each text whole (the screen shows the start of each): what
    ``/`` on the diff looks for the term in."""
    sent = _not_sent(row, summary_lines) if row.sent is None else row.sent
    head = f"{row.mark} line {row.line} {row.role} {row_fate(row, summary_lines)}"
    return searched_apart((head, row.raw, sent))


def _not_sent(row: DiffRow, summary_lines: Mapping[str, int]) -> str:
    return f"(not sent: folded by {_folded_at(row, summary_lines)})"


def not_sent_in(row: DiffRow, summary_lines: Mapping[str, int], width: int) -> str:
    """What a folded row's right-hand cell says in ``width`` cells: shorter words before
    a cut, and a cut never through the compaction's line number (``at line 9…`` of 982
    read as line 9)."""
    said = _not_sent(row, summary_lines)
    where = summary_lines.get(row.folded_by or "")
    if where:
        for shorter in (f"(not sent: folded at line {where})", f"(folded at line {where})"):
            if cell_len(said) <= width:
                break
            said = shorter
    return clip_whole_numbers(said, width)


def _folded_at(row: DiffRow, summary_lines: Mapping[str, int]) -> str:
    """The compaction that folded ``row``, by its line."""
    where = summary_lines.get(row.folded_by or "")
    return f"the compaction at line {where}" if where else "a compaction"


def _folded(row: DiffRow, folded_at: str) -> str:
    """A folded row's fate, a message's or a summary's: the elisions that stubbed it
    before said too (``diff`` lists them)."""
    said = f"folded into the summary of {folded_at}"
    return said + (f" (elided {len(row.elisions)}× before that)" if row.elisions else "")


def _elided(row: DiffRow) -> str:
    """Which elision lines stubbed ``row`` (its last stub is sent)."""
    lines = ", ".join(str(e.elision_line) for e in row.elisions)
    at = f"line {lines}" if len(row.elisions) == 1 else f"lines {lines}"
    return f"elided at {at}; stub sent instead of the original"
