"""A big file's end shown alone names no line of the file: its lines are counted from the
window's first, not the file's (``lines_not_known``), in every pane; after the load,
the file's own lines are shown again."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from format_fixtures import FACTORIES
from helpers import file_loaded
from textual.pilot import Pilot

from session_core import open_transcript
from session_core.formats import by_name
from session_core.model import Transcript
from viewer.app import TailscopeApp
from viewer.screens import following
from viewer.screens.model_screen import ModelScreen
from viewer.screens.op_detail import op_entries
from viewer.widgets.model_diff import ModelDiff

# A line number as the panes say one (not a transcript's own text that says "line 3").
A_LINE = re.compile(
    r"line: \d|\bat line \d|from line \d|\blines \d[\d,]*-|\(line \d|[−+] line \d|, line \d"
)


def line_numbers(transcript: Transcript) -> Iterator[int | None]:
    """Every line number the model holds beside its items'."""
    for op in transcript.tool_operations:
        yield from (op.line, op.result_line, op.subagent_line, op.progress_line)
    for run in transcript.runs:
        yield from (run.line, run.end_line, run.context.line if run.context else None)
    yield from (compaction.line for compaction in transcript.compactions)
    yield from (subagent.line for subagent in transcript.subagents)


@pytest.mark.parametrize("fmt", sorted(FACTORIES))
def test_the_end_read_alone_holds_no_line_number(fmt: str, tmp_path: Path) -> None:
    """Every format's tail: each line number 0 (not known) or None (none), where the
    whole read has the file's own (the fixture has operations, runs, and for most a
    compaction: numbers a window counts from its start)."""
    path = FACTORIES[fmt](tmp_path)
    end = by_name(fmt).tail(path)
    assert end is not None and end.tool_operations and end.runs
    assert set(line_numbers(end)) <= {0, None}
    assert any(line_numbers(open_transcript(path)))


def surfaces(screen: ModelScreen) -> list[str]:
    """What the tools table, each operation's detail, each run's detail and the Diff
    tab say, as text."""
    said: list[str] = []
    ops = screen.ops
    for row in range(len(ops.rows)):
        said.extend(cell.plain for cell in ops._cells(row))
        op = ops.ops[ops.rows[row]]
        said.extend(text for _style, text in op_entries(op, ops.ran.get((op.call_id, op.line))))
    runs = screen.runs
    for index in range(len(runs.runs)):
        said.extend(text for _style, text in runs.detail_entries(index))
    if "diff" in screen._tab_ids:  # (v1's diff is its own, a row per line: not in the end's)
        diff = ModelDiff(screen.transcript)
        said.extend(diff.row_text(index) for index in range(len(diff)))
    return said


async def shown(pilot: Pilot[None], screen: ModelScreen) -> list[str]:
    """``surfaces`` once each tab was shown (a pane follows the snapshot when shown)."""
    for tab in ("tools", "runs", "diff"):
        if tab in screen._tab_ids:
            screen.action_show_tab(tab)
            await pilot.pause()
    return surfaces(screen)


@pytest.mark.parametrize("fmt", sorted(FACTORIES))
async def test_no_pane_says_a_line_of_the_window_as_the_file_s(
    fmt: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the end is shown alone: the tools table's line column is blank, and no
    operation's detail, run's detail or Diff row names a line. Once the file is read,
    they say the file's own."""
    path = FACTORIES[fmt](tmp_path)
    whole = open_transcript(path)
    monkeypatch.setattr(following, "PREVIEW_FROM", 0)  # any file is "big"
    load = ModelScreen.follow_file
    monkeypatch.setattr(ModelScreen, "follow_file", lambda self: None)  # started below
    app = TailscopeApp(str(path))
    async with app.run_test(size=(160, 40)) as pilot:
        screen = app.file_screen
        while not screen.panes_ready:
            await pilot.pause(0.02)
        assert screen._previewing and not screen._loaded
        said = await shown(pilot, screen)
        assert screen.ops.rows and screen.runs.runs
        assert not [text for text in said if A_LINE.search(text)]
        assert {ops_line(screen, row) for row in range(len(screen.ops.rows))} == {""}
        screen.show_run(screen.runs.runs[0])  # (enter on a run: its line is not known yet)
        await pilot.pause()
        told = [note.message for note in app._notifications]
        assert told == ["The file's end is shown alone: its lines are known once it is read."]

        load(screen)
        await file_loaded(pilot, ModelScreen)
        assert not screen._previewing
        said = "\n".join(await shown(pilot, screen))
        for op in whole.tool_operations:
            assert f"line: {op.line:,}" in said
        lines = [ops_line(screen, row) for row in range(len(screen.ops.rows))]
        assert lines == [f"{op.line:,}" for op in whole.tool_operations]
        first = whole.runs[0]
        assert f"lines {first.line:,}-" in said or f"from line {first.line:,}" in said
        if whole.compactions and "diff" in screen._tab_ids:
            assert f" at line {whole.compactions[0].line:,}" in said


def ops_line(screen: ModelScreen, row: int) -> str:
    """The tools table's line cell of ``row``."""
    keys = [key for key, _label, _width in screen.ops.table.columns]
    return screen.ops._cells(row)[keys.index("line")].plain
