"""A v1 call a message asked for that no dispatch line names is *never dispatched* (a
crash state) once its writer is gone or has written on; while the writer is at work and
its dispatch line is the next it writes, it is running (a live file showed the crash
state for that moment: the file-system audit). Every read path says it alike."""

from __future__ import annotations

import os
from pathlib import Path

from session_core import Message, Session, open_transcript
from session_core.export import export
from session_core.views import replay_any
from story import call

IDLE = 1_700_000_000


def states(path: Path) -> list[str]:
    """What the model, the replay JSON and the export say of call c1."""
    (op,) = [op for op in open_transcript(path).tool_operations if op.call_id == "c1"]
    (row,) = [o for o in replay_any(path)["tool-operations"] if o["call-id"] == "c1"]
    document = export(path, "md")
    said = "running" if "| running |" in document else "never dispatched"
    return [op.state, row["state"], said]


def test_a_call_not_dispatched_yet_is_running_while_its_writer_is_at_work(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="go"))
        asked = Message(role="assistant", content="", tool_calls=(call("c1", "fs_read", "{}"),))
        s.append_message(asked)
        assert states(path) == ["running", "running", "running"]  # (its lock is held)
        s.append_message(Message(role="user", content="never mind"))  # (it wrote on)
        assert states(path) == ["never-dispatched"] * 2 + ["never dispatched"]
    with Session.create(tmp_path / "gone.jsonl", meta={}) as s:
        s.append_message(Message(role="user", content="go"))
        s.append_message(asked)
    os.utime(tmp_path / "gone.jsonl", (IDLE, IDLE))  # (idle, no lock: its writer is gone)
    assert states(tmp_path / "gone.jsonl") == ["never-dispatched"] * 2 + ["never dispatched"]


def test_a_call_queued_behind_a_running_one_is_not_dispatched_yet(tmp_path: Path) -> None:
    """A call waiting behind its sibling that runs (the sibling before it answered, its
    answer the writer's last message) read "never dispatched" while the writer was at
    work (the died audit's live file: ``bash [running]`` beside ``fs_write [never
    dispatched]``). "never" is true once the writer is gone: till then it is *not
    dispatched yet*, in the model, the replay, the export and ``check``."""
    import session_core.formats

    path = tmp_path / "t.jsonl"
    calls = tuple(call(f"c{n}", tool, "{}") for n, tool in enumerate(("fs_read", "sh", "w")))
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="go"))
        s.append_message(Message(role="assistant", content="", tool_calls=calls))
        op = s.append_tool_dispatched("c0", "fs_read", {})
        s.append_tool_settled(op, "completed")
        s.append_message(Message(role="tool", content="ok", tool_call_id="c0"))
        s.append_tool_dispatched("c1", "sh", {})  # (running: c2 waits for it)

        def said(path: Path) -> tuple[str, str, str]:
            (op,) = [op for op in open_transcript(path).tool_operations if op.call_id == "c2"]
            (row,) = [o for o in replay_any(path)["tool-operations"] if o["call-id"] == "c2"]
            (shown,) = [line for line in export(path, "md").splitlines() if "| c2 |" in line]
            return op.state, row["state"], shown

        state, row, shown = said(path)
        assert (state, row) == ("not-dispatched-yet", "not-dispatched-yet")
        assert "not dispatched yet" in shown and "never" not in shown
        check = session_core.formats.by_name("transcript-v1").check(path)
        assert "1 call not dispatched yet" in check and "never" not in check
    os.utime(path, (IDLE, IDLE))  # (its writer gone: now it never will be)
    state, row, shown = said(path)
    assert (state, row) == ("never-dispatched", "never-dispatched")
    assert "never dispatched" in shown
