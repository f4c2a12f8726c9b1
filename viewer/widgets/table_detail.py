"""Rows in a table, the selected one's detail below it (``TableDetail``: the runs, a
session's subagents), and a cell's text in its tone."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical

from .block_view import Entry, ProseLines
from .virtual_table import Column, Fit, FittedTable, VirtualTable

TONE_STYLES = {"ok": "green", "bad": "bold red", "warn": "bold yellow", "info": "bold cyan"}


def tone_text(label: str, tone: str) -> Text:
    return Text(label, style=TONE_STYLES.get(tone, ""), end="", no_wrap=True)


class TableDetail(Vertical):
    """Rows in a table; the selected one's detail below it (the runs, a session's
    subagents). A subclass says a row's cells, its detail, and what identifies a detail
    already shown (the cursor highlighting its row again leaves it as it is; new rows
    make it anew)."""

    DEFAULT_CSS = """
    TableDetail {
        height: 1fr;
        & > VirtualTable { height: 2fr; }
        & > LinesView { height: 1fr; border-top: solid $panel-lighten-2; }
    }
    """

    # What the empty table says in its first row, as every tab's empty view does
    # (``LineList.empty_note``): it said it in the detail below, under a blank table.
    EMPTY = "Nothing here."
    # The table fits the pane (``fitted_columns``): its free-text column takes what the
    # others leave, at least ``LEAST`` cells, where ``DROPPED`` go first (the detail
    # says them).
    FREE = ""
    LEAST = 20
    DROPPED: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self, columns: Sequence[Column], *, table_id: str, detail_id: str, id: str | None
    ) -> None:
        super().__init__(id=id)
        fit = Fit(self.FREE, self.LEAST, self.DROPPED)
        self.table = FittedTable(columns, self.cells, fit, fixed_columns=1, id=table_id)
        self.table.empty_text = self.EMPTY
        self.detail = ProseLines(id=detail_id)
        self._shown: Hashable | None = None

    def compose(self) -> ComposeResult:
        yield self.table
        yield self.detail

    def cells(self, index: int) -> dict[str, Text]:
        """Row ``index``'s cells, by their columns' keys (every column's, shown or not)."""
        raise NotImplementedError

    def detail_key(self, index: int) -> Hashable:
        raise NotImplementedError

    def detail_entries(self, index: int) -> list[Entry]:
        raise NotImplementedError

    def show_rows(self, count: int, *, follow_end: bool = False) -> None:
        """The table's rows are now ``count`` (the cursor to the last where it was there,
        with ``follow_end``), every one drawn again (``set_row_count``: what a row says may
        have changed, not their number) and the detail made anew."""
        table = self.table
        at_end = table.row_count > 0 and table.at_end and table.cursor_row > 0
        table.set_row_count(count)
        if follow_end and at_end:
            table.move_cursor(count - 1)
        self._shown = None
        self.show_detail(table.cursor_row)

    @on(VirtualTable.Highlighted)
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        if event.table is self.table:
            event.stop()
            self.show_detail(event.row)

    def show_detail(self, index: int) -> None:
        count = self.table.row_count
        if not 0 <= index < count:
            self.detail.set_entries([])  # (the table's first row says why it is empty)
            return
        key = self.detail_key(index)
        if key == self._shown:
            return
        self._shown = key
        self.detail.set_entries(self.detail_entries(index))
