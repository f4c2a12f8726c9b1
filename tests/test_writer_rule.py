"""Whether a writer is still at work is one rule (``TranscriptFormat.writer_alive``) for
the commands and the viewer: a call without an answer reads the same in both."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from claude_code_writer import CCWriter, text, tool_use
from helpers import app_loaded, run_cli, wait_for

from session_core.formats.base import IDLE_SECONDS
from viewer.screens.following import LIVE_WINDOW
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


async def test_a_quiet_writer_is_idle_and_its_call_still_running_in_both(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Quiet past the viewer's live window, not yet past the idle time: the dot says
    idle, and the call is running where ``check`` says so; past the idle time, both say
    it was cut off (interrupted: ``check``, "1 tool call without a result")."""
    age = (LIVE_WINDOW + IDLE_SECONDS) / 2
    path = unanswered(tmp_path / "s.jsonl", age)
    assert "1 tool call running" in checked(capsys, path)
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        assert screen.live_label() == "idle"
        assert screen.transcript.op_for_call("t1").state == "running"
        then = time.time() - IDLE_SECONDS - 5
        os.utime(path, (then, then))
        screen._live_at = -1.0
        await wait_for(pilot, lambda: screen.transcript.op_for_call("t1").state == "interrupted")
    assert "1 tool call without a result" in checked(capsys, path)
