"""The header's counts, every one of them, at 80 columns (the most common width): one line
lost the last ("6 elisions"), in every format; they go on to a second line where one
cannot hold them, between counts, and back to one on a wide screen."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import SAMPLES, app_loaded, screen_lines, wait_for
from rich.text import Text
from textual.app import App, ComposeResult

from session_core import Message, Session, open_transcript
from viewer.demo import DEMO_FILES, DEMO_FORMATS, simulate_run
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.model_status import ModelStatus, breakdown_terms, counts_lines

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
        # (the first: the title of the SVG; a crash's work in flight may take a third)
        header = screen_lines(app)[2:5]
        for said in counts:  # (each whole: none cut to "…")
            assert any(f" {said}" in line.replace("·", " ") for line in header), (said, header)
        await pilot.resize_terminal(200, 30)
        await wait_for(pilot, lambda: screen_lines(app)[2:4] == wide[2:4])  # (back on one line)


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


SPOTTER = (
    SAMPLES / "claude-code/projects/-home-u-spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
)


@pytest.mark.skipif(not SPOTTER.is_file(), reason="no samples")
async def test_a_usage_breakdown_is_broken_between_its_numbers(tmp_path: Path) -> None:
    """A Claude Code session of 12M tokens, without its subagents' files: its breakdown
    was one part, 87 cells, cut at 80 columns (``+ 479,537 ca…``, the cache writes lost)."""
    path = tmp_path / "main.jsonl"
    shutil.copyfile(SPOTTER, path)
    async with app_loaded(path, ModelScreen, (80, 24)) as (app, pilot):
        await pilot.pause(0.2)
        status = app.screen.query_one(ModelStatus)
        header = screen_lines(app)[1 : 1 + status.size.height]
        assert not any(line.rstrip().endswith("…") for line in header), header
        usage = app.screen.transcript.usage
        terms = usage.breakdown().split(" + ")
        assert len(terms) == 4 and usage.breakdown_terms() == terms
        shown = " ".join(header)
        for term in terms:  # (each whole, its number with its words)
            assert term in shown, (term, header)
        assert f"({usage.breakdown()})" in " ".join(shown.split()), header


class StatusApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ModelStatus()


async def test_only_a_partial_files_lead_is_italic(tmp_path: Path) -> None:
    """``the file's end alone:`` in italic, the usage after it not (the lead was the first
    part's base style, over all of it)."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "x"}) as session:
        session.append_message(Message(role="user", content="hi"))
        usage = {"prompt-tokens": 1200, "completion-tokens": 34}
        session.append_message(Message(role="assistant", content="yes"), extra={"usage": usage})
    app = StatusApp()
    async with app.run_test(size=(120, 10)) as pilot:
        status = app.query_one(ModelStatus)
        transcript = open_transcript(path)
        status.show(
            transcript, name="t", title="v1", size=1, live="idle", mode="replayed", partial=True
        )
        await pilot.pause()
        drawn = status.content
        assert isinstance(drawn, Text)
        lead = "the file's end alone:"
        assert drawn.plain.count(lead) == 2, drawn.plain  # (the counts' line and the usage's)
        italic = [
            drawn.plain[span.start : span.end]
            for span in drawn.spans
            if "italic" in str(span.style)
        ]
        assert italic == [lead, lead], italic
        assert "usage 1,234 tok (1,200 in + 34 out)" in drawn.plain, drawn.plain
        assert not drawn.style, drawn.style


def test_a_files_own_breakdown_goes_on_between_its_terms() -> None:
    """Beside its subagents' total, ``this file 177 in + …`` was one part: cut at 60
    columns (``+ 47…``); it goes on between its terms, ``this file`` with the first."""
    terms = ["177 in", "28,755 out", "11,618,567 cache read", "479,537 cache write"]
    said = [Text("usage 12,127,036 tok"), *breakdown_terms(terms), Text("$9.5261")]
    said += breakdown_terms(terms, "dim", "this file ", "")
    lines = [t.plain for t in counts_lines(Text(), said, [], 60)]
    assert lines == [
        " usage 12,127,036 tok (177 in + 28,755 out",
        " + 11,618,567 cache read + 479,537 cache write) · $9.5261",
        " this file 177 in + 28,755 out + 11,618,567 cache read",
        " + 479,537 cache write",
    ], lines
    one = breakdown_terms(["10 total only, split unknown"])  # (its first term its last)
    assert [t.plain for t in one] == ["(10 total only, split unknown)"]
