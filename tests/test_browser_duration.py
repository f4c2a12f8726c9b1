"""The browser's duration column: how long a run ran, from its first line's time to its
last's, in every format, read whole or as head and tail window (not an estimate: the
head's first time and the tail's last are the file's own); unknown where a time is
missing, never 0; sortable, and kept up to date in a live row."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from codex_writer import legacy_story
from format_fixtures import BUILT_IN

from session_core.formats import by_name
from session_core.scan import FileSummary, scan_file
from session_core.scan_live import LiveRows
from session_core.times import seconds_between
from viewer.browser_cells import COLUMNS, cells, duration_cell, sort_key

# Each format's time field, as written on a line (read here apart from the product's rules)
STAMP = {
    "transcript-v1": "ts",
    "agentgo-v1": "time",
    "claude-code": "timestamp",
    "codex": "timestamp",
}
NOW_PAST = 1e9  # (every mtime is fresh: a live row)


def stamps(path: Path, key: str) -> list[str]:
    """Every whole line's time, in the file's order (a crash tail has none)."""
    out = []
    for raw in path.read_bytes().splitlines():
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get(key), str):
            out.append(record[key])
    return out


def shown(summary: FileSummary) -> str:
    return duration_cell(summary).plain


@pytest.mark.parametrize("fmt", sorted(BUILT_IN))
def test_a_row_s_duration_is_its_first_to_last_line(fmt: str, tmp_path: Path) -> None:
    """The time from the started column's to the last active's; within a second of the
    file's first and last lines' times (a Claude Code file's last line is a ``progress``
    line, no item; a Codex session starts at its meta's time, a second before its line)."""
    path = BUILT_IN[fmt](tmp_path)
    times = stamps(path, STAMP[fmt])
    span = seconds_between(times[0], times[-1])
    assert span is not None and span > 10, times
    whole = scan_file(str(path))
    assert whole.started_at is not None
    assert whole.duration == pytest.approx(whole.last_activity - whole.started_at)
    assert whole.duration == pytest.approx(span, abs=1.0)
    windowed = scan_file(str(path), budget=100, window=2_000)
    assert windowed.estimated and windowed.duration == whole.duration
    assert shown(windowed) == shown(whole) and "~" not in shown(whole)
    at = [key for key, _, _ in COLUMNS].index("duration")
    assert cells(whole, 20)[at].plain == shown(whole) != "unknown"


def row(started: str | None, last: str | None, **facts: object) -> FileSummary:
    facts = {"status": "finished", "format": "codex", **facts}
    return FileSummary(path="/x/a.jsonl", started=started, last_ts=last, **facts)  # type: ignore[arg-type]


T0 = "2026-01-01T00:00:00Z"


@pytest.mark.parametrize(
    ("last", "said"),
    [
        ("2026-01-01T00:00:00.250Z", "0.25s"),
        ("2026-01-01T00:04:07Z", "4m07s"),
        ("2026-01-01T02:05:00Z", "2h05m"),
        ("2026-01-05T03:40:00Z", "99h40m"),
        ("2026-01-05T04:00:00Z", "4d04h"),
        ("2026-12-31T00:00:00Z", "364d"),
        ("2999-01-01T00:00:00Z", "355kd"),
    ],
)
def test_a_duration_fits_its_column(last: str, said: str) -> None:
    width = next(w for key, _, w in COLUMNS if key == "duration")
    text = shown(row(T0, last))
    assert text == said and len(text) <= width and len("unknown") <= width


def test_a_duration_not_known_is_unknown_never_0() -> None:
    assert shown(row(T0, None)) == "unknown"
    assert shown(row(None, T0)) == "unknown"
    assert shown(row(T0, "2025-12-31T23:59:00Z")) == "unknown"  # (clocks that disagree)
    assert shown(row(T0, T0)) == "0s"  # (one line: it ran no time, which is known)
    damaged = row(T0, "2026-01-01T00:01:00Z", status="damaged")
    assert shown(damaged) == "1m00s"  # (both its times known: its counts are not)
    assert shown(row(T0, None, status="damaged")) == "—"  # (as its counts: not read)


@pytest.mark.parametrize("fmt", sorted(BUILT_IN))
def test_a_damaged_row_s_duration_where_both_its_times_were_read(fmt: str, tmp_path: Path) -> None:
    """A damaged Claude Code or Codex file's row has read its first and last times (the
    whole file is read past the damage): its duration is the undamaged file's, sorted
    among the others, not ``—`` (session 41's audit); a v1 or agentgo file's read stops
    at the damage, its last time unknown: ``—``, as its counts."""
    path = BUILT_IN[fmt](tmp_path)
    whole = scan_file(str(path))
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3] = b'{"a line" that is not JSON\n'
    path.write_bytes(b"".join(lines))
    damaged = scan_file(str(path))
    assert damaged.status == "damaged" and damaged.format == fmt
    at = [key for key, _, _ in COLUMNS].index("duration")
    said = cells(damaged, 20)[at].plain
    longer = row(T0, "2026-01-01T05:00:00Z")
    order = sorted([longer, damaged], key=sort_key("duration"))
    read_past = fmt in ("claude-code", "codex")  # (their reads go on past the damage)
    assert (damaged.last_ts is not None) == read_past
    if read_past:
        assert said == shown(whole) != "unknown" and damaged.duration == whole.duration
        assert order == [damaged, longer]
    else:
        assert said == "—"
        assert order == [longer, damaged]


def test_rows_sort_by_duration_the_unknown_last() -> None:
    rows = {
        "short": row(T0, "2026-01-01T00:00:05Z"),
        "unknown": row(T0, None),
        "long": row(T0, "2026-01-01T03:00:00Z"),
        "other": FileSummary(path="/x/o.jsonl", started=T0, last_ts="2026-01-02T00:00:00Z"),
    }
    for name, summary in rows.items():
        summary.rel = name
    for reverse, order in ((True, ["long", "short"]), (False, ["short", "long"])):
        key = sort_key("duration", reverse)
        ranked = sorted(rows.values(), key=key, reverse=reverse)
        assert [s.rel for s in ranked][:2] == order
        assert {s.rel for s in ranked[2:]} == {"unknown", "other"}  # (not a transcript: none)


@pytest.mark.parametrize("fmt", sorted(BUILT_IN))
def test_a_live_row_s_duration_grows_with_its_lines(fmt: str, tmp_path: Path) -> None:
    path = BUILT_IN[fmt](tmp_path)
    lines = path.read_bytes().splitlines(keepends=True)
    half = max(2, len(lines) // 2)
    path.write_bytes(b"".join(lines[:half]))
    rows = LiveRows()
    before = scan_file(str(path), now=NOW_PAST)
    with open(path, "ab") as out:
        out.write(b"".join(lines[half:]))
    after = rows.summary(str(path), before, now=NOW_PAST)
    assert after is not None
    assert after.duration == scan_file(str(path), now=NOW_PAST).duration
    assert before.duration is not None and after.duration > before.duration


def test_a_rollout_whose_lines_after_its_header_say_no_time(tmp_path: Path) -> None:
    """A mid-2025 Codex rollout: its bare header alone says a time (its items none). The
    row's duration is unknown, not 0s (the header's time to itself), and its last active
    the file's mtime, not the header's time; the export names no last line's time."""
    path = tmp_path / "rollout-legacy.jsonl"
    legacy_story(path)
    mtime = 1_760_000_000.0  # (later than the header's 2025-08-20)
    os.utime(path, (mtime, mtime))
    summary = scan_file(str(path), now=mtime + 3600)
    assert summary.started == "2025-08-20T13:20:47.060Z"
    assert summary.last_ts is None and summary.duration is None
    assert shown(summary) == "unknown" and summary.last_activity == mtime
    assert by_name("codex").open(path, writer_alive=False).last_time() is None


def test_a_claude_code_prompt_then_untimed_title_lines_keeps_its_time(tmp_path: Path) -> None:
    """The rule above is a bare Codex header's alone (``Transcript.header_timed_alone``):
    a Claude Code prompt's time is when it was written, and the title lines after it
    (``custom-title``, ``summary``: none has a time) take nothing from it. Its last time
    is the prompt's, its duration 0s, and the export names that last line's time."""
    from claude_code_writer import CCWriter

    from session_core.export import export

    w = CCWriter(version="2.1.114")
    w.user("a prompt")
    w.lines.append({"type": "custom-title", "customTitle": "T", "sessionId": w.session})
    w.lines.append({"type": "summary", "summary": "S", "leafUuid": w.last})
    path = w.write(tmp_path / "s.jsonl")
    mtime = 1_760_000_000.0
    os.utime(path, (mtime, mtime))
    at = "2026-03-01T10:00:01.000Z"
    summary = scan_file(str(path), now=mtime + 3600)
    assert (summary.started, summary.last_ts, summary.duration) == (at, at, 0.0)
    assert by_name("claude-code").open(path, writer_alive=False).last_time() == at
    assert f"| last line's time | {at} |" in export(path, "md")
