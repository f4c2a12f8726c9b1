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
