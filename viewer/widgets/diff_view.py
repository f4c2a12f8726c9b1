"""Raw versus replayed side by side, one fixed-height block per message line.

The rows are ``DiffRows``: indexed from the replay's columns when the view is
shown, each built (its texts read) only when drawn.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.timer import Timer

from session_core.diff import DiffRow, DiffRows
from session_core.replay import ReplayState
from session_core.text import count

from ..heights import Uniform
from ..safe import one_line
from .line_list import LineList

ROW_HEIGHT = 3


class DiffView(LineList):
    """What the file says (left) beside what the model is sent next (right)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "diff--kept",
        "diff--elided",
        "diff--folded",
        "diff--summary",
        "diff--meta",
        "diff--cursor",
        "diff--gone",
    }
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n,right_square_bracket", "step(1)", "Next difference"),
        Binding("p,N,left_square_bracket", "step(-1)", "Prev difference"),
        Binding("a", "toggle_changed", "Changed only / all"),
        Binding("enter,m", "show_line", "In the raw view"),
    ]

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

    def watch_changed_only(self) -> None:
        self._apply_filter()

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        row = self.all_rows[self.order[index]]
        return [self._line(row, offset, width, selected) for offset in range(ROW_HEIGHT)]

    def _line(self, row: DiffRow, offset: int, width: int, selected: bool) -> Text:
        kind_style = self._style(row.kind)
        meta = self._style("meta")
        gutter = Text("▌" if selected else " ", self._style("cursor"))
        folded_at = self._folded_at(row)
        if offset == 0:
            text = gutter + Text(f"{row.mark} line {row.line} ", kind_style)
            text.append(f"{one_line(row.role, 12)} ", meta)
            c = row.compaction
            if c is not None:  # (a summary: sent, stubbed or folded, it says so first)
                text.append(
                    f"compaction summary: folded {len(c.folded)}, tokens "
                    f"{c.tokens_before if c.tokens_before is not None else '?'} → "
                    f"{c.tokens_after if c.tokens_after is not None else '?'}, "
                    f"fallback {'yes' if c.fallback else 'no'}"
                    + (f" [{row.place}]" if row.place else ""),
                    meta,
                )
                if row.kind == "folded":
                    text.append(f"; folded into the summary of {folded_at}", meta)
                elif row.kind == "elided":
                    text.append(f"; {_elided(row)}", meta)
            elif row.kind == "folded":
                text.append(f"folded into the summary of {folded_at}", meta)
                if row.elisions:
                    text.append(f" (elided {len(row.elisions)}× before that)", meta)
            elif row.kind == "elided":
                text.append(_elided(row), meta)
            else:
                text.append("sent as written", meta)
            text.truncate(width, overflow="ellipsis")
            return text
        if offset == 1:
            half = (width - 3) // 2
            left = Text(
                one_line(row.raw, half), self._style("kept" if row.kind == "kept" else row.kind)
            )
            left.pad_right(half - left.cell_len)
            if row.sent is None:
                right = Text(
                    one_line(f"(not sent: folded by {folded_at})", half), self._style("gone")
                )
            else:
                right = Text(one_line(row.sent, half), self._style("kept"))
            return gutter + Text("  ") + left + Text(" │ ", meta) + right
        return Text("")

    def _folded_at(self, row: DiffRow) -> str:
        """The compaction that folded ``row``, by its line."""
        where = self.summary_line.get(row.folded_by or "")
        return f"the compaction at line {where}" if where else "a compaction"

    def action_step(self, direction: int) -> None:
        rows, order = self.all_rows, self.order
        if not self.jump(lambda index: rows.kind(order[index]) != "kept", direction):
            self.post_message(self.Stepped("no more differences in that direction"))
            return
        row = rows[order[self.cursor]]
        changes = len(rows.changed())
        self.post_message(self.Stepped(f"line {row.line}: {row.kind} ({count(changes, 'change')})"))

    def action_show_line(self) -> None:
        if 0 <= self.cursor < len(self.order):
            self.post_message(self.ShowLine(self.all_rows[self.order[self.cursor]].line))

    def action_toggle_changed(self) -> None:
        self.changed_only = not self.changed_only


def _elided(row: DiffRow) -> str:
    """Which elision lines stubbed ``row`` (its last stub is sent)."""
    lines = ", ".join(str(e.elision_line) for e in row.elisions)
    at = f"line {lines}" if len(row.elisions) == 1 else f"lines {lines}"
    return f"elided at {at}; stub sent instead of the original"
