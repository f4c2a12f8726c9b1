"""The browser's title line at every width: the root kept whole where it can be, the
sort and the filter whole, the times' zone said in fewer words before the root gives
way (a person's look: at 100 columns with a status filter it read ``…red/samples`` and
ended ``times in U…``, cut at both ends)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import screen_lines, wait_for

from viewer.app import TailscopeApp
from viewer.screens.browser_labels import title_line

ROOT = "/work/shared/samples"


@pytest.mark.parametrize("width", [80, 100, 120, 160])
@pytest.mark.parametrize("status", [None, "live"])
def test_the_title_fits_cut_at_neither_end(width: int, status: str | None) -> None:
    line = title_line(ROOT, True, "last active ↓", "", status, width)  # type: ignore[arg-type]
    plain = line.plain
    assert line.cell_len <= width, (line.cell_len, plain)
    assert "last active ↓" in plain and not plain.endswith("…"), plain
    if status:
        assert "filter: status live" in plain
    if width >= 100:  # (the root whole, the sort in full, the times' zone said)
        assert ROOT in plain and "sorted by last active ↓" in plain and "UTC" in plain, plain
    if width >= 120:
        assert "times in UTC" in plain


def test_a_filter_by_text_stays_whole_at_100() -> None:
    plain = title_line(ROOT, True, "last active ↓", "auth", "live", 100).plain
    assert "filter: status live and 'auth'" in plain and "samples" in plain, plain
    assert len(plain) <= 100 and not plain.endswith("…"), plain


async def test_the_title_on_screen_at_100_with_a_filter(tmp_path: Path) -> None:
    root = tmp_path / "s"
    root.mkdir()
    app = TailscopeApp(root)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: any("sorted by" in line for line in screen_lines(app)[:3]))
        await pilot.press("l")  # (the live files alone)
        await wait_for(pilot, lambda: any("filter:" in line for line in screen_lines(app)[:3]))
        title = next(line for line in screen_lines(app) if "sorted by" in line)
        assert "filter: status live" in title and "UTC" in title and "…" not in title[-3:]
