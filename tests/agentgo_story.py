"""A small, deterministic agentgo-v1 session with every feature the agentgo screen shows.

Run 1 (closed): a model call that fails, a retry that succeeds and asks for two
tools (one whose arguments middleware rewrote, one that fails), a second turn,
a compaction, a checkpoint and agent_end. Run 2 (interrupted): a model call
and a tool call without their terminal events, then the writer dies. Run 3
(closed): a standalone model call, an unknown record type, a second checkpoint.
"""

from __future__ import annotations

import os
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import session_core.agentgo.writer as writer_module
from session_core.agentgo import AgentGoRun, AgentGoSession

OLD_MTIME = 1_786_000_000  # a fixed, long-past mtime: the file reads as idle
HOSTILE = "clear \x1b[2J title \x1b]0;pwned\x07 [bold red]markup[/]"


@contextmanager
def fixed_agentgo_ids(seed: int = 11) -> Iterator[None]:
    """Deterministic uuid4-shaped ids and nanosecond timestamps 1.25 s apart."""
    rng = random.Random(seed)
    start = datetime(2026, 8, 9, 13, 10, 8, tzinfo=UTC)
    ticks = iter(range(1_000_000))
    saved = writer_module._new_id, writer_module.rfc3339_now

    def new_id() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def now() -> str:
        tick = next(ticks)
        moment = start + timedelta(milliseconds=1250 * tick)
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{moment.microsecond:06d}{tick % 1000:03d}Z"

    writer_module._new_id, writer_module.rfc3339_now = new_id, now  # type: ignore[assignment]
    try:
        yield
    finally:
        writer_module._new_id, writer_module.rfc3339_now = saved  # type: ignore[assignment]


def text(kind: str, body: str, **extra: Any) -> dict[str, Any]:
    return {"kind": kind, "content": [{"type": "text", "text": body}], **extra}


def model(exec_id: str, attempt: int = 1, **extra: Any) -> dict[str, Any]:
    return {"id": exec_id, "kind": "model", "attempt": attempt, **extra}


def tool(exec_id: str, parent: str, **extra: Any) -> dict[str, Any]:
    return {"id": exec_id, "kind": "tool", "attempt": 1, "parent_id": parent, **extra}


TOOLS = [
    {"name": "read_file", "description": "Read a file", "schema": {"type": "object"}},
    {"name": "bash", "description": "Run a command", "schema": {"type": "object"}},
]
CONFIG = {"model": "kimi-k2", "temperature": 0.2, "thinking_level": "medium"}


def ask_model(run: AgentGoRun, messages: list[dict[str, Any]], execution: dict[str, Any]) -> None:
    """A model request with the story's tools and config."""
    run.record(
        "model_request",
        {"messages": messages, "tools": TOOLS, "config": CONFIG},
        execution=execution,
    )


def model_asks_ls(run: AgentGoRun, call_id: str, turn: str) -> dict[str, Any]:
    """A user's prompt, then the model's answer (its call ``call_id`` of ``ls``), ended:
    the answer, for the caller to commit where its test needs it."""
    user = text("user", "prompt")
    run.record("message_end", {"message": user})
    ask_model(run, [user], model(turn))
    call = {"type": "tool_call", "id": call_id, "name": "ls", "arguments": {"p": "."}}
    answer = {"kind": "assistant", "content": [call]}
    run.record("model_exec_end", {"message": answer}, execution=model(turn))
    return answer


def write_agentgo_story(path: Path, *, hostile: bool = False) -> str:
    """Write the story; returns the session id. Leaves the file idle-looking (old mtime)."""
    user_text = "Fix the failing test in tests/test_ops.py, please."
    tool_name = "read_file"
    if hostile:
        user_text = f"{user_text} {HOSTILE}"
        tool_name = "read_file\x1b[31m[red]x[/red]"
    with fixed_agentgo_ids():
        s = AgentGoSession.create(path)
        run = s.begin_run()
        user = text("user", user_text)
        run.record("agent_start")
        run.record("turn_start", {"turn_index": 0})
        run.record("message_end", {"message": user})
        ask_model(run, [user], model("turn-1", turn_index=0))
        run.record(
            "model_exec_end",
            {
                "error": "provider overloaded (529)",
                "partial_message": text("assistant", "Let me look at the"),
            },
            execution=model("turn-1", turn_index=0),
        )
        run.record(
            "retry",
            {"attempt": 2, "error": "provider overloaded (529)", "delay_ms": 800},
            execution=model("turn-1", 2, turn_index=0),
        )
        ask_model(run, [user], model("turn-1", 2, turn_index=0))
        answer = {
            "kind": "assistant",
            "content": [
                {"type": "thinking", "text": "The test imports divide; read it first."},
                {"type": "text", "text": "I'll read the module and run the tests."},
                {
                    "type": "tool_call",
                    "id": "call-1",
                    "name": tool_name,
                    "arguments": {"path": "ops.py"},
                },
                {
                    "type": "tool_call",
                    "id": "call-2",
                    "name": "bash",
                    "arguments": {"cmd": "pytest -q"},
                },
            ],
            "stop_reason": "tool_use",
        }
        run.record(
            "model_exec_end",
            {
                "message": answer,
                "usage": {"input_tokens": 812, "output_tokens": 64, "cost": 0.0021},
            },
            execution=model("turn-1", 2, turn_index=0),
        )
        run.record("message_end", {"message": answer})
        run.record(
            "tool_exec_start",
            {"tool": tool_name, "tool_call_id": "call-1", "args": {"path": "ops.py"}},
            execution=tool("call-1", "turn-1"),
        )
        run.record(
            "tool_invoke_start",
            {"args": {"path": "/work/repo/ops.py", "max_bytes": 65536}},
            execution=tool("call-1", "turn-1"),
        )
        run.record(
            "tool_exec_end",
            {
                "result": "def divide(a, b):\n    return a / b\n",
                "content": [{"type": "text", "text": "def divide(a, b):\n    return a / b\n"}],
                "details": {"bytes": 34, "truncated": False},
                "is_error": False,
            },
            execution=tool("call-1", "turn-1"),
        )
        run.record(
            "message_end",
            {
                "message": text(
                    "tool_result", "def divide(a, b):\n    return a / b", tool_call_id="call-1"
                )
            },
        )
        run.record(
            "tool_exec_start",
            {"tool": "bash", "tool_call_id": "call-2", "args": {"cmd": "pytest -q"}},
            execution=tool("call-2", "turn-1"),
        )
        run.record(
            "tool_invoke_start", {"args": {"cmd": "pytest -q"}}, execution=tool("call-2", "turn-1")
        )
        run.record(
            "tool_exec_end",
            {
                "result": "1 failed: ZeroDivisionError in test_divide_by_zero",
                "is_error": True,
                "disposition": "continue",
            },
            execution=tool("call-2", "turn-1"),
        )
        run.record(
            "message_end",
            {
                "message": text(
                    "tool_result",
                    "1 failed: ZeroDivisionError in test_divide_by_zero",
                    tool_call_id="call-2",
                    is_error=True,
                )
            },
        )
        run.record("turn_end", {"turn_index": 0})
        run.record("turn_start", {"turn_index": 1})
        final = text(
            "assistant",
            "divide() now raises ValueError for b == 0.\nThe test passes.\nNothing else changed.\n"
            "Summary: one guard clause.\nDone.",
            stop_reason="end_turn",
        )
        ask_model(run, [user, answer], model("turn-2", turn_index=1))
        run.record(
            "model_exec_end",
            {"message": final, "usage": {"input_tokens": 1020, "output_tokens": 41}},
            execution=model("turn-2", turn_index=1),
        )
        run.record("message_end", {"message": final})
        run.record(
            "context_compacted",
            {"summary": "Fixed divide by zero.", "tokens_before": 1061, "tokens_after": 180},
            execution={"id": "compact-1", "kind": "compact", "attempt": 1},
        )
        run.record("turn_end", {"turn_index": 1})
        run.save_checkpoint({"state": {"messages": 5, "turn": 1}, "queue": []})
        run.record("agent_end", {"stop_reason": "end_turn"})
        run.close()
        # Run 2: the writer dies mid-turn (no terminal events, no run_close).
        run = s.begin_run()
        run.record("agent_start")
        run.record("turn_start", {"turn_index": 0})
        ask = text("user", "Now add a docstring.")
        run.record("message_end", {"message": ask})
        ask_model(run, [ask], model("turn-1", turn_index=0))
        run.record(
            "tool_exec_start",
            {"tool": "bash", "tool_call_id": "call-9", "args": {"cmd": "sleep 600"}},
            execution=tool("call-9", "turn-1"),
        )
        s._release()  # the crash: its file closed, no run_close, nothing more
        s = AgentGoSession.open(path)
        run = s.begin_run()
        run.record(
            "model_request",
            {
                "messages": [text("user", "Classify: bug or feature?")],
                "tools": [],
                "config": CONFIG,
            },
            execution=model("classify"),
        )
        run.record(
            "model_exec_end",
            {
                "message": text("assistant", "bug"),
                "usage": {"input_tokens": 20, "output_tokens": 1},
            },
            execution=model("classify"),
        )
        run.record("host_note", {"note": "a record type this viewer does not know"})
        run.save_checkpoint({"state": {"messages": 7, "turn": 2}, "queue": ["next"]})
        run.close()
        session_id = s.session_id
        s.close()
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return session_id
