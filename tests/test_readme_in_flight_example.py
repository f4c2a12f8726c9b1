"""The README's words for what ``check`` counts of calls left without a result are what
``check`` prints (an audit: it said ``1 interrupted`` and ``2 calls interrupted``, words
``check`` no longer prints)."""

from __future__ import annotations

import gc
import os
import re
from pathlib import Path

import pytest
from claude_code_writer import CCWriter
from helpers import run_cli

from session_core.agentgo import AgentGoSession

README = Path(__file__).resolve().parent.parent / "README.md"
OLD = (1_000_000_000, 1_000_000_000)  # (idle long since: its calls are interrupted)


def _examples() -> list[str]:
    """The two quoted in the README's ``check`` counts both (...) sentence."""
    text = " ".join(README.read_text(encoding="utf-8").split())
    said = text[text.index("`check` counts both") :].split(". ", 1)[0]
    return re.findall(r"`([^`]*tool operation[^`]*)`", said)


def _said(example: str) -> re.Pattern[str]:
    """An example as a pattern: its ``(…)`` stands for a parenthesis ``check`` spells out."""
    return re.compile(re.escape(example).replace(re.escape("(…)"), r"\([^)]*\)"))


def _claude_code_in_flight(tmp_path: Path) -> Path:
    w = CCWriter()
    w.user("list the files")
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
    w.assistant("msg_1", [call], usage={"input_tokens": 10, "output_tokens": 5})
    return w.write(tmp_path / "cc.jsonl")


def _agentgo_in_flight(tmp_path: Path) -> Path:
    path = tmp_path / "ag.jsonl"
    session = AgentGoSession.create(path)
    run = session.begin_run()
    turn = {"id": "turn-1", "kind": "model", "attempt": 1}
    calls = [{"type": "tool_call", "id": c, "name": "sh", "arguments": {}} for c in ("c1", "c2")]
    run.record(
        "model_request", {"messages": [], "tools": [], "config": {"model": "m"}}, execution=turn
    )
    message = {"kind": "assistant", "content": calls}
    run.record("model_exec_end", {"message": message, "usage": {}}, execution=turn)
    for c in ("c1", "c2"):
        run.record(
            "tool_exec_start", {"name": "sh"}, execution={"id": c, "kind": "tool", "attempt": 1}
        )
    del run, session  # (its writer gone without a word: its lock freed)
    gc.collect()
    return path


def test_the_readmes_in_flight_counts_are_what_check_prints(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    examples = _examples()
    assert len(examples) == 2, examples
    for example, path in zip(
        examples, [_claude_code_in_flight(tmp_path), _agentgo_in_flight(tmp_path)], strict=True
    ):
        os.utime(path, OLD)
        code, out, _err = run_cli(capsys, "check", str(path))
        assert code == 0 and _said(example).search(out), (example, out)
