"""The header says when a writer seen at work has gone quiet (``quiet for 2m``): by its
last write, once half a minute has passed; never of a file whose writer was not seen at work,
and no more once it writes again."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from helpers import app_loaded, screen_text, wait_for

from session_core import Message, Session
from story import OLD_MTIME
from viewer.screens.model_screen import ModelScreen
from viewer.widgets import model_status
from viewer.widgets.model_status import age_text, quiet_text

SIZE = (120, 20)


def test_how_long_it_says() -> None:
    assert [age_text(s) for s in (0, 59.9, 60, 3599, 3600, 86399, 86400 * 3)] == [
        "0s",
        "59s",
        "1m",
        "59m",
        "1h",
        "23h",
        "3d",
    ]
    assert quiet_text(None, 1000.0) == ""  # not known: nothing said
    assert quiet_text(1000.0, 1029.0) == ""  # under half a minute: nothing said
    # (from half a minute on: a writer that takes no lock is live two minutes, the one
    # rule, and how long it has been quiet is said meanwhile)
    assert quiet_text(1000.0, 1040.0) == "quiet for 40s"
    assert quiet_text(1000.0, 1000.0 + 125) == "quiet for 2m"


async def test_a_writer_seen_at_work_then_quiet_is_said_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_status, "QUIET_AFTER", 1.0)  # (a minute, in use)
    path = tmp_path / "run.jsonl"
    with Session.create(path, meta={"agent": "a"}) as session:  # it holds the lock: live
        session.append_message(Message(role="user", content="go"))
        async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
            assert "quiet for" not in screen_text(app)
            quiet = re.compile(r"quiet for \d+s")
            await wait_for(pilot, lambda: quiet.search(screen_text(app)), timeout=6)
            session.append_message(Message(role="assistant", content="still here"))
            await wait_for(pilot, lambda: "quiet for" not in screen_text(app), timeout=6)


async def test_a_file_whose_writer_was_never_seen_says_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(model_status, "QUIET_AFTER", 0.0)
    path = tmp_path / "old.jsonl"
    with Session.create(path, meta={"agent": "a"}) as session:
        session.append_message(Message(role="user", content="go"))
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, SIZE) as (app, pilot):
        await pilot.pause(1.5)  # (the header is drawn again each second)
        assert "idle" in screen_text(app) and "quiet" not in screen_text(app)
    assert time.time() - os.stat(path).st_mtime > 3600  # (nothing wrote to it)
