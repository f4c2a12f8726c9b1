"""A line that cannot be read is damage unless it is the last, for the browser's row as
for ``check``, in every format, whether the row read the file whole or its head and tail:
a Claude Code or Codex file with a line cut in half in its middle (its last line whole)
was listed ``crashed`` with "an unfinished last line" (the last warning was taken for the
last line's, whichever line it named)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest

import session_core.scan as scan
from session_core.formats import TranscriptFormat
from session_core.scan import scan_file
from viewer.cli import main

OLD = 1_600_000_000  # (no writer at work: not live)
WINDOWED = {"budget": 600, "window": 1_200}  # (a head and a tail read, not the whole)


def _lines(sample: Path) -> list[bytes]:
    """The sample's lines, but a torn last line (Claude Code's sample ends in one)."""
    lines = sample.read_bytes().rstrip(b"\n").split(b"\n")
    try:
        orjson.loads(lines[-1])
    except orjson.JSONDecodeError:
        lines.pop()
    return lines


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    os.utime(path, (OLD, OLD))
    return path


def _cut_at(sample: Path, at: int) -> Path:
    """The sample with its line ``at`` (0-based) cut in half; every other line whole."""
    lines = _lines(sample)
    lines[at] = lines[at][: len(lines[at]) // 2]
    return _write(sample.with_name(f"cut{sample.suffix}"), b"\n".join(lines) + b"\n")


def _near_the_end(sample: Path) -> int:
    """A line in the tail a windowed read takes, not the last: two lines before it."""
    return len(_lines(sample)) - 3


@pytest.mark.parametrize("read", ["whole", "windowed"])
def test_a_line_cut_in_the_middle_is_damage_in_the_row_as_check_says(
    fmt: TranscriptFormat, sample: Path, read: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = len(_lines(sample)) // 2 if read == "whole" else _near_the_end(sample)
    path = _cut_at(sample, at)
    if read == "windowed":
        monkeypatch.setattr(scan, "HEAD", 400)  # (the head read ends before the tail's)
        assert path.stat().st_size > WINDOWED["budget"] + WINDOWED["window"]
    row = scan_file(path, **(WINDOWED if read == "windowed" else {}))
    assert row.estimated == (read == "windowed")
    assert (row.status, row.crash_tail) == ("damaged", False), (row.status, row.reason)
    assert "unfinished last line" not in (row.reason or "")
    if read == "whole":
        assert (row.reason or "").startswith(f"line {at + 1}: "), row.reason
    else:  # (no line of the file's: a windowed read counts from its window, in every format)
        assert re.search(r"\(line \d+ of the last [\d,]+ bytes read\)$", row.reason or "")
    assert main(["check", str(path)]) == 1


@pytest.mark.parametrize("read", ["whole", "windowed"])
def test_a_torn_last_line_alone_is_a_crash_tail(
    fmt: TranscriptFormat, sample: Path, read: str
) -> None:
    lines = _lines(sample)
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    path = _write(sample.with_name(f"torn{sample.suffix}"), b"\n".join(lines))
    row = scan_file(path, **(WINDOWED if read == "windowed" else {}))
    assert (row.status, row.crash_tail) == ("crashed", True), (row.status, row.reason)
    assert main(["check", str(path)]) == 0


def test_a_whole_last_line_that_is_not_json_is_a_crash_tail_for_a_model_format(
    tmp_path: Path,
) -> None:
    """The real Claude Code sample with its last line's end cut off but its newline kept
    (as the audit's copies, the other way round): the last line, so a crash tail."""
    from format_fixtures import FACTORIES

    sample = FACTORIES["claude-code"](tmp_path)
    lines = _lines(sample)
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    path = _write(tmp_path / "end.jsonl", b"\n".join(lines) + b"\n")
    row = scan_file(path)
    assert (row.status, row.crash_tail) == ("crashed", True), (row.status, row.reason)
    assert main(["check", str(path)]) == 0
