"""A deterministic directory of transcripts in every state the browser shows, both formats."""

from __future__ import annotations

import itertools
import os
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import session_core.agentgo.writer as agentgo_writer
from session_core import Message, Session
from session_core.agentgo import AgentGoSession
from story import OLD_MTIME, call, fixed_ids

# Every file a corpus holds, with the status and (part of) the reason a scan must give.
EXPECTED: dict[str, tuple[str, str | None]] = {
    "v1-finished.jsonl": ("finished", None),
    "v1-crashed-pending.jsonl": ("crashed", "1 tool operation pending"),
    "v1-crash-tail.jsonl": ("crashed", "crash tail"),
    "v1-damaged.jsonl": ("damaged", "line 4"),
    "agentgo/go-finished.jsonl": ("finished", None),
    "agentgo/go-crashed.jsonl": ("crashed", "1 run not finished"),
    "agentgo/go-damaged.jsonl": ("damaged", "contiguous"),
    "notes.jsonl": ("not-a-transcript", "neither a session-meta"),
    "nested/deeper/v1-nested.jsonl": ("finished", None),
}


@contextmanager
def fixed_agentgo(seed: int = 11) -> Iterator[None]:
    """Deterministic agentgo session/run ids and record times, a second apart."""
    rng = random.Random(seed)
    start = datetime(2026, 8, 9, 14, 0, 0, tzinfo=UTC)
    ticks = itertools.count()
    saved = agentgo_writer._new_id, agentgo_writer.rfc3339_now

    def new_id() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def now() -> str:
        return (start + timedelta(seconds=next(ticks))).strftime("%Y-%m-%dT%H:%M:%S.000000000Z")

    agentgo_writer._new_id, agentgo_writer.rfc3339_now = new_id, now  # type: ignore[assignment]
    try:
        yield
    finally:
        agentgo_writer._new_id, agentgo_writer.rfc3339_now = saved  # type: ignore[assignment]


def usage(prompt: int, completion: int, cost: float) -> dict[str, Any]:
    return {
        "usage": {
            "prompt-tokens": prompt,
            "completion-tokens": completion,
            "total-tokens": prompt + completion,
            "cost": cost,
        }
    }


# Each agent's first prompt: a row's title, so the browser's rows read apart.
PROMPTS = {
    "builder": "Build the release.",
    "fixer": "Fix the flaky test.",
    "nested-agent": "Tidy the modules.",
}


def write_v1(path: Path, *, settle: bool = True, agent: str = "sadna", seed: int = 7) -> None:
    """A short v1 run: a tool call dispatched (and settled unless told otherwise)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with fixed_ids(seed), Session.create(path, meta={"agent": agent, "model": "kimi-k2"}) as s:
        s.append_message(Message(role="system", content="You are a coding agent.", sysprompt=True))
        s.append_message(Message(role="user", content=PROMPTS.get(agent, "Run the tests.")))
        s.append_message(
            Message(
                role="assistant",
                content="Running them.",
                tool_calls=(call("call_1", "shell", '{"cmd":"pytest"}'),),
            ),
            usage(1200, 40, 0.0031),
        )
        op = s.append_tool_dispatched(
            call_id="call_1", tool="shell", arguments='{"cmd":"pytest"}', idempotency="read-only"
        )
        if settle:
            s.append_tool_settled(op_id=op, outcome="completed", duration=1.25)
            s.append_message(Message(role="tool", content="3 passed", tool_call_id="call_1"))
            s.append_message(
                Message(role="assistant", content="All three pass."), usage(1300, 12, 0.0027)
            )


def write_agentgo(path: Path, *, finish: bool = True) -> None:
    """A one-turn agentgo run; unfinished: no model_exec_end, no agent_end, no run_close."""
    path.parent.mkdir(parents=True, exist_ok=True)
    model = {"id": "turn-1", "kind": "model", "attempt": 1}
    user = {"kind": "user", "content": [{"type": "text", "text": "Summarise the diff."}]}
    answer = {
        "kind": "assistant",
        "content": [
            {"type": "text", "text": "Reading it."},
            {"type": "tool_call", "id": "t1", "name": "git_diff", "arguments": {}},
        ],
    }
    with fixed_agentgo():
        session = AgentGoSession.create(path)
        run = session.begin_run()
        run.record("agent_start")
        run.record("message_end", {"message": user})
        run.record(
            "model_request",
            {"messages": [user], "tools": [], "config": {"model": "gpt-5-mini"}},
            execution=model,
        )
        if finish:
            run.record(
                "model_exec_end",
                {
                    "message": answer,
                    "usage": {"input_tokens": 900, "output_tokens": 60, "cost": 0.0012},
                },
                execution=model,
            )
            run.record("message_end", {"message": answer})
            run.record("agent_end", {"stop_reason": "end_turn"})
            run.close()
            session.close()
        else:
            session._release()  # the process died: its file closed, nothing more written


def write_corpus(root: Path) -> Path:
    """Every file of EXPECTED, idle (old mtimes), deterministic byte for byte."""
    root.mkdir(parents=True, exist_ok=True)
    write_v1(root / "v1-finished.jsonl")
    write_v1(root / "v1-crashed-pending.jsonl", settle=False, agent="builder")
    write_v1(root / "v1-crash-tail.jsonl", agent="fixer")
    with open(root / "v1-crash-tail.jsonl", "ab") as fh:
        fh.write(b'{"id":"9e0c2f1a-cut-here","payload":{"role":"assis')
    write_v1(root / "v1-damaged.jsonl", agent="mangled")
    lines = (root / "v1-damaged.jsonl").read_bytes().splitlines(keepends=True)
    lines[3] = b'{"id":"broken", this is not json\n'
    (root / "v1-damaged.jsonl").write_bytes(b"".join(lines))
    write_agentgo(root / "agentgo" / "go-finished.jsonl")
    write_agentgo(root / "agentgo" / "go-crashed.jsonl", finish=False)
    write_agentgo(root / "agentgo" / "go-damaged.jsonl")
    damaged = (root / "agentgo" / "go-damaged.jsonl").read_bytes().splitlines(keepends=True)
    del damaged[3]  # a seq gap
    (root / "agentgo" / "go-damaged.jsonl").write_bytes(b"".join(damaged))
    (root / "notes.jsonl").write_bytes(b'{"note":"not a transcript"}\n')
    write_v1(root / "nested" / "deeper" / "v1-nested.jsonl", agent="nested-agent", seed=9)
    for name in EXPECTED:
        os.utime(root / name, (OLD_MTIME, OLD_MTIME))
    return root
