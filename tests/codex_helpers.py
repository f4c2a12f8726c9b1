"""What the Codex format's tests share: the format, a rollout of the story in a Codex
day directory (the ``rollout`` fixture), opening it, and its operations' states."""

from __future__ import annotations

from pathlib import Path

import pytest
from codex_writer import SESSION, story

from session_core.formats import by_name
from session_core.model import Transcript

CODEX = by_name("codex")
DAY = ("sessions", "2026", "02", "23")


def day_dir(root: Path) -> Path:
    return root.joinpath(*DAY)


@pytest.fixture
def rollout(tmp_path: Path) -> Path:
    path = day_dir(tmp_path) / f"rollout-2026-02-23T12-00-00-{SESSION}.jsonl"
    story(path)
    return path


def opened(path: Path, alive: bool | None = None) -> Transcript:
    return CODEX.open(path, writer_alive=alive)


def ops_by_call(t: Transcript) -> dict[str, str]:
    return {op.call_id: op.state for op in t.tool_operations}
