"""1.0.x subagents in the session's own file (``isSidechain`` lines): each Task call is
linked to the sidechain whose first user line is its prompt, listed as a subagent with
its own usage (already in the file's, so not added to it again), and opened from the
call's detail (``s``: the raw view at the sidechain's first line)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot

sys.path.insert(0, str(Path(__file__).parent))
from claude_code_writer import CCWriter, text, tool_use, usage
from helpers import app_on, screen_text
from model_screen_helpers import IDLE, model_screen, until
from test_claude_code_variants import FMT, both

from session_core import open_transcript
from session_core.formats.claude_code.builder import ClaudeCodeBuilder
from session_core.model import Transcript
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.screens.op_detail import OpDetailScreen

V1_RESULT = {"totalDurationMs": 900, "totalTokens": 9, "totalToolUseCount": 1}


def _parallel_tasks() -> tuple[CCWriter, dict[str, int], dict[str, str]]:
    """Two Tasks called in one response, their sidechains written in the other order,
    and a sidechain no call asked for."""
    w = CCWriter(version="1.0.98")
    w.user("make the app")
    w.assistant(
        "m1",
        [
            tool_use("t1", "Task", description="Build it", prompt="build the app"),
            tool_use("t2", "Task", description="Document it", prompt="write the docs"),
        ],
        usage=usage(10, 20),
    )
    call_line = len(w.lines)
    roots: dict[str, str] = {}
    lines: dict[str, int] = {}
    roots["t2"] = w.user("write the docs", parent=None, sidechain=True)
    lines["t2"] = len(w.lines)
    w.assistant("s2", [text("docs written")], usage=usage(3, 4), sidechain=True)
    roots["t1"] = w.user("build the app", parent=None, sidechain=True)
    lines["t1"] = len(w.lines)
    w.assistant("s1", [tool_use("st1", "Bash", command="npm init")], sidechain=True)
    w.lines[-1]["message"]["usage"] = usage(1, 2)
    w.user([{"type": "tool_result", "tool_use_id": "st1", "content": "ok"}], sidechain=True)
    w.assistant("s1b", [text("built")], usage=usage(5, 6), sidechain=True)
    w.user("nobody asked for this", parent=None, sidechain=True)
    w.assistant("s3", [text("stray")], usage=usage(100, 200), sidechain=True)
    w.result("t1", [text("built")], parent=w.last, tool_use_result=V1_RESULT)
    w.result("t2", [text("docs written")], tool_use_result=V1_RESULT)
    w.assistant("m2", [text("the app is built")], usage=usage(7, 8), stop="end_turn")
    lines["call"] = call_line
    return w, lines, roots


def test_parallel_tasks_link_to_their_own_sidechains(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w, lines, roots = _parallel_tasks()
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    ops = {op.call_id: op for op in t.tool_operations}
    for call in ("t1", "t2"):
        assert ops[call].subagent is None  # no file: in this one
        assert ops[call].subagent_line == lines[call]
        assert ops[call].subagent_item == roots[call]
        assert ops[call].to_json()["subagent-line"] == lines[call]
    assert ops["st1"].subagent_line is None and "subagent-line" not in ops["st1"].to_json()
    # listed in the calls' order; the stray sidechain is linked to nothing
    assert [(s.id, s.call_id, s.line, s.path, s.messages) for s in t.subagents] == [
        (roots["t1"], "t1", lines["t1"], None, 4),
        (roots["t2"], "t2", lines["t2"], None, 2),
    ]
    assert [s.description for s in t.subagents] == ["Build it", "Document it"]
    assert t.subagents[0].to_json()["line"] == lines["t1"]


def test_in_file_subagent_usage_is_not_counted_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w, _lines, _roots = _parallel_tasks()
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    # the file's own usage is every response of the file, the sidechains' included
    assert t.usage.output_tokens == 20 + 4 + 2 + 6 + 200 + 8
    assert t.usage.reported == 6
    one, two = t.subagents
    assert (one.usage.input_tokens, one.usage.output_tokens, one.usage.reported) == (6, 8, 2)
    assert (two.usage.input_tokens, two.usage.output_tokens, two.usage.reported) == (3, 4, 1)
    total = t.usage_with_subagents
    assert total is not None
    assert total.output_tokens == t.usage.output_tokens  # not 240 + 12
    assert total.input_tokens == t.usage.input_tokens
    assert t.to_json()["usage-with-subagents"]["output-tokens"] == 240


def test_same_prompt_twice_each_call_gets_the_next_sidechain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = CCWriter(version="1.0.98")
    w.user("go")
    found: list[int] = []
    for n in (1, 2):
        w.assistant(f"m{n}", [tool_use(f"t{n}", "Task", description="d", prompt="same")])
        call = w.last
        w.user("same", parent=None, sidechain=True)
        found.append(len(w.lines))
        w.assistant(f"s{n}", [text("ok")], usage=usage(1, n), sidechain=True)
        w.result(f"t{n}", [text("ok")], parent=call, tool_use_result=V1_RESULT)
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [op.subagent_line for op in t.tool_operations] == found
    assert [s.usage.output_tokens for s in t.subagents] == [1, 2]


def test_a_sidechain_written_later_links_when_it_comes(tmp_path: Path) -> None:
    """Followed live: the call first, its sidechain in a later batch."""
    w, lines, _roots = _parallel_tasks()
    path = w.write(tmp_path / "s.jsonl")
    data = path.read_bytes().splitlines(keepends=True)
    b = ClaudeCodeBuilder(str(path))
    for n, raw in enumerate(data[: lines["call"]], 1):
        b.feed_line(raw.rstrip(b"\n"), n)
    first = b.transcript(True)
    assert all(op.subagent_line is None for op in first.tool_operations)
    for n, raw in enumerate(data[lines["call"] :], lines["call"] + 1):
        b.feed_line(raw.rstrip(b"\n"), n)
    later = {op.call_id: op.subagent_line for op in b.transcript(True).tool_operations}
    assert later["t1"] == lines["t1"] and later["t2"] == lines["t2"]


def test_a_subagent_file_still_links_as_before(tmp_path: Path) -> None:
    """2.1.x: the subagent's own file, named by the result's agentId; no in-file line."""
    session = "5e55e55e-0000-4000-8000-00000000000b"
    w = CCWriter(session, version="2.1.114")
    w.user("find the bug")
    w.assistant(
        "m1", [tool_use("t1", "Task", description="Hunt", prompt="hunt")], usage=usage(2, 3)
    )
    w.result("t1", [text("found")], tool_use_result={"status": "completed", "agentId": "a9"})
    w.assistant("m2", [text("found it")], usage=usage(4, 5), stop="end_turn")
    path = w.write(tmp_path / f"{session}.jsonl")
    sub = CCWriter(session, version="2.1.114", agent_id="a9")
    sub.user("hunt", parent=None)
    sub.assistant("s1", [text("done")], usage=usage(1, 40), stop="end_turn")
    sub_path = sub.write(tmp_path / session / "subagents" / "agent-a9.jsonl")
    t: Transcript = FMT.open(path, writer_alive=False)
    (op,) = t.tool_operations
    assert op.subagent == str(sub_path) and op.subagent_line is None
    (s,) = t.subagents
    assert (s.id, s.path, s.call_id, s.line, s.messages) == ("a9", str(sub_path), "t1", None, 2)
    assert "line" not in s.to_json()
    total = t.usage_with_subagents
    assert total is not None and total.output_tokens == 3 + 5 + 40


@asynccontextmanager
async def tasks_open(
    folder: Path,
) -> AsyncIterator[tuple[TailscopeApp, Pilot[None], ModelScreen, dict[str, int], dict[str, str]]]:
    """The app on the parallel tasks' file, loaded; their lines and sidechains' roots."""
    w, lines, roots = _parallel_tasks()
    path = w.write(folder / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with app_on(path, (140, 40)) as (app, pilot):
        await until(pilot, lambda: isinstance(app.screen, ModelScreen), "the model screen")
        screen = model_screen(app)
        await until(pilot, lambda: screen._loaded and screen.conversation.items, "loaded", 30)
        yield app, pilot, screen, lines, roots


async def sidechain_shown(pilot: Pilot[None], screen: ModelScreen, root: str) -> None:
    """The raw view shows the sidechain whose first line is ``root``."""
    view = screen.conversation
    await until(pilot, lambda: view.mode == "raw", "the raw view")
    await until(
        pilot,
        lambda: view.selected is not None and view.selected.id == root,
        "the sidechain's first line",
    )


async def test_the_call_says_where_its_subagent_is_and_s_goes_there(tmp_path: Path) -> None:
    async with tasks_open(tmp_path) as (app, pilot, screen, lines, roots):
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 3, "three operations")
        await pilot.press("home", "enter")
        await until(pilot, lambda: isinstance(app.screen, OpDetailScreen), "the detail")
        assert f"subagent: in this file, line {lines['t1']}" in screen_text(app)
        await pilot.press("s")
        await until(pilot, lambda: app.screen is screen, "back on the screen")
        await sidechain_shown(pilot, screen, roots["t1"])


async def test_the_subagents_tab_lists_them_and_enter_shows_the_sidechain(tmp_path: Path) -> None:
    from viewer.widgets.subagents_pane import SubagentsPane

    async with tasks_open(tmp_path) as (app, pilot, screen, lines, roots):
        await pilot.press("5")
        pane = screen.query_one(SubagentsPane)
        await until(pilot, lambda: pane.table.row_count == 2, "two subagents")
        text = screen_text(app)
        assert f"this file, line {lines['t1']}" in text and "Build it" in text
        await pilot.press("home", "enter")
        await sidechain_shown(pilot, screen, roots["t1"])


def test_the_research_previews_dispatch_agent_links_its_sidechain(tmp_path: Path) -> None:
    """Claude Code 0.2.x named its subagent tool ``dispatch_agent`` (later ``Task``)."""
    w = CCWriter(version="0.2.29")
    w.user("summarize the repo")
    w.assistant("m1", [tool_use("t1", "dispatch_agent", prompt="read the repo")], usage=usage(2, 3))
    root = w.user("read the repo", parent=None, sidechain=True)
    w.assistant("s1", [text("it is a CLI")], usage=usage(5, 6), sidechain=True)
    w.result("t1", [text("it is a CLI")])
    t = open_transcript(w.write(tmp_path / "s.jsonl"))
    assert [(s.id, s.call_id) for s in t.subagents] == [(root, "t1")]


def test_a_session_file_opening_with_a_sidechain_is_still_the_main_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session's file whose first conversation lines are an in-file sidechain (lines
    that name no agent): the main conversation is still the file's own (its turns and
    title), the sidechain marked; a subagent's own file (``agent-*.jsonl``, or lines that
    name their agent) is the sidechain's."""
    w = CCWriter(version="1.0.17")
    w.user("Search the repo for parser usages", parent=None, sidechain=True)
    w.assistant("s1", [text("Found 3.")], stop="end_turn", sidechain=True)
    w.user("refactor the parser", parent=None)
    w.assistant("m1", [text("Done.")], stop="end_turn")
    t = both(w.write(tmp_path / "s.jsonl"), monkeypatch)
    assert [r.prompt for r in t.runs] == ["refactor the parser"]
    assert t.meta["title"] == "refactor the parser"
    assert [m.text for m in t.messages] == ["refactor the parser", "Done."]
    side = {i.text for i in t.raw if "sidechain" in i.marks}
    assert side == {"Search the repo for parser usages", "Found 3."}
    w.lines = w.lines[:2]  # the sidechain's lines alone, as its own file has them
    agent = FMT.open(w.write(tmp_path / "agent-a1.jsonl"), writer_alive=False)
    assert [m.text for m in agent.messages] == ["Search the repo for parser usages", "Found 3."]
    assert [r.prompt for r in agent.runs] == ["Search the repo for parser usages"]
