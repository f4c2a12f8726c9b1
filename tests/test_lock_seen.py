"""A writer seen holding its file's lock, and gone, is gone for every read path of the
process: the viewer's export said "running" of a call its own screen said was
interrupted (the lock it saw gone), since the export asked afresh and a fresh file of a
format whose writers may not lock has "maybe" a writer (a v1/agentgo audit)."""

from __future__ import annotations

import os
from pathlib import Path

from session_core import Session
from session_core.export import export
from session_core.formats import V1, by_name
from session_core.writers import lock_seen, writer_holds_lock


def test_a_lock_seen_and_gone_is_no_writer(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    s = Session.create(path, meta={"agent": "x"})
    s.append_tool_dispatched("call_1", "bash", {"command": "sleep 600"})
    assert not lock_seen(path)
    assert writer_holds_lock(path) is True  # (what the viewer's dot asks, twice a second)
    assert lock_seen(path)
    s.close()  # (the writer gone, the file fresh: a v1 reader cannot tell by its age)
    assert by_name(V1).writer_alive(path) is False
    assert "running when the writer died" in export(path, "md")  # (v1's interrupted)
    other = tmp_path / "other.jsonl"
    Session.create(other, meta={"agent": "y"}).close()
    os.utime(other)
    assert by_name(V1).writer_alive(other) is None  # (never seen locked: maybe a writer)
