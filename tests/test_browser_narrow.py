"""A very narrow browser keeps each row's status: at 40 columns every droppable column
was gone and the session column still kept its 16 cells, so the row ran past the edge,
the status column cut off and a horizontal scroll bar's ``▍`` drawn under the table.
Narrower than the first columns to go allow, the messages and last activity go too, then
the sorted-by column; never the status."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import screen_lines
from test_browser import scanned, until

from corpus import write_corpus
from viewer.app import TailscopeApp
from viewer.browser_cells import fitting_columns


@pytest.mark.parametrize("keep", [None, "last", "size", "status", "session"])
def test_the_status_column_fits_at_any_width(keep: str | None) -> None:
    for width in range(24, 121):
        columns = fitting_columns(width, keep)
        keys = [key for key, _, _ in columns]
        assert keys[0] == "session" and keys[-1] == "status", (width, keys)
        # (a cell each side of each column, and the scroll bar's 2)
        assert sum(cells + 2 for _, _, cells in columns) + 2 <= width, (width, columns)
    assert [k for k, _, _ in fitting_columns(53)] == ["session", "last", "messages", "status"]


async def test_forty_columns_show_the_status_and_no_stray_scroll_bar(tmp_path: Path) -> None:
    app = TailscopeApp(write_corpus(tmp_path / "corpus"))
    async with app.run_test(size=(40, 15)) as pilot:
        await scanned(pilot)

        def header() -> list[str]:
            lines = screen_lines(app)
            return next(line for line in lines if line.lstrip().startswith("session")).split()

        await until(pilot, lambda: header() == ["session", "status"])
        assert not any(line.strip() == "▍" for line in screen_lines(app)), screen_lines(app)
        await pilot.press("s")  # (by size: the sorted-by column kept)
        await until(pilot, lambda: header() == ["session", "size", "status"])
