"""``check``'s ok line says how many tool operations ``replay`` lists, the same way in
every format: Claude Code's and Codex's said it, v1's and agentgo's did not (their
pending, gaps and undispatched calls alone)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN

from session_core import Message, Session
from session_core.formats import by_name
from viewer.cli import main


def _said(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["check", str(path)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("fmt", sorted(BUILT_IN))
def test_every_formats_check_counts_the_operations_replay_lists(
    tmp_path: Path, fmt: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = BUILT_IN[fmt](tmp_path)
    listed = len(by_name(fmt).replay_json(path)["tool-operations"])
    assert listed > 1
    said = _said(path, capsys)
    assert re.search(rf", {listed} tool operations(,|\))", said), said


def test_a_v1_call_never_dispatched_is_among_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "v1.jsonl"
    with Session.create(path) as s:
        s.append_message(Message(role="user", content="go"))
        call = {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}
        s.append_message(Message(role="assistant", content="", tool_calls=(call,)))
    assert len(by_name("transcript-v1").replay_json(path)["tool-operations"]) == 1
    said = _said(path, capsys)
    assert ", 1 tool operation, " in said, said  # (the call its writer may be at)


def test_no_operations_none_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "v1.jsonl"
    with Session.create(path) as s:
        s.append_message(Message(role="user", content="go"))
    assert "tool operation" not in _said(path, capsys)
