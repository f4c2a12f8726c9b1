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
from viewer.widgets.model_status import ModelStatus, counts_lines

COUNTS = ["71 lines", "15 sent next", "17 tool ops (1 interrupted)", "2 runs", "1 compaction"]


def test_counts_are_broken_between_counts() -> None:
    said = [Text(words) for words in [*COUNTS, "6 elisions"]]
    meta = [Text("model=m")]
    wide = counts_lines(Text(), said, meta, 200)
    assert [t.plain for t in wide] == [" " + " · ".join([*COUNTS, "6 elisions"]) + "  model=m"]
    narrow = counts_lines(Text(), said, meta, 80)
    assert [t.plain for t in narrow] == [" " + " · ".join(COUNTS), " 6 elisions  model=m"]
    assert all(t.cell_len <= 80 for t in narrow[:-1])


def test_a_big_files_end_says_so_first() -> None:
    lead = Text("the file's end alone:")
    lines = counts_lines(lead, [Text("15 sent next"), Text("2 runs")], [], 80)
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


def test_the_meta_is_broken_between_facts_after_the_counts() -> None:
    """A Codex file's header at 80 columns: its counts took the line whole, and the meta
    put after them cut the last count (``1 compactio…``) and lost ``model=``."""
    said = [Text(w) for w in ["1,252 lines", "312 sent next", "229 tool ops (16 failed)"]]
    said += [Text("19 runs"), Text("1 compaction")]
    facts = ["model=gpt-5.3-codex", "cwd=/home/dev/projects/tailscope", "cli_version=0.104.0"]
    lines = counts_lines(Text(), said, [Text(f) for f in [*facts, "originator=x"]], 80)
    assert [t.plain for t in lines] == [
        " " + " · ".join(t.plain for t in said),
        " " + "  ".join(facts),
        " originator=x",
    ]
    assert all(t.cell_len <= 80 for t in lines)


@pytest.mark.parametrize("fmt", DEMO_FORMATS)
async def test_no_header_part_is_cut_at_80_columns(tmp_path: Path, fmt: str) -> None:
    """The meta's facts and the usage's parts (its cost: ``$9.8…``) are each whole at 80
    columns, broken onto further lines between them, as the counts are."""
    path = tmp_path / DEMO_FILES[fmt]
    path.parent.mkdir(parents=True, exist_ok=True)
    simulate_run(str(path), speed=0, format=fmt)
    async with app_loaded(path, ModelScreen, (80, 24)) as (app, pilot):
        await pilot.pause(0.2)
        status = app.screen.query_one(ModelStatus)
        noted = len(counts_lines(Text(), status._note, [], 80)) if status._note else 0
        header = screen_lines(app)[1 : 1 + status.size.height - noted]  # (v1's own below)
        assert not any(line.rstrip().endswith("…") for line in header), header
        shown = " ".join(header)
        facts, usage = status._counts[2], status._usage
        assert facts and len(usage) > 1
        for part in [*facts, *usage]:
            assert part.plain.strip() in shown, (part.plain, header)
