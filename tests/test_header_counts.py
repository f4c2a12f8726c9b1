"""The header's counts, every one of them, at 80 columns (the most common width): one line
lost the last ("6 elisions"), in every format; they go on to a second line where one
cannot hold them, between counts, and back to one on a wide screen."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import app_loaded, screen_lines
from rich.text import Text

from viewer.demo import DEMO_FILES, DEMO_FORMATS, simulate_run
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.model_status import counts_lines

COUNTS = ["71 lines", "15 sent next", "17 tool ops (1 interrupted)", "2 runs", "1 compaction"]


def test_counts_are_broken_between_counts() -> None:
    said = [Text(words) for words in [*COUNTS, "6 elisions"]]
    meta = Text("model=m")
    wide = counts_lines(Text(), said, meta, 200)
    assert [t.plain for t in wide] == [" " + " · ".join([*COUNTS, "6 elisions"]) + "  model=m"]
    narrow = counts_lines(Text(), said, meta, 80)
    assert [t.plain for t in narrow] == [" " + " · ".join(COUNTS), " 6 elisions  model=m"]
    assert all(t.cell_len <= 80 for t in narrow[:-1])


def test_a_big_files_end_says_so_first() -> None:
    lead = Text("the file's end alone:")
    lines = counts_lines(lead, [Text("15 sent next"), Text("2 runs")], Text(), 80)
    assert [t.plain for t in lines] == [" the file's end alone: 15 sent next · 2 runs"]


@pytest.mark.parametrize("fmt", DEMO_FORMATS)
async def test_every_count_is_on_screen_at_80_columns(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / DEMO_FILES[fmt]
    path.parent.mkdir(parents=True, exist_ok=True)
    simulate_run(str(path), speed=0, format=fmt)  # (its crash: calls left in flight)
    async with app_loaded(path, ModelScreen, (200, 30)) as (app, pilot):
        wide = screen_lines(app)
        counts = wide[2].strip().split("  ")[0].split(" · ")
        assert any("compaction" in c for c in counts) and any("run" in c for c in counts)
        await pilot.resize_terminal(80, 24)
        await pilot.pause(0.2)
        header = screen_lines(app)[2:4]  # (the first: the title of the SVG)
        for said in counts:  # (each whole: none cut to "…")
            assert any(f" {said}" in line.replace("·", " ") for line in header), (said, header)
        await pilot.resize_terminal(200, 30)
        await pilot.pause(0.2)
        assert screen_lines(app)[2:4] == wide[2:4]  # (back on one line)
