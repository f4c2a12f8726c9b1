"""A browser filter that leaves no file says so in the table's first row: an empty table,
with only the header's ``filter:`` and the footer's ``(0 shown)`` to say why, read as
an empty directory (the keys audit); said once (the detail pane said it too)."""

from __future__ import annotations

from pathlib import Path

from helpers import screen_lines
from test_browser import browser, scanned, until

from corpus import write_v1
from viewer.app import TailscopeApp


async def test_a_status_or_text_filter_of_no_file_says_so(tmp_path: Path) -> None:
    write_v1(tmp_path / "one.jsonl")
    app = TailscopeApp(tmp_path)
    async with app.run_test(size=(120, 24)) as pilot:
        await scanned(pilot)
        screen = browser(app)
        assert screen.table.row_count == 1

        def text() -> str:
            return "\n".join(screen_lines(app))

        assert "No file" not in text()
        await pilot.press("u")
        await until(pilot, lambda: "No file is unreadable: a shows all 1 file." in text())
        assert text().count("No file") == 1
        await pilot.press("n")
        await until(pilot, lambda: "No file has status other: a shows" in text())
        await pilot.press("a", "slash", *"zzq", "enter")
        await until(pilot, lambda: "No file matches 'zzq': a shows all 1 file." in text())
        assert text().count("No file") == 1  # (the detail below said it again)
        await pilot.press("a")
        await until(pilot, lambda: screen.table.row_count == 1 and "No file" not in text())


async def test_a_folder_of_no_sessions_file_says_so_in_the_first_row(tmp_path: Path) -> None:
    """A folder with no session's file said so in the detail, below a blank table: the
    table's first row says it, as every empty table does, once (a person's look)."""
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a transcript\n")
    app = TailscopeApp(folder)
    async with app.run_test(size=(120, 24)) as pilot:
        await scanned(pilot)
        screen = browser(app)

        def text() -> str:
            return "\n".join(screen_lines(app))

        await until(pilot, lambda: "No session's file below" in text())
        assert screen.table.row_count == 0
        assert text().count("No session's file below") == 1
        # (in the table's first row, not the detail below it: blank rows are not lines)
        assert "No session's file below" in (screen.table.empty_text or "")
        assert not str(screen.query_one("#browser-detail").render()).strip()
        # (the footer: no file, so no total said unknown)
        totals = str(screen.query_one("#browser-totals").render())
        assert totals.strip() == "0 files", totals
