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


def _left_open(path: Path, *, error: bool = False) -> Path:
    """``write_asks`` of one call cut off before its run closed: its loop's end (an error
    where ``error``) and no ``run_close``; its writer gone."""
    write_asks(path, both=False)
    lines = path.read_bytes().splitlines(keepends=True)
    kept = lines[:-2]  # (the agent_end and the run_close)
    if error:
        end = lines[-2].replace(b'"stop_reason": "end_turn"', b'"error": "boom"')
        end = end.replace(b'"stop_reason":"end_turn"', b'"error":"boom"')
        assert b"boom" in end
        kept.append(end)
    path.write_bytes(b"".join(kept))
    return path


def test_a_crashed_row_says_never_dispatched_as_check_does(tmp_path: Path) -> None:
    """Its writer gone, its open run is cut off: the row said "not dispatched yet" beside
    "crashed" where ``check`` said "never dispatched" (by the writer-alive rule)."""
    path = _left_open(tmp_path / "open.jsonl")
    note = by_name("agentgo-v1").check(path)
    assert "1 call never dispatched" in note and "not dispatched yet" not in note, note
    for budget in (None, 2_000):  # whole, and its head and a tail window
        row = scan_file(path) if budget is None else scan_file(path, budget=budget, window=3000)
        assert (row.status, row.unstarted) == ("crashed", "1 call never dispatched"), budget
        shown = detail(row, str(path)).plain
        assert "never dispatched" in shown and "yet" not in shown, shown


def test_a_live_row_says_not_dispatched_yet_as_check_does(tmp_path: Path) -> None:
    """While its writer holds the file, its run open: "not dispatched yet", both ways."""
    path = tmp_path / "live.jsonl"
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("model_request", REQUEST, execution=model("m1"))
        run.record("model_exec_end", {"message": ASKS, "usage": USAGE}, execution=model("m1"))
        run.record("message_end", {"message": ASKS})
        note = by_name("agentgo-v1").check(path)
        row = scan_file(path)
        assert "2 calls not dispatched yet" in note, note
        assert (row.status, row.unstarted) == ("live", "2 calls not dispatched yet")
    row = scan_file(path)  # (its writer gone)
    assert row.unstarted == "2 calls never dispatched" in by_name("agentgo-v1").check(path)


def test_a_failed_run_left_open_is_failed_and_not_finished(tmp_path: Path) -> None:
    path = _left_open(tmp_path / "failed.jsonl", error=True)
    note = by_name("agentgo-v1").check(path)
    assert "1 run not finished" in note and "1 run failed" in note, note
    shown = detail(scan_file(path), str(path)).plain
    assert "1 run not finished" in shown and "1 run failed" in shown, shown
