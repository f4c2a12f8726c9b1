"""Claude Code subagents as later versions write them: a Workflow's agents under
``subagents/workflows/<runId>/``; a call only launched in the background
(``async_launched``) settled by its subagent's file; a subagent started by another
subagent; the writer's own run time of a subagent; bookkeeping lines that name an agent
but are no subagent's; a linked subagent's file missing (the total said partial)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from claude_code_writer import CCWriter, text, tool_use, usage
from test_claude_code_live_subagents import followed

from session_core.export_md import render_markdown
from session_core.exportdoc_model import model_document
from session_core.formats import CLAUDE_CODE, by_name
from session_core.formats.base import check_note
from session_core.formats.claude_code import subagents
from session_core.formats.claude_code.subagents import folder_of
from session_core.model import Transcript
from session_core.scan import scan_file
from viewer.widgets.subagents_pane import subagent_entries

FMT = by_name(CLAUDE_CODE)
SID = "bbbbbbbb-dddd-4ddd-8ddd-dddddddddddd"


def opened(path: Path, writer_alive: bool | None = None) -> Transcript:
    return FMT.open(str(path), writer_alive=writer_alive)


def agent_file(path: Path, agent: str, *, finished: bool = True, tokens: int = 100) -> Path:
    """A subagent's own file: its prompt, then a response (its turn ended, or a tool call
    still open: it is at work)."""
    w = CCWriter(SID, version="2.1.150", agent_id=agent)
    w.user(f"step of {agent}", parent=None)
    w._clock += 10  # (it works 11 s: its call's result came 1 s after the call)
    if finished:
        w.assistant(f"m-{agent}", [text("done")], usage=usage(tokens, 10), stop="end_turn")
    else:
        w.assistant(f"m-{agent}", [tool_use(f"b-{agent}", "Bash", command="gh pr diff")])
    return w.write(path)


def op_of(t: Transcript, call_id: str) -> Any:
    return next(o for o in t.tool_operations if o.call_id == call_id)


def workflow_session(folder: Path) -> Path:
    """A ``Workflow`` call answered at once (its run launched), its two agents' files in
    ``subagents/workflows/wf_xyz/``, as 2.1.x writes them."""
    w = CCWriter(SID, version="2.1.150")
    w.user("run the review workflow")
    w.assistant("m1", [tool_use("toolu_wf", "Workflow", script="export const meta = {}")])
    session = folder / f"{SID}.jsonl"
    runs = folder_of(str(session)) / "workflows" / "wf_xyz"
    launched = {"status": "async_launched", "taskId": "t1", "runId": "wf_xyz"}
    w.result("toolu_wf", "Workflow launched in background. Run ID: wf_xyz", tool_use_result={
        **launched, "transcriptDir": str(runs)})  # fmt: skip
    w.assistant("m2", [text("Launched.")], usage=usage(5, 6), stop="end_turn")
    w.write(session)
    agent_file(runs / "agent-aone1.jsonl", "aone1", tokens=100)
    agent_file(runs / "agent-atwo2.jsonl", "atwo2", tokens=200)
    return session


def test_a_workflows_agents_are_linked_to_its_call_and_counted(tmp_path: Path) -> None:
    session = workflow_session(tmp_path)
    t = opened(session)
    assert [(s.id, s.call_id, s.read) for s in t.subagents] == [
        ("aone1", "toolu_wf", True),
        ("atwo2", "toolu_wf", True),
    ]
    both = t.usage_with_subagents
    assert both is not None and both.input_tokens == t.usage.input_tokens + 300  # type: ignore[operator]
    op = op_of(t, "toolu_wf")
    # both agents' last turns finished: completed, in the time their turns took
    assert op.state == "completed" and op.duration == 11.0
    assert "with 2 subagents" in check_note(t)
    # the browser: its agents' files no rows of their own, counted in the session's row
    assert FMT.part_of_another(str(folder_of(str(session)) / "workflows/wf_xyz/agent-aone1.jsonl"))
    row = scan_file(session)
    assert row.tokens == both.tokens and row.with_subagents == "with 2 subagents"


def background_session(folder: Path, *, finished: bool, file: bool = True) -> Path:
    """An ``Agent`` call run in the background: its result only says it was launched;
    its subagent's file, still at work or finished (or not there)."""
    w = CCWriter(SID, version="2.1.90")
    w.user("review the PR in the background")
    args = {"description": "Review PR", "prompt": "Review PR 12", "run_in_background": True}
    w.assistant("m1", [tool_use("toolu_bg", "Agent", **args)])
    result = {"isAsync": True, "status": "async_launched", "agentId": "a0c4759"}
    w.result("toolu_bg", "Async agent launched successfully.", tool_use_result=result)
    w.assistant("m2", [text("It runs in the background.")], usage=usage(5, 6), stop="end_turn")
    session = w.write(folder / f"{SID}.jsonl")
    if file:
        agent_file(folder_of(str(session)) / "agent-a0c4759.jsonl", "a0c4759", finished=finished)
    return session


def test_a_call_launched_in_the_background_is_running_while_its_agent_works(
    tmp_path: Path,
) -> None:
    session = background_session(tmp_path, finished=False)
    t = opened(session)
    op = op_of(t, "toolu_bg")
    assert op.state == "running" and op.duration is None  # (never the 1.0 s to its answer)
    assert [o.call_id for o in t.tool_operations if o.state == "running"] == ["toolu_bg"]
    row = next(r for r in t.to_json()["tool-operations"] if r["call-id"] == "toolu_bg")
    assert row["state"] == "running" and "duration" not in row
    assert "1 tool call running" in check_note(t)
    # its session's writer gone (a background agent runs in its process): cut off
    assert op_of(opened(session, writer_alive=False), "toolu_bg").state == "interrupted"


def test_a_call_launched_in_the_background_completes_with_its_agents_file(
    tmp_path: Path,
) -> None:
    t = opened(background_session(tmp_path, finished=True))
    op = op_of(t, "toolu_bg")
    assert op.state == "completed" and op.duration == 11.0  # the agent's turn, not the launch


def test_a_launched_call_whose_agents_file_is_missing_is_not_completed(tmp_path: Path) -> None:
    t = opened(background_session(tmp_path, finished=True, file=False))
    assert op_of(t, "toolu_bg").state == "outcome-unknown"
    # read alone (a peek: no subagent file looked at), it is not known either
    b = FMT.fed(str(tmp_path / f"{SID}.jsonl"))
    assert op_of(b.transcript(None), "toolu_bg").state == "outcome-unknown"


def test_a_launched_workflow_with_no_agent_files_claims_no_duration(tmp_path: Path) -> None:
    """(review 2, finding 8) A Workflow call only launched, its run's folder not there:
    its outcome is unknown, and so is how long it ran (its launch result's own
    ``totalDurationMs`` is no run of its agents': it was shown as the call's)."""
    session = workflow_session(tmp_path)
    text_ = session.read_text()
    marked = text_.replace('"runId": "wf_xyz"', '"runId": "wf_xyz", "totalDurationMs": 5000')
    assert marked != text_
    session.write_text(marked)
    for agent in ("aone1", "atwo2"):
        (folder_of(str(session)) / "workflows" / "wf_xyz" / f"agent-{agent}.jsonl").unlink()
    t = opened(session)
    op = op_of(t, "toolu_wf")
    assert (op.state, op.duration) == ("outcome-unknown", None)
    assert op_of(FMT.fed(str(session)).transcript(None), "toolu_wf").duration is None


def test_a_missing_subagent_file_marks_the_total_partial(tmp_path: Path) -> None:
    t = opened(background_session(tmp_path, finished=True, file=False))
    out = t.to_json()
    assert out["usage-with-subagents"] == out["usage"]
    assert out["usage-with-subagents-partial"] is True
    assert out["usage-with-subagents-said"] == "1 subagent, its file not read"
    assert "1 subagent, its file not read" in check_note(t)
    whole = opened(background_session(tmp_path / "whole", finished=True)).to_json()
    assert whole["usage-with-subagents-partial"] is False


def test_a_subagent_started_by_another_is_linked_to_that_ones_call(tmp_path: Path) -> None:
    w = CCWriter(SID, version="2.1.90")
    w.user("plan it")
    w.assistant("m1", [tool_use("toolu_A", "Agent", description="Planner", prompt="plan")])
    w.result("toolu_A", "planned", tool_use_result={"agentId": "aaaa1111", "status": "completed"})
    w.assistant("m2", [text("ok")], usage=usage(5, 6), stop="end_turn")
    session = w.write(tmp_path / f"{SID}.jsonl")
    planner = CCWriter(SID, version="2.1.90", agent_id="aaaa1111")
    planner.user("plan", parent=None)
    call = tool_use("toolu_B", "Agent", description="Researcher", prompt="research")
    planner.assistant("p1", [call], usage=usage(3, 4))
    said = {"agentId": "bbbb2222", "totalDurationMs": 4000}
    planner.result("toolu_B", "found", tool_use_result=said)
    planner.assistant("p2", [text("done")], usage=usage(3, 4), stop="end_turn")
    planner.write(folder_of(str(session)) / "agent-aaaa1111.jsonl")
    agent_file(folder_of(str(session)) / "agent-bbbb2222.jsonl", "bbbb2222")
    t = opened(session)
    assert [(s.id, s.call_id, s.description) for s in t.subagents] == [
        ("aaaa1111", "toolu_A", "Planner"),
        ("bbbb2222", "toolu_B", "Researcher"),
    ]
    # its duration is its writer's own, as its call's result (the planner's file) says
    assert [s.took for s in t.subagents] == [None, 4.0]
    entries = subagent_entries(t.subagents[1], 1, None, str(session))
    assert any("call toolu_B · took 4.0s" in line for _style, line in entries)
    doc = render_markdown(model_document(t))
    assert "| bbbb2222 | Researcher | — | 4.0s |" in doc


def test_a_subagents_duration_is_its_writers_own_run_time(tmp_path: Path) -> None:
    """One rule in every version: ``totalDurationMs`` where the result says it (a 2.x
    file's result came 1 s after its call, its agent ran 4 s)."""
    w = CCWriter(SID, version="2.1.90")
    w.user("look")
    w.assistant("m1", [tool_use("toolu_t", "Task", description="Scout", prompt="scout")])
    w.result("toolu_t", "seen", tool_use_result={"agentId": "a1", "totalDurationMs": 4000})
    w.assistant("m2", [text("ok")], usage=usage(5, 6), stop="end_turn")
    session = w.write(tmp_path / f"{SID}.jsonl")
    agent_file(folder_of(str(session)) / "agent-a1.jsonl", "a1")
    t = opened(session)
    assert op_of(t, "toolu_t").duration == 4.0
    row = next(r for r in t.to_json()["tool-operations"] if r["call-id"] == "toolu_t")
    assert row["duration"] == 4.0


def test_a_bookkeeping_line_naming_an_agent_is_no_subagents_file(tmp_path: Path) -> None:
    """A ``fork-context-ref`` (or a Workflow journal's ``started``) names an agent: the
    session is still its own, not "a subagent of" itself."""
    w = CCWriter(SID, version="2.1.150")
    w.user("hello")
    w.assistant("m1", [text("hi")], usage=usage(5, 6), stop="end_turn")
    w.bare({"type": "fork-context-ref", "agentId": "a1", "parentSessionId": SID})
    w.bare({"type": "started", "key": "k", "agentId": "a2"})
    w.user("more")
    t = opened(w.write(tmp_path / f"{SID}.jsonl"))
    assert "agent-id" not in t.meta and t.parent is None
    # a subagent's own file still names its agent
    sub = agent_file(tmp_path / SID / "subagents" / "agent-a9.jsonl", "a9")
    own = opened(sub)
    assert own.meta.get("agent-id") == "a9" and own.parent == SID


def test_a_followed_sessions_launched_call_settles_as_its_agent_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    session = background_session(tmp_path, finished=False)
    sub = folder_of(str(session)) / "agent-a0c4759.jsonl"
    monkeypatch.setattr(subagents.SubagentsLive, "REFRESH", 3600.0)
    live, seen = followed(session)
    assert op_of(seen[-1], "toolu_bg").state == "interrupted"  # (followed, writer gone)
    assert op_of(live.transcript(None), "toolu_bg").state == "running"  # (linked again)
    agent_file(sub, "a0c4759", finished=True)
    monkeypatch.setattr(subagents.SubagentsLive, "REFRESH", 0.0)
    assert op_of(live.transcript(None), "toolu_bg").state == "completed"


async def test_the_subagents_tab_lists_a_workflows_agents_and_a_launched_calls_state(
    tmp_path: Path,
) -> None:
    from helpers import app_loaded, screen_text, wait_for

    from viewer.screens.model_screen import ModelScreen
    from viewer.widgets.subagents_pane import SubagentsPane

    session = workflow_session(tmp_path / "wf")
    async with app_loaded(session, ModelScreen, (150, 40)) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 2)
        text = screen_text(app)
        assert "agent-aone1" in text and "agent-atwo2" in text and "11.0s" in text, text
    session = background_session(tmp_path / "bg", finished=True, file=False)
    async with app_loaded(session, ModelScreen, (150, 40)) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 1)
        text = screen_text(app)
        assert "outcome unknown" in text and "completed" not in text, text


def test_one_unreadable_field_of_a_result_leaves_its_other_facts(tmp_path: Path) -> None:
    """A Workflow's launch result with a ``totalDurationMs`` beyond a double's range
    (``1e400``: JSON allows it): that field counts as absent, the run's id is kept, so
    its agents are still linked to the call."""
    session = workflow_session(tmp_path)
    text_ = session.read_text()
    marked = text_.replace('"runId": "wf_xyz"', '"runId": "wf_xyz", "totalDurationMs": 1e400')
    assert marked != text_
    session.write_text(marked)
    t = opened(session)
    assert [(s.id, s.call_id) for s in t.subagents] == [
        ("aone1", "toolu_wf"),
        ("atwo2", "toolu_wf"),
    ]
    op = op_of(t, "toolu_wf")
    assert op.state == "completed" and op.duration == 11.0
