"""An agentgo call the model asked for that was never started (no ``tool_exec_start``)
was "no operation" in the conversation, "no execution recorded" in the export, and no
row of the tool operations (``7 tool ops`` where the browser counted 8 tools). It is an
operation of its own, as v1's calls no dispatch line names are, in the same words:
*not dispatched yet* while its run is open, *never dispatched* once it is not; and
``check`` counts them as v1's does (it said nothing of them)."""

from __future__ import annotations

from pathlib import Path

from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export
from session_core.formats import by_name


def _states(path: Path) -> tuple[list[tuple[str, str]], list[tuple[str, str]], str, str]:
    ops = [(op.call_id, op.state) for op in open_transcript(path).tool_operations]
    rows = [
        (o["call-id"], o["state"])
        for o in by_name("agentgo-v1").replay_json(path)["tool-operations"]
    ]
    (said,) = [line for line in export(path, "md").splitlines() if "(c2)" in line]
    return ops, rows, said, by_name("agentgo-v1").check(path)


def test_a_call_never_started_is_an_operation(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    session = AgentGoSession.create(path)
    run = session.begin_run()
    run.record("agent_start", {})
    calls = [
        {"type": "tool_call", "id": f"c{n}", "name": name, "arguments": {"n": n}}
        for n, name in ((1, "bash"), (2, "read"))
    ]
    asked = {"kind": "assistant", "content": calls, "stop_reason": "tool_use"}
    run.record("message_end", {"message": asked})
    started = {"id": "c1", "kind": "tool", "attempt": 1}
    run.record(
        "tool_exec_start", {"tool": "bash", "tool_call_id": "c1", "args": {}}, execution=started
    )
    ops, rows, said, check = _states(path)  # (its writer at work: the lock held)
    assert ops == rows == [("c1", "running"), ("c2", "not-dispatched-yet")]
    assert said.endswith("not dispatched yet")
    said_running = "1 tool call running, 1 run running, 1 call not dispatched yet, "
    assert said_running in check and "never" not in check
    (op,) = [op for op in open_transcript(path).tool_operations if op.call_id == "c2"]
    assert (op.tool, op.arguments, op.message_id) == ("read", {"n": 2}, "seq-3")
    session.close()  # (the run never ended: cut off)
    ops, rows, said, check = _states(path)
    assert ops == rows == [("c1", "interrupted"), ("c2", "never-dispatched")]
    assert said.endswith("never dispatched")
    # (its run closed by ``close``: the call alone cut off)
    said_gone = "1 tool call without a result, 1 call never dispatched, "
    assert said_gone in check and "yet" not in check


def test_check_counts_an_id_asked_again_as_the_operations_do(tmp_path: Path) -> None:
    """A writer that numbers its calls again asks with an id used before: the execution
    is of the later ask (``ask_of``), the earlier one never started; an execution written
    before any message asked is of the first ask. ``check`` counts what the model lists."""
    path = tmp_path / "s.jsonl"
    with AgentGoSession.create(path) as session:
        run = session.begin_run()
        run.record("agent_start", {})
        start = {"tool": "bash", "tool_call_id": "c1", "args": {}}
        run.record("tool_exec_start", start, execution={"id": "t0", "kind": "tool", "attempt": 1})
        for n in (1, 2, 3):
            call = {"type": "tool_call", "id": "c1", "name": "bash", "arguments": {"n": n}}
            asked = {"kind": "assistant", "content": [call, call]}  # (one ask: the id twice)
            run.record("message_end", {"message": asked})
        run.record("tool_exec_start", start, execution={"id": "t3", "kind": "tool", "attempt": 1})
        run.record("agent_end", {})
    states = [(op.message_id, op.state) for op in open_transcript(path).tool_operations]
    assert states == [
        ("seq-4", "interrupted"),
        ("seq-6", "interrupted"),
        ("seq-5", "never-dispatched"),
    ]
    assert "1 call never dispatched, " in by_name("agentgo-v1").check(path)
