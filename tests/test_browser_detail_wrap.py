"""The browser's detail under its table: the status line wraps between words."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import screen_lines
from test_browser import QuickApp, browser, scanned

from story import write_story


@pytest.mark.parametrize("width", [80, 100])
async def test_the_detail_wraps_its_status_line(tmp_path: Path, width: int) -> None:
    """The detail's second line (the status and why) was cut at 100 and 80 columns
    (``tokens and cost at l…``): it wraps between words; the first line is cut to one."""
    write_story(tmp_path / "story.jsonl")
    app = QuickApp(str(tmp_path))
    async with app.run_test(size=(width, 24)) as pilot:
        await scanned(pilot)
        body = browser(app).query_one("#browser-detail")
        said = " ".join(" ".join(screen_lines(app)).split())
        assert "enter opens it, escape comes back" in said, said
        assert body.size.height >= 3 and body.size.height <= 5, body.size
        first = next(line for line in screen_lines(app) if "story.jsonl" in line)
        assert len(first.rstrip()) <= width, first
