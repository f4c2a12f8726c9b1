"""The conversation's cursor, driven as a person would on the real Claude Code sample: a
filter keeps it on its item (or the nearest shown) and on screen, with or without a
search; a live compaction that folds its item puts it on the first item at or after
that item's line, and "↓ N new" counts no more than the items below it."""

from __future__ import annotations

import os
import shutil
from functools import partial
from pathlib import Path

import pytest
from helpers import SAMPLES
from model_screen_helpers import IDLE, opened, until
from textual.widgets import SelectionList

from viewer.screens.filter import FilterScreen
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.items_view import ItemsView

SPOTTER = (
    SAMPLES / "claude-code/projects/-home-u-spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
)
needs_samples = pytest.mark.skipif(not SPOTTER.is_file(), reason="../shared/samples is absent")


def cursor_on_screen(view: ItemsView) -> bool:
    top = view.heights.prefix(view.cursor)
    bottom = top + view.heights.height(view.cursor)
    return view.cursor >= 0 and view.scroll_y <= top and bottom <= view.scroll_y + view.page_height


def read_to(screen: ModelScreen, line: int) -> bool:
    return screen.transcript.lines >= line


def copied(tmp_path: Path) -> Path:
    path = tmp_path / "spotter.jsonl"
    shutil.copyfile(SPOTTER, path)
    os.utime(path, (IDLE, IDLE))
    return path


async def untick_system(pilot, app) -> None:  # type: ignore[no-untyped-def]
    """``f``, a space on the first role (``system``), tab, tab, enter: as the audit did."""
    await pilot.press("f")
    await until(pilot, lambda: isinstance(app.screen, FilterScreen), "the filter dialog")
    chooser = app.screen.query_one("#filter-roles", SelectionList)
    assert chooser.get_option_at_index(0).value == "system"
    await pilot.press("space", "tab", "tab", "enter")


@needs_samples
@pytest.mark.parametrize("searched", [False, True])
async def test_a_filter_keeps_the_cursor_on_its_item_and_on_screen(
    tmp_path: Path, searched: bool
) -> None:
    async with opened(copied(tmp_path), size=(100, 30)) as (app, pilot, screen):
        view = screen.conversation
        await pilot.press("r")
        await until(pilot, lambda: view.mode == "raw", "the raw view")
        await pilot.press("g")
        if searched:
            await pilot.press("slash", *"credo", "enter")
            await until(pilot, lambda: view.matches and view.searching is None, "the search")
            await pilot.press("n", "n", "n")
        else:
            await pilot.press("pagedown", "pagedown", "pagedown")
        await pilot.pause(0.1)
        item = view.selected
        assert item is not None and cursor_on_screen(view)
        if item.role == "system":  # hidden: the first shown at or after its line
            after = [one for one in view.items if one.role != "system" and one.line >= item.line]
            item = after[0]
        row = view.heights.prefix(view.cursor) - view.scroll_y  # its place on screen
        await untick_system(pilot, app)
        await until(pilot, lambda: app.screen is screen and view.filtered, "the filter")
        await pilot.pause(0.1)
        assert view.selected is not None and view.selected.id == item.id
        assert cursor_on_screen(view), (view.cursor, view.scroll_y)
        # ... where it was on screen, as near as the rows above it allow
        assert view.heights.prefix(view.cursor) - view.scroll_y == min(
            row, view.heights.prefix(view.cursor)
        )


@needs_samples
async def test_a_live_compaction_that_folds_the_cursors_item_puts_it_on_the_summary(
    tmp_path: Path,
) -> None:
    """The audit's: the sample's first 300 lines, the cursor on the first message (``g``),
    then the rest appended a few lines at a time: once its compaction (line 755) folds
    that message, the cursor is on the first item at or after its line (the summary), and
    "↓ N new" counts no more than the items below it (it counted all 57, on no item)."""
    lines = SPOTTER.read_bytes().splitlines(keepends=True)
    path = tmp_path / "sp.jsonl"
    path.write_bytes(b"".join(lines[:300]))
    async with opened(path, size=(100, 30)) as (_app, pilot, screen):
        view = screen.conversation
        await pilot.press("g")
        await until(pilot, lambda: view.cursor == 0, "the first message")
        first = view.selected
        assert first is not None and first.line < 755
        at = 300
        while at < 760:  # (one line at a time near the compaction: each its own snapshot)
            step = 1 if at >= 740 else 40
            with path.open("ab") as out:
                out.write(b"".join(lines[at : at + step]))
            at += step
            await until(pilot, partial(read_to, screen, at), f"line {at}", 20)
        assert screen.transcript.compactions
        assert all(item.id != first.id for item in view.items)  # (folded)
        assert view.selected is not None, view.cursor
        summary = next(i for i, item in enumerate(view.items) if item.line >= first.line)
        assert view.cursor == summary
        assert view.new_count <= len(view.items) - 1 - view.cursor
        assert cursor_on_screen(view)
