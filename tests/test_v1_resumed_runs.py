"""A v1 file a second writer took over (``Session.load`` after the first was killed): what
the first left in flight is interrupted, not running again because a writer is at work."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import run_cli

from session_core import Message, Session, open_transcript
from session_core.export import export

DIGEST = "d" * 64


def first_writer_died(path: Path) -> None:
    """Writer 1: a run with a call in flight when it was killed (no settle, no answer)."""
    with Session.create(path, meta={"agent": "resume"}) as s:
        s.append_run_context("run-1", DIGEST)
        s.append_message(Message(role="user", content="hang"))
        call = {"id": "c1", "type": "function", "function": {"name": "sleep", "arguments": "{}"}}
        s.append_message(Message(role="assistant", content="", tool_calls=(call,)))
        s.append_tool_dispatched("c1", "sleep", "{}", run_id="run-1")


def replayed(capsys: pytest.CaptureFixture[str], path: Path) -> dict[str, Any]:
    code, out, _err = run_cli(capsys, "replay", str(path))
    assert code == 0
    parsed: dict[str, Any] = orjson.loads(out)
    return parsed


def test_the_first_writers_call_stays_interrupted_while_the_second_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    first_writer_died(path)
    with Session.load(path) as s:  # writer 2: alive (its lock held) and at work
        s.append_run_context("run-2", DIGEST)
        s.append_message(Message(role="user", content="go on"))
        t = open_transcript(path)
        assert t.op_for_call("c1").state == "interrupted"
        assert [(run.id, run.state) for run in t.runs] == [
            ("run-1", "interrupted"),
            ("run-2", "running"),
        ]
        replay = replayed(capsys, path)
        assert [op["state"] for op in replay["pending-tool-operations"]] == ["interrupted"]
        assert "(c1): interrupted: running when the writer died" in export(path, "md")


def test_a_call_of_the_run_at_work_is_still_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "t.jsonl"
    first_writer_died(path)
    with Session.load(path):  # writer 2 has not started a run of its own yet
        assert open_transcript(path).op_for_call("c1").state == "running"
        replay = replayed(capsys, path)
        assert [op["state"] for op in replay["pending-tool-operations"]] == ["running"]
