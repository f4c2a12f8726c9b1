"""Unknown is never shown as 0 or left blank, and a lower bound says ``≥``: a response
that reported no usage says so in every format's export (``usage: unknown (not
reported)``: v1's alone did), the viewer's Runs table says ``unknown`` (it was blank)
and marks a run's partial total ``≥`` (it read as exact), the Subagents tab's usage cell
marks it as its cost cell does, and a v1 response known in part says what is unknown in
the conversation as in its export (``input unknown``)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use, usage
from codex_writer import RolloutWriter
from helpers import app_loaded, wait_for

from session_core import Message, Session, open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export
from story import OLD_MTIME
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.item_text import item_facts
from viewer.widgets.model_panes import RunsPane
from viewer.widgets.subagents_pane import SubagentsPane

NOT_REPORTED = "usage: unknown (not reported)"


def _without_usage(w: CCWriter, msg_id: str) -> None:
    """Response ``msg_id``'s lines with no ``usage`` key at all."""
    for line in w.lines:
        message = line.get("message")
        if isinstance(message, dict) and message.get("id") == msg_id:
            del message["usage"]


def claude_code_file(path: Path) -> None:
    """Turn 1: a response that reported, one that did not; turn 2: one that did not."""
    w = CCWriter()
    w.user("first")
    w.assistant("m1", [text("reported")], usage=usage(100, 20), stop="end_turn")
    w.assistant("m2", [text("not reported")], stop="end_turn")
    w.user("second")
    w.assistant("m3", [text("not reported either")], stop="end_turn")
    _without_usage(w, "m2")
    _without_usage(w, "m3")
    w.write(path)


def codex_file(path: Path) -> None:
    """The same turns in a rollout: a report with no usage after a model output."""
    w = RolloutWriter(path)
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "first")
    w.message("assistant", "reported")
    w.token_count((1000, 0, 120, 0))
    w.message("assistant", "not reported")
    w.token_count(None)
    w.task_complete("t1")
    w.task_started("t2")
    w.turn_context("t2")
    w.message("user", "second")
    w.message("assistant", "not reported either")
    w.token_count(None)
    w.task_complete("t2")


def agentgo_file(path: Path) -> None:
    """Two runs: a model call that reported and one that did not; one that did not."""

    def call(run: object, n: int, reported: bool) -> None:
        execution = {"id": f"m{n}", "kind": "model", "attempt": 1}
        answer = {"kind": "assistant", "content": [{"type": "text", "text": f"a{n}"}]}
        end: dict[str, object] = {"message": answer}
        if reported:
            end["usage"] = {"input_tokens": 100, "output_tokens": 20}
        run.record("model_request", {"messages": []}, execution=execution)  # type: ignore[attr-defined]
        run.record("model_exec_end", end, execution=execution)  # type: ignore[attr-defined]
        run.record("message_end", {"message": answer})  # type: ignore[attr-defined]

    with AgentGoSession.create(path) as s:
        for calls in ((True, False), (False,)):
            run = s.begin_run()
            run.record("agent_start")
            prompt = {"kind": "user", "content": [{"type": "text", "text": "go"}]}
            run.record("message_end", {"message": prompt})
            for n, reported in enumerate(calls):
                call(run, n, reported)
            run.record("agent_end", {})
            run.close()


WRITERS = [claude_code_file, codex_file, agentgo_file]


def _written(tmp_path: Path, write: Callable[[Path], None]) -> Path:
    path = tmp_path / "session.jsonl"
    write(path)
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # (no writer presumed at work)
    return path


@pytest.mark.parametrize("write", WRITERS)
@pytest.mark.parametrize("form", ["md", "html"])
def test_a_response_that_reported_no_usage_says_so_in_every_export(
    tmp_path: Path, write: Callable[[Path], None], form: str
) -> None:
    """Two of the three responses reported nothing: each says so; a prompt, no response,
    says nothing of usage."""
    said = export(_written(tmp_path, write), form).replace("\\", "")  # (md escapes)
    assert said.count(NOT_REPORTED) == 2, said


@pytest.mark.parametrize("write", WRITERS)
async def test_the_runs_table_says_unknown_and_marks_a_lower_bound(
    tmp_path: Path, write: Callable[[Path], None]
) -> None:
    path = _written(tmp_path, write)
    async with app_loaded(path, ModelScreen, (140, 30)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        screen.action_show_tab("runs")
        await wait_for(pilot, lambda: bool(app.query(RunsPane)))
        pane = app.query_one(RunsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 2)
        first, second = pane.table.column_cells("usage")
        # (the first run: one of its two responses reported; the second: none did)
        assert first.startswith("≥") and first.endswith(" tok"), first
        assert second == "unknown"


@pytest.mark.parametrize("torn", [False, True])
async def test_the_subagents_usage_cell_marks_a_lower_bound_as_its_cost_cell(
    tmp_path: Path, torn: bool
) -> None:
    """A subagent whose file has a response that reported nothing: ``≥`` on its tokens
    as on its cost (the detail says "1 of 2 responses reported"); once, where its file
    is read in part too (a crash tail)."""
    w = CCWriter()
    w.user("Explore the code")
    m1 = w.assistant("m1", [tool_use("t1", "Task", description="scout", prompt="look")])
    w.result("t1", [text("found"), text("agentId: a1")], parent=m1[0])
    path = w.write(tmp_path / "s.jsonl")
    sub = CCWriter(agent_id="a1")
    sub.user("look", parent=None)
    sub.assistant("s1", [text("looking")], usage=usage(30, 30), stop="end_turn")
    sub.assistant("s2", [text("found")], stop="end_turn")
    _without_usage(sub, "s2")
    tail = b'{"parentUuid": "x", "type": "assist' if torn else b""
    sub_path = sub.write(tmp_path / "s" / "subagents" / "agent-a1.jsonl", torn=tail)
    for written in (path, sub_path):
        os.utime(written, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, (140, 30)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        screen.action_show_tab("subagents")
        await wait_for(pilot, lambda: bool(app.query(SubagentsPane)))
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 1)
        assert pane.table.column_cells("cost")[0].startswith("≥")
        assert pane.table.column_cells("usage") == ["≥60 tok"]
        assert (pane.subagents[0].left_out is not None) == torn


def test_a_v1_response_known_in_part_says_what_is_unknown_as_its_export(
    tmp_path: Path,
) -> None:
    path = tmp_path / "v1.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="user", content="q"))
        s.append_message(
            Message(role="assistant", content="a"), extra={"usage": {"completion-tokens": 5}}
        )
    assert "usage: 5 tok (5 out) · input unknown" in export(path, "md").replace("\\", "")
    answer = open_transcript(path).messages[-1]
    facts = item_facts(answer)
    assert facts[-2:] == ["5 tok", "input unknown"], facts


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_claude_response_known_in_part_says_what_is_unknown_as_the_viewer(
    tmp_path: Path, fmt: str
) -> None:
    """Its export's message line said ``1 reported in part`` (a total's words) where the
    viewer said ``input unknown``: one helper's words for both (``Usage.unreported``)."""
    w = CCWriter(version="2.1.150")
    w.user("q")
    w.assistant("m1", [text("a")], usage={"output_tokens": 5}, stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    said = export(path, fmt).replace("\\", "")
    assert "usage: 5 tok (5 out) · input unknown · cost unknown" in said, said
    answer = open_transcript(path).messages[-1]
    assert item_facts(answer)[-2:] == ["5 tok", "input unknown"]
    assert "1 reported in part" in open_transcript(path).usage.describe()  # (the total's)


def test_a_run_with_no_response_is_blank_not_unknown() -> None:
    """(the review: a run that made no model request read "unknown"; no response could
    have reported any, as before)"""
    from session_core.usage_totals import Usage
    from viewer.widgets.model_panes import usage_short

    assert usage_short(Usage()) == ""
    assert usage_short(Usage(responses=1)) == "unknown"


def test_a_run_with_no_model_request_is_blank_in_the_export_as_in_the_tab(
    tmp_path: Path,
) -> None:
    """A run that made no model request (``/exit``) had a blank usage in the Runs tab but
    "unknown" in the export's Runs table and "usage unknown" in its detail (the audit on
    the real samples): blank in the table, and its detail says why."""
    from viewer.widgets.model_panes import run_entries

    w = CCWriter()
    w.user("first")
    w.assistant("m1", [text("answered")], usage=usage(100, 20), stop="end_turn")
    w.user("<command-name>/exit</command-name>\n<command-message>exit</command-message>")
    w.user("<local-command-stdout>See ya!</local-command-stdout>")
    path = w.write(tmp_path / "session.jsonl")
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    runs = open_transcript(path).runs
    assert len(runs) == 2 and runs[1].prompt == "/exit"
    assert runs[1].describe_usage() == "" and runs[0].describe_usage().startswith("120 tok")
    table = export(path, "md").split("## Runs", 1)[1].split("\n\n## ", 1)[0]
    row = next(line for line in table.splitlines() if "| /exit |" in line)
    cells = [cell.strip() for cell in row.strip().strip("|").split("|")]
    assert cells[2:5] == ["line 3", "1.0s", ""], row
    assert run_entries(runs[1], 1, None)[1][1].endswith(" · no model request")
    assert " · usage 120 tok (100 in + 20 out" in run_entries(runs[0], 0, None)[1][1]
