"""Whether a writer is still at work is one rule (``TranscriptFormat.writer_alive``) for
the commands and the viewer: a call without an answer reads the same in both."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use
from helpers import app_loaded, run_cli, screen_lines, wait_for

from corpus import write_v1
from session_core.formats.base import IDLE_SECONDS
from session_core.scan import scan_file
from viewer.browser_cells import detail
from viewer.screens.model_screen import ModelScreen

SIZE = (120, 24)


def unanswered(path: Path, age: float) -> Path:
    w = CCWriter()
    w.user("run it")
    w.assistant("m1", [text("Running."), tool_use("t1", "Bash", command="sleep 600")])
    w.write(path)
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def checked(capsys: pytest.CaptureFixture[str], path: Path) -> str:
    code, out, _err = run_cli(capsys, "check", str(path))
    assert code == 0
    return out


async def test_a_quiet_writer_is_live_and_its_call_running_in_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Quiet for a minute, not yet past the idle time: the dot says live (quiet for 1m,
    not "idle" beside a call running: it said idle from 30 s on), and the call is running
    where ``check`` says so; past the idle time, both say it was cut off (interrupted:
    ``check``, "1 tool call without a result")."""
    path = unanswered(tmp_path / "s.jsonl", 60)
    assert "1 tool call running" in checked(capsys, path)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        assert screen.live_label() == "live"
        await wait_for(pilot, lambda: "● live · quiet for 1m" in screen_lines(app)[1])
        assert screen.transcript.op_for_call("t1").state == "running"
        then = time.time() - IDLE_SECONDS - 5
        os.utime(path, (then, then))
        screen._live_at = -1.0
        await wait_for(pilot, lambda: screen.transcript.op_for_call("t1").state == "interrupted")
        assert screen.live_label() == "idle"
    assert "1 tool call without a result" in checked(capsys, path)


def torn(path: Path, age: float) -> Path:
    """A Claude Code session whose last line is cut (no newline), its call unanswered,
    last written ``age`` seconds ago (a writer that takes no lock)."""
    unanswered(path, 0)
    with path.open("ab") as fh:
        fh.write(b'{"type":"assistant","message":{"id":"m2","content":[{"type":"te')
    then = time.time() - age
    os.utime(path, (then, then))
    return path


async def test_an_unfinished_last_line_is_a_crash_tail_once_its_calls_are_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A lock-less file quiet between 30 s and two minutes: the viewer's warnings called
    its unfinished last line a crash tail (the writer gone) while its header said the
    call running and the dot idle, the browser's row said live, and ``check`` said
    running and crash tail together at any age. One rule now: while the writer may be at
    work, the line is held back (not a crash tail) on every surface, the call running,
    the dot and the row live; once it is not, all of them say it gone."""
    path = torn(tmp_path / "s.jsonl", 60)
    said = checked(capsys, path)
    assert "1 tool call running" in said and "crash tail" not in said, said
    assert "line 4 has no newline yet (63 bytes): held back while the writer may" in said
    row = scan_file(path)
    assert row.status == "live", row
    assert "may still be at work (no lock; written to 1m ago, idle once quiet 2m)" in str(
        detail(row, str(path))
    )
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        assert screen.live_label() == "live"
        assert screen.transcript.op_for_call("t1").state == "running"
        assert not any("crash tail" in w for w in screen.transcript.warnings)
        then = time.time() - IDLE_SECONDS - 5
        os.utime(path, (then, then))
        screen._live_at = -1.0
        await wait_for(pilot, lambda: screen.transcript.op_for_call("t1").state == "interrupted")
        assert screen.live_label() == "idle"
        assert any(
            "line 4 has no newline: the writer left it" in w for w in screen.transcript.warnings
        )
    said = checked(capsys, path)
    assert "1 tool call without a result" in said and "(a crash tail)" in said, said
    assert scan_file(path).status == "crashed"


def test_a_v1_check_holds_an_unfinished_last_line_back_while_its_writer_may_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """v1's check (its own read) says the line by the same rule: held back while a
    writer that takes no lock may be at work, a crash tail once it is not."""
    path = tmp_path / "run.jsonl"
    write_v1(path)
    with path.open("ab") as fh:
        fh.write(b'{"type":"message","ts":"2026-01-01T00:00:0')
    for age, said in ((60, "has no newline yet (42 bytes): held back"), (600, "(a crash tail)")):
        then = time.time() - age
        os.utime(path, (then, then))
        out = checked(capsys, path)
        assert said in out, out
        assert ("crash tail" in out) == (age > IDLE_SECONDS), out
