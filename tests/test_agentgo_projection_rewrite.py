"""A projection (``context_projected``) rewrites what the next request sends, in place;
the committed message stays as it was. A message it rewrote was shown twice, as
compacted away (``- not sent``) and its rewrite as a summary no message committed (``+``,
an item of its own in the conversation). It is one message, sent as its rewrite: ``~``,
marked elided with the rewrite as its stub, as a tool result aged to a stub is (v1's
elisions). A compaction's summary still stands for the messages it replaced."""

from __future__ import annotations

from pathlib import Path

from agentgo_helpers import model, text
from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.formats import by_name

ASKED = text("user", "read the long file and summarize")
LONG = text("assistant", "Here is a very long answer. " * 5)
SHORT = text("assistant", "[answer elided]")
THANKS = text("user", "thanks, now the next one")


def _written(path: Path, event: str, data: dict[str, object]) -> Path:
    """Three committed messages, a context event, then the loop's request holding the
    assistant's answer rewritten."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        first = model("m1", turn_index=0)
        run.record(
            "model_request", {"messages": [ASKED], "tools": [], "config": {}}, execution=first
        )
        run.record("model_exec_end", {"message": LONG}, execution=first)
        for message in (ASKED, LONG, THANKS):
            run.record("message_end", {"message": message})
        run.record(event, data, execution={"id": "p1", "kind": "compact", "attempt": 1})
        request = {"messages": [ASKED, SHORT, THANKS], "tools": [], "config": {}}
        run.record("model_request", request, execution=model("m2", turn_index=1))
        run.record("agent_end", {})
    return path


def test_a_message_a_projection_rewrote_is_sent_as_its_rewrite(tmp_path: Path) -> None:
    path = _written(tmp_path / "p.jsonl", "context_projected", {"replaced": 1})
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "0 not sent, 0 sent as stubs, 1 rewritten, 1 context event" in rows[0]
    (line,) = [row for row in rows if "assistant" in row]
    assert line.startswith("~ line      7 assistant   Here is a very long answer.")
    assert line.endswith("[sent rewritten by a projection]")
    assert not [row for row in rows if row.startswith(("+", "-"))]
    t = open_transcript(path)
    shown = [(m.role, m.parts[-1].text, m.marks, m.stub) for m in t.messages]
    assert shown == [
        ("user", ASKED["content"][0]["text"], [], None),
        ("assistant", LONG["content"][0]["text"], ["elided"], "[answer elided]"),
        ("user", THANKS["content"][0]["text"], [], None),
    ]
    (elision,) = t.compactions
    assert elision.kind == "elision" and list(elision.folded) == ["seq-6"]


def test_a_compactions_summary_is_no_rewrite(tmp_path: Path) -> None:
    data = {"summary": "[answer elided]", "replaced": 1}
    path = _written(tmp_path / "c.jsonl", "context_compacted", data)
    rows = by_name("agentgo-v1").diff(path).splitlines()
    assert "1 not sent, 0 sent as stubs, 1 context event" in rows[0]
    assert [row[:2] for row in rows if "assistant" in row] == ["- ", "+ "]
    t = open_transcript(path)
    assert [(m.role, m.kind) for m in t.messages] == [
        ("user", "message"),
        ("assistant", "summary"),
        ("user", "message"),
    ]
