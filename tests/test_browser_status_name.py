"""A file no format claims has one status name on every browser surface: its cell, the
footer's counts, the filter in the title, an empty table's row and the detail (the audit
found four: ``other``, ``not a transcript``, ``not-a-transcript``, "other than a
transcript")."""

from __future__ import annotations

from pathlib import Path

from helpers import screen_lines
from test_browser import browser, scanned, until

from corpus import write_v1
from viewer.app import TailscopeApp

OTHER_NAMES = ("not a transcript", "not-a-transcript", "other than a transcript")


async def test_the_other_status_has_one_name_everywhere(tmp_path: Path) -> None:
    write_v1(tmp_path / "one.jsonl")
    (tmp_path / "notes.jsonl").write_text('{"hello": 1}\n')
    app = TailscopeApp(tmp_path)
    async with app.run_test(size=(120, 24)) as pilot:
        await scanned(pilot)
        screen = browser(app)

        def text() -> str:
            return "\n".join(screen_lines(app))

        await pilot.press("n")  # (only the other file: the cursor on it, its detail shown)
        await until(pilot, lambda: screen.table.row_count == 1 and "filter:" in text())
        path = screen.order[0]
        assert screen.cell_text(path, "status") == "other"
        lines = screen_lines(app)
        assert any("filter: status other" in line for line in lines[:3]), lines
        assert any(line.startswith("2 files (1 shown)") and "1 other" in line for line in lines)
        assert any(line.lstrip().startswith("other: its first line") for line in lines), lines
        await pilot.press("slash", *"zzq", "enter")
        said = "No file matches 'zzq' and has status other: a shows all 2 files."
        await until(pilot, lambda: said in text())
        assert not any(name in text() for name in OTHER_NAMES), text()
