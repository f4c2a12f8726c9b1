"""The browser's detail under its table: the status line wraps between words, and the
cursor's row stays shown as the detail grows."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from helpers import screen_lines
from test_browser import QuickApp, browser, scanned

from story import OLD_MTIME, write_story
from viewer.widgets.virtual_table import VirtualTable


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


def write_quiet_dir(root: Path) -> None:
    """25 finished files (a 2-row status at 100 columns), then 5 whose writer may still be
    at work (ending on a question: a 3-row status), oldest first by their times."""
    root.mkdir()
    for i in range(30):
        lines = [
            {"payload": {"agent": "a", "model": "m"}, "type": "session-meta"},
            {"payload": {"content": f"question {i}", "role": "user"}, "type": "message"},
        ]
        if i < 25:
            usage = {"prompt_tokens": 5, "completion_tokens": 2}
            lines.append(
                {"payload": {"content": "answer", "role": "assistant", "usage": usage}}
                | {"type": "message"}
            )
        path = root / f"f{i:02d}.jsonl"
        ts = f"2026-11-30T00:{i:02d}:00.000000Z"
        path.write_text(
            "".join(
                json.dumps(line | {"id": f"{i}-{n}", "ts": ts, "v": 1}) + "\n"
                for n, line in enumerate(lines)
            )
        )
        quiet = time.time() - 10 if i >= 25 else OLD_MTIME
        os.utime(path, (quiet, quiet))


async def test_the_cursor_stays_shown_as_the_detail_grows(tmp_path: Path) -> None:
    """The table scrolled to the cursor's row, then the detail grew a row (a longer status)
    and hid it: the selected row is on screen after every move."""
    write_quiet_dir(tmp_path / "d")
    app = QuickApp(str(tmp_path / "d"))
    async with app.run_test(size=(100, 24)) as pilot:
        await scanned(pilot)
        await pilot.press("S", "home")
        for i in range(27):
            await pilot.pause(0.05)
            table = browser(app).query_one("#browser-table", VirtualTable)
            assert table.cursor == i
            shown = [line.split("  ")[0].strip(" ▌") for line in screen_lines(app)]
            assert f"question {i}" in shown, (i, screen_lines(app))
            await pilot.press("down")
