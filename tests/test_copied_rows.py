"""``c`` on a fitted table's row copies each cell's whole value, not the cell as cut to
fit (a run's prompt was cut to 60 characters before any fitting, and the copy lost the
rest): the Runs table in every format, Subagents, v1's run contexts (runs and facts)
and agentgo's checkpoints; still inert, one line a row, tab-separated."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from claude_code_writer import CCWriter, text, tool_use, usage
from codex_writer import RolloutWriter
from helpers import app_loaded, wait_for, written
from textual.pilot import Pilot
from textual.widget import Widget

from agentgo_helpers import text as agentgo_text
from agentgo_story import write_agentgo_story
from session_core import Message, Session
from session_core.agentgo import AgentGoSession
from session_core.text import one_line
from story import OLD_MTIME, identity_run
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.agentgo_checkpoints import CheckpointsPane
from viewer.widgets.model_panes import RunsPane
from viewer.widgets.run_context import RunContextPane
from viewer.widgets.subagents_pane import SubagentsPane
from viewer.widgets.virtual_table import FittedTable

# Longer than any column, with a tab, a newline, an escape and markup in it.
LONG = (
    "Fix the divide test\tplease: "
    + " ".join(f"word{n}" for n in range(80))
    + "\nthen \x1b[2J [bold red]the end[/]"
)
W = TypeVar("W", bound=Widget)
COPIED = one_line(LONG)  # (inert, on one line: a tab four spaces, a newline ``⏎``)


def v1_file(path: Path) -> None:
    with Session.create(path, meta={"agent": "a", "model": "m"}) as s:
        identity_run(s, "run-1", "ctx-1", [("date", "2026-08-09")])
        s.append_message(Message(role="user", content=LONG))
        s.append_message(Message(role="assistant", content="Done."))


def agentgo_file(path: Path) -> None:
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("message_end", {"message": agentgo_text("user", LONG)})
        run.record("agent_end", {})


def claude_code_file(path: Path) -> None:
    w = CCWriter()
    w.user(LONG)
    w.assistant("m1", [text("Done.")], usage=usage(10, 5), stop="end_turn")
    w.write(path)


def codex_file(path: Path) -> None:
    w = RolloutWriter(path)
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", LONG)
    w.event("user_message", message=LONG, images=[])
    w.task_complete("t1")


def idle(path: Path, write: Callable[[Path], None]) -> Path:
    write(path)
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # (no writer presumed at work)
    return path


async def copied(app: TailscopeApp, pilot: Pilot[None], table: FittedTable) -> dict[str, str]:
    """``c`` on the table's cursor row: the clipboard, label -> value (two lines, one
    field a column)."""
    table.focus()
    before = app.clipboard
    await pilot.press("c")
    await wait_for(pilot, lambda: app.clipboard != before)
    labels, values = (line.split("\t") for line in app.clipboard.split("\n"))
    assert len(labels) == len(values) == len(table.all_columns)
    return dict(zip(labels, values, strict=True))


async def on_tab(app: TailscopeApp, pilot: Pilot[None], tab: str, kind: type[W]) -> W:
    screen = app.screen
    assert isinstance(screen, ModelScreen)
    screen.action_show_tab(tab)
    await wait_for(pilot, lambda: bool(app.query(kind)))
    return app.query_one(kind)


@pytest.mark.parametrize("write", [v1_file, agentgo_file, claude_code_file, codex_file])
async def test_c_copies_a_runs_whole_prompt(tmp_path: Path, write: Callable[[Path], None]) -> None:
    """Each format's Runs table, at 80 columns: the row shows the prompt's head, ``c``
    copies all of it."""
    path = idle(tmp_path / "session.jsonl", write)
    async with app_loaded(path, ModelScreen, (80, 24)) as (app, pilot):
        pane = await on_tab(app, pilot, "runs", RunsPane)
        await wait_for(pilot, lambda: pane.table.row_count >= 1)
        shown = pane.table.row_cells(0)[-1]
        assert shown.endswith("…") and len(shown) < len(COPIED)  # (cut to show)
        values = await copied(app, pilot, pane.table)
        assert values["prompt"] == COPIED
        assert "\x1b" not in app.clipboard and "[bold red]the end[/]" in app.clipboard


async def test_c_copies_a_subagents_whole_description(tmp_path: Path) -> None:
    """A subagent's task, cut to fit the Subagents table, is copied whole."""
    w = CCWriter()
    w.user("Explore the code")
    m1 = w.assistant("m1", [tool_use("t1", "Task", description=LONG, prompt="look")])
    w.result("t1", [text("found"), text("agentId: a1")], parent=m1[0])
    path = w.write(tmp_path / "s.jsonl")
    sub = CCWriter(agent_id="a1")
    sub.user("look", parent=None)
    sub.assistant("s1", [text("found")], usage=usage(3, 4), stop="end_turn")
    sub.write(tmp_path / "s" / "subagents" / "agent-a1.jsonl")
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, (80, 24)) as (app, pilot):
        pane = await on_tab(app, pilot, "subagents", SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count >= 1)
        values = await copied(app, pilot, pane.table)
        assert values["subagent"] == COPIED
        assert values["where"] == "agent-a1"


async def test_c_copies_a_run_contexts_whole_id_and_facts(tmp_path: Path) -> None:
    """v1's run contexts: a run's id (cut in the middle to fit) and a fact's key and
    value (cut at 30 and 400 characters) are copied whole."""
    run_id = "run-" + "0123456789" * 4
    key = "fact-" + "k" * 40

    def write(path: Path) -> None:
        with Session.create(path, meta={"agent": "a", "model": "m"}) as s:
            identity_run(s, run_id, "ctx-1", [(key, LONG * 4)])
            s.append_message(Message(role="user", content="hello"))

    path = written(tmp_path / "run.jsonl", write)
    async with app_loaded(path, ModelScreen, (80, 24)) as (app, pilot):
        pane = await on_tab(app, pilot, "contexts", RunContextPane)
        await wait_for(pilot, lambda: pane.facts_table.row_count >= 1)
        values = await copied(app, pilot, pane.runs_table)
        assert values["run"] == run_id
        values = await copied(app, pilot, pane.facts_table)
        assert values["fact"] == key
        assert values["value"] == one_line(LONG * 4)


async def test_c_copies_a_checkpoints_whole_run_id(tmp_path: Path) -> None:
    """agentgo's checkpoints show a run's id's head; ``c`` copies the id whole."""
    path = written(tmp_path / "session.jsonl", write_agentgo_story)
    async with app_loaded(path, ModelScreen, (80, 24)) as (app, pilot):
        pane = await on_tab(app, pilot, "checkpoints", CheckpointsPane)
        await wait_for(pilot, lambda: pane.table.row_count >= 1)
        checkpoint = pane.view.checkpoints[pane.rows[pane.table.cursor_row]]
        assert checkpoint.run_id not in pane.table.row_cells(pane.table.cursor_row)[3]
        values = await copied(app, pilot, pane.table)
        assert values["run"].endswith(f" {checkpoint.run_id}")
