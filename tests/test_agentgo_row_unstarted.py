"""An agentgo file's browser row counts the calls a message asked for that no execution
is of, in ``check``'s words: the row's light tally left them out ("every run and tool
operation ended"), where ``check`` and the Tool operations tab said "1 call never
dispatched". Its loop said it ended: no crash."""

from __future__ import annotations

from pathlib import Path

from helpers import written

from agentgo_helpers import REQUEST, USAGE, model, text, tool
from session_core.agentgo import AgentGoSession
from session_core.formats import by_name
from session_core.scan import scan_file
from viewer.browser_cells import detail

ASKS = {
    "kind": "assistant",
    "content": [
        {"type": "tool_call", "id": "tc1", "name": "ls", "arguments": {}},
        {"type": "tool_call", "id": "tc2", "name": "cat", "arguments": {}},
    ],
    "stop_reason": "tool_use",
}


def write_asks(path: Path, *, both: bool) -> None:
    """A closed run whose message asks for two calls: one run (``both``: the two)."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("message_end", {"message": text("user", "look")})
        run.record("model_request", REQUEST, execution=model("m1"))
        run.record("model_exec_end", {"message": ASKS, "usage": USAGE}, execution=model("m1"))
        run.record("message_end", {"message": ASKS})
        for call_id in ("tc1", "tc2") if both else ("tc1",):
            t = tool(f"t-{call_id}")
            run.record(
                "tool_exec_start", {"tool": "ls", "tool_call_id": call_id, "args": {}}, execution=t
            )
            run.record("tool_exec_end", {"result": "ok", "is_error": False}, execution=t)
            run.record(
                "message_end", {"message": {**text("tool_result", "ok"), "tool_call_id": call_id}}
            )
        run.record("agent_end", {"stop_reason": "end_turn"})
        run.close()


def test_a_call_never_dispatched_is_in_the_row_as_check_says_it(tmp_path: Path) -> None:
    path = written(tmp_path / "asks.jsonl", write_asks, both=False)
    said = "1 call never dispatched"
    assert said in by_name("agentgo-v1").check(path)
    for budget in (None, 2_000):  # whole, and its head and a tail window
        row = scan_file(path) if budget is None else scan_file(path, budget=budget, window=3000)
        assert row.unstarted == said, budget
        assert (row.status, row.reason) == ("finished", None)  # (its run closed, ended)
        assert row.tool_calls == 2
        shown = detail(row, str(path)).plain
        assert said in shown and "tool operation ended" not in shown


def test_every_call_dispatched_leaves_the_row_finished(tmp_path: Path) -> None:
    path = written(tmp_path / "asks.jsonl", write_asks, both=True)
    assert "dispatched" not in by_name("agentgo-v1").check(path)
    row = scan_file(path)
    assert (row.status, row.reason, row.unstarted) == ("finished", None, None)
    assert "every run and tool operation ended" in detail(row, str(path)).plain
