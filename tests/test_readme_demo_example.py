"""The README's console example of ``check`` and ``diff`` on the demo's v1 file is what
they print for it (its ``check`` line still said what it printed before the cut-off run
and the calls never dispatched were said)."""

from __future__ import annotations

import gc
import os
import re
from pathlib import Path

import pytest
from helpers import run_cli

from story import OLD_MTIME
from viewer.demo import simulate_run

README = Path(__file__).resolve().parent.parent / "README.md"


def _printed(command: str) -> str:
    """The first line the README shows ``$ COMMAND`` printing."""
    lines = README.read_text(encoding="utf-8").splitlines()
    return lines[lines.index(f"$ {command}") + 1]


def test_the_readme_check_and_diff_lines_are_what_the_demo_file_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "run.jsonl"
    simulate_run(str(path), speed=0, crash=True)
    gc.collect()  # (its crashed session collected: its lock let go, as its writer is gone)
    os.utime(path, (OLD_MTIME, OLD_MTIME))  # (its writer long gone, as after the demo)
    monkeypatch.chdir(tmp_path)
    code, out, _err = run_cli(capsys, "check", "run.jsonl")
    assert code == 0
    assert out.rstrip("\n") == _printed("tailscope check run.jsonl")
    code, out, _err = run_cli(capsys, "diff", "run.jsonl")
    assert code == 0
    head = out.splitlines()[0]
    assert head == _printed("tailscope diff run.jsonl | head -7")
    assert re.search(r"\b15 messages sent next\b", head)  # (the same file: check's count)
