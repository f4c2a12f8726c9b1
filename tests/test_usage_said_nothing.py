"""A usage with no number in it, or known in part, read alike in every format: one that
says nothing is not reported (as a usage of null), one that lacks its input or output
is "reported in part" and not priced as if the count it lacks were 0, and a run counts
its responses that reported nothing (the audit of session 36: Claude Code priced ``{}``
at $0 and read it "reported", a run of Claude Code's read exact, v1's ``{"cost": null}``
read "1 of 2 priced")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from session_core import Message, Session, open_transcript
from session_core.message_usage import v1_usage
from session_core.scan import scan_file
from session_core.views import replay_any


def _v1(path: Path, usages: list[dict[str, Any]]) -> Path:
    with Session.create(path, meta={"agent": "t", "model": "kimi-k2"}) as s:
        for n, usage in enumerate(usages):
            s.append_message(Message(role="user", content=f"q{n}"))
            s.append_message(Message(role="assistant", content=f"a{n}"), extra={"usage": usage})
    return path


def test_a_v1_usage_with_no_number_in_it_is_not_reported(tmp_path: Path) -> None:
    assert v1_usage({"usage": {"cost": None}}) is None and v1_usage({"usage": {}}) is None
    full = {"prompt-tokens": 100, "completion-tokens": 10, "total-tokens": 110, "cost": 0.001}
    path = _v1(tmp_path / "t.jsonl", [full, {"cost": None}, {}])
    usage = replay_any(path)["usage"]
    assert usage["reported"] == 1 and "priced" not in usage and "reported-in-part" not in usage
    said = open_transcript(path).usage
    assert said.describe() == "110 tok (100 in + 10 out) · $0.0010 · 1 of 3 responses reported"
    row = scan_file(path, live_window=0)
    assert (row.tokens, row.tokens_partial, row.cost_partial) == (110, True, True)


def test_a_usage_with_no_number_on_a_users_message_is_no_response(tmp_path: Path) -> None:
    """Only an assistant's message, or one that reported usage, is a response: the index
    pass and the plain read count alike."""
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "t"}) as s:
        s.append_message(Message(role="user", content="q"), extra={"usage": {"cost": None}})
        s.append_message(Message(role="assistant", content="a"), extra={"usage": {"cost": 0.5}})
    assert open_transcript(path).usage.responses == 1
    assert scan_file(path, live_window=0).cost_partial is False
