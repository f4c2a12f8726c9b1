"""A compaction that folds the message under the cursor, arriving while the view is
scrolled up: the cursor goes to the first item at or after that message's line (the
compaction's summary, where it is next), not to the end of the view."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import app_loaded, wait_for

from session_core import Message, Session
from story import OLD_MTIME
from viewer.screens.model_screen import ModelScreen


async def test_the_cursor_stays_near_a_message_a_compaction_folds(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    with Session.create(path, meta={"agent": "a"}) as session:
        ids = [
            session.append_message(Message(role=role, content=f"message {n}"))
            for n, role in enumerate(["user", "assistant"] * 12)
        ]
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    async with app_loaded(path, ModelScreen, (100, 30)) as (app, pilot):
        screen = app.screen
        assert isinstance(screen, ModelScreen)
        view = screen.conversation
        await pilot.press("home", "down", "down")  # ("message 2", scrolled up)
        before = view.items[view.cursor]
        assert before.text == "message 2"
        with Session.load(path) as session:
            session.append_compaction("the first ten, summed up", ids[9])
            for n in range(3):
                session.append_message(Message(role="user", content=f"later {n}"))
        await wait_for(pilot, lambda: len(screen.transcript.compactions) == 1)
        await wait_for(pilot, lambda: view.items[view.cursor].text != "message 2")
        now = view.items[view.cursor]
        assert now.line >= before.line
        assert view.cursor < len(view.items) - 1  # (not thrown to the end)
        assert "summed up" in now.text or now.text == "message 10"
