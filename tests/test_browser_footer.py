"""The browser's footer totals at 80 columns: broken between facts, as the headers' counts
are, never cut inside a number (one line lost ``cost $0.02`` and the unknowns after it)."""

from __future__ import annotations

from pathlib import Path

from helpers import screen_lines
from rich.cells import cell_len
from test_browser import QuickApp, browser, scanned, until

from corpus import write_corpus
from session_core.scan import scan_dir
from viewer.browser_cells import totals

FACTS = (
    "9 files",
    "3 finished",
    "3 crashed",
    "2 damaged",
    "1 other",
    "tokens 9,856",
    "cost $0.02",
    "(usage unknown in 1)",
)


def test_the_totals_break_between_facts(tmp_path: Path) -> None:
    rows = list(scan_dir(write_corpus(tmp_path / "corpus")))
    assert totals(rows, len(rows)).plain.count("\n") == 0  # (no width: one line, as was)
    for width in (78, 60, 40):
        lines = totals(rows, len(rows), width).plain.split("\n")
        assert all(cell_len(line) <= width for line in lines), (width, lines)
        for fact in FACTS:  # each whole on one line
            assert any(fact in line for line in lines), (width, fact, lines)
        assert not any(line.startswith(" ") or line.endswith(" ") for line in lines), lines


async def test_the_footer_at_80_columns_says_every_fact(tmp_path: Path) -> None:
    app = QuickApp(str(write_corpus(tmp_path / "corpus")))
    async with app.run_test(size=(80, 30)) as pilot:
        await scanned(pilot)
        said = str(browser(app).query_one("#browser-totals").render())
        assert said.count("\n") == 1, said
        # (the keys' row waited for: drawn after the scan's settle on a loaded machine)
        await until(pilot, lambda: any("? Help" in line for line in screen_lines(app)))
        lines = screen_lines(app)
        keys = next(at for at, line in enumerate(lines) if "? Help" in line)
        footer = lines[keys - 2 : keys]  # (its two rows, above the keys)
        assert footer[0].startswith("9 files") and not any("…" in line for line in footer)
        for fact in ("9 files", "3 finished", "tokens 9,856", "cost $0.02"):
            assert any(fact in line for line in footer), (fact, footer)
        assert footer[1].endswith("(usage unknown in 1)"), footer
