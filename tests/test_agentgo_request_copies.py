"""agentgo: a request's copy of a committed message is that message when it is what the
model is sent of it: its kind, content, call id and error flag, not what the message
reports of itself (``usage``, ``timestamp``, ``stop_reason``) nor an ``is_error`` of
false left out. A committed assistant message has its response's usage; a later
request's copy need not. Compared whole, the copy was another message: the conversation
and the export showed each assistant message twice (8 "sent next" where 6 are sent),
``tailscope diff`` listed it as ``-`` not sent and again as ``+`` a summary, and a
compaction "folded" a message its request still held (an audit of the compare job)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export
from session_core.formats import by_name
from viewer.widgets.model_diff import ModelDiff


def _text(kind: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "content": [{"type": "text", "text": text}], **extra}


USAGE = {"input_tokens": 100, "output_tokens": 10}
U1 = _text("user", "U1 read a.py")
CALL = {
    "kind": "assistant",
    "content": [{"type": "tool_call", "id": "call_1", "name": "fs_read", "arguments": {}}],
}
RESULT = _text("tool_result", "R1 LONG CONTENT", tool_call_id="call_1", is_error=False)
A2 = _text("assistant", "A2 read it")
U3 = _text("user", "U3 next")
A3 = _text("assistant", "A3 ok")


def _committed(message: dict[str, Any]) -> dict[str, Any]:
    """A message as the loop commits a response: with its usage and stop reason."""
    if message["kind"] != "assistant":
        return message
    return {**message, "usage": USAGE, "stop_reason": "end_turn", "timestamp": "t"}


def _run(path: Path, event: str, after: list[dict[str, Any]]) -> Path:
    """U1, a call, its result, A2 (each response committed with its usage), ``event``,
    U3, then a request holding ``after`` (copies without usage), answered A3."""
    turn = 0

    def ask(run: Any, sent: list[dict[str, Any]], reply: dict[str, Any]) -> None:
        nonlocal turn
        execution = {"id": f"turn-{turn + 1}", "kind": "model", "attempt": 1, "turn_index": turn}
        turn += 1
        run.record(
            "model_request", {"messages": sent, "tools": [], "config": {}}, execution=execution
        )
        run.record("model_exec_end", {"message": reply, "usage": USAGE}, execution=execution)
        run.record("message_end", {"message": _committed(reply)})

    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("message_end", {"message": U1})
        ask(run, [U1], CALL)
        run.record("message_end", {"message": RESULT})
        ask(run, [U1, _committed(CALL), RESULT], A2)
        if event == "context_compacted":
            run.record(event, {"summary": "S the summary", "replaced": 3})
        else:
            run.record(event, {"summary": "1 old result shown as a stub", "replaced": 1})
        run.record("message_end", {"message": U3})
        ask(run, after, A3)
        run.record("agent_end", {"stop_reason": "end_turn"})
    return path


# The request's copies: no usage, no stop reason, no timestamp, ``is_error`` false left out.
RESULT_AS_SENT = {k: v for k, v in RESULT.items() if k != "is_error"}
STUB = {**RESULT, "content": [{"type": "text", "text": "[R1 aged out]"}]}


def test_a_projections_request_copies_are_the_committed_messages(tmp_path: Path) -> None:
    path = _run(tmp_path / "p.jsonl", "context_projected", [U1, CALL, STUB, A2, U3])
    t = open_transcript(path)
    assert [m.text for m in t.messages] == [
        "U1 read a.py",
        "",
        "",
        "A2 read it",
        "U3 next",
        "A3 ok",
    ]
    assert [m.kind for m in t.messages] == ["message"] * 6  # (no copy "sent, committed as none")
    assert [m.stub for m in t.messages if "elided" in m.marks] == ["[R1 aged out]"]
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "5 messages in the last model request, 0 not sent, 1 sent as stubs" in rows[0]
    assert not [row for row in rows[4:] if row[0] in "-+"], rows
    diff = [str(entry[1]) for entry in ModelDiff(t)]
    assert "stubbed: 1 item" in diff
    assert not [row for row in diff if "sent next, on no line of its own" in row], diff
    replayed = export(path, "md", "replayed")
    assert replayed.count("A2 read it") == 1 and replayed.count("### ") == 6


def test_a_compaction_folds_only_what_its_request_no_longer_holds(tmp_path: Path) -> None:
    """The request holds the summary, then the result and A2 as sent (A2 without its
    usage, the result without ``is_error``): the compaction folded U1 and the call."""
    summary = _text("user", "S the summary")
    path = _run(tmp_path / "c.jsonl", "context_compacted", [summary, RESULT_AS_SENT, A2, U3])
    t = open_transcript(path)
    assert [m.text for m in t.messages] == [
        "S the summary",
        "",  # (a result's text is its part's: a tool-result part)
        "A2 read it",
        "U3 next",
        "A3 ok",
    ]
    assert [m.kind for m in t.messages][:2] == ["summary", "message"]
    (compaction,) = t.compactions
    assert len(compaction.folded) == 2
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "4 messages in the last model request, 2 not sent" in rows[0]
    assert [row[:2] for row in rows[4:] if row[0] in "-+"] == ["- ", "- ", "+ "]
    assert "folded: 2 items" in [str(entry[1]) for entry in ModelDiff(t)]


def test_a_copy_with_other_content_is_another_message(tmp_path: Path) -> None:
    """What the model is sent still tells messages apart: a copy of A2 with other text
    is not A2. Where a projection's request holds it in A2's place, it is A2 as the
    projection rewrote it (``~``, not A2 gone and a message of its own); after a
    compaction, it is sent, committed as no message."""
    other = _text("assistant", "A2 read it, reworded")
    path = _run(tmp_path / "p.jsonl", "context_projected", [U1, CALL, STUB, other, U3])
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "0 not sent, 1 sent as stubs, 1 rewritten" in rows[0]
    assert not [row for row in rows if row.startswith(("+ ", "- "))]
    (a2,) = [row for row in rows if "A2 read it [" in row]
    assert a2.startswith("~ ") and a2.endswith("A2 read it [sent rewritten by a projection]")
    # under each ``~`` row, what it was sent as, as v1's and Claude Code's ``diff`` say
    # it (the Diff tab's ``sent:``): it said only that it was stubbed or rewritten
    sent = [rows[n + 1] for n, row in enumerate(rows) if row.startswith("~ ")]
    assert sent == [f"{'':10}sent:     [R1 aged out]", f"{'':10}sent:     A2 read it, reworded"]
    (a2,) = [m for m in open_transcript(path).messages if m.text == "A2 read it"]
    assert a2.stub == "A2 read it, reworded" and "elided" in a2.marks
    summary = _text("user", "S the summary")
    path = _run(tmp_path / "c.jsonl", "context_compacted", [summary, RESULT_AS_SENT, other, U3])
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert [row for row in rows if row.startswith("+ ")][-1] == (
        "+ sent        assistant   A2 read it, reworded [3 of 4 in the request]"
    )
