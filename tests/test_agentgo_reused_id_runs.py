"""An agentgo execution written before the message asking for it, where an earlier run
asked with the same call id (the open item "an agentgo execution before a reusing
message"). seq is append order, not causality, and a call is its run's (the spec names
one by session, run and execution): the execution is of its own run's ask. It was given
to the earlier run's: that call showed the later call's execution (in the export, in
place of its own), and the later call read "never dispatched" in the viewer, ``replay``,
``check`` and the export."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from helpers import each_snapshot_afresh

from agentgo_helpers import tool
from agentgo_story import ask_model, model, text
from session_core import open_transcript
from session_core.agentgo import AgentGoSession
from session_core.export import export
from session_core.formats import by_name
from session_core.formats.agentgo.model import AgentGoModel
from session_core.model import Transcript

FORMAT = by_name("agentgo-v1")


def _write(path: Path, runs: list[tuple[str, str]]) -> Path:
    """One run per (tool, how): each asks for call ``tc1``; ``how``: ``first`` (its
    execution after the message asking), ``late`` (before it), ``none`` (no execution),
    ``carried`` (an execution and no message of its run asking)."""
    session = AgentGoSession.create(path)
    for n, (name, how) in enumerate(runs):
        run = session.begin_run()
        user = text("user", f"prompt {n}")
        run.record("message_end", {"message": user})
        call = {"type": "tool_call", "id": "tc1", "name": name, "arguments": {"n": n}}
        answer = {"kind": "assistant", "content": [call]}
        if how != "carried":
            ask_model(run, [user], model(f"turn-{n}"))
            run.record("model_exec_end", {"message": answer}, execution=model(f"turn-{n}"))
        if how in ("first", "none"):
            run.record("message_end", {"message": answer})
        if how != "none":
            start = {"tool": name, "tool_call_id": "tc1", "args": {"n": n}}
            run.record("tool_exec_start", start, execution=tool(f"tool-{n}"))
            end: dict[str, Any] = {"result": f"RESULT-{name}", "is_error": False}
            run.record("tool_exec_end", end, execution=tool(f"tool-{n}"))
        if how == "late":
            run.record("message_end", {"message": answer})
        if how != "none":
            said = {**text("tool_result", f"RESULT-{name}"), "tool_call_id": "tc1"}
            run.record("message_end", {"message": said})
        run.close()
    session.close()
    return path


def _ops(path: Path) -> list[tuple[str, str, str | None]]:
    t = open_transcript(path)
    asked = {m.id: m for m in t.messages}
    out = []
    for op in t.tool_operations:
        message = asked.get(op.message_id or "")
        names = [p.name for p in message.parts if p.kind == "tool-call"] if message else []
        out.append((op.tool, op.state, names[0] if names else None))
    return out


def test_an_execution_before_its_message_is_of_its_own_runs_call(tmp_path: Path) -> None:
    path = _write(tmp_path / "s.jsonl", [("ls", "first"), ("cat", "late")])
    # each execution under the message of its run that asked (was: cat under ls's, and
    # cat's own call "never dispatched")
    assert _ops(path) == [("ls", "completed", "ls"), ("cat", "completed", "cat")]
    ops = FORMAT.replay_json(path)["tool-operations"]
    assert [(o["tool"], o["state"]) for o in ops] == [("ls", "completed"), ("cat", "completed")]
    assert len({o["message-id"] for o in ops}) == 2
    assert "dispatched" not in FORMAT.check(path)
    said = export(path, "md").replace("\\", "")
    lines = [line for line in said.splitlines() if line.startswith("- **")]
    assert lines[0].startswith("- **ls** (tc1): ok · execution tool-0 ")
    assert lines[1].startswith("- **cat** (tc1): ok · execution tool-1 ")


def test_a_run_that_carries_on_an_earlier_runs_call_is_of_that_call(tmp_path: Path) -> None:
    """A run whose messages do not ask for the id: its execution is of the earlier
    run's call (the last asked before it), which then is no call never dispatched."""
    path = _write(tmp_path / "s.jsonl", [("ls", "none"), ("ls", "carried")])
    assert _ops(path) == [("ls", "completed", "ls")]
    assert "dispatched" not in FORMAT.check(path)


def test_a_followed_file_names_each_execution_as_a_whole_read_does(tmp_path: Path) -> None:
    """Followed, the execution first reads as the earlier run's call (none of its run
    asked yet); its run's message takes it, and the earlier call, executed by none,
    reads never dispatched again, as the file read whole says."""
    path = _write(tmp_path / "s.jsonl", [("ls", "none"), ("cat", "late")])
    assert _ops(path) == [("cat", "completed", "cat"), ("ls", "never-dispatched", "ls")]
    assert "1 call never dispatched" in FORMAT.check(path)
    live = FORMAT.live(str(path))

    def afresh(alive: bool | None) -> Transcript:
        return AgentGoModel(live.view).transcript(str(path), alive)

    assert each_snapshot_afresh(live, path, afresh, 256) > 10
    final = live.transcript(writer_alive=False)
    assert [(op.tool, op.state) for op in final.tool_operations] == [
        ("cat", "completed"),
        ("ls", "never-dispatched"),
    ]
