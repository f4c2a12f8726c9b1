"""What the Codex format's tests share: the format, a rollout of the story in a Codex
day directory (the ``rollout`` fixture), opening it, and its operations' states."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from codex_writer import SESSION, RolloutWriter, Totals, story, subagent

from session_core.formats import by_name
from session_core.model import Transcript

CODEX = by_name("codex")
DAY = ("sessions", "2026", "02", "23")
CHILD = "019c0000-0000-7000-8000-0000000000c1"


def day_dir(root: Path) -> Path:
    return root.joinpath(*DAY)


@pytest.fixture
def rollout(tmp_path: Path) -> Path:
    path = day_dir(tmp_path) / f"rollout-2026-02-23T12-00-00-{SESSION}.jsonl"
    story(path)
    return path


def family(tmp_path: Path, others: int = 0, usage: Totals | None = None) -> tuple[Path, Path]:
    """A parent whose spawn call (after ``others`` shell calls) names its child; the
    parent reports ``usage`` of its own, or none."""
    day = day_dir(tmp_path)
    parent = day / f"rollout-2026-02-23T12-00-00-{SESSION}.jsonl"
    w = RolloutWriter(parent)
    w.session_meta()
    w.task_started("t1")
    w.turn_context("t1")
    w.message("user", "send a scout")
    for n in range(others):
        w.function_call("shell", {"command": ["ls"]}, f"sh{n}")
        w.function_output(f"sh{n}", "a.txt")
    w.function_call("spawn_agent", {"message": "look around"}, "sp1")
    w.function_output("sp1", orjson.dumps({"agent_id": CHILD}).decode())
    if usage is not None:
        w.token_count(usage)
    w.task_complete("t1")
    name = f"rollout-2026-02-23T12-00-05-{CHILD}.jsonl"
    subagent(str(day), SESSION, CHILD, name)
    return parent, day / name


def opened(path: Path, alive: bool | None = None) -> Transcript:
    return CODEX.open(path, writer_alive=alive)


def ops_by_call(t: Transcript) -> dict[str, str]:
    return {op.call_id: op.state for op in t.tool_operations}
