"""The browser's cursor stays on the file it is on: when a row above it goes, when the
directory is scanned again, when a filter is cleared or the sort reversed (and its row is
on screen then); escape in the filter clears it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from helpers import screen_lines
from test_browser import QuickApp, browser, scanned, until

from session_core import Message, Session

SIZE = (120, 30)


def _files(folder: Path, count: int) -> list[Path]:
    """``count`` small v1 transcripts, the first the newest (by their mtime)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    now = time.time()
    for n in range(count):
        path = folder / f"s{n:03d}.jsonl"
        with Session.create(path, {"agent": f"agent{n:03d}", "model": "m"}) as session:
            session.append_message(Message(role="user", content=f"prompt number {n}"))
        os.utime(path, (now - 3600 - n, now - 3600 - n))
        paths.append(path)
    return paths


def _on(app: QuickApp) -> str | None:
    path = browser(app)._selected_path()
    return os.path.basename(path) if path else None


def _cursor_shown(app: QuickApp) -> bool:
    return any(line.startswith("▌") for line in screen_lines(app))


async def test_a_row_going_above_the_cursor_leaves_it_on_its_file(tmp_path: Path) -> None:
    paths = _files(tmp_path / "d", 6)
    app = QuickApp(tmp_path / "d")
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot)
        await pilot.press("j", "j", "j")
        on = _on(app)
        assert on is not None
        above = browser(app).order[0]
        os.unlink(above)
        await until(pilot, lambda: above not in browser(app).rows)
        await pilot.pause(0.2)
        assert _on(app) == on  # (it went to the row that took its place)
        assert paths


async def test_a_scan_again_keeps_the_file_the_cursor_is_on(tmp_path: Path) -> None:
    _files(tmp_path / "d", 8)
    app = QuickApp(tmp_path / "d")
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot)
        assert browser(app).table.cursor == 0
        await pilot.press("j", "j", "j")
        on = _on(app)
        before = browser(app).scanned_at
        await pilot.press("r")
        await until(pilot, lambda: browser(app).scanned_at > before)
        await pilot.pause(0.2)
        assert _on(app) == on  # (it went back to the first row)


async def test_clearing_the_filter_shows_the_cursors_row(tmp_path: Path) -> None:
    _files(tmp_path / "d", 90)
    app = QuickApp(tmp_path / "d")
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot)
        await pilot.press("slash", *"agent07", "enter")  # agent070 .. agent079
        await pilot.pause(0.2)
        assert len(browser(app).order) == 10
        await pilot.press("j", "j")
        on = _on(app)
        await pilot.press("escape")  # the filter cleared: every row again
        await until(pilot, lambda: len(browser(app).order) == 90)
        await pilot.pause(0.2)
        assert _on(app) == on and _cursor_shown(app)
        await pilot.press("S")  # the sort reversed: the row still on screen
        await pilot.pause(0.2)
        assert _on(app) == on and _cursor_shown(app)


async def test_escape_in_the_filter_clears_it(tmp_path: Path) -> None:
    _files(tmp_path / "d", 12)
    app = QuickApp(tmp_path / "d")
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot)
        await pilot.press("slash", *"agent001")
        await pilot.pause(0.2)
        assert len(browser(app).order) == 1
        await pilot.press("escape")  # (the first escape left the box, the filter kept)
        await pilot.pause(0.2)
        assert len(browser(app).order) == 12 and not browser(app).needle
        assert app.focused is browser(app).table


def _cursor_line(app: QuickApp) -> int:
    """The screen line the cursor's row (``▌``) is on; -1: off screen."""
    lines = screen_lines(app)
    return next((n for n, line in enumerate(lines) if line.startswith("▌")), -1)


async def test_rows_coming_above_the_cursor_leave_it_in_its_place_on_screen(
    tmp_path: Path,
) -> None:
    """New files sort in above the cursor (newest first): its row stays on its screen
    line, not pushed down the page and off it (as a scan's rows did after a PageDown)."""
    _files(tmp_path / "d", 60)
    app = QuickApp(tmp_path / "d")
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot)
        await pilot.press("pagedown", "j", "j")
        await pilot.pause(0.2)
        on, line, top = _on(app), _cursor_line(app), browser(app).table.scroll_y
        assert line > 0 and top > 0
        for n in range(3):  # (newer than all: sorted in at the top)
            with Session.create(tmp_path / "d" / f"new{n}.jsonl", {"agent": "new"}) as s:
                s.append_message(Message(role="user", content="new"))
        await until(pilot, lambda: len(browser(app).order) == 63)
        await pilot.pause(0.2)
        assert _on(app) == on and _cursor_line(app) == line
        assert browser(app).table.scroll_y == top + 3


async def test_a_scans_rows_sorting_in_move_only_a_cursor_a_key_moved(tmp_path: Path) -> None:
    """While a scan lists rows, a cursor no key has moved stays with its file and the
    view at the top (the cursor goes to the first row when the scan ends); one a key
    moved keeps its place on screen."""
    _files(tmp_path / "d", 60)
    extra = _files(tmp_path / "e", 5)  # (written later: sorted above every row of ``d``)
    app = QuickApp(tmp_path / "d")
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot)
        screen = browser(app)
        table = screen.table
        from session_core.scan import scan_file

        rows = [scan_file(path) for path in extra]
        first = screen.order[0]
        screen.scanning, screen._first_row = True, first  # (a scan under way)
        screen._merge(rows[:2])  # the cursor not moved: on its file, the view at the top
        await pilot.pause(0.2)
        assert screen._selected_path() == first and table.cursor == 2 and table.scroll_y == 0
        await pilot.press("pagedown", "j")
        await pilot.pause(0.2)
        on, line = _on(app), _cursor_line(app)
        screen._merge(rows[2:])  # moved by a key: its place on screen kept
        await pilot.pause(0.2)
        assert _on(app) == on and _cursor_line(app) == line


@pytest.mark.parametrize("down", [4, 0])
async def test_clearing_a_filter_that_showed_no_rows_puts_the_cursor_back(
    tmp_path: Path, down: int
) -> None:
    """A filter that matched nothing, cleared: the cursor on the row it was on before
    the filter (not on a row the filter's typing left it at), the first row too."""
    _files(tmp_path / "d", 12)
    app = QuickApp(tmp_path / "d")
    async with app.run_test(size=SIZE) as pilot:
        await scanned(pilot)
        await pilot.press(*["j"] * down)
        on = _on(app)
        await pilot.press("slash", *"xyz", "enter")
        await pilot.pause(0.2)
        assert browser(app).order == []
        await pilot.press("escape")
        await until(pilot, lambda: len(browser(app).order) == 12)
        await pilot.pause(0.2)
        assert _on(app) == on and browser(app).table.cursor == down and _cursor_shown(app)
