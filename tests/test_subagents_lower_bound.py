"""A Claude Code session's usage with its subagents where some are not counted (their
files missing) or read in part: one rule, ``Transcript.subagents_left_out``, on every
surface (audit P, session 41: the export said "37 of 37" and no "at least" where the
browser said ``≥``; with no subagent file at all its total row read like the subagents'
own usage; ``replay`` said ``usage-with-subagents-partial: False`` for one read in part)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import orjson
import pytest
from helpers import SAMPLES, run_cli

from session_core.scan import scan_file
from viewer.browser_cells import detail

PROJECTS = SAMPLES / "claude-code" / "projects"
TEAM = PROJECTS / "-experiments-worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
SPOT = PROJECTS / "-home-u-spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"

pytestmark = pytest.mark.skipif(
    not TEAM.is_file() or not SPOT.is_file(), reason="../shared/samples is absent"
)


def _old(path: Path) -> Path:
    gone = time.time() - 86400  # (no writer)
    os.utime(path, (gone, gone))
    return path


def _surfaces(
    capsys: pytest.CaptureFixture[str], path: Path
) -> tuple[str, str, dict[str, object], str]:
    _, check, _ = run_cli(capsys, "check", str(path))
    _, md, _ = run_cli(capsys, "export", "--format", "md", str(path))
    _, replay, _ = run_cli(capsys, "replay", str(path))
    row = scan_file(path, live_window=0)
    assert row.tokens_partial and row.cost_partial  # (the row's ≥)
    return check, md, orjson.loads(replay), detail(row, str(path)).plain


def test_subagent_files_missing_make_every_total_a_lower_bound(
    capsys: pytest.CaptureFixture[str],
) -> None:
    check, md, replay, line = _surfaces(capsys, TEAM)  # (1 of its 6 subagents' files)
    assert "with 1 of 6 subagents at least 1,592,889 tok · $3.1845" in check
    assert "| with 1 of 6 subagents | 37 of at least 37 | at least 1,592,889 tok" in md
    assert replay["usage-with-subagents-partial"] is True
    assert "tokens and cost at least: 5 subagents not counted" in line
    assert "not every response counted" not in line  # (every one read reported)


def test_no_subagent_file_is_no_row_of_their_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _old(Path(shutil.copy(TEAM, tmp_path / TEAM.name)))
    _, md, replay, line = _surfaces(capsys, path)
    total = "| with 6 subagents, none of their files read | 17 of at least 17 | at least 855,058"
    assert total in md and "| 6 subagents, none of their files read |" not in md
    assert replay["usage-with-subagents-partial"] is True
    assert "tokens and cost at least: 6 subagents not counted" in line


def test_a_subagent_read_in_part_is_a_lower_bound_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _old(Path(shutil.copy(SPOT, tmp_path / SPOT.name)))
    subs = tmp_path / SPOT.stem / "subagents"
    shutil.copytree(SPOT.parent / SPOT.stem / "subagents", subs)
    scout = subs / "agent-a2898e3.jsonl"
    kept = scout.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[0]
    scout.write_bytes(kept + b"\n" + b'{"type": "assistant", "mess')  # (a crash tail)
    for sub in subs.iterdir():
        _old(sub)
    check, md, replay, line = _surfaces(capsys, path)
    assert "with 2 subagents (1 read in part) at least " in check
    assert "| with 2 subagents \\(1 read in part\\) | 151 of at least 151 | at least " in md
    assert replay["usage-with-subagents-partial"] is True  # (was False)
    assert "tokens and cost at least: 1 subagent read in part" in line


def test_a_damaged_row_says_nothing_of_a_usage_it_does_not_show(tmp_path: Path) -> None:
    """A damaged file's counts are ``—``: its line under the table says no "tokens and
    cost at least" beside them."""
    from viewer.browser_cells import cells

    lines = TEAM.read_bytes().split(b"\n")
    path = tmp_path / TEAM.name
    path.write_bytes(b"\n".join([*lines[:50], b"{not json", *lines[50:]]))
    _old(path)
    row = scan_file(path, live_window=0)
    assert row.status == "damaged"
    line = detail(row, str(path)).plain
    assert "line 51" in line and "at least" not in line and "usage" not in line
    assert [c.plain for c in cells(row, 40)[6:10]] == ["—"] * 4
