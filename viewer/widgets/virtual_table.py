"""``VirtualTable``: a table drawn a line at a time, for files with 100,000s of rows.

Textual's ``DataTable`` holds every row's cells; a 1 GB transcript's 170,000
tool operations took it 38 s and 1.5 GB to fill. This table holds only a row
count and asks its owner for the cells of the rows on screen (``cells(index)``),
through a small cache the owner clears when rows change (``invalidate``).
The header and the first ``fixed_columns`` stay put while the rest scrolls.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

Column = tuple[str, str, int]  # key, label, width in cells
CACHE_ROWS = 400  # rendered rows kept


class VirtualTable(ScrollView, can_focus=True):
    """Rows ``0 .. row_count - 1`` with a cursor; each row's cells come from ``cells``."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--cursor",
        "virtual-table--even-row",
    }

    DEFAULT_CSS = """
    VirtualTable {
        background: $surface;
        color: $foreground;
        height: 1fr;
        & > .virtual-table--header {
            text-style: bold;
            background: $panel;
            color: $foreground;
        }
        & > .virtual-table--even-row {
            background: $surface-lighten-1 50%;
        }
        & > .virtual-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .virtual-table--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "move(-1)", "Up", show=False),
        Binding("down,j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home,g", "first", "First", show=False),
        Binding("end,G", "last", "Last", show=False),
        Binding("enter", "activate", "Open", show=False),
    ]

    cursor_row: reactive[int] = reactive(0, always_update=True, init=False)

    class _RowMessage(Message):
        def __init__(self, table: VirtualTable, row: int) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> VirtualTable:
            return self.table

    class Highlighted(_RowMessage):
        """The cursor moved to ``row``."""

    class Activated(_RowMessage):
        """``enter`` on the cursor's row."""

    class DoubleClicked(_RowMessage):
        """A double click on ``row``."""

    def __init__(
        self,
        columns: Sequence[Column],
        cells: Callable[[int], Sequence[Text]],
        *,
        fixed_columns: int = 1,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.columns = tuple(columns)
        self._cells = cells
        self._fixed = sum(width + 2 for _key, _label, width in self.columns[:fixed_columns])
        self._width = sum(width + 2 for _key, _label, width in self.columns)
        self.row_count = 0
        self._cache: dict[int, Strip] = {}
        self._header: Strip | None = None

    # -- rows -----------------------------------------------------------------

    def set_row_count(self, count: int) -> None:
        """The table now has ``count`` rows (the cursor stays in range)."""
        self.row_count = count
        self.virtual_size = Size(self._width, count + 1)  # the header is line 0
        if self.cursor_row >= count:
            self.cursor_row = max(0, count - 1)
        self.refresh()

    def invalidate(self) -> None:
        """Rows changed: draw the ones on screen again from ``cells``."""
        self._cache.clear()
        self.refresh()

    def row_cells(self, index: int) -> list[str]:
        """Row ``index`` as plain text, one string per column (for tests and copying)."""
        return [cell.plain for cell in self._cells(index)]

    def column_cells(self, key: str) -> list[str]:
        """One column's plain text, every row (reads every row: for tests)."""
        at = [k for k, _label, _width in self.columns].index(key)
        return [self.row_cells(index)[at] for index in range(self.row_count)]

    # -- cursor -----------------------------------------------------------------

    def move_cursor(self, row: int) -> None:
        """Put the cursor on ``row`` (clamped) and scroll it into view."""
        if self.row_count == 0:
            return
        self.cursor_row = max(0, min(row, self.row_count - 1))
        self.scroll_to_cursor()

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._cache.pop(old, None)
        self._cache.pop(new, None)
        self.refresh()
        if self.row_count:
            self.post_message(self.Highlighted(self, new))

    def scroll_to_cursor(self) -> None:
        height = max(1, self.scrollable_content_region.height - 1)
        top = self.cursor_row
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False, immediate=True)
        elif top >= self.scroll_y + height:
            self.scroll_to(y=top - height + 1, animate=False, immediate=True)

    @property
    def at_end(self) -> bool:
        return self.row_count == 0 or self.cursor_row >= self.row_count - 1

    def action_move(self, step: int) -> None:
        self.move_cursor(self.cursor_row + step)

    def action_page(self, direction: int) -> None:
        step = max(1, self.scrollable_content_region.height - 2)
        self.move_cursor(self.cursor_row + direction * step)

    def action_first(self) -> None:
        self.move_cursor(0)

    def action_last(self) -> None:
        self.move_cursor(self.row_count - 1)

    def action_activate(self) -> None:
        if self.row_count:
            self.post_message(self.Activated(self, self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y == 0:
            return
        index = int(self.scroll_y) + offset.y - 1
        if 0 <= index < self.row_count:
            self.cursor_row = index
            if event.chain >= 2:
                self.post_message(self.DoubleClicked(self, index))

    # -- drawing ----------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._header = None

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"virtual-table--{name}", partial=True)

    def _line(self, cells: Sequence[Text], style: Style) -> Strip:
        line = Text(no_wrap=True, end="")
        for (_key, _label, width), cell in zip(self.columns, cells, strict=False):
            shown = cell.copy()
            shown.truncate(width, overflow="ellipsis", pad=True)
            line.append(" ")
            line.append_text(shown)
            line.append(" ")
        line.stylize_before(self.rich_style + style)
        return Strip(list(line.render(self.app.console)), self._width).adjust_cell_length(
            self._width, self.rich_style + style
        )

    def _row(self, index: int) -> Strip:
        strip = self._cache.get(index)
        if strip is None:
            if len(self._cache) >= CACHE_ROWS:
                self._cache.clear()
            base = self._style("even-row") if index % 2 else Style()
            strip = self._line(self._cells(index), base)
            if index == self.cursor_row:
                cursor = self._style("cursor")
                strip = Strip(Segment.apply_style(list(strip), None, cursor), self._width)
            self._cache[index] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if y == 0:
            if self._header is None:
                header = self._style("header")
                labels = [Text(label) for _key, label, _width in self.columns]
                self._header = self._line(labels, header)
            strip = self._header
        else:
            index = int(self.scroll_y) + y - 1
            if index >= self.row_count:
                return Strip.blank(width, self.rich_style)
            strip = self._row(index)
        scroll_x = int(self.scroll_x)
        fixed = min(self._fixed, width)
        if scroll_x == 0 or fixed == 0:
            return strip.crop_extend(0, width, self.rich_style)
        head = strip.crop(0, fixed)
        rest = strip.crop_extend(fixed + scroll_x, scroll_x + width, self.rich_style)
        return Strip.join([head, rest])
