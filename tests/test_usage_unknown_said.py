"""Unknown is never shown as 0 or left blank: a response that reported no usage says
so in every format's export (``usage: unknown (not reported)``: v1's alone did)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, usage
from codex_writer import RolloutWriter

from session_core.agentgo import AgentGoSession
from session_core.export import export
from story import OLD_MTIME

NOT_REPORTED = "usage: unknown (not reported)"


def _without_usage(w: CCWriter, msg_id: str) -> None:
    """Response ``msg_id``'s lines with no ``usage`` key at all."""
    for line in w.lines:
        message = line.get("message")
        if isinstance(message, dict) and message.get("id") == msg_id:
            del message["usage"]


def claude_code_file(path: Path) -> None:
    """Turn 1: a response that reported, one that did not; turn 2: one that did not."""
    w = CCWriter()
    w.user("first")
    w.assistant("m1", [text("reported")], usage=usage(100, 20), stop="end_turn")
    w.assistant("m2", [text("not reported")], stop="end_turn")
    w.user("second")
    w.assistant("m3", [text("not reported either")], stop="end_turn")
    _without_usage(w, "m2")
    _without_usage(w, "m3")
    w.write(path)


def codex_file(path: Path) -> None:
    """The same turns in a rollout: a report with no usage after a model output."""
    w = RolloutWriter(path)
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "first")
    w.message("assistant", "reported")
    w.token_count((1000, 0, 120, 0))
    w.message("assistant", "not reported")
    w.token_count(None)
    w.task_complete("t1")
    w.task_started("t2")
    w.turn_context("t2")
    w.message("user", "second")
    w.message("assistant", "not reported either")
    w.token_count(None)
    w.task_complete("t2")


def agentgo_file(path: Path) -> None:
    """Two runs: a model call that reported and one that did not; one that did not."""

    def call(run: object, n: int, reported: bool) -> None:
        execution = {"id": f"m{n}", "kind": "model", "attempt": 1}
        answer = {"kind": "assistant", "content": [{"type": "text", "text": f"a{n}"}]}
        end: dict[str, object] = {"message": answer}
        if reported:
            end["usage"] = {"input_tokens": 100, "output_tokens": 20}
        run.record("model_request", {"messages": []}, execution=execution)  # type: ignore[attr-defined]
        run.record("model_exec_end", end, execution=execution)  # type: ignore[attr-defined]
        run.record("message_end", {"message": answer})  # type: ignore[attr-defined]

    with AgentGoSession.create(path) as s:
        for calls in ((True, False), (False,)):
            run = s.begin_run()
            run.record("agent_start")
            prompt = {"kind": "user", "content": [{"type": "text", "text": "go"}]}
            run.record("message_end", {"message": prompt})
            for n, reported in enumerate(calls):
                call(run, n, reported)
            run.record("agent_end", {})
            run.close()


WRITERS = [claude_code_file, codex_file, agentgo_file]


def _written(tmp_path: Path, write: Callable[[Path], None]) -> Path:
    path = tmp_path / "session.jsonl"
    write(path)
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # (no writer presumed at work)
    return path


@pytest.mark.parametrize("write", WRITERS)
@pytest.mark.parametrize("form", ["md", "html"])
def test_a_response_that_reported_no_usage_says_so_in_every_export(
    tmp_path: Path, write: Callable[[Path], None], form: str
) -> None:
    """Two of the three responses reported nothing: each says so; a prompt, no response,
    says nothing of usage."""
    said = export(_written(tmp_path, write), form).replace("\\", "")  # (md escapes)
    assert said.count(NOT_REPORTED) == 2, said
