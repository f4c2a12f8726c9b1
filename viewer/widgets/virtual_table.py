"""``VirtualTable``: a table drawn a line at a time, for files with 100,000s of rows.

Textual's ``DataTable`` holds every row's cells; a 1 GB transcript's 170,000
tool operations took it 38 s and 1.5 GB to fill. This table holds only a row
count and asks its owner for the cells of the rows on screen (``cells(index)``),
through a small cache, dropped when the owner says how many rows there are now
(``set_row_count``; ``invalidate`` for rows that changed in place).
The header and the first ``fixed_columns`` stay put while the rest scrolls.
A ``FittedTable`` fits its width (``fitted_columns``) and copies a row whole: every
column, each cell's whole value (a ``Cut`` cell's, not what it shows).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.strip import Strip

from session_core.text import copied

from ..heights import Uniform
from ..safe import one_line
from .line_list import LineList

Column = tuple[str, str | Text, int]  # key, label, width in cells (a cell of a Text whose
# justify is "right" is aligned right, the label too)


class Cut(Text):
    """A cell that shows ``shown``, its value cut to fit (``…``, an id's head, a path's
    tail), and keeps the ``whole`` value: ``c`` copies that (``FittedTable.copied_row``),
    inert and on one line. Nothing is made of it until it is copied (a prompt of 20 MB)."""

    __slots__ = ("whole",)

    def __init__(self, shown: str, whole: object, style: str | Style = "") -> None:
        super().__init__(shown, style, end="", no_wrap=True)
        self.whole = whole


def copied_value(cell: Text) -> str:
    """A cell as ``c`` copies it: a ``Cut`` cell's whole value, inert, on one line (a
    tab four spaces: the row's are its columns'); any other's text."""
    return one_line(cell.whole) if isinstance(cell, Cut) else cell.plain


SCROLLBAR = 2  # cells the vertical scroll bar takes, left to it where columns are fitted


def fitted_columns(
    columns: Sequence[Column], width: int, free: str, least: int, dropped: Sequence[str] = ()
) -> list[Column]:
    """``columns`` in a table ``width`` cells wide, so that it does not scroll across (a
    lone thumb mid-screen, a column cut at the edge), by the rule the tool operations'
    arguments keep (``op_widths``): the free-text column ``free`` (its cells cut with
    ``…``) takes what the others leave, each 2 cells apart and ``SCROLLBAR`` for the
    scroll bar, no wider than its own width; where it would keep fewer than ``least``
    cells, the columns ``dropped`` go, in that order (the detail says them), and past
    that it is ``least`` wide and the table scrolls. As they are while the width is not
    known."""
    shown = list(columns)
    if width <= 0:
        return shown

    def room() -> int:
        return width - SCROLLBAR - sum(w + 2 for key, _, w in shown if key != free) - 2

    for key in dropped:
        if room() >= least:
            break
        shown = [column for column in shown if column[0] != key]
    left = room()
    return [(k, label, max(least, min(w, left)) if k == free else w) for k, label, w in shown]


@dataclass(frozen=True, slots=True)
class Fit:
    """How a table fits its width (``fitted_columns``): its free-text column, the
    fewest cells that column keeps, and the columns that go first (the detail says
    them)."""

    free: str
    least: int = 20
    dropped: tuple[str, ...] = ()


class VirtualTable(LineList):
    """Rows ``0 .. row_count - 1`` with a cursor; each row's cells come from ``cells``."""

    HELP_TITLE = "Tables"
    HEADER = 1
    _empty_text: str | None = None

    @property
    def empty_text(self) -> str | None:
        """What it says in its first row while it has none (``LineList.empty_note``)."""
        return self._empty_text

    @empty_text.setter
    def empty_text(self, text: str | None) -> None:
        if text != self._empty_text:
            self._empty_text = text
            self.invalidate()  # (the note drawn is kept until the rows change: not so)

    def empty_note(self) -> str | None:
        return self._empty_text

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "virtual-table--header",
        "virtual-table--cursor",
        "virtual-table--even-row",
        "virtual-table--match",  # (a table searched: the term where a cell shows it)
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
        & > .virtual-table--match { color: $background; background: $warning; text-style: bold; }
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
        Binding("enter", "activate", "Open"),  # (in the footer: a table says what it opens)
        # Textual's, in our words: a table's columns scroll across a narrow window (``?``
        # lists these, not Textual's own, which do nothing in the lists, cut to the width)
        Binding("left", "scroll_left", "Scroll the columns left", show=False),
        Binding("right", "scroll_right", "Scroll the columns right", show=False),
        Binding("ctrl+pageup", "page_left", "A page of columns left", show=False),
        Binding("ctrl+pagedown", "page_right", "A page of columns right", show=False),
    ]

    @dataclass
    class _TableMessage(Message):
        table: VirtualTable

        @property
        def control(self) -> VirtualTable:
            return self.table

    @dataclass
    class _RowMessage(_TableMessage):
        row: int

    class Highlighted(_RowMessage):
        """The cursor moved to ``row``."""

    class Activated(_RowMessage):
        """``enter`` on the cursor's row."""

    class DoubleClicked(_RowMessage):
        """A double click on ``row``."""

    @dataclass
    class HeaderClicked(_TableMessage):
        """A click on column ``key``'s label."""

        key: str

    def __init__(
        self,
        columns: Sequence[Column],
        cells: Callable[[int], Sequence[Text]],
        *,
        fixed_columns: int = 1,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._cells = cells
        self._fixed_columns = fixed_columns
        self.heights: Uniform = Uniform()
        self.set_columns(columns)

    def set_columns(self, columns: Sequence[Column]) -> None:
        """New columns (or new widths): every row is drawn again."""
        self.columns = tuple(columns)
        self._fixed = sum(width + 2 for _k, _l, width in self.columns[: self._fixed_columns])
        self._line_width = sum(width + 2 for _key, _label, width in self.columns)
        self._spans: list[tuple[int, int]] = []  # each cell's cells in a line: [start, end)
        left = 0
        for _key, _label, width in self.columns:
            self._spans.append((left + 1, left + 1 + width))
            left += width + 2
        self._header: Strip | None = None
        self._cache.clear()
        self.update_size()
        self.refresh()

    # -- rows -----------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return self.heights.count

    @property
    def cursor_row(self) -> int:
        """The cursor's row (0 when there are none)."""
        return max(0, self.cursor)

    @cursor_row.setter
    def cursor_row(self, row: int) -> None:
        self.cursor = row

    def set_row_count(self, count: int) -> None:
        """The table now has ``count`` rows, drawn again from ``cells`` (the cursor stays
        in range)."""
        self.heights.count = count
        self._cache.clear()
        self.update_size()
        if self.cursor < 0 and count:
            self.set_reactive(LineList.cursor, 0)  # the first row, without a move to tell
        elif self.cursor >= count:
            self.cursor = max(0, count - 1)
        self.refresh()

    def row_cells(self, index: int) -> list[str]:
        """Row ``index`` as plain text, one string per column shown (for tests; a
        ``FittedTable`` copies every column: ``copied_row``)."""
        return [cell.plain for cell in self._cells(index)]

    def column_cells(self, key: str) -> list[str]:
        """One column's plain text, every row (reads every row: for tests)."""
        at = [k for k, _label, _width in self.columns].index(key)
        return [self.row_cells(index)[at] for index in range(self.row_count)]

    # -- cursor -----------------------------------------------------------------

    def move_cursor(self, row: int) -> None:
        """Put the cursor on ``row`` (clamped) and scroll it into view."""
        self.move_to(row)

    def keep_row_place(self, was: int, row: int) -> None:
        """Row ``was`` is row ``row`` now (rows came or went above it): where it was on
        screen, the view scrolls by as many rows, so it stays in its place there."""
        top = self.heights.prefix(was)
        if row == was or not self.scroll_y <= top < self.scroll_y + self.page_height:
            return
        y = self.scroll_y + self.heights.prefix(row) - top
        # (forced: the scrollbar the new rows call for may not be laid out yet)
        self.scroll_to(y=y, animate=False, force=True, immediate=True)

    def moved(self) -> Message:
        return self.Highlighted(self, self.cursor_row)

    def watch_cursor(self, old: int, new: int) -> None:
        if self.row_count:
            super().watch_cursor(old, new)
        else:
            self.invalidate()

    @property
    def at_end(self) -> bool:
        return self.row_count == 0 or self.cursor_row >= self.row_count - 1

    def action_activate(self) -> None:
        if self.row_count:
            self.post_message(self.Activated(self, self.cursor_row))

    def column_at(self, x: int) -> str | None:
        """The key of the column at ``x`` cells from the table's left edge."""
        if x >= self._fixed:
            x += int(self.scroll_x)  # the columns after the fixed ones scroll across
        left = 0
        for key, _label, width in self.columns:
            left += width + 2
            if x < left:
                return key
        return None

    def on_click(self, event: events.Click) -> None:
        # The base's handler (called after this one) moves the cursor.
        offset = event.get_content_offset(self)
        if offset is not None and offset.y < self.HEADER:
            key = self.column_at(offset.x)
            if key is not None:
                self.post_message(self.HeaderClicked(self, key))
            return
        if offset is None or event.chain < 2:
            return
        index = int(self.scroll_y) + offset.y - self.HEADER
        if 0 <= index < self.row_count:
            self.post_message(self.DoubleClicked(self, index))

    # -- drawing ----------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._header = None

    def virtual_width(self) -> int:
        return self._line_width

    def _style(self, name: str) -> Style:
        return self.component(f"virtual-table--{name}")

    def _line(self, cells: Sequence[Text], style: Style, mark: str = " ") -> Strip:
        """One row; ``mark`` in its first cell (the cursor's row: ``▌``, as the
        conversation marks its cursor, not by colour alone)."""
        line = Text(no_wrap=True, end="")
        for index, ((_key, _label, width), cell) in enumerate(
            zip(self.columns, cells, strict=False)
        ):
            shown = cell.copy()
            if cell.justify == "right":
                shown.truncate(width, overflow="ellipsis")
                shown.pad_left(width - shown.cell_len)
            else:
                shown.truncate(width, overflow="ellipsis", pad=True)
            line.append(mark if index == 0 else " ")
            line.append_text(shown)
            line.append(" ")
        line.stylize_before(self.base_style + style)
        return Strip(list(line.render(self.app.console)), self._line_width).adjust_cell_length(
            self._line_width, self.base_style + style
        )

    def item_strips(self, index: int) -> list[Strip]:
        strips = self._cache.get(index)
        if strips is None:
            base = self._style("even-row") if index % 2 else Style()
            strip = self._line(self._cells(index), base, "▌" if index == self.cursor else " ")
            if index == self.cursor:
                cursor = self._style("cursor")
                strip = Strip(Segment.apply_style(list(strip), None, cursor), self._line_width)
            strips = self._cache[index] = [strip]
        return strips

    def header_strip(self, y: int) -> Strip:
        if self._header is None:
            labels = [_text(label) for _key, label, _width in self.columns]
            self._header = self._line(labels, self._style("header"))
        return self._header

    def crop(self, strip: Strip, scroll_x: int, width: int) -> Strip:
        # The first ``fixed_columns`` stay put while the rest scrolls across. A cell an
        # edge of the screen cuts says so, ``…`` on the side cut, as a cell cut to its
        # column does: a number cut to its head read as another (``0.0`` of ``0.05s``).
        fixed = min(self._fixed, width)
        # (the edge: where the vertical scroll bar begins, drawn over the line's end)
        seen = min(width, self.scrollable_content_region.width or width)
        if scroll_x == 0 or fixed == 0:
            return self._edge_marked(strip, 0, seen).crop_extend(0, width, self.base_style)
        head = strip.crop(0, fixed)
        left, right = fixed + scroll_x, scroll_x + width
        rest = self._edge_marked(strip, left, scroll_x + seen)
        return Strip.join([head, rest.crop_extend(left, right, self.base_style)])

    def _edge_marked(self, strip: Strip, left: int, right: int) -> Strip:
        """``strip`` (cells ``left`` to ``right`` of it on screen) with a ``…`` in the
        cell of each of those edges that cuts a cell's text: its last cell shown, or its
        first (a cell whose text ends before the edge is whole on screen)."""
        for start, end in self._spans:
            if start < right < end and right > left and strip.crop(right, end).text.strip():
                # (the edge's cell the second half of a wide character: the mark in its
                # first, beside the text, and the edge's cell blank)
                if _wide_at(strip, right - 2):
                    strip = _marked(strip, right - 2, "… ")
                else:
                    strip = _marked(strip, right - 1, "…")
            if (
                left
                and start < left < end
                and left < right
                and strip.crop(start, left).text.strip()
            ):
                # (a wide character from the edge's cell on: the edge's cell blank, and
                # the mark in its second half, beside the text)
                strip = _marked(strip, left, " …" if _wide_at(strip, left) else "…")
        return strip


def _wide_at(strip: Strip, x: int) -> bool:
    """Does one wide character take cells ``x`` and ``x + 1`` of ``strip``?"""
    piece = strip.crop(x, x + 2).text if x >= 0 else ""
    return len(piece) == 1 and cell_len(piece) == 2


def _marked(strip: Strip, x: int, said: str) -> Strip:
    """``strip`` with the cells from ``x`` on (one a character of ``said``) ``said``, the
    ``…`` mark (with a blank: where a wide character stood, cut, it left a stray blank
    cell beside the mark), in the style of cell ``x``."""
    cell = list(strip.crop(x, x + 1))
    style = cell[0].style if cell else None
    mark = Strip([Segment(said, style)], len(said))
    return Strip.join([strip.crop(0, x), mark, strip.crop(x + len(said), strip.cell_length)])


def _text(label: str | Text) -> Text:
    return Text(label) if isinstance(label, str) else label


class FittedTable(VirtualTable):
    """A table that fits its width by ``fit`` (``fitted_columns``), again as the width
    changes. Its owner gives a row's cells by their columns' keys, every column's, shown
    or not: ``c`` copies a row whole (the columns dropped to fit too, a ``Cut`` cell's
    whole value)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_row", "Copy the row"),
    ]

    def __init__(
        self,
        columns: Sequence[Column],
        cells: Callable[[int], Mapping[str, Text]],
        fit: Fit,
        *,
        fixed_columns: int = 1,
        id: str | None = None,
    ) -> None:
        self.all_columns = list(columns)
        self.fit = fit
        self._keyed = cells
        super().__init__(columns, self._shown_cells, fixed_columns=fixed_columns, id=id)

    def set_all_columns(self, columns: Sequence[Column]) -> None:
        """Every column anew (widths measured from what they hold), fitted to the width."""
        self.all_columns = list(columns)
        self.width_changed()

    def width_changed(self) -> None:
        fit = self.fit
        columns = fitted_columns(
            self.all_columns, self.size.width, fit.free, fit.least, fit.dropped
        )
        if columns != list(self.columns):
            self.set_columns(columns)

    def _shown_cells(self, index: int) -> list[Text]:
        cells = self._keyed(index)
        return [cells[key] for key, _label, _width in self.columns]

    def copied_row(self, index: int) -> str:
        """Row ``index`` as copied: every column's label, then its whole value
        (``copied_value``), tab-separated (those dropped to fit too)."""
        cells = self._keyed(index)
        labels = [_text(label).plain for _key, label, _width in self.all_columns]
        values = [copied_value(cells[key]) for key, _label, _width in self.all_columns]
        return "\t".join(labels) + "\n" + "\t".join(values)

    def action_copy_row(self) -> None:
        if not self.row_count:
            return
        self.app.copy_to_clipboard(copied(self.copied_row(self.cursor_row)))
        self.app.notify(f"Copied row {self.cursor_row + 1}, every column, to the clipboard.")
