"""The exports' Usage table: a total with a subagent left out is a lower bound ("at
least"), but a total that is unknown stays "unknown": a file that reported no usage,
its subagent's file missing, read "0 of at least 3 | at least unknown" (a3's audit)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from format_fixtures import claude_code
from helpers import run_cli


def _no_usage(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _no_usage(v) for k, v in value.items() if k != "usage"}
    if isinstance(value, list):
        return [_no_usage(v) for v in value]
    return value


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_unknown_usage_with_a_subagent_not_read_is_no_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    path = claude_code(tmp_path)
    kept = []
    for line in path.read_text().splitlines(keepends=True):
        try:
            kept.append(json.dumps(_no_usage(json.loads(line))) + "\n")
        except ValueError:  # (its torn last line, as it is)
            kept.append(line)
    path.write_text("".join(kept))
    shutil.rmtree(path.with_suffix("") / "subagents")  # (its subagent's file missing)
    _, check, _ = run_cli(capsys, "check", str(path))
    assert "usage unknown" in check, check
    _, out, _ = run_cli(capsys, "export", "--format", fmt, str(path))
    assert "at least unknown" not in out
    if fmt == "md":
        (row,) = [line for line in out.splitlines() if line.startswith("| with 1 subagent")]
        assert row.endswith("| unknown |"), row
