"""A v1 run whose writer died before the model's answer (a call asked for and never
dispatched, a prompt never answered) read "finished" in the runs tab and the browser,
where its calls read "never dispatched": its last message is none a run can end on."""

from __future__ import annotations

from pathlib import Path

import pytest

import session_core
from session_core import Message, Session
from session_core.scan import scan_file

CALL = {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}


def _run(path: Path, *last: Message) -> Path:
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_run_context("run-1", "d1")
        s.append_message(Message(role="user", content="go"))
        for message in last:
            s.append_message(message)
    return path


@pytest.mark.parametrize(
    ("last", "state"),
    [
        ((Message(role="assistant", content="", tool_calls=[CALL]),), "interrupted"),
        ((), "interrupted"),  # (the prompt never answered)
        ((Message(role="assistant", content="done"),), "finished"),
    ],
    ids=["call-never-dispatched", "prompt-unanswered", "answered"],
)
def test_the_last_run_ends_on_the_models_answer(
    tmp_path: Path, last: tuple[Message, ...], state: str
) -> None:
    path = _run(tmp_path / "t.jsonl", *last)
    (run,) = session_core.open_transcript(path).runs
    assert run.state == state
    row = scan_file(path, live_window=0)
    assert row.status == ("finished" if state == "finished" else "crashed"), row.reason
    if state != "finished":
        assert "no answer of the model's" in (row.reason or "")
