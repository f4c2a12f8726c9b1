"""One representative file per registered format, for the contract suite (test_contract.py).

``FACTORIES`` maps a format's registered name to a function(tmp_path) -> path of a file of
that format. A format registered in ``session_core.formats`` without a factory here fails
the contract suite: registering a format enrols it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from agentgo_story import write_agentgo_story
from story import OLD_MTIME, write_story


def transcript_v1(tmp_path: Path) -> Path:
    path = tmp_path / "v1.jsonl"
    write_story(path)
    return path


def agentgo_v1(tmp_path: Path) -> Path:
    path = tmp_path / "agentgo.jsonl"
    write_agentgo_story(path)
    return path


def claude_code(tmp_path: Path) -> Path:
    from claude_code_writer import story

    path = story(tmp_path / "claude")
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return path


def codex(tmp_path: Path) -> Path:
    from codex_writer import story

    path = tmp_path / "rollout.jsonl"
    story(path)
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return path


FACTORIES: dict[str, Callable[[Path], Path]] = {
    "transcript-v1": transcript_v1,
    "agentgo-v1": agentgo_v1,
    "claude-code": claude_code,
    "codex": codex,
}
