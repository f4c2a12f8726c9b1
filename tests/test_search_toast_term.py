"""The search's toast names the term as it was typed, as the header shows it: it was
its Python repr, every backslash doubled (review 2: ``/hello \\u200dworld`` said
``0 matches for 'hello \\\\u200dworld'``). A zero-width joiner that joins nothing is
drawn ``\\u200d``, and that term, as drawn, finds it (``fold.folder``)."""

from __future__ import annotations

import os
from pathlib import Path

from claude_code_writer import CCWriter, text
from helpers import said, screen_text
from model_screen_helpers import IDLE, opened, until


async def test_the_toast_says_the_term_as_typed_and_the_drawn_joiner_is_found(
    tmp_path: Path,
) -> None:
    w = CCWriter()
    w.user("hello \u200dworld foo bar")
    w.assistant("m1", [text("Done.")], stop="end_turn")
    path = w.write(tmp_path / "s.jsonl")
    os.utime(path, (IDLE, IDLE))
    async with opened(path) as (app, pilot, _screen):
        assert "hello \\u200dworld" in screen_text(app)  # (drawn so)
        await pilot.press("slash", *"hello \\u200dworld", "enter")
        await until(pilot, lambda: said(app, "1 match for 'hello \\u200dworld'"), "the toast")
        assert not said(app, "\\\\")
        assert "/hello \\u200dworld: 1/1" in screen_text(app)
        await pilot.press("slash", *"zzqq\\x", "enter")
        await until(pilot, lambda: said(app, "0 matches for 'zzqq\\x'"), "none")
