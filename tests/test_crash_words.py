"""What the exports say of work a crash left open, in the viewer's words: an agentgo call
with no terminal event has no end (it read "T → T", a span that ended)."""

from __future__ import annotations

from pathlib import Path

from agentgo_helpers import model, tool
from session_core.agentgo import AgentGoSession
from session_core.export import export


def test_an_agentgo_call_never_ended_has_no_end_in_the_export(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    s = AgentGoSession.create(path)
    run = s.begin_run()
    run.record("agent_start", {})
    run.record("model_request", {"messages": [], "tools": []}, execution=model("m1"))
    answer = {
        "kind": "assistant",
        "content": [{"type": "tool_call", "id": "tc1", "name": "ls", "arguments": {}}],
    }
    run.record("model_exec_end", {"message": answer}, execution=model("m1"))
    run.record("message_end", {"message": answer})
    run.record("tool_exec_start", {"tool": "ls", "tool_call_id": "tc1", "args": {}},
               execution=tool("t1"))  # fmt: skip
    s._release()  # the process dies: no tool_exec_end, no run_close
    s._closed = True
    said = export(path, "md")
    line = next(x for x in said.splitlines() if "(tc1)" in x)
    assert "gap \\(interrupted\\)" in line and "no terminal event" in line
    assert "→" not in line, line
