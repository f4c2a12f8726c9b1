"""A subagent (a Task call) the user stopped and one cut off (its writer gone) are told
apart on every surface: both calls are *interrupted* (the one state word), but the first
ended (its result says the user interrupted it, or its turn was aborted: nothing in
flight) and the second did not (in flight: ``1 tool call without a result``). The
Subagents tab and the exports' Subagents table said ``interrupted`` of both; they say
``interrupted by the user`` and ``not finished``, as the header and ``check`` count them."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from claude_code_writer import SESSION, CCWriter, text, tool_use, usage
from helpers import app_loaded, screen_lines, wait_for
from test_claude_code_background_agents import SID, background_session
from test_claude_code_decode import FMT
from test_claude_code_subagent_cuts import followed

from session_core.export import export
from session_core.formats.claude_code.subagents import folder_of
from session_core.scan import scan_file
from viewer.screens.model_screen import ModelScreen
from viewer.widgets.subagents_pane import SubagentsPane

INTERRUPTED = "[Request interrupted by user for tool use]"
BACKGROUND_CUT = "1 background tool call not finished"


def session(folder: Path, how: str) -> Path:
    """A Task call whose subagent (``a1``, its file beside) was at work, then: ``user``,
    its result says the user interrupted it; ``turn``, no result, the user stopped the
    turn; ``cut``, no result, the writer gone."""
    w = CCWriter()
    w.user("Explore the code")
    call = tool_use("t1", "Task", description="scout", prompt="go")
    m1 = w.assistant("m1", [call], usage=usage(10, 5))
    said = {"type": "assistant", "message": {"id": "s1", "content": [text("looking")]}}
    w.progress("t1", {"type": "agent_progress", "agentId": "a1", "prompt": "go", "message": said})
    if how == "user":
        w.result("t1", [text(INTERRUPTED)], parent=m1[0], is_error=True)
        w.user([text(INTERRUPTED)])
    elif how == "turn":
        w.user([text("[Request interrupted by user]")])
    path = w.write(folder / f"{SESSION}.jsonl")
    sub = CCWriter(agent_id="a1")
    sub.user("go", parent=None)
    sub.assistant("s1", [text("looking")], usage=usage(1, 2))
    written = sub.write(folder / SESSION / "subagents" / "agent-a1.jsonl")
    gone = time.time() - 86400  # (its writer gone a day ago)
    for each in (path, written):
        os.utime(each, (gone, gone))
    return path


CASES = [
    ("user", "interrupted by the user", None),
    ("turn", "interrupted by the user", None),
    ("cut", "not finished", "1 tool call without a result; 1 run not finished"),
]


@pytest.mark.parametrize(("how", "state", "in_flight"), CASES)
def test_the_exports_say_how_it_ended_as_check_and_the_row_count_it(
    tmp_path: Path, how: str, state: str, in_flight: str | None
) -> None:
    path = session(tmp_path, how)
    t = FMT.open(path, writer_alive=False)
    assert [op.state for op in t.tool_operations] == ["interrupted"]  # (the one state word)
    assert [s.id for s in t.subagents] == ["a1"]
    for fmt in ("md", "html"):
        assert f"Task t1: {state}" in export(path, fmt), fmt
    # (nothing in flight where the user stopped it: the header, check and the row agree)
    md = export(path, "md")
    assert (f"| in flight | {in_flight} |" in md) if in_flight else "| in flight |" not in md
    checked = FMT.check(path)
    said = (in_flight or "").replace("; ", ", ")  # (check's parts: by commas)
    assert (said in checked) if in_flight else "without a result" not in checked
    row = scan_file(str(path))  # (the browser's row: crashed where work was left open)
    assert (row.status, row.reason) == (("crashed", in_flight) if in_flight else ("finished", None))


@pytest.mark.parametrize(("how", "state", "in_flight"), CASES)
async def test_the_subagents_tab_says_it_in_its_row_and_detail(
    tmp_path: Path, how: str, state: str, in_flight: str | None
) -> None:
    del in_flight
    async with app_loaded(session(tmp_path, how), ModelScreen, (150, 40)) as (app, pilot):
        await pilot.press("5")
        pane = app.query_one(SubagentsPane)
        await wait_for(pilot, lambda: pane.table.row_count == 1)
        pane.table.move_cursor(0)
        await wait_for(pilot, lambda: any("call t1 · Task ·" in r for r in screen_lines(app)))
        rows = screen_lines(app)
        assert any(r.startswith(f"▌1  {state}  ") for r in rows), rows  # (its row)
        assert any(f"call t1 · Task · {state}" in r for r in rows), rows  # (its detail)


# -- a background agent (its call only launched it: its file says what became of it) ----


def background(folder: Path, stopped: bool) -> Path:
    """A background ``Agent`` call whose subagent's file ends in a call: ``stopped``, the
    user then stopped its turn (``[Request interrupted by user for tool use]``: aborted);
    else it was cut off there. Its session's writer gone."""
    path = background_session(folder, finished=False)
    mine = folder_of(str(path)) / "agent-a0c4759.jsonl"
    w = CCWriter(SID, version="2.1.90", agent_id="a0c4759")
    w.user("step of a0c4759", parent=None)
    w.assistant("m-a", [tool_use("b-a", "Bash", command="gh pr diff")], usage=usage(3, 4))
    if stopped:
        w.result("b-a", [text(INTERRUPTED)], is_error=True)
        w.user([text(INTERRUPTED)])
    w.write(mine)
    gone = time.time() - 86400
    for each in (path, mine):
        os.utime(each, (gone, gone))
    return path


@pytest.mark.parametrize(
    ("stopped", "state", "in_flight"),
    [(True, "interrupted by the user", None), (False, "not finished", BACKGROUND_CUT)],
)
def test_a_background_agent_the_user_stopped_is_not_in_flight(
    tmp_path: Path, stopped: bool, state: str, in_flight: str | None
) -> None:
    path = background(tmp_path, stopped)
    t = FMT.open(path, writer_alive=False)
    assert [op.state for op in t.tool_operations] == ["interrupted"]
    md = export(path, "md")
    assert f"Agent toolu\\_bg: {state}" in md, md
    assert (f"| in flight | {in_flight} |" in md) if in_flight else "| in flight |" not in md
    checked = FMT.check(path)
    assert (in_flight in checked) if in_flight else "not finished" not in checked
    row = scan_file(str(path))
    assert (row.status, row.reason) == (("crashed", in_flight) if in_flight else ("finished", None))
    followed_to_end = followed(path)  # (followed as the viewer follows it: the same)
    assert [op.launched for op in followed_to_end.tool_operations] == [not stopped]
