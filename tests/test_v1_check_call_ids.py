"""``check`` counts a v1 file's pending operations and undispatched calls by the call
ids' numbers: it makes no str of every call id (a set of 167,000 of them was 50 MB of a
1 GB file's check, and seconds). Only the few calls it tells of are made texts, and the
counts are what ``replay`` lists."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

import session_core.formats
from session_core import Message, Session
from session_core.formats.v1.ops import check_states
from session_core.packed_ids import Texts
from session_core.reader import replay_file
from session_core.views import replay_any
from story import call

IDLE = 1_700_000_000
CALLS = 300


def _many_calls(path: Path) -> None:
    """CALLS calls dispatched, settled and answered; then one left pending (answered) and
    two never dispatched (one answered)."""
    with Session.create(path, meta={}) as s:
        s.append_message(Message(role="user", content="go"))
        for n in range(CALLS):
            cid = f"call-{n}"
            s.append_message(
                Message(role="assistant", content="", tool_calls=(call(cid, "sh", "{}"),))
            )
            op = s.append_tool_dispatched(cid, "sh", {})
            s.append_tool_settled(op, "completed")
            s.append_message(Message(role="tool", content="ok", tool_call_id=cid))
        asked = tuple(call(cid, "w", "{}") for cid in ("open", "never", "never-answered"))
        s.append_message(Message(role="assistant", content="", tool_calls=asked))
        s.append_tool_dispatched("open", "w", {})
        s.append_message(Message(role="tool", content="ok", tool_call_id="open"))
        s.append_message(Message(role="tool", content="ok", tool_call_id="never-answered"))
        s.append_message(Message(role="user", content="stop"))
    os.utime(path, (IDLE, IDLE))  # (its writer gone)


def test_check_makes_no_text_of_every_call_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.jsonl"
    _many_calls(path)
    state = replay_file(path, tolerate_tail=True, facts=True)
    made: Counter[str] = Counter()
    text = Texts.text

    def spy(self: Texts, number: int) -> str:
        said = text(self, number)
        made[said] += 1
        return said

    monkeypatch.setattr(Texts, "text", spy)
    states, listed = check_states(state, False)
    # (the calls it tells of and their tools, not each of CALLS)
    assert not [said for said in made if said.startswith("call-")], made
    assert sum(made.values()) < 30, made
    assert listed == CALLS + 1 + 2
    assert states == Counter(
        {"unsettled-answered": 1, "never-dispatched": 1, "undispatched-answered": 1}
    )
    monkeypatch.undo()
    rows = Counter(op["state"] for op in replay_any(path)["tool-operations"])
    assert rows == Counter({"completed": CALLS, **states})
    said = session_core.formats.by_name("transcript-v1").check(path)
    assert "1 call never dispatched" in said and f"{CALLS + 3} tool operations" in said
