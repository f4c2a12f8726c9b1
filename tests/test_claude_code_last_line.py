"""A Claude Code file's last line's time is its last line's, where that line is the last of
an item of several lines (a run of progress lines, a response split over lines): the md
export's "last line's time", the browser's last active, ``written_at`` and the end of a
turn cut off in a tool (its progress lines included), read whole or followed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from claude_code_helpers import FMT, both
from claude_code_writer import CCWriter, text, tool_use
from helpers import SAMPLES, follow_into, neutral

from session_core.export import export
from session_core.scan import scan_file
from session_core.times import epoch, seconds_between

SPOTTER = (
    SAMPLES / "claude-code/projects/-home-u-spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
)
needs_samples = pytest.mark.skipif(not SPOTTER.is_file(), reason="../shared/samples is absent")


def _followed_as_read(path: Path, batch: int) -> None:
    """Followed in batches of ``batch`` bytes, each snapshot as the file's first lines
    read whole say; the last, as the whole file."""
    live = FMT.live(str(path))
    follow_into(live.apply, path, batch, FMT.parsed_updates)
    assert neutral(live.transcript(writer_alive=False)) == neutral(
        FMT.open(path, writer_alive=False)
    )


def _cut_in_a_tool(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    """A turn cut off in its Bash call, its file ending in a run of progress lines (its
    bash output, then a hook's), each written a second after the last."""
    w = CCWriter()
    w.user("push it")
    w.assistant("m1", [text("Pushing."), tool_use("t1", "Bash", command="git push")])
    for n in range(3):
        w.progress("t1", {"type": "bash_progress", "output": f"step {n}", "elapsedTimeSeconds": n})
    w.progress("t1", {"type": "hook_progress", "hookEvent": "PostToolUse"})
    return w.write(tmp_path / "cut.jsonl"), w.lines


def test_a_file_ending_in_progress_lines_ends_at_their_last(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, lines = _cut_in_a_tool(tmp_path)
    last = lines[-1]["timestamp"]
    t = both(path, monkeypatch)
    progress = t.raw[-1]  # (lines 4-7: one item)
    assert (progress.kind, progress.line, progress.ts) == ("progress", 4, lines[3]["timestamp"])
    assert progress.end == (7, last)
    assert t.last_time() == last
    assert f"| last line's time | {last} |" in export(path, "md")
    assert FMT.written_at(path) == epoch(last)
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)  # (its writer long gone)
    assert scan_file(path).last_ts == last
    (turn,) = t.runs
    assert (turn.state, turn.end_line, turn.ended) == ("interrupted", 7, last)
    assert turn.duration == seconds_between(lines[0]["timestamp"], last)
    _followed_as_read(path, 1)  # (a snapshot inside the run of progress lines, each line)


def test_a_response_line_after_a_later_item_ends_the_file(tmp_path: Path) -> None:
    """A response's later line written after another item (a result between its blocks)
    is the file's last line: its time is the last line's."""
    w = CCWriter()
    w.user("look")
    w.assistant("m1", [tool_use("t1", "Read", file_path="a")])
    w.result("t1", "a's text")
    w.lines.append({**w.lines[1], "uuid": "late-block", "timestamp": "2026-03-01T10:00:09.000Z"})
    w.lines[-1]["message"] = {**w.lines[1]["message"], "content": [text("Read.")]}
    path = w.write(tmp_path / "split.jsonl")
    t = FMT.open(path, writer_alive=False)
    response = t.raw[1]
    assert (response.line, response.end) == (2, (4, "2026-03-01T10:00:09.000Z"))
    assert t.last_time() == "2026-03-01T10:00:09.000Z"
    _followed_as_read(path, 1)


@needs_samples
def test_the_spotter_session_cut_in_git_push_ends_at_its_last_progress_line(
    tmp_path: Path,
) -> None:
    """The audit's ``cc-midtool``: the spotter session's first 1,485 lines, the last seven
    progress lines of ``git push`` (1,479-1,482 at 21:03:09.065, 1,483-1,485 at 21:03:12)."""
    with SPOTTER.open("rb") as fh:
        head = b"".join(fh.readline() for _ in range(1485))
    path = tmp_path / SPOTTER.name
    path.write_bytes(head)
    last = "2026-02-12T21:03:12.494Z"
    t = FMT.open(path, writer_alive=False)
    assert t.raw[-1].end == (1485, last) and t.last_time() == last
    assert f"| last line's time | {last} |" in export(path, "md")
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)
    assert scan_file(path).last_ts == last and FMT.written_at(path) == epoch(last)
    turn = t.runs[-1]
    assert (turn.state, turn.line, turn.end_line, turn.ended) == ("interrupted", 280, 1485, last)
    assert turn.duration == pytest.approx(2651.687)  # (44m11s)
    _followed_as_read(path, 1 << 14)
