"""A live browser row (``scan_live.LiveRows``) of a file whose last line is whole but has
no newline: the row is a fresh scan's while its writer may be at work and once it is gone,
and counts that line where the format's whole read (``check``, ``replay``) keeps it
(``keeps_unended_line``), agentgo's alone leaving it unread."""

from __future__ import annotations

import dataclasses
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from format_fixtures import BUILT_IN
from helpers import SAMPLES, run_cli

from session_core.formats import by_name
from session_core.scan import FileSummary, LockTable, scan_file
from session_core.scan_live import LiveRows

NOW_PAST = 1e9  # every mtime is fresh: the writer may be at work
COUNTS = ("messages", "tool_calls", "tokens", "cost", "pending", "last_ts")
REAL = {
    "claude-code": "claude-code/projects/-experiments-worktrees/"
    "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl",
    "codex": "codex/sessions/2026/02/23/"
    "rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl",
}


def counts(row: FileSummary) -> tuple[object, ...]:
    return tuple(getattr(row, name) for name in COUNTS)


def scanned(path: Path, lines: list[bytes], *, now: float) -> FileSummary:
    path.write_bytes(b"".join(lines))
    return scan_file(str(path), now=now, locks=LockTable(""))


def counted_line(path: Path, lines: list[bytes]) -> int:
    """The last line (its index) whose being read changes the row's counts."""
    later = time.time() + 3600
    for last in range(len(lines) - 1, 2, -1):
        if counts(scanned(path, lines[:last], now=later)) != counts(
            scanned(path, lines[: last + 1], now=later)
        ):
            return last
    raise AssertionError(f"no line of {path} changes its row")


def real_sample(fmt: str) -> Callable[[Path], Path]:
    def copy(folder: Path) -> Path:
        source = SAMPLES / REAL[fmt]
        if not source.exists():
            pytest.skip(f"no sample at {source}")
        return Path(shutil.copyfile(source, folder / source.name))

    return copy


CASES: dict[str, Callable[[Path], Path]] = dict(BUILT_IN)
CASES.update({f"{fmt} sample": real_sample(fmt) for fmt in sorted(REAL)})


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_row_ending_in_a_whole_line_without_newline_is_a_fresh_scan_s(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = CASES[case](tmp_path)
    lines = [line for line in path.read_bytes().splitlines(keepends=True) if line.endswith(b"\n")]
    last = counted_line(path, lines)
    # The row shown, then the lines before it appended, then the line without its newline
    # (its writer at work): the row followed, then read with its held line.
    rows = LiveRows()
    row = scanned(path, lines[: last - 1], now=NOW_PAST)
    for more in (lines[last - 1], lines[last][:-1]):
        with path.open("ab") as out:
            out.write(more)
        row = rows.summary(str(path), row, now=NOW_PAST)
        assert row.status in ("live", "crashed"), row  # (agentgo's: live only while locked)
    assert dataclasses.asdict(row) == dataclasses.asdict(scan_file(str(path), now=NOW_PAST))
    # Its writer gone (long after, no lock), the file unchanged:
    later, none = time.time() + 3600, LockTable("")
    row = rows.summary(str(path), row, now=later, locks=none)
    assert row.status != "live"
    assert dataclasses.asdict(row) == dataclasses.asdict(
        scan_file(str(path), now=later, locks=none)
    )
    held = path.read_bytes()
    ended = counts(scanned(path, lines[: last + 1], now=later))
    unread = counts(scanned(path, lines[:last], now=later))
    path.write_bytes(held)
    fmt = by_name(row.format or "")
    assert counts(row) == (ended if fmt.keeps_unended_line else unread)
    assert row.crash_tail is not fmt.keeps_unended_line
    _, said, _ = run_cli(capsys, "check", str(path))
    assert ("it is not read (a crash tail)" in said) is not fmt.keeps_unended_line, said
