"""A text of only whitespace draws as blank lines, which say nothing: the conversation
says what it is instead, folded and unfolded, in the rows its item was measured at."""

from __future__ import annotations

import os
from pathlib import Path

from helpers import screen_lines
from test_model_screen import opened, until

from session_core import Message, Session

IDLE = 1_700_000_000


def blank_texts(path: Path) -> Path:
    with Session.create(path, meta={"agent": "blank"}) as session:
        session.append_message(Message(role="user", content="say nothing"))
        session.append_message(Message(role="assistant", content="\n\n"))
        session.append_message(Message(role="assistant", content="\n\n\n\nlater words"))
        session.append_message(Message(role="user", content="done"))
    os.utime(path, (IDLE, IDLE))
    return path


async def test_blank_text_is_said_not_drawn_as_blank_lines(tmp_path: Path) -> None:
    path = blank_texts(tmp_path / "t.jsonl")
    async with opened(path, size=(100, 30)) as (app, pilot, screen):
        view = screen.conversation
        lines = screen_lines(app)
        assert any("(blank text: '\\n\\n')" in line for line in lines), lines
        assert any("(blank lines, then more: enter)" in line for line in lines), lines
        blank = next(i for i, item in enumerate(view.items) if item.text == "\n\n")
        folded = view.block_lines(blank, 100)
        assert len(folded) == view.block_height(blank, 100) == 4  # a header, 3 rows
        view.move_to(blank)
        await pilot.press("enter")
        await until(pilot, lambda: view.expanded, "the blank item unfolded")
        unfolded = [line.plain for line in view.block_lines(blank, 100)]
        assert unfolded[1:] == ["  (blank text: '\\n\\n')"]
