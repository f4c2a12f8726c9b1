"""What the bad-input tests share: a valid transcript written with ``Session`` from a list
of operations, and how a refusal must look from ``Session.load`` and ``tailscope replay``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import run_cli

from session_core import Message, Session, TranscriptError
from session_core.codec import section_digest


def build(path: Path, ops: list[tuple[Any, ...]]) -> None:
    """Write a valid transcript at ``path`` from a list of operations."""
    with Session.create(path, meta={"agent": "tést", "n": len(ops)}) as s:
        live: list[str] = []
        calls = 0
        for op in ops:
            kind = op[0]
            if kind == "msg":
                live.append(s.append_message(Message(role=op[1], content=op[2])))
            elif kind == "sticky":
                live.append(s.append_message(Message(role="system", content=op[1], sysprompt=True)))
            elif kind == "tool":
                calls += 1
                cid = f"call_{calls}"
                args = orjson.dumps({"q": op[1]}).decode()
                call = {"id": cid, "type": "function", "function": {"name": "t", "arguments": args}}
                live.append(
                    s.append_message(
                        Message(role="assistant", content="", tool_calls=(call,)),
                        extra={"usage": {"total-tokens": 3}, "reasoning": op[1]},
                    )
                )
                opid = s.append_tool_dispatched(
                    call_id=cid, tool="t", arguments=args, idempotency="read-only", run_id="r1"
                )
                if op[2]:
                    live.append(
                        s.append_message(Message(role="tool", content=op[1], tool_call_id=cid))
                    )
                if op[3]:
                    s.append_tool_settled(op_id=opid, outcome="completed", duration=0.5)
            elif kind == "compact" and live:
                through = live[len(live) // 2]
                s.append_compaction(summary=op[1], replaces_through_id=through, tokens_before=9)
                live = s.message_ids()
            elif kind == "elide" and live:
                s.append_elision([{"id": live[-1], "stub": op[1] or "[elided]"}])
            elif kind == "context":
                s.append_run_context(
                    run_id="r1",
                    digest="d" + str(len(op[1])),
                    facts=[("date", "2026-08-09"), ("note", op[1])],
                    sections=[
                        {"name": "id", "digest": section_digest("id", op[1]), "rendered": op[1]}
                    ],
                )
            elif kind == "grants":
                s.append_grants([{"tool": "fs_read", "scope": op[1]}])
            elif kind == "event":
                s.append_event(type="x-note", payload={"text": op[1]})


def assert_names_where(err: TranscriptError, path: Path) -> None:
    text = str(err)
    assert str(path) in text, text
    if err.line is not None:
        assert f"line {err.line}" in text, text


def check_replay_cli(
    capsys: pytest.CaptureFixture[str], path: Path, expect: int | None = None
) -> dict[str, Any] | None:
    """``tailscope replay PATH``: its view (exit 0) or None (exit 1, one line of error).
    ``expect``: the exit status this input is known to give (None: random damage,
    either)."""
    regular = path.is_file()
    before = path.read_bytes() if regular else None
    code, out, err = run_cli(capsys, "replay", str(path))
    assert (path.read_bytes() if regular else None) == before
    assert code in (0, 1), (code, err)
    if expect is not None:
        assert code == expect, (code, err)
    assert "Traceback" not in err
    if code == 1:
        assert out == ""
        assert err.endswith("\n") and err.count("\n") == 1, err
        assert err.startswith("tailscope: ")
        return None
    view = orjson.loads(out)
    assert isinstance(view, dict)
    return view


def load_error(path: Path) -> TranscriptError:
    with pytest.raises(TranscriptError) as info:
        Session.load(path)
    assert_names_where(info.value, path)
    return info.value
