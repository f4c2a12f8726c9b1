"""``/`` on the tool operations tab searches the operations (every format's: their tool,
call id, state, arguments, result and what their lines say of their end), in a worker;
``n`` / ``N`` step through them, the header says where (it searched the conversation,
which the tab does not show)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use
from helpers import notes_kept, said, screen_text, wait_for
from model_screen_helpers import IDLE, opened, until

from session_core import Message, Session, open_transcript
from session_core.search import OpSearch, op_search_text
from story import call


def _session(tmp_path: Path) -> Path:
    w = CCWriter()
    w.user("build and test")
    w.assistant("m1", [tool_use("t1", "Bash", command="make all")])
    w.result("t1", "built: ok")
    w.assistant("m2", [tool_use("t2", "Bash", command="pytest -q")])
    w.result("t2", "3 passed, 1 FAILED: test_divide", is_error=True)
    w.assistant("m3", [tool_use("t3", "Read", file_path="calc.py")])
    w.result("t3", "def divide(a, b): return a / b")
    w.assistant("m4", [text("The divide test fails.")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    return path


def test_an_operation_is_found_by_what_it_holds(tmp_path: Path) -> None:
    ops = open_transcript(_session(tmp_path)).tool_operations
    every = range(len(ops))
    assert OpSearch("BASH").find(ops, every) == [0, 1]  # its tool, any case
    assert OpSearch("pytest").find(ops, every) == [1]  # its arguments
    assert OpSearch("divide").find(ops, every) == [1, 2]  # its result (t2's: test_divide)
    assert OpSearch("failed").find(ops, every) == [1]  # its state (and result)
    assert OpSearch("t3").find(ops, every) == [2]  # its call id
    assert OpSearch("nowhere").find(ops, every) == []
    assert OpSearch("x").find(ops, every, lambda: True) is None  # (cancelled)
    assert "calc.py" in op_search_text(ops[2])


def test_a_v1_operation_is_found_by_what_its_settle_line_says(tmp_path: Path) -> None:
    """Its error and reason, which its detail shows: no search found them (an audit)."""
    path = tmp_path / "v1.jsonl"
    with Session.create(path, meta={}) as s:
        make = '{"cmd": "make"}'
        s.append_message(
            Message(role="assistant", content="", tool_calls=(call("c1", "sh", make),))
        )
        op = s.append_tool_dispatched("c1", "sh", make)
        s.append_message(Message(role="tool", content="exit 1", tool_call_id="c1"))
        s.append_tool_settled(op, "failed", reason="TIMEWORD", error="ERRWORD exited 1")
    ops = open_transcript(path).tool_operations
    every = range(len(ops))
    assert OpSearch("errword").find(ops, every) == [0]
    assert OpSearch("timeword").find(ops, every) == [0]
    assert OpSearch("exit 1").find(ops, every) == [0]  # (its result: said once, found once)


async def test_slash_on_the_tool_operations_searches_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with opened(_session(tmp_path)) as (app, pilot, screen):
        told = notes_kept(app, monkeypatch)  # (a count's toast shows 2 s: kept, not looked for)
        await pilot.press("2")
        table = screen.ops.table
        await until(pilot, lambda: table.row_count == 3, "three operations")
        await pilot.press("slash")
        await wait_for(pilot, lambda: "search this tab" in screen_text(app))
        await pilot.press(*"divide", "enter")
        await until(pilot, lambda: said(app, "2 matches for 'divide'"), "the count")
        assert table.matches == [1, 2] and table.cursor_row == 1
        assert screen.query_one("#tabs").active == "tools"  # type: ignore[attr-defined]
        assert "/divide: 1/2" in screen_text(app)
        await pilot.press("n")
        assert table.cursor_row == 2
        await wait_for(pilot, lambda: "/divide: 2/2" in screen_text(app))
        await pilot.press("n")  # round the end
        assert table.cursor_row == 1
        await pilot.press("1")  # the conversation: its own search said, not the tab's
        await pilot.pause(0.1)
        assert "/divide" not in screen_text(app)
        await pilot.press("2", "slash")
        assert screen.query_one("#search").value == "divide"  # type: ignore[attr-defined]
        await pilot.press(*["backspace"] * 6, *"zzqq", "enter")
        await until(pilot, lambda: "0 matches for 'zzqq'" in told, "none")
        assert "/zzqq: none" in screen_text(app)
        await pilot.press("n")
        await until(pilot, lambda: said(app, "No operation matches"), "n's toast")


def test_a_call_is_found_by_what_its_row_shows(tmp_path: Path) -> None:
    """A call's rows (the tool operations', the conversation's) show its main argument
    first, then the rest (``cfg  {"path":"src"}``), but the searches looked at the
    arguments as written (``{"path":"src","pattern":"cfg"}``): what a row showed was
    not found (audit E). Both forms are found now, in the conversation too, whose
    prefilter reads a call's line whole for a term the row's form may make."""
    from session_core.column_items import Items
    from session_core.search import find

    path = tmp_path / "v1.jsonl"
    written = '{"path":"src","pattern":"cfg"}'
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="look for cfg"))
        s.append_message(
            Message(role="assistant", content="", tool_calls=(call("c1", "grep", written),))
        )
        op = s.append_tool_dispatched("c1", "grep", written)
        s.append_message(Message(role="tool", content="a.py:1", tool_call_id="c1"))
        s.append_tool_settled(op, "completed")
        s.append_message(Message(role="assistant", content="run 2 more"))
    t = open_transcript(path)
    ops = t.tool_operations
    every = range(len(ops))
    shown = 'cfg  {"path":"src"}'
    for term in (shown, 'src"}', written, "cfg"):
        assert OpSearch(term).find(ops, every) == [0], term
    assert isinstance(t.messages, Items)  # (the packed view, its lines skipped by bytes)
    assert find(t.messages, shown) == [1]  # (the assistant's call)
    assert find(t.messages, 'src"}') == [1]
    assert find(t.messages, written) == [1]
    assert find(t.messages, "2 more") == [3]  # (a term of digits and a space)
