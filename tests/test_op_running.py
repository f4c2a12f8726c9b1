"""A call not answered (interrupted, or still running) says how long it had run as far
as its file shows, as a lower bound: from its start to its turn's last line (the file's
last, for a turn cut off or going on), in the tool operations' took column and the
detail, which names its latest progress line too (Claude Code's)."""

from __future__ import annotations

import os
import time
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from claude_code_helpers import FMT
from claude_code_writer import CCWriter, text, tool_use
from helpers import SAMPLES, file_loaded, screen_lines, wait_for
from panes_helpers import column
from textual.pilot import Pilot

from session_core.model import Run, ToolOp
from session_core.op_running import ran_at_least, ran_by_call
from session_core.times import epoch, seconds_between
from viewer.app import TailscopeApp
from viewer.screens.model_screen import ModelScreen
from viewer.screens.op_detail import OpDetailScreen, op_entries

SPOTTER = (
    SAMPLES / "claude-code/projects/-home-u-spotter" / "4d5611e5-241a-462a-8d15-5122611a9569.jsonl"
)
T0 = "2026-01-01T00:00:00Z"
needs_samples = pytest.mark.skipif(not SPOTTER.is_file(), reason="../shared/samples is absent")


def _cut_in_bash(tmp_path: Path) -> tuple[Path, CCWriter]:
    """A Bash call cut off after three lines of its output, a line a second; its file's
    writer long gone."""
    w = CCWriter()
    w.user("test it")
    w.assistant("m1", [text("Testing."), tool_use("t1", "Bash", command="mix test")])
    for n in range(3):
        w.progress(
            "t1", {"type": "bash_progress", "output": f"{n} passed", "elapsedTimeSeconds": n}
        )
    path = w.write(tmp_path / "cut.jsonl")
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)
    return path, w


def test_a_call_cut_off_ran_to_its_turns_last_line(tmp_path: Path) -> None:
    path, w = _cut_in_bash(tmp_path)
    t = FMT.open(path, writer_alive=False)
    (op,) = t.tool_operations
    assert (op.state, op.duration, op.progress_line) == ("interrupted", None, 6)
    assert op.progress_ts == w.lines[-1]["timestamp"]
    ran = ran_by_call(t)[(op.call_id, op.line)]
    # (from its line, 3, at 10:00:03, to line 6 at 10:00:06)
    assert (ran.seconds, ran.line, ran.ts, ran.text) == (3.0, 6, w.lines[-1]["timestamp"], "≥3.0s")
    took = dict(entry[1].split(": ", 1) for entry in op_entries(op, ran) if ": " in entry[1])
    assert took["took"] == f"≥3.0s: not answered at its turn's last line (line 6, {ran.ts})"
    assert f"latest progress line: 6 at {ran.ts}" in [entry[1] for entry in op_entries(op, ran)]


def test_a_call_a_later_prompt_left_ran_to_the_line_before_it(tmp_path: Path) -> None:
    """A turn a later prompt ended with its call unanswered: the call ran to the turn's last
    line, not to the file's."""
    w = CCWriter()
    w.user("build it")
    w.assistant("m1", [tool_use("t1", "Bash", command="make")])
    w.progress("t1", {"type": "bash_progress", "output": "cc", "elapsedTimeSeconds": 1})
    w.user("never mind")
    w.assistant("m2", [text("OK.")], stop="end_turn")
    path = w.write(tmp_path / "left.jsonl")
    t = FMT.open(path, writer_alive=False)
    (op,) = t.tool_operations
    ran = ran_by_call(t)[(op.call_id, op.line)]
    assert (op.state, ran.line, ran.ts, ran.seconds) == (
        "interrupted",
        3,
        w.lines[2]["timestamp"],
        1.0,
    )


def test_any_formats_call_not_answered_ran_to_its_runs_end_or_the_files_last_line() -> None:
    """The rule has no format of its own: a run's end where it has one, else (a run still
    going) the file's last line's time; an answered call's own duration is no bound."""
    op = ToolOp("c1", "shell", "interrupted", run_id="r1", started="2026-01-01T00:00:00Z")
    ended = Run("r1", "interrupted", 1, end_line=9, ended="2026-01-01T00:01:05Z")
    ran = ran_at_least(op, [Run("r0", "finished", 0), ended], "2026-01-01T00:09:00Z")
    assert ran is not None and (ran.seconds, ran.line, ran.text) == (65.0, 9, "≥1m05s")
    going = Run("r1", "running", 1)
    op.state = "running"
    ran = ran_at_least(op, [going], "2026-01-01T00:00:02.5Z")
    assert ran is not None and (ran.line, ran.text) == (None, "≥2.5s")
    assert ran_at_least(op, [going], None) is None  # (no time known: nothing said)
    op.state, op.duration = "completed", 4.0
    assert ran_at_least(op, [ended], "2026-01-01T00:09:00Z") is None


async def _took_and_detail(app: TailscopeApp, pilot: Pilot[None]) -> tuple[list[str], str]:
    """The tool operations' one row's took cell, and its detail's text (white space
    folded), opened from it."""
    await file_loaded(pilot, ModelScreen)
    screen = app.file_screen
    await pilot.press("2")  # (the tool operations)
    await wait_for(pilot, lambda: screen.ops.table.row_count == 1)
    took = column(screen.ops.table, "duration")
    screen.ops.table.focus()
    screen.ops.table.move_cursor(0)
    await pilot.pause()
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(app.screen, OpDetailScreen))
    return took, " ".join(" ".join(screen_lines(app)).split())


async def test_the_took_column_and_the_detail_say_the_bound(tmp_path: Path) -> None:
    path, w = _cut_in_bash(tmp_path)
    app = TailscopeApp(path)
    async with app.run_test(size=(160, 40)) as pilot:
        took, shown = await _took_and_detail(app, pilot)
        assert took == ["≥3.0s"]
        assert "took: ≥3.0s: not answered at its turn's last line (line 6," in shown
        assert f"latest progress line: 6 at {w.lines[-1]['timestamp']}" in shown


@needs_samples
def test_the_spotter_sessions_mix_test_cut_at_line_410(tmp_path: Path) -> None:
    """The audit's ``cc-bash``: ``mix test`` (line 382) cut off after 25 s of output, its
    last ``bash_progress`` at line 410 (``elapsedTimeSeconds`` 25)."""
    with SPOTTER.open("rb") as fh:
        head = b"".join(fh.readline() for _ in range(410))
    path = tmp_path / SPOTTER.name
    path.write_bytes(head)
    t = FMT.open(path, writer_alive=False)
    (op,) = [op for op in t.tool_operations if op.state == "interrupted"]
    ran = ran_by_call(t)[(op.call_id, op.line)]
    assert (op.line, op.progress_line, ran.line, ran.ts) == (382, 410, 410, op.progress_ts)
    assert ran.seconds == seconds_between(op.started, "2026-02-12T20:21:04.595Z") >= 25
    assert ran.text == "≥25.8s"


def test_a_call_running_while_its_writer_works_ran_till_now() -> None:
    """While its writer is known to be at work (``now`` given), a call running has run
    from its start till now, in whole seconds: the file's last line said ``≥0s`` for as
    long as a quiet call ran (a live audit: a Read paused 3 minutes read ``≥0s`` while the
    header said "quiet for 2m"). A call interrupted, and a snapshot's, keep the file's."""
    started = "2026-01-01T00:00:00Z"
    op = ToolOp("c1", "shell", "running", run_id="r1", started=started)
    going = Run("r1", "running", 1)
    now = epoch("2026-01-01T00:02:05.7Z")
    assert now is not None
    ran = ran_at_least(op, [going], started, now)
    assert ran is not None and (ran.text, ran.line, ran.now) == ("≥2m05s", None, True)
    assert ran.ts == "2026-01-01T00:02:05Z"
    # (the file's bound alone, 0 s: says nothing, no "≥0s")
    assert ran_at_least(op, [going], started) is None
    # (the file's bound where it is the longer: a clock behind the writer's)
    later = ran_at_least(op, [going], "2026-01-01T00:03:00Z", now)
    assert later is not None and (later.text, later.now) == ("≥3m00s", False)
    op.state = "interrupted"  # (its writer gone: its end is not known past the last line)
    assert ran_at_least(op, [going], started, now) is None
    detail = dict(e[1].split(": ", 1) for e in op_entries(op, ran) if e[1].startswith("took"))
    assert detail["took"] == "≥2m05s: running at 2026-01-01T00:02:05Z, its writer at work"


async def test_the_took_of_a_call_running_goes_on_while_its_writer_works(tmp_path: Path) -> None:
    """The tool operations' row of a call running, its writer holding the file's lock,
    reads the time since its dispatch, and goes on with the screen's tick (no key)."""
    import fcntl
    from datetime import datetime

    import orjson

    def at(seconds_ago: float) -> str:
        when = datetime.fromtimestamp(time.time() - seconds_ago, UTC)
        return when.isoformat().replace("+00:00", "Z")

    def line(kind: str, payload: dict[str, Any], ident: str, ts: str) -> bytes:
        return orjson.dumps({"id": ident, "payload": payload, "ts": ts, "type": kind, "v": 1})

    call = {"function": {"arguments": "{}", "name": "web_fetch"}, "id": "c1", "type": "function"}
    dispatched = {"arguments": "{}", "call-id": "c1", "tool": "web_fetch", "run-id": "r1"}
    path = tmp_path / "t.jsonl"
    dispatched_at = time.time() - 125
    path.write_bytes(
        b"\n".join(
            [
                line("session-meta", {"agent": "a"}, "m0", at(130)),
                line("message", {"content": "go", "role": "user"}, "u1", at(130)),
                line(
                    "message",
                    {"content": "", "role": "assistant", "tool-calls": [call]},
                    "a1",
                    at(126),
                ),
                line("tool-dispatched", dispatched, "op1", at(125)),
            ]
        )
        + b"\n"
    )
    with path.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # (as a ``Session`` writer holds it)
        app = TailscopeApp(path)
        async with app.run_test(size=(160, 30)) as pilot:
            await file_loaded(pilot, ModelScreen)
            app.file_screen.action_show_tab("tools")

            def took() -> str:
                rows = [r for r in screen_lines(app) if "web_fetch" in r and "running" in r]
                return rows[0].split()[-2] if rows else ""  # (took, then the line)

            await wait_for(pilot, lambda: took().startswith("≥2m"))
            first = took()
            # The seconds since its dispatch, as of a tick no later than now (a loaded
            # machine drew 2m07s as the first: its tick came later, not wrong).
            since = time.time() - dispatched_at
            minutes, rest = first.removeprefix("≥").split("m")
            seconds = int(minutes) * 60 + int(rest.removesuffix("s"))
            assert 125 <= seconds <= since, (first, since)
            await wait_for(pilot, lambda: took() != first, timeout=3)
            assert took() > first  # (a second on: ≥2m06s, or ≥2m07s)


def test_a_long_duration_fits_its_cells_coarser_never_cut() -> None:
    from session_core.text import duration_in

    bound = (232 * 24 + 12) * 3600 + 5 * 60 + 9  # (5580h05m)
    assert duration_in(bound, 10, "≥") == "≥5580h05m"
    assert duration_in(bound, 8, "≥") == "≥232d12h"
    assert duration_in(bound, 6, "≥") == "≥232d"
    assert duration_in(3 * 3600 + 5 * 60, 6) == "3h05m" and duration_in(45 * 3600, 4) == "1d"
    assert duration_in(100 * 3600 + 60, 6) == "4d04h" and duration_in(12.3, 3) == "12.3s"
    assert duration_in(None, 6) == "" and duration_in(float("inf"), 6) == ""


@pytest.mark.parametrize("width", [80, 160])
async def test_a_long_running_calls_took_is_never_cut(tmp_path: Path, width: int) -> None:
    """A call cut off 232 days before its file's last line: its took read ``≥5580h5…`` at
    80 columns (a live file's call running since April); it is said coarser, whole."""
    from datetime import datetime, timedelta

    w = CCWriter()
    w.user("test it")
    w.assistant("m1", [text("Testing."), tool_use("t1", "Bash", command="mix test")])
    w.progress("t1", {"type": "bash_progress", "output": "0 passed", "elapsedTimeSeconds": 0})
    start = datetime.fromisoformat(w.lines[-2]["timestamp"].replace("Z", "+00:00"))
    later = start + timedelta(days=232, hours=12, minutes=5)
    w.lines[-1]["timestamp"] = later.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
    path = w.write(tmp_path / "cut.jsonl")
    os.utime(path, (path.stat().st_mtime - 3600,) * 2)
    app = TailscopeApp(path)
    async with app.run_test(size=(width, 24)) as pilot:
        await file_loaded(pilot, ModelScreen)
        screen = app.file_screen
        await pilot.press("2")
        await wait_for(pilot, lambda: screen.ops.table.row_count == 1)
        room = dict((key, w) for key, _, w in screen.ops.table.columns)["duration"]
        (took,) = column(screen.ops.table, "duration")
        assert len(took) <= room and took.startswith("≥232d"), (took, room)
        assert not any("≥5580h" in line and "…" in line for line in screen_lines(app))


async def test_a_web_search_written_once_done_says_its_took_is_not_known(tmp_path: Path) -> None:
    """A Codex ``web_search_call`` is one line, written once the search was done: its
    start is not in the file, so its took is ``?`` (as any operation ended and not timed
    says), never a blank, nor a 0 s timed by one line's time; the detail says why, and
    gives it no start time (it said "started: …" two lines above "its start is not in
    the file"), only when it ended."""
    from codex_writer import searched_once_done

    path = tmp_path / "search.jsonl"
    searched_once_done(path)
    app = TailscopeApp(path)
    async with app.run_test(size=(160, 40)) as pilot:
        took, shown = await _took_and_detail(app, pilot)
        assert took == ["?"]
        assert "took: ? (its call was written once it was done: its start is not in" in shown
        assert "started:" not in shown and "ended: 2026-" in shown


def test_one_rule_times_every_kind_of_operation() -> None:
    """Its writer's timing, else its lines' times apart (a v1 settle with no
    ``duration``); a call that is its own end (one line) is not timed, nor one not ended."""
    from session_core.op_running import not_timed, op_took

    settled = ToolOp("c", "http_post", "outcome-unknown", started=T0, ended=T0[:-3] + "01Z")
    assert (op_took(settled), not_timed(settled)) == (1.0, None)
    settled.duration = 0.25
    assert op_took(settled) == 0.25
    search = ToolOp("w", "web_search", "completed", line=4, started=T0, ended=T0)
    assert op_took(search) is None
    assert (
        not_timed(search) == "its call was written once it was done: its start is not in the file"
    )
    running = ToolOp("r", "shell", "running", started=T0)
    assert (op_took(running), not_timed(running)) == (None, None)
