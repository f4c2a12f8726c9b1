"""Tables that fit the terminal (``virtual_table.fitted_columns``) at 80 and 120 columns:
v1's run contexts (its runs and the run's facts) and agentgo's checkpoints, as the Runs
and Subagents tables do (``test_subagents_pane``); and a row copied (``c``) whole, the
columns dropped to fit too."""

from __future__ import annotations

from pathlib import Path

import pytest
from claude_code_writer import story
from helpers import app_loaded, wait_for, written
from panes_helpers import write_transcript

from agentgo_story import write_agentgo_story
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.agentgo_checkpoints import CheckpointsPane, SnapshotView
from viewer.widgets.model_panes import RUN_COLUMNS, RunsPane, TableDetail
from viewer.widgets.run_context import RunContextPane
from viewer.widgets.subagents_pane import COLUMNS, SubagentsPane
from viewer.widgets.virtual_table import VirtualTable, copied_value

SIZES = [(120, 35), (80, 24)]


def fits(table: VirtualTable) -> None:
    """No scrolling across: every column shown is on screen."""
    assert not table.show_horizontal_scrollbar, (table.id, table.columns)
    assert table.virtual_width() <= table.scrollable_content_region.width, table.columns


@pytest.mark.parametrize("size", SIZES)
async def test_the_run_contexts_tables_fit_the_terminal(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """v1's runs list (79 cells in 51 at 80 columns, in 78 at 120) and the run's facts
    (60 cells in 27 / 40: a value of 40 and more) scrolled across: what changed and a
    fact's value take what the others leave, cut with ``…``; the columns the run's
    detail says go first. How a fact compares stays (at 80 columns it went)."""
    path = written(tmp_path / "run.jsonl", write_transcript)
    async with app_loaded(path, ModelScreen, size) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        screen.action_show_tab("contexts")
        await wait_for(pilot, lambda: bool(app.query(RunContextPane)))
        pane = app.query_one(RunContextPane)
        await wait_for(pilot, lambda: pane.facts_table.row_count >= 1)
        await pilot.pause(0.1)
        fits(pane.runs_table)
        fits(pane.facts_table)
        runs = [key for key, _, _ in pane.runs_table.columns]
        assert runs[0] == "run" and runs[-1] == "changed"
        assert ("ts" in runs) == (size[0] >= 120)
        facts = [key for key, _, _ in pane.facts_table.columns]
        # (how a fact compares stays at 80 columns: the runs list leaves the detail 40
        # cells, where a 66% share left it 27 and the column went)
        assert "key" in facts and "value" in facts and "vs" in facts
        assert pane.query_one("#run-detail").region.width >= 40


@pytest.mark.parametrize("size", SIZES)
async def test_the_checkpoints_table_fits_the_terminal(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    """agentgo's checkpoints (120 cells in 80) scrolled across at 80 columns: the
    snapshot's shape takes what the others leave; its line and time go, the snapshot's
    first line says them."""
    path = written(tmp_path / "session.jsonl", write_agentgo_story)
    async with app_loaded(path, ModelScreen, size) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        screen.action_show_tab("checkpoints")
        await wait_for(pilot, lambda: bool(app.query(CheckpointsPane)))
        pane = app.query_one(CheckpointsPane)
        await wait_for(pilot, lambda: pane.table.row_count >= 1)
        await pilot.pause(0.1)
        fits(pane.table)
        keys = [key for key, _, _ in pane.table.columns]
        assert "shape" in keys and "latest" in keys and ("time" in keys) == (size[0] >= 120)
        checkpoint = pane.view.checkpoints[pane.rows[pane.table.cursor_row]]
        first = pane.query_one("#agentgo-checkpoint-json", SnapshotView).plain().split("\n")[0]
        assert f"seq {checkpoint.seq} · line {checkpoint.line} · at " in first
        assert first.endswith("latest (load_checkpoint)")


@pytest.mark.parametrize("kind", [RunsPane, SubagentsPane])
async def test_a_copied_row_holds_every_column(tmp_path: Path, kind: type[TableDetail]) -> None:
    """At 80 columns the Runs table leaves out a run's start and the Subagents table a
    subagent's took, cost and where: ``c`` copies the row with them (a review: the copy
    lost the columns dropped to fit); each cell's whole value (``test_copied_rows``)."""
    path = story(tmp_path, torn=False)
    async with app_loaded(path, ModelScreen, (80, 24)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        screen.action_show_tab("runs" if kind is RunsPane else "subagents")
        await wait_for(pilot, lambda: bool(app.query(kind)))
        pane = app.query_one(kind)
        await wait_for(pilot, lambda: pane.table.row_count >= 1)
        table = pane.table
        columns = RUN_COLUMNS if kind is RunsPane else COLUMNS
        assert len(table.columns) < len(columns)  # (some dropped to fit)
        table.focus()
        await pilot.press("c")
        await wait_for(pilot, lambda: bool(app.clipboard))
        labels, values = (line.split("\t") for line in app.clipboard.split("\n"))
        assert labels == [str(label) for _key, label, _width in columns]
        cells = pane.cells(table.cursor_row)
        assert values == [copied_value(cells[key]) for key, _label, _width in columns]
        if isinstance(pane, RunsPane):
            started = pane.runs[table.cursor_row].started
            assert started and values[labels.index("started")] == started
        else:
            assert "agent-a1" in values[labels.index("where")]


@pytest.mark.parametrize(("width", "shown"), [(100, True), (80, False)])
async def test_the_runs_start_goes_at_80_columns_not_100(
    tmp_path: Path, width: int, shown: bool
) -> None:
    """The README says a run's start goes at 80 columns; a whole ISO time (24 cells) made
    it go at 100 already. Its day and time (``08-09 13:10:08``) stay at 100, the prompt
    keeping its least; ``c`` and the detail have it whole."""
    path = story(tmp_path, torn=False)
    async with app_loaded(path, ModelScreen, (width, 30)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        screen.action_show_tab("runs")
        await wait_for(pilot, lambda: bool(app.query(RunsPane)))
        pane = app.query_one(RunsPane)
        await wait_for(pilot, lambda: pane.table.row_count >= 1)
        keys = [key for key, _label, _width in pane.table.columns]
        assert ("started" in keys) is shown, keys
        if shown:
            started = pane.runs[0].started
            assert started and started[5:10] in pane.table.row_cells(0)[keys.index("started")]
