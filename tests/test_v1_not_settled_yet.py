"""A v1 call whose tool message is written and whose settle line is not is *completed,
settle never landed* (a crash state) once its writer is gone; while the writer is at
work its settle is the next line it writes: *completed, settle not written yet* (a live
audit: the crash label flashed on every demo call, and stayed while a writer waited
between the answer and the settle). The model, the replay, the export and ``check``
say it alike."""

from __future__ import annotations

import os
from pathlib import Path

import session_core.formats
from session_core import Message, Session, open_transcript
from session_core.export import export
from session_core.views import replay_any
from story import call

IDLE = 1_700_000_000


def said(path: Path) -> tuple[str, str, str, str]:
    """What the model, the replay JSON, the Markdown export and ``check`` say of c1."""
    (op,) = [op for op in open_transcript(path).tool_operations if op.call_id == "c1"]
    (row,) = [o for o in replay_any(path)["tool-operations"] if o["call-id"] == "c1"]
    (shown,) = [line for line in export(path, "md").splitlines() if "| c1 |" in line]
    check = session_core.formats.by_name("transcript-v1").check(path)
    return op.state, row["state"], shown, check


def test_an_answered_call_is_not_settled_yet_while_its_writer_is_at_work(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="read a.py"))
        asked = Message(role="assistant", content="", tool_calls=(call("c1", "fs_read", "{}"),))
        s.append_message(asked)
        op = s.append_tool_dispatched("c1", "fs_read", {})
        s.append_message(Message(role="tool", content="the file", tool_call_id="c1"))
        state, row, shown, check = said(path)  # (its lock is held: the settle is to come)
        assert (state, row) == ("not-settled-yet", "not-settled-yet")
        assert "completed, settle not written yet" in shown and "never" not in shown
        assert "1 tool operation pending (1 completed, settle not written yet)" in check
        assert "never" not in check
    os.utime(path, (IDLE, IDLE))  # (its writer gone, the settle not written: it never was)
    state, row, shown, check = said(path)
    assert (state, row) == ("unsettled-answered", "unsettled-answered")
    assert "completed, settle never landed" in shown
    assert "1 tool operation pending (1 completed, settle never landed)" in check
    with Session.load(path) as s:  # (and once it lands, it is what its settle says)
        s.append_tool_settled(op, "completed")
    assert said(path)[:2] == ("completed", "completed")


def test_a_call_answered_before_the_writer_wrote_on_never_settles(tmp_path: Path) -> None:
    """A first writer crashed between c1's answer and its settle (c2 asked for, never
    dispatched); a new writer loads the file and writes a turn on. While it works, c1 is
    the crash state, as c2 is: the writer has written past the answer, so the settle is
    not the next thing it writes (a review: c1 read "not written yet" while any later
    writer lived)."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="read a.py"))
        calls = (call("c1", "fs_read", "{}"), call("c2", "fs_read", "{}"))
        s.append_message(Message(role="assistant", content="", tool_calls=calls))
        s.append_tool_dispatched("c1", "fs_read", {})
        s.append_message(Message(role="tool", content="the file", tool_call_id="c1"))
    with Session.load(path) as s:  # (its lock held while it works)
        state, row, shown, check = said(path)  # (nothing written since the answer: due)
        assert (state, row) == ("not-settled-yet", "not-settled-yet")
        s.append_message(Message(role="user", content="go on"))
        s.append_message(Message(role="assistant", content="done"))
        state, row, shown, check = said(path)
        assert (state, row) == ("unsettled-answered", "unsettled-answered")
        assert "completed, settle never landed" in shown
        assert "1 tool operation pending (1 completed, settle never landed)" in check
        assert "1 call never dispatched" in check and "not written yet" not in check


def test_a_call_id_used_again_leaves_the_older_operation_never_settled(tmp_path: Path) -> None:
    """c1 answered and never settled (its settle lost); the model asks for c1 again, and
    that call is dispatched and answered just now. Its settle is the next line the writer
    writes; the older operation's is not: it was dispatched before the message that asked
    again, the writer wrote on past it (a review: matched by its call id alone, it read
    "settle not written yet" too, in the model, the replay, the export and ``check``)."""
    path = tmp_path / "t.jsonl"
    asked = Message(role="assistant", content="", tool_calls=(call("c1", "fs_read", "{}"),))
    with Session.create(path, meta={}) as s:  # (its lock held: the writer at work)
        s.append_message(Message(role="user", content="read a.py"))
        s.append_message(asked)
        s.append_tool_dispatched("c1", "fs_read", {})
        s.append_message(Message(role="tool", content="the file", tool_call_id="c1"))
        s.append_message(Message(role="assistant", content="", tool_calls=asked.tool_calls))
        s.append_tool_dispatched("c1", "fs_read", {})
        s.append_message(Message(role="tool", content="the file again", tool_call_id="c1"))
        states = [op.state for op in open_transcript(path).tool_operations]
        assert states == ["unsettled-answered", "not-settled-yet"]
        rows = [o["state"] for o in replay_any(path)["tool-operations"]]
        assert rows == ["unsettled-answered", "not-settled-yet"]
        shown = [line for line in export(path, "md").splitlines() if "| c1 |" in line]
        assert len(shown) == 2, shown
        assert "settle never landed" in shown[0] and "settle not written yet" in shown[1]
        check = session_core.formats.by_name("transcript-v1").check(path)
        pending = "1 completed, settle never landed and 1 completed, settle not written yet"
        assert f"2 tool operations pending ({pending})" in check, check


def test_an_older_call_of_an_id_used_again_takes_no_answer_of_the_newer(tmp_path: Path) -> None:
    """c1 dispatched and never answered (its writer went on); the model asks for c1 again,
    and that call is dispatched, answered and settled. The answer is the newer call's (the
    latest of that id asked before it), as the exports give it: the older operation was
    never answered, running while its writer may be at work, interrupted once it is gone
    (a review: matched by call id, it read "completed, settle never landed" in the model,
    the replay and ``check``, where the export said interrupted)."""
    path = tmp_path / "t.jsonl"
    asked = Message(role="assistant", content="", tool_calls=(call("c1", "fs_read", "{}"),))
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="read a.py"))
        s.append_message(asked)
        s.append_tool_dispatched("c1", "fs_read", {})
        s.append_message(Message(role="assistant", content="", tool_calls=asked.tool_calls))
        newer = s.append_tool_dispatched("c1", "fs_read", {})
        s.append_message(Message(role="tool", content="the file", tool_call_id="c1"))
        s.append_tool_settled(newer, "completed")
        s.append_message(Message(role="assistant", content="read it"))
    v1 = session_core.formats.by_name("transcript-v1")
    for mtime, older in ((None, "running"), (IDLE, "interrupted")):
        if mtime is not None:  # (its writer, which took no lock now, long gone)
            os.utime(path, (mtime, mtime))
        states = [op.state for op in open_transcript(path).tool_operations]
        assert states == [older, "completed"], states
        rows = [o["state"] for o in replay_any(path)["tool-operations"]]
        assert rows == [older, "completed"], rows
        (pending,) = replay_any(path)["pending-tool-operations"]
        assert pending["state"] == older
        shown = [line for line in export(path, "md").splitlines() if "| c1 |" in line]
        assert "never landed" not in shown[0] and "not written yet" not in shown[0], shown
        check = v1.check(path)
        assert f", 1 tool operation pending (1 {older}), usage" in check, check
        assert "settle" not in check, check
