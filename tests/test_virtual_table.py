"""``VirtualTable`` builds only the rows on screen, whatever the row count."""

from __future__ import annotations

from helpers import screen_lines, screen_text
from rich.text import Text
from textual.app import App, ComposeResult

from viewer.widgets.virtual_table import VirtualTable

ROWS = 500_000
COLUMNS = (("n", "number", 8), ("word", "word", 10), ("wide", "wide", 60), ("end", "end", 6))


class TableApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.asked: list[int] = []
        self.highlighted: list[int] = []

    def cells(self, index: int) -> list[Text]:
        self.asked.append(index)
        return [Text(f"#{index}"), Text("[b]x[/b]"), Text("w" * 60), Text(f"e{index}")]

    def compose(self) -> ComposeResult:
        yield VirtualTable(COLUMNS, self.cells, id="t")

    def on_mount(self) -> None:
        table = self.query_one(VirtualTable)
        table.set_row_count(ROWS)
        table.focus()

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.highlighted.append(event.row)


async def test_only_the_rows_on_screen_are_built() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        table = app.query_one(VirtualTable)
        assert table.row_count == ROWS
        assert set(app.asked) <= set(range(12))
        text = screen_text(app)
        assert "number" in text and "#0" in text
        assert "[b]x[/b]" in text  # cell text is shown as it is, never as markup
        app.asked.clear()
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == ROWS - 1
        assert set(app.asked) <= set(range(ROWS - 12, ROWS))
        text = screen_text(app)
        assert f"#{ROWS - 1}" in text and "number" in text  # the header stays
        await pilot.press("home", "down", "pagedown")
        await pilot.pause()
        assert table.cursor_row > 1 and app.highlighted[-1] == table.cursor_row


async def test_the_first_column_stays_while_the_rest_scrolls() -> None:
    app = TableApp()
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        table = app.query_one(VirtualTable)
        table.scroll_to(x=70, animate=False, immediate=True)
        await pilot.pause()
        text = screen_text(app)
        assert "#0" in text and "e0" in text and "word" not in text


async def test_fewer_rows_keep_the_cursor_in_range() -> None:
    app = TableApp()
    async with app.run_test(size=(60, 12)) as pilot:
        table = app.query_one(VirtualTable)
        table.move_cursor(ROWS - 1)
        table.set_row_count(3)
        await pilot.pause()
        assert table.cursor_row == 2
        table.set_row_count(0)
        await pilot.pause()
        assert table.cursor_row == 0 and table.at_end


class NumbersApp(App[None]):
    """A table whose last column, a duration right-aligned, an edge at 60 columns cuts."""

    def compose(self) -> ComposeResult:
        columns = [
            ("n", "number", 8),
            ("word", "word", 40),
            ("took", Text("took", justify="right"), 6),
        ]
        yield VirtualTable(columns, self.cells, id="t")

    def cells(self, index: int) -> list[Text]:
        return [Text(f"#{index}"), Text("w" * 40), Text("0.05s", justify="right")]

    def on_mount(self) -> None:
        self.query_one(VirtualTable).set_row_count(40)


async def test_a_cell_an_edge_cuts_says_so() -> None:
    """At 60 columns (58 beside the scroll bar) ``took`` showed ``0.05`` of ``0.05s``,
    read as 0.05 minutes or hours: it ends with ``…`` (an audit: ``0.0`` of ``0.05s``),
    as the header's ``to…`` does; a cell the scrolled edge
    cuts on its left begins with one, and a cell whole on screen has none."""
    app = NumbersApp()
    async with app.run_test(size=(60, 12)) as pilot:
        await pilot.pause()
        lines = screen_lines(app)
        header = next(line for line in lines if "number" in line)
        row = next(line for line in lines if "#0" in line)
        assert header.rstrip().endswith("to…") and row.rstrip().endswith(" 0.0…"), (header, row)
        assert "w" * 40 in row  # (whole: no mark)
        table = app.query_one(VirtualTable)
        table.scroll_to(x=20, animate=False, immediate=True)  # (as far as it goes)
        await pilot.pause()
        row = next(line for line in screen_lines(app) if "#0" in line)
        assert "#0       …ww" in row and row.rstrip().endswith("w   0.05s"), row


class WideApp(App[None]):
    """A table of wide characters that its edges cut in the middle of one."""

    def __init__(self, word: int) -> None:
        super().__init__()
        self.word = word

    def compose(self) -> ComposeResult:
        columns = [("n", "n", 8), ("word", "word", self.word), ("wide", "wide", 12)]
        yield VirtualTable(columns, self.cells, id="t", fixed_columns=1)

    def cells(self, index: int) -> list[Text]:
        return [Text(f"#{index}"), Text("日本語" * 7), Text("日本語日本語")]

    def on_mount(self) -> None:
        self.query_one(VirtualTable).set_row_count(5)


async def test_an_edge_through_a_wide_character_marks_beside_the_text() -> None:
    """Where an edge cuts a wide character, the ``…`` is beside the text, the cut
    character's other cell blank at the edge: it left a stray blank between the text
    and the mark (``日本語 …``, review 1, item 6)."""
    app = WideApp(39)
    async with app.run_test(size=(60, 8)) as pilot:
        await pilot.pause()
        row = next(line for line in screen_lines(app) if "#0" in line).rstrip()
        assert row.endswith("  日本語…") and "語 …" not in row, row
    app = WideApp(40)
    async with app.run_test(size=(40, 8)) as pilot:
        await pilot.pause()
        table = app.query_one(VirtualTable)
        table.scroll_to(x=5, animate=False, immediate=True)  # (the edge mid-日)
        await pilot.pause()
        row = next(line for line in screen_lines(app) if "#0" in line).rstrip()
        assert "…日本語" in row and "… 日" not in row and "日 …" not in row, row
