"""The model screen's Diff tab, driven as a person would: enter on a row shows its item
(or its compaction's line) in the raw view, and a followed file's draws leave the
cursor where it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import screen_text
from model_screen_helpers import opened, toy, until
from textual.geometry import Size

from session_core.column_items import at_line
from session_core.model import Item
from viewer.widgets import model_diff
from viewer.widgets.items_view import ItemsView
from viewer.widgets.model_diff import ModelDiff, ModelDiffView

__all__ = ["toy"]  # (the fixture, used by name)


def rows(view: ModelDiffView) -> list[str]:
    return [text for _style, text in view.entries]


def cursor_on_screen(view: ItemsView) -> bool:
    top = view.heights.prefix(view.cursor)
    return view.scroll_y <= top < view.scroll_y + view.page_height


async def test_enter_on_a_folded_row_shows_that_item_in_the_raw_view(toy: Path) -> None:
    async with opened(toy, size=(100, 14)) as (app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        folded = next(i for i, text in enumerate(rows(diff)) if text.startswith("  − "))
        diff.move_to(folded)
        await pilot.press("enter")
        view = screen.conversation
        await until(pilot, lambda: view.mode == "raw" and view.has_focus, "the raw view")
        assert view.selected is not None
        assert rows(diff)[folded].startswith(f"  − line {view.selected.line:,} ")
        assert view.selected.id in view.folded_by  # a folded item, as the row said
        await until(pilot, lambda: cursor_on_screen(view), "the item on screen")
        assert view.scroll_y > 0  # (not where the raw view was: at its end)
        assert "[folded by the compaction at line " in screen_text(app)


async def test_enter_on_a_compactions_rows_shows_its_line(toy: Path) -> None:
    async with opened(toy) as (_app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        header = next(i for i, text in enumerate(rows(diff)) if text.startswith("◆ compaction"))
        line = screen.transcript.compactions[0].line
        assert f"at line {line:,}" in rows(diff)[header]
        diff.move_to(header)
        await pilot.press("m")
        view = screen.conversation
        await until(pilot, lambda: view.mode == "raw" and view.has_focus, "the raw view")
        assert view.selected is not None and view.selected.line == line


async def test_the_head_names_no_line(toy: Path) -> None:
    async with opened(toy) as (_app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        diff.move_to(0)
        await pilot.press("enter")
        await pilot.pause(0.1)
        assert screen.conversation.mode == "replayed" and diff.has_focus


async def test_a_followed_files_draws_leave_the_cursor_where_it_was(toy: Path) -> None:
    """A new snapshot's diff keeps the cursor on its row (it went back to the top)."""
    async with opened(toy) as (_app, pilot, screen):
        await pilot.press("4")
        diff = screen.diff
        await until(pilot, lambda: isinstance(diff.entries, ModelDiff), "the diff")
        first = diff.entries
        at = len(rows(diff)) - 2  # (not the last row: the cursor would follow the end)
        diff.move_to(at)
        with toy.open("a") as fh:
            fh.write(json.dumps({"id": "u9", "type": "msg", "role": "user", "text": "x"}) + "\n")
        await until(pilot, lambda: diff.entries is not first, "a new snapshot's diff")
        assert diff.cursor == at


def test_the_item_holding_a_line_is_the_last_to_start_at_or_before_it() -> None:
    items = [
        Item("a", "user", line=2),
        Item("b", "system", line=5, lines=3),  # (a response split over lines 5-7)
        Item("c", "user", line=9),
    ]
    assert [at_line(items, n) for n in (1, 2, 4, 5, 7, 8, 9, 20)] == [-1, 0, 0, 1, 1, 1, 2, 2]
    assert at_line([], 3) == -1


def test_a_long_rows_height_is_measured_once_a_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """A followed Claude Code session's diff wrapped its 536 compaction summaries again at
    every draw (0.4 s of the UI thread each at 1 GB)."""
    measured: list[str] = []
    real = model_diff.entry_height

    def counted(entry: tuple[str, str], width: int) -> int:
        measured.append(entry[1])
        return real(entry, width)

    monkeypatch.setattr(model_diff, "entry_height", counted)
    view = ModelDiffView()
    summary = ("italic", "the user asked for the parser to be fixed; " * 90)
    rows = [("", "short"), summary, ("bold", "folded: 3 items")]
    # Not laid out yet (a tab just shown): a row a line, measured once it is, at the
    # width it then has.
    assert [view.measurer(78)(row) for row in rows] == [1, 1, 1] and not measured
    monkeypatch.setattr(ModelDiffView, "size", property(lambda _self: Size(120, 30)))
    first = [view.measurer(80)(row) for row in rows]
    assert first == [real(row, 80) for row in rows] and first[1] > 1
    again = [view.measurer(80)(row) for row in rows]  # (the next snapshot's diff)
    assert again == first and measured.count(summary[1]) == 1
    narrow = view.measurer(40)(summary)
    assert narrow == real(summary, 40) > first[1] and measured.count(summary[1]) == 2
