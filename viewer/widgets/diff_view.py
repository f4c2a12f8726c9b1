"""Raw versus replayed side by side, one fixed-height block per message line.

The rows are ``DiffRows``: indexed from the replay's columns when the view is
shown, each built (its texts read) only when drawn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.timer import Timer

from session_core.diff import DiffRow, DiffRows
from session_core.replay import ReplayState
from session_core.text import count

from ..safe import one_line

ROW_HEIGHT = 3
MARKS = {"kept": "=", "elided": "~", "folded": "-", "summary": "+"}


class DiffView(ScrollView, can_focus=True):
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
        Binding("j,down", "move(1)", "Next", show=False),
        Binding("k,up", "move(-1)", "Prev", show=False),
        Binding("n,right_square_bracket", "step(1)", "Next difference"),
        Binding("p,N,left_square_bracket", "step(-1)", "Prev difference"),
        Binding("a", "toggle_changed", "Changed only / all"),
        Binding("g,home", "edge(0)", "Top", show=False),
        Binding("G,end", "edge(1)", "Bottom", show=False),
        Binding("pagedown,space", "page(1)", "Page down", show=False),
        Binding("pageup,b", "page(-1)", "Page up", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True)
    changed_only: reactive[bool] = reactive(False)

    class Stepped(Message):
        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.all_rows = DiffRows(ReplayState())
        self.order: Sequence[int] = range(0)  # the rows shown: all, or the changed ones
        self._stale = True
        self.state: ReplayState | None = None
        self._pending: Timer | None = None

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
        self.order = rows.changed() if self.changed_only else range(len(rows))
        self.virtual_size = Size(self.size.width, len(self.order) * ROW_HEIGHT)
        self.cursor = min(self.cursor, max(0, len(self.order) - 1))
        self.refresh()

    def watch_changed_only(self) -> None:
        self._apply_filter()

    def watch_cursor(self) -> None:
        top = self.cursor * ROW_HEIGHT
        height = self.scrollable_content_region.height or self.size.height
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False, immediate=True)
        elif top + ROW_HEIGHT > self.scroll_y + height:
            self.scroll_to(y=top + ROW_HEIGHT - height, animate=False, immediate=True)
        self.refresh()

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        absolute = scroll_y + y
        index, offset = divmod(absolute, ROW_HEIGHT)
        if index >= len(self.order):
            return Strip.blank(width, self.rich_style)
        row = self.all_rows[self.order[index]]
        text = self._line(row, offset, max(width - 1, 20), index == self.cursor)
        strip = Strip(list(text.render(self.app.console))).simplify()
        return strip.crop_extend(scroll_x, scroll_x + width, self.rich_style)

    def _line(self, row: DiffRow, offset: int, width: int, selected: bool) -> Text:
        kind_style = self._style(row.kind)
        meta = self._style("meta")
        gutter = Text("▌" if selected else " ", self._style("cursor"))
        if offset == 0:
            text = gutter + Text(f"{MARKS[row.kind]} line {row.line} ", kind_style)
            text.append(f"{one_line(row.role, 12)} ", meta)
            if row.kind == "folded":
                where = self.summary_line.get(row.folded_by or "")
                at = f"the compaction at line {where}" if where else "a compaction"
                text.append(f"folded into the summary of {at}", meta)
                if row.elisions:
                    text.append(f" (elided {len(row.elisions)}× before that)", meta)
            elif row.kind == "elided":
                text.append(
                    f"elided ({len(row.elisions)}×); stub sent instead of the original", meta
                )
            elif row.kind == "summary" and row.compaction is not None:
                c = row.compaction
                text.append(
                    f"compaction summary: folded {len(c.folded)}, tokens "
                    f"{c.tokens_before if c.tokens_before is not None else '?'} → "
                    f"{c.tokens_after if c.tokens_after is not None else '?'}, "
                    f"fallback {'yes' if c.fallback else 'no'}",
                    meta,
                )
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
                right = Text(one_line("(not sent: folded away)", half), self._style("gone"))
            else:
                right = Text(one_line(row.sent, half), self._style("kept"))
            return gutter + Text("  ") + left + Text(" │ ", meta) + right
        return Text("")

    def action_move(self, delta: int) -> None:
        self.cursor = max(0, min(len(self.order) - 1, self.cursor + delta))

    def action_step(self, direction: int) -> None:
        rows, order = self.all_rows, self.order
        index = self.cursor + direction
        while 0 <= index < len(order):
            if rows.kind(order[index]) != "kept":
                self.cursor = index
                row = rows[order[index]]
                changes = len(rows.changed())
                self.post_message(
                    self.Stepped(f"line {row.line}: {row.kind} ({count(changes, 'change')})")
                )
                return
            index += direction
        self.post_message(self.Stepped("no more differences in that direction"))

    def action_toggle_changed(self) -> None:
        self.changed_only = not self.changed_only

    def action_edge(self, end: int) -> None:
        self.cursor = len(self.order) - 1 if end else 0

    def action_page(self, direction: int) -> None:
        height = self.scrollable_content_region.height or self.size.height
        self.action_move(direction * max(1, height // ROW_HEIGHT))
