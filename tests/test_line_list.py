"""``LineList``, the one Line-API base under every scroll view, and its row heights."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.text import Text
from textual.app import App, ComposeResult

from viewer.heights import HeightIndex, Measured, Uniform
from viewer.widgets.line_list import LineList
from viewer.widgets.virtual_table import VirtualTable

HEIGHTS = st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=60)


def _naive_find(heights: list[int], y: int) -> int:
    top = 0
    for row, height in enumerate(heights):
        if y < top + height:
            return row
        top += height
    return len(heights) - 1


@settings(max_examples=200, deadline=None)
@given(HEIGHTS, st.lists(st.tuples(st.integers(0, 59), st.integers(1, 9)), max_size=10))
def test_the_heights_agree_with_a_plain_list(
    heights: list[int], sets: list[tuple[int, int]]
) -> None:
    grown, measured = HeightIndex(), Measured(list(heights))
    for height in heights:
        grown.append(height)
    plain = list(heights)
    for row, height in sets:
        row %= len(plain)
        plain[row] = height
        grown.set(row, height)
        measured.set(row, height)
    for index in (grown, measured):
        assert len(index) == len(plain) and index.total == sum(plain)
        for row in range(len(plain) + 1):
            assert index.prefix(row) == sum(plain[:row])
        for y in range(sum(plain) + 3):
            assert index.find(y) == _naive_find(plain, y), (y, plain)


def test_rows_of_one_height() -> None:
    rows = Uniform(5, 3)
    assert (len(rows), rows.total, rows.prefix(2), rows.height(4)) == (5, 15, 6, 3)
    assert [rows.find(y) for y in (0, 2, 3, 14, 40)] == [0, 0, 1, 4, 4]


class Numbers(LineList):
    """Item ``i`` is ``i % 3 + 1`` lines tall."""

    def __init__(self, count: int) -> None:
        super().__init__(id="numbers")
        self.heights = HeightIndex([i % 3 + 1 for i in range(count)])

    def grow(self, more: int) -> None:
        before, at_end = self.item_count(), self.follows_end
        for i in range(before, before + more):
            self.heights.append(i % 3 + 1)
        self.items_appended(before, at_end)

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        mark = ">" if selected else " "
        return [Text(f"{mark}item {index} line {n}") for n in range(self.heights.height(index))]


class ListApp(App[None]):
    def __init__(self, view: LineList) -> None:
        super().__init__()
        self.view = view
        self.moves: list[object] = []

    def compose(self) -> ComposeResult:
        yield self.view

    def on_line_list_moved(self, event: LineList.Moved) -> None:
        self.moves.append(event.view.cursor)


async def test_the_list_follows_its_end_until_scrolled_away() -> None:
    view = Numbers(200)
    app = ListApp(view)
    async with app.run_test(size=(40, 10)) as pilot:
        view.reset_items()
        await pilot.pause()
        assert view.cursor == 199 and view.follows_end
        assert view.scroll_y == view.max_scroll_y
        view.grow(5)  # at the end: the cursor and the view follow the new items
        await pilot.pause()
        assert view.cursor == 204 and view.scroll_y == view.max_scroll_y
        await pilot.press("g")  # scrolled away: new items no longer move anything
        await pilot.pause()
        assert view.cursor == 0 and not view.follows_end
        view.grow(5)
        await pilot.pause()
        assert view.cursor == 0 and view.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        top = int(view.scroll_y)
        assert top > 0 and view.heights.prefix(view.cursor) >= top  # the first item on screen
        assert "item" in view.rendered_text(view.cursor)
        await pilot.press("G")
        await pilot.pause()
        assert view.cursor == 209 and view.follows_end
        assert app.moves, "cursor moves are posted"


async def test_a_tables_header_stays_and_a_click_on_a_label_names_its_column() -> None:
    columns = [("n", "number", 8), ("word", Text("word", justify="right"), 10)]
    table = VirtualTable(columns, lambda i: [Text(f"#{i}"), Text("w", justify="right")])
    clicked: list[str] = []

    class TableApp(App[None]):
        def compose(self) -> ComposeResult:
            yield table

        def on_virtual_table_header_clicked(self, event: VirtualTable.HeaderClicked) -> None:
            clicked.append(event.key)

    async with TableApp().run_test(size=(40, 8)) as pilot:
        table.set_row_count(100)
        await pilot.pause()
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == 99
        assert table.render_line(0).text.startswith(" number")  # the header stays put
        assert table.item_strips(99)[0].text.rstrip().endswith("w")  # right-aligned
        await pilot.click(VirtualTable, offset=(2, 0))
        await pilot.click(VirtualTable, offset=(12, 0))
        await pilot.pause()
        assert clicked == ["n", "word"]


class Styled(Numbers):
    """Its items drawn in a component class's style, with a fallback."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"numbers--odd"}
    FALLBACK_STYLES: ClassVar[Mapping[str, str]] = {"numbers--odd": "bold"}

    def item_lines(self, index: int, width: int, selected: bool) -> list[Text]:
        return [Text(f"item {index}", style=self.component("numbers--odd"))]


async def test_kept_styles_follow_a_change_of_theme() -> None:
    """The base and component styles each line asks for are kept between draws, and
    dropped when the styles change (a theme, a pseudo-class): never drawn stale."""
    view = Styled(50)
    app = ListApp(view)
    async with app.run_test(size=(40, 10)) as pilot:
        view.reset_items()
        await pilot.pause()
        assert view.component("numbers--odd").bold  # the fallback: no rule gives one
        dark = view.base_style
        dark_line = view.render_line(0)
        assert view.base_style is dark  # kept
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await pilot.pause()
        light = view.base_style
        assert light != dark and light.bgcolor != dark.bgcolor
        assert view.render_line(0) != dark_line  # the rendered lines went with it


class Empty(Numbers):
    NOTE = "The model is sent nothing of the run chosen (a compaction folded it): r shows it."

    def empty_note(self) -> str | None:
        return self.NOTE


async def test_an_empty_lists_note_wraps_to_its_width() -> None:
    """The note was one row cut at the width: at 80 columns its key hint was lost."""
    view = Empty(0)
    async with ListApp(view).run_test(size=(40, 10)) as pilot:
        view.reset_items()
        await pilot.pause()
        rows = ["".join(s.text for s in view.render_line(y)).rstrip() for y in range(4)]
        assert " ".join(row.strip() for row in rows if row) == Empty.NOTE, rows
        assert all(len(row) <= view.size.width for row in rows)
        # Each row one cell in, where a row's text and a table's header begin (the note
        # began at column 0 on some tabs, one cell in on others).
        assert all(row.startswith(" ") and row[1] != " " for row in rows if row), rows


class CountedEmpty(Empty):
    asked = 0

    def empty_note(self) -> str | None:
        self.asked += 1
        return super().empty_note()


async def test_an_empty_lists_note_is_asked_once_for_a_draw_not_per_row() -> None:
    """Each blank row asked for the note (a filter's counts every item: 250 ms a draw at
    60,000 agentgo messages, the review): once, until the items are shown again."""
    view = CountedEmpty(0)
    async with ListApp(view).run_test(size=(40, 10)) as pilot:
        view.reset_items()
        await pilot.pause()
        view.asked = 0
        for _ in range(2):
            for y in range(10):
                view.render_line(y)
        assert view.asked <= 1
        view.reset_items()  # (shown again: the note may say otherwise now)
        view.render_line(0)
        assert view.asked <= 2 and "".join(s.text for s in view.render_line(0)).strip()
