"""A small, deterministic transcript with every feature the viewer shows."""

from __future__ import annotations

import os
import random
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import session_core.session as session_module
from session_core import Message, Session
from session_core.codec import section_digest
from session_core.times import epoch

HOSTILE = "clear \x1b[2J title \x1b]0;pwned\x07 clip \x1b]52;c;SGVsbG8=\x07 [bold red]markup[/]"
OLD_MTIME = 1_786_000_000  # a fixed, long-past mtime: the file reads as idle


@contextmanager
def fixed_ids(seed: int = 7) -> Iterator[None]:
    """Deterministic uuid4-shaped ids and timestamps a second and a half apart (the v1
    writer's, and the demo's Claude Code and Codex recorders' clock)."""
    from viewer.demo.recorders import Recorder

    rng = random.Random(seed)
    start = datetime(2026, 8, 9, 13, 10, 0, 125000, tzinfo=UTC)
    ticks = iter(range(100_000))
    saved = session_module.new_id, session_module.now_ts
    saved_clock = Recorder.__dict__["utc_now"]

    def new_id() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    def utc_now() -> datetime:
        return start + timedelta(seconds=1.5 * next(ticks))

    def now_ts() -> str:
        return utc_now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")

    session_module.new_id, session_module.now_ts = new_id, now_ts
    Recorder.utc_now = staticmethod(utc_now)  # type: ignore[method-assign]
    try:
        yield
    finally:
        session_module.new_id, session_module.now_ts = saved
        Recorder.utc_now = saved_clock  # type: ignore[method-assign]


def call(cid: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": arguments}}


IDENTITY = "You are sadna, a careful coding agent."


def identity_run(s: Session, run_id: str, digest: str, facts: list[tuple[str, str]]) -> None:
    """A run context whose one section is the identity, inline."""
    section = {"name": "identity", "digest": section_digest("identity", IDENTITY)}
    s.append_run_context(run_id, digest, facts, [{**section, "rendered": IDENTITY}])


def usage(prompt: int, completion: int, **more: float) -> dict[str, float]:
    total = {"prompt-tokens": prompt, "completion-tokens": completion}
    return {**total, "total-tokens": prompt + completion, **more}


def write_story(path: Path, *, hostile: bool = False) -> dict[str, str]:
    """Write the story; returns named envelope ids. Leaves the file idle-looking (old mtime)."""
    ids: dict[str, str] = {}
    with fixed_ids(), Session.create(path, meta={"agent": "sadna", "model": "kimi-k2"}) as s:
        identity_run(s, "run-1", "ctx-1", [("date", "2026-08-09"), ("branch", "main")])
        ids["system"] = s.append_message(
            Message(
                role="system",
                content="You are a coding agent.\nRead before you write.",
                sysprompt=True,
            )
        )
        ids["user"] = s.append_message(
            Message(
                role="user", content=HOSTILE if hostile else "The divide test fails; fix it please."
            )
        )
        ids["a1"] = s.append_message(
            Message(
                role="assistant",
                content="Let me read the test first.",
                tool_calls=(call("call_1", "fs_read", '{"path":"tests/test_ops.py"}'),),
            ),
            extra={
                "finish-reason": "tool_calls",
                "reasoning": "The failure is in divide; read the test.",
                "usage": usage(900, 60, cost=0.0021),
            },
        )
        read = '{"path":"tests/test_ops.py"}'
        op1 = s.append_tool_dispatched(
            "call_1", "fs_read", read, idempotency="read-only", run_id="run-1", round=1
        )
        body = "\n".join(f"{n:>3}  line {n} of tests/test_ops.py" for n in range(1, 31))
        ids["t1"] = s.append_message(Message(role="tool", content=body, tool_call_id="call_1"))
        s.append_tool_settled(op_id=op1, outcome="completed", duration=0.125)
        ids["a2"] = s.append_message(
            Message(
                role="assistant",
                content="Now run the tests.",
                tool_calls=(call("call_2", "run_tests", "{}"),),
            ),
            extra={"usage": usage(1100, 40, cost=0.0025)},
        )
        op2 = s.append_tool_dispatched(
            call_id="call_2", tool="run_tests", arguments="{}", run_id="run-1", round=2
        )
        ids["t2"] = s.append_message(
            Message(
                role="tool", content="FAILED tests/test_ops.py::test_divide", tool_call_id="call_2"
            ),
            extra={"is-error": True},
        )
        s.append_tool_settled(op_id=op2, outcome="failed", error="exit status 1", duration=2.5)
        s.append_grants([{"tool": "fs_read", "scope": "always"}])
        ids["elision"] = s.append_elision(
            [{"id": ids["t1"], "stub": "[elided: 30 lines of tests/test_ops.py]"}]
        )
        ids["compaction"] = s.append_compaction(
            summary=(
                "The user asked to fix test_divide. "
                "The agent read the test and ran the suite: it fails."
            ),
            replaces_through_id=ids["t1"],
            tokens_before=2100,
            tokens_after=240,
        )
        identity_run(s, "run-2", "ctx-2", [("date", "2026-08-10"), ("branch", "fix-divide")])
        ids["a3"] = s.append_message(
            Message(
                role="assistant",
                content="Patching divide and checking the diff.",
                tool_calls=(
                    call("call_3", "apply_patch", '{"file":"calc/ops.py"}'),
                    call("call_4", "git_diff", "{}"),
                    call("call_5", "fs_read", '{"path":"README.md"}'),
                ),
            ),
            extra={"usage": usage(400, 90)},
        )
        patch = '{"file":"calc/ops.py"}'
        s.append_tool_dispatched(
            "call_3", "apply_patch", patch, idempotency="destructive", run_id="run-2", round=1
        )
        s.append_tool_dispatched(
            call_id="call_4", tool="git_diff", arguments="{}", run_id="run-2", round=1
        )
        ids["t4"] = s.append_message(
            Message(role="tool", content="diff --git a/calc/ops.py", tool_call_id="call_4")
        )
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return ids


_TIMESTAMP = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")


def as_if_written_now(data: bytes, last: float, ago: float) -> bytes:
    """A transcript's bytes with every timestamp moved alike: ``last`` (its last line's
    time, ``written_at``) to ``ago`` seconds ago, as if its writer were at work."""
    shift = time.time() - ago - last

    def moved(match: re.Match[bytes]) -> bytes:
        when = datetime.fromtimestamp((epoch(match.group().decode()) or 0.0) + shift, UTC)
        return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ").encode()

    return _TIMESTAMP.sub(moved, data)
