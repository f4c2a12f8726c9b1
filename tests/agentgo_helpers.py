"""Shared helpers and fixtures of the agentgo tests: a story session and its records."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from session_core import TranscriptError
from session_core.agentgo import (
    AgentGoSession,
)
from session_core.agentgo.records import Records, span_of
from session_core.events import LineSource

REPO = Path(__file__).resolve().parent.parent
T0 = "2026-08-09T13:10:08.542283123Z"


def at(second: int) -> str:
    return f"2026-08-09T13:10:{second:02d}.000000000Z"


def model(exec_id: str, attempt: int = 1, **extra: Any) -> dict[str, Any]:
    return {"id": exec_id, "kind": "model", "attempt": attempt, **extra}


def tool(exec_id: str, attempt: int = 1, **extra: Any) -> dict[str, Any]:
    return {"id": exec_id, "kind": "tool", "attempt": attempt, **extra}


def call_in_flight(session: AgentGoSession, exec_id: str) -> Any:
    """A run begun in ``session`` with a model call ``exec_id`` requested and not ended
    (the run, to go on with)."""
    run = session.begin_run()
    run.record("agent_start")
    run.record(
        "model_request", {"messages": [], "tools": [], "config": {}}, execution=model(exec_id)
    )
    return run


def text(kind: str, body: str) -> dict[str, Any]:
    return {"kind": kind, "content": [{"type": "text", "text": body}]}


REQUEST = {
    "messages": [text("user", "list the files")],
    "tools": [{"name": "ls", "description": "list a directory", "schema": {"type": "object"}}],
    "config": {"model": "demo-1", "temperature": 0.2, "thinking_level": "medium"},
}
ASSISTANT = {
    "kind": "assistant",
    "content": [
        {"type": "thinking", "text": "use ls"},
        {"type": "text", "text": "Listing."},
        {"type": "tool_call", "id": "tc1", "name": "ls", "arguments": {"path": "."}},
    ],
    "stop_reason": "tool_use",
}
USAGE = {"input_tokens": 120, "output_tokens": 30, "cache_read_tokens": 64, "cost": 0.0012}


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def write_story(path: Path) -> AgentGoSession:
    """A session of two runs with every event type; run 2 is left open (returned session)."""
    s = AgentGoSession.create(path)
    r = s.begin_run()
    r.record("agent_start", {}, time=at(1))
    r.record("turn_start", {"turn_index": 0}, time=at(1))
    m1 = model("m1", turn_index=0)
    r.record("model_request", REQUEST, execution=m1, time=at(2))
    r.record(
        "model_exec_end",
        {
            "partial_message": text("assistant", "List"),
            "error": "stream reset by peer",
            "usage": {"input_tokens": 120, "output_tokens": 2},
        },
        execution=m1,
        time=at(3),
    )
    r.record(
        "retry", {"attempt": 2, "error": "stream reset by peer", "delay_ms": 500}, execution=m1
    )
    m1b = model("m1", 2, turn_index=0)
    r.record("model_request", REQUEST, execution=m1b, time=at(4))
    r.record("model_exec_end", {"message": ASSISTANT, "usage": USAGE}, execution=m1b, time=at(5))
    r.record("message_end", {"message": ASSISTANT}, time=at(5))
    t1 = tool("t1", parent_id="m1", turn_index=0)
    r.record(
        "tool_exec_start",
        {"tool": "ls", "tool_call_id": "tc1", "args": {"path": "."}},
        execution=t1,
    )
    r.record("tool_invoke_start", {"args": {"path": "/repo"}}, execution=t1)
    # a model call the tool makes (nested under it)
    sub = model("t1/summarize", parent_id="t1")
    r.record(
        "model_request", {"messages": [], "tools": [], "config": {"model": "mini"}}, execution=sub
    )
    r.record("model_exec_end", {"message": text("assistant", "two files")}, execution=sub)
    r.record(
        "tool_exec_end",
        {
            "result": "a.py\nb.py",
            "content": [{"type": "text", "text": "a.py\nb.py"}],
            "details": {"entries": 2},
            "is_error": False,
            "disposition": "continue",
        },
        execution=t1,
    )
    r.record(
        "message_end", {"message": {**text("tool_result", "a.py\nb.py"), "tool_call_id": "tc1"}}
    )
    t2 = tool("t2", turn_index=0)
    r.record(
        "tool_exec_start",
        {"tool": "rm", "tool_call_id": "tc2", "args": {"path": "/"}},
        execution=t2,
    )
    r.record("tool_invoke_start", {"args": {"path": "/"}}, execution=t2)
    r.record(
        "tool_exec_end",
        {"result": "denied", "is_error": True, "disposition": "blocked"},
        execution=t2,
    )
    r.record(
        "model_response", {"recovery": {"decision": "continue", "reason": "length"}}, execution=m1b
    )
    r.save_checkpoint({"state": {"turn": 0}, "messages": 2})
    compact = {"id": "c1", "kind": "compact", "attempt": 1}
    r.record("context_projected", {"tokens_before": 900, "tokens_after": 900}, execution=compact)
    r.record(
        "context_compacted",
        {"summary": "they listed files", "replaced": 3, "tokens_before": 900, "tokens_after": 200},
        execution=compact,
    )
    r.record("turn_end", {"turn_index": 0})
    r.save_checkpoint({"state": {"turn": 1}, "messages": 3})
    r.record("some_future_event", {"anything": [1, 2]})
    r.record("agent_end", {"stop_reason": "end_turn"})
    r.close()
    r2 = s.begin_run()
    r2.record("agent_start", {})
    r2.record("model_request", REQUEST, execution=model("m2"))
    r2.record(
        "tool_exec_start", {"tool": "ls", "tool_call_id": "tc9", "args": {}}, execution=tool("t9")
    )
    return s


@pytest.fixture
def story(tmp_path: Path) -> Iterator[tuple[Path, AgentGoSession]]:
    path = tmp_path / "session.jsonl"
    s = write_story(path)
    yield path, s
    with contextlib.suppress(TranscriptError):
        s.close()


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    """The story with run 2 left open, the writer released (as after a crash)."""
    path = tmp_path / "finished.jsonl"
    s = write_story(path)
    s._release()  # the process "dies": its file closed, no run_close, no sync
    s._closed = True
    return path


def records_of(path: Path) -> list[dict[str, Any]]:
    return lines_of(path)


def dump_records(records: list[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) + b"\n" for r in records)


def one_turn(path: Path, *, ended: bool = True) -> Path:
    """A run of one model call and its message, ``ended`` by its ``agent_end``."""
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("agent_start")
        run.record("model_request", REQUEST, execution=model("m1"))
        run.record("model_exec_end", {"message": ASSISTANT, "usage": USAGE}, execution=model("m1"))
        run.record("message_end", {"message": ASSISTANT})
        if ended:
            run.record("agent_end", {})
    return path


@pytest.fixture
def valid(tmp_path: Path) -> Path:
    return one_turn(tmp_path / "valid.jsonl")


def kept_records(path: Path, lines: list[bytes]) -> Records:
    """Records of ``lines``, written to ``path`` one a line, kept as their spans there."""
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    records = Records(keep=True)
    records.source = LineSource(os.open(path, os.O_RDONLY))
    offset = 0
    for seq, line in enumerate(lines):
        records.append(orjson.loads(line), span_of(offset, len(line)), "message_end", seq, seq)
        offset += len(line) + 1
    return records


PROJECTED_USER = {"kind": "user", "content": [{"type": "text", "text": "fix it"}]}
PROJECTED_BULK = "x" * 12000  # (a request over the skim's 8 KiB: read again by span)


def _ask(call: str) -> dict[str, Any]:
    return {
        "kind": "assistant",
        "content": [{"type": "tool_call", "id": call, "name": "fs_read", "arguments": {}}],
    }


def _result(call: str, text: str) -> dict[str, Any]:
    return {
        "kind": "tool_result",
        "content": [{"type": "text", "text": text}],
        "tool_call_id": call,
    }


def _turn(turn: int | None) -> dict[str, Any]:
    extra = {} if turn is None else {"turn_index": turn}
    return {"id": f"turn-{turn}", "kind": "model", "attempt": 1, **extra}


def projected(path: Path, *, turns: bool = True) -> Path:
    """Three calls' results, a projection that ages two and drops the third, a request
    that says so; a second projection no request follows yet: ``turns`` False names no
    turn (the loop's call told by its last message being the last committed)."""
    asks = [_ask(f"c{i}") for i in range(3)]
    results = [_result(f"c{i}", f"LONG RESULT {i} {PROJECTED_BULK}") for i in range(3)]
    stubs = [_result(f"c{i}", "[aged]") for i in range(2)]
    with AgentGoSession.create(path) as s:
        run = s.begin_run()
        run.record("message_end", {"message": PROJECTED_USER})
        history = [PROJECTED_USER]
        for i in range(3):
            turn = _turn(i if turns else None)
            request = {"messages": list(history), "tools": [], "config": {}}
            run.record("model_request", request, execution=turn)
            run.record("model_exec_end", {"message": asks[i]}, execution=turn)
            run.record("message_end", {"message": asks[i]})
            run.record("message_end", {"message": results[i]})
            history += [asks[i], results[i]]
        run.record("context_projected", {"replaced": 3})
        sent = [PROJECTED_USER, asks[0], stubs[0], asks[1], stubs[1], asks[2]]
        if not turns:  # (its last message the last committed: a fourth question)
            sent.append(PROJECTED_USER)
            run.record("message_end", {"message": PROJECTED_USER})
        tools = [{"name": "fs_read", "description": PROJECTED_BULK, "schema": {}}]  # (skimmed)
        request = {"messages": sent, "tools": tools, "config": {"model": "m"}}
        run.record("model_request", request, execution=_turn(3 if turns else None))
        run.record("context_projected", {"replaced": 1})
        run.close()
    return path
